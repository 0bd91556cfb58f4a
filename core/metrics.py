"""The metric registry: every metric a model reports, once.

Each :class:`Metric` says what a name is: its label ("Peak slider acceleration"), the SI unit
it is stored and sent in (the database, ``--json``, the API: design.md 4.1), the unit a person
is shown and the factor to it (``max_penetration``: m stored, µm shown, x 1e6), whether it is
a count, a text, one of the headline metrics of a study's table, a column of the results
table, and whether a case has a deviation of it from its ideal twin. The lists other layers
need are derived from it - the headline columns of the CLI and the pages, the results table's
metric columns, the trends' metrics, the rerun's compared metrics, the twin deviations, and
the one unit convention of the CLI's tables and the pages' labels - so a new metric is one
:class:`Metric` line in :data:`REGISTRY`.

Names that are families rather than entries resolve by pattern (:func:`lookup`):
``<metric>_steady`` (the last crank revolution), ``deviation_<metric>`` (relative to the ideal
twin, dimensionless), ``ratio_to_ideal_<metric>`` (over the ideal twin's value),
``<metric>.<joint>`` (one clearance joint of a mechanism with several,
design.md 4.7) and a mechanism measure's ``peak_<measure>``, ``rms_<measure>`` and
``peak_<measure>_steady`` (:func:`measure_metrics` gives them their unit). A name nothing
knows still gets an entry (titled from its words, no unit), so no page fails on a metric it
has not heard of.

This module imports nothing heavy: the web's labels and the CLI read it without a solver.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass, replace

DIMENSIONLESS = "–"  # the unit shown for a ratio (a label says "[–]")
COUNT = "count"
MICROMETRE = "µm"
STEADY = "_steady"  # the last crank revolution (design.md 4.1)
DEVIATION = "deviation_"  # relative to the ideal twin: m / m_twin - 1
RATIO = "ratio_to_ideal_"  # m / m_twin: "at what clearance does the peak double?"
JOINT_SEPARATOR = "."  # ``peak_contact_force.piston_pin``: one joint of several (design.md 4.7)


def per_joint(name: str, joint: str) -> str:
    """The name of series or metric ``name`` of clearance joint ``joint``: ``name.joint``
    (``poincare_eccentricity_x.piston_pin``, ``peak_contact_force.crank_pin``); ``name`` for
    ``joint == ""``, the single unnamed joint of a built-in model. The one naming rule of
    per-joint names: the solver, the described mechanisms and the pages all use it."""
    return f"{name}{JOINT_SEPARATOR}{joint}" if joint else name


def joint_of(name: str, stem: str) -> str | None:
    """The joint a name of :func:`per_joint` with base ``stem`` belongs to (``""``: the
    unnamed joint), None when ``name`` is not one of ``stem``'s."""
    if name == stem:
        return ""
    prefix = stem + JOINT_SEPARATOR
    return name[len(prefix):] if name.startswith(prefix) and len(name) > len(prefix) else None


@dataclass(frozen=True)
class Metric:
    """One metric.

    ``si_unit``: the unit the value is stored and sent in ("" for ratios, counts and texts);
    ``display_unit``: the unit a table or figure shows (:data:`DIMENSIONLESS` for a ratio),
    display value = stored value x ``scale``; ``integer``: a count; ``text``: a word, not a
    number (``motion``: periodic-N, chaotic, irregular); ``headline``: a column of a study's
    table (CLI and pages) and a metric the new-study form offers; ``column``: stored in its
    own column of the results table (the rest go to ``Result.extra``); ``has_deviation``: a
    case with an ideal twin gets ``deviation_<name>``; ``trend``: offered by the trends tab
    (with its ``_steady`` twin).
    """

    name: str
    label: str
    si_unit: str = ""
    display_unit: str | None = None  # None: the SI unit (or [–] without one)
    scale: float = 1.0
    integer: bool = False
    text: bool = False
    headline: bool = False
    column: bool = False
    has_deviation: bool = False
    trend: bool = False
    description: str = ""

    def __post_init__(self) -> None:
        if self.display_unit is None:
            shown = COUNT if self.integer and not self.si_unit else self.si_unit
            object.__setattr__(self, "display_unit", shown or DIMENSIONLESS)
        if self.text and (self.integer or self.scale != 1.0 or self.has_deviation):
            raise ValueError(f"{self.name}: a text metric has no count, scale or deviation")

    @property
    def title(self) -> str:
        """The label with its shown unit: ``"Max penetration [µm]"``."""
        return f"{self.label} [{self.display_unit}]"

    @property
    def unit_shown(self) -> str:
        """The shown unit where a value is printed beside it: "" for a ratio, count or text
        (``12 impacts`` reads better than ``12 count``)."""
        return "" if self.display_unit in (DIMENSIONLESS, COUNT) else str(self.display_unit)

    def display(self, value: object) -> object:
        """A stored value in :attr:`display_unit`; anything not a number (None, a bool, text)
        as it is, an int only when the scale is 1."""
        if self.scale == 1.0 or isinstance(value, bool) or not isinstance(value, (int, float)):
            return value
        return float(value) * self.scale


def _m(name: str, label: str, si_unit: str = "", **kw) -> Metric:
    return Metric(name, label, si_unit, **kw)


_ACCEL = "m/s²"
_PEN = {"si_unit": "m", "display_unit": MICROMETRE, "scale": 1e6}  # tens of µm of clearance


def _steady(base: Metric, **kw) -> Metric:
    """The ``_steady`` entry of ``base``: the same quantity over the last revolution."""
    fields = {"name": base.name + STEADY, "label": f"{base.label} (last revolution)",
              "headline": False, "column": False, "has_deviation": False, "trend": False}
    return replace(base, **{**fields, **kw})


def _settled(quantity: str, label: str, unit: str, **peak_kw) -> tuple[Metric, ...]:
    """The three settled-window statistics of the per-revolution peaks of ``quantity``
    (design.md 4.10); ``peak_kw`` flags the peak's entry (headline, trend)."""
    return (
        _m(f"peak_{quantity}_settled", f"Peak {label}, settled", unit,
           description="largest per-revolution peak over the settled window", **peak_kw),
        _m(f"p95_{quantity}_settled", f"P95 {label}, settled", unit,
           description="95th percentile of the per-revolution peaks over the settled window"),
        _m(f"mean_{quantity}_settled", f"Mean peak {label}, settled", unit,
           description="mean of the per-revolution peaks over the settled window"),
    )


# design.md 4.1's names keep their meaning (whole run; _steady: the last revolution) and
# their columns; the headline - 4.5's six - is read as their settled versions (4.10, below)
PEAK_SLIDER_ACCEL = _m("peak_slider_accel", "Peak slider acceleration", _ACCEL,
                       column=True, has_deviation=True, trend=True)
RMS_SLIDER_ACCEL = _m("rms_slider_accel", "RMS slider acceleration", _ACCEL,
                      column=True, has_deviation=True, trend=True)
PEAK_CONTACT_FORCE = _m("peak_contact_force", "Peak contact force", "N",
                        column=True, trend=True)
MAX_PENETRATION = _m("max_penetration", "Max penetration", column=True,
                     trend=True, **_PEN)
IMPACTS = _m("impacts", "Impacts", integer=True, column=True, trend=True,
             description="separation -> contact transitions")
PEAK_DRIVING_TORQUE = _m("peak_driving_torque", "Peak driving torque", "N m", column=True,
                         has_deviation=True, trend=True)

_ENTRIES: tuple[Metric, ...] = (
    # the rigid and flexible slider-crank (design.md 4.1), in the results table's column order
    PEAK_SLIDER_ACCEL,
    RMS_SLIDER_ACCEL,
    PEAK_CONTACT_FORCE,
    MAX_PENETRATION,
    IMPACTS,
    _steady(PEAK_SLIDER_ACCEL, column=True),
    _steady(RMS_SLIDER_ACCEL, column=True),
    _steady(PEAK_CONTACT_FORCE, column=True),
    _steady(MAX_PENETRATION, column=True),
    _steady(IMPACTS, column=True),
    PEAK_DRIVING_TORQUE,
    _m("wall_time_s", "Wall time", "s", column=True,
       description="the solver's time for the case; not a property of the case"),
    _m("contact_time_fraction", "Contact time fraction", trend=True),
    _m("peak_kinetic_energy", "Peak kinetic energy", "J"),
    _m("onset_penetration_error", "Onset penetration error", **_PEN),
    _m("max_free_flight_penetration", "Max free-flight penetration", **_PEN),
    _m("max_rod_deflection", "Max rod deflection", "m"),
    # spectra of the last revolution
    _m("dominant_frequency_accel_hz", "Dominant frequency of slider acceleration", "Hz"),
    _m("high_frequency_ratio_accel", "High-frequency ratio of slider acceleration"),
    _m("dominant_frequency_force_hz", "Dominant frequency of contact force", "Hz"),
    _m("high_frequency_ratio_force", "High-frequency ratio of contact force"),
    # the cantilever (seed 001)
    _m("tip_deflection_static", "Static tip deflection", "m"),
    _m("tip_deflection_mean", "Mean tip deflection", "m"),
    _m("tip_deflection_max", "Max tip deflection", "m"),
    _m("tip_shortening_static", "Static tip shortening", "m"),
    _m("first_frequency_hz", "First natural frequency", "Hz"),
    _m("first_frequency_linear_hz", "First natural frequency, linearised", "Hz"),
    _m("energy_drift", "Energy drift"),
    # the oil film of a lubricated joint (design.md 4.11): eps read on the output grid
    _m("max_eccentricity_ratio", "Max eccentricity ratio", trend=True,
       description="largest |e|/c of the journal on the output grid (>= 1: the dry contact "
       "carried it)"),
    _m("min_film_thickness", "Min film thickness", **_PEN, trend=True,
       description="c (1 - max eccentricity ratio), 0 where the journal reached the wall"),
    _m("film_dissipated_energy", "Film dissipated energy", "J",
       description="energy the oil film dissipated over the run (the film's own term of the "
       "energy balance)"),
    # the solver's own figures
    _m("max_constraint_drift", "Max constraint drift", "m"),
    _m("energy_balance_error", "Energy balance error"),
    _m("rhs_evaluations", "RHS evaluations", integer=True),
    _m("accepted_steps", "Accepted steps", integer=True),
    _m("rejected_steps", "Rejected steps", integer=True),
    _m("peak_refinements", "Peak refinements", integer=True),
    _m("steps", "Time steps", integer=True),
    _m("static_iterations", "Static Newton iterations", integer=True),
    _m("dt", "Time step", "s"),
    _m("stable_dt", "Stable time step", "s"),
    # the motion over many revolutions (design.md 4.10, issue 23): the settled window's
    # per-revolution peaks, the start-up, and what kind of motion it settled into. The
    # headline (4.5's six, read settled), in the order of the study table's columns:
    # (the settled peak's deviation from the ideal twin is the clearance's settled effect)
    *_settled("slider_accel", "slider acceleration", _ACCEL, headline=True, trend=True,
              has_deviation=True),
    # (not a headline column: the study table keeps to 100 characters with the class beside)
    _m("rms_slider_accel_settled", "RMS slider acceleration, settled", _ACCEL,
       description="over the settled window"),
    *_settled("contact_force", "contact force", "N", headline=True, trend=True),
    _m("max_penetration_settled", "Max penetration, settled", headline=True,
       description="over the settled window", **_PEN),
    _m("impacts_settled", "Impacts, settled", integer=True, headline=True,
       description="separation -> contact transitions in the settled window"),
    _m("peak_slider_accel_startup", "Peak slider acceleration, start-up", _ACCEL,
       headline=True, trend=True,
       description="the largest per-revolution peak before the settled window"),
    *_settled("driving_torque", "driving torque", "N m", trend=True),
    _m("settled", "Settled (1 yes, 0 no)", integer=True, display_unit=DIMENSIONLESS,
       description="1 when the motion settled within max_revolutions"),
    _m("revolutions", "Revolutions run", "rev", description="the run's length"),
    _m("settled_after_revolutions", "Settled after", "rev",
       description="the start-up's length: revolutions before the settled window"),
    _m("section_drift", "Poincaré section drift per revolution", "c/rev",
       description="in units of the clearance c, per crank revolution"),
    _m("section_jitter", "Poincaré section jitter", "c",
       description="rms distance of a section point from where its cycle repeats (the "
       "integration's noise for a periodic motion), in units of the clearance c"),
    _m("motion_tolerance", "Periodicity tolerance", "c",
       description="the tolerance the motion was classified with: 5 x the section jitter, "
       "at least settle_tolerance, at most 3 x it (core/motion.py)"),
    _m("motion", "Motion (periodic-N, chaotic, irregular)", text=True),
    _m("contact_mode", "Contact mode (impacting, continuous contact, free flight)",
       text=True, description="the settled window: impacting when it has an impact (the "
       "journal rattles), else the mode it spends most of it in (core/settled.py)"),
    _m("motion_period", "Motion period", "rev", integer=True,
       description="N of periodic-N, 0 if not periodic"),
    _m("chaos_indicator", "Chaos indicator (Gottwald-Melbourne 0-1 test K)",
       description="Gottwald-Melbourne 0-1 test for chaos (regression form, 2009) on the "
       "Poincare section: K near 0 regular, near 1 chaotic"),
    _m("settled_from_s", "Settled window from", "s",
       description="the time the settled window starts at"),
    _m("spectrum_from_s", "Spectra from", "s", description="start of the spectra's window"),
    _m("spectrum_revolutions", "Spectra over", "rev",
       description="N, the whole crank revolutions the spectra's window spans (the settled "
       "window, at most its last 32)"),
    _m("spectrum_resolution_hz", "Spectral resolution", "Hz",
       description="the spectra's bin width, f1/N for N revolutions at crank frequency f1"),
    _m("start_spread", "Spread of the settled peak between starts",
       description="(max - min) / mean of peak_slider_accel_settled over the starts run"),
    _m("start_dependent", "Depends on the start (1 yes, 0 no)", integer=True,
       display_unit=DIMENSIONLESS,
       description="the settled motion depends on how the machine starts: the settled "
       "peak's spread between starts above 5 %, or another class of motion"),
    _m("share_free_flight", "Share of time in free flight",
       description="of the settled window, no contact; the three shares sum to 1 "
       "(core/settled.py)"),
    _m("share_impact", "Share of time in impact",
       description="the first 0.2 ms of every contact, in the settled window"),
    _m("share_contact", "Share of time in continuous contact",
       description="the rest of a contact longer than 0.2 ms, in the settled window"),
    # a calibration's costs against its measurement (design.md 4.9, issue 27): computed by
    # the worker (study/calibration_cost.py); the stage costs are means of RMS differences
    # over windows of the record's first impacts (as set there), each a fraction of the
    # measured RMS in its window; the RMS error is in the fitted series' SI unit (m/s² for
    # slider_acceleration)
    _m("calibration_cost_0", "Calibration cost, stage 1 (first 2 impacts)",
       description="RMS difference over the record's first 2 impacts / the measured RMS there"),
    _m("calibration_cost_1", "Calibration cost, stage 2 (first 2 and 6 impacts)",
       description="mean of the relative RMS differences over the first 2 and 6 impacts"),
    _m("calibration_cost_2", "Calibration cost, stage 3 (first impacts and whole record)",
       description="mean of the relative RMS differences over the first 2 and 6 impacts and "
       "the whole record; the best case has the least"),
    _m("calibration_rms_error", "Calibration RMS error",
       description="RMS of simulated minus measured, in the fitted series' SI unit"),
    _m("calibration_peak_error", "Calibration peak error",
       description="(max|simulated| - max|measured|) / max|measured|"),
    _m("calibration_correlation", "Calibration correlation",
       description="Pearson's r of the simulated and measured samples"),
)

#: metric name -> its entry (the order the results table's columns and the headline show)
REGISTRY: dict[str, Metric] = {m.name: m for m in _ENTRIES}
if len(REGISTRY) != len(_ENTRIES):  # pragma: no cover - a duplicated name is a typo
    raise ValueError("a metric is registered twice")


def headline() -> tuple[str, ...]:
    """The headline metrics, the columns of a study's table (CLI and pages, design.md 4.5)."""
    return tuple(m.name for m in REGISTRY.values() if m.headline)


def columns() -> tuple[Metric, ...]:
    """The metrics stored in their own column of the results table, in column order."""
    return tuple(m for m in REGISTRY.values() if m.column)


def with_deviation() -> tuple[str, ...]:
    """The metrics a case with an ideal twin has a ``deviation_`` of."""
    return tuple(m.name for m in REGISTRY.values() if m.has_deviation)


def deviation_name(metric: str) -> str:
    """``peak_slider_accel`` -> ``deviation_peak_slider_accel``."""
    return DEVIATION + metric


def trend_metrics() -> tuple[str, ...]:
    """The metrics the trends tab offers (each also as its ``_steady`` twin), then the
    ratios to the ideal joint of those with a twin deviation (:func:`ratio_name`)."""
    plain = tuple(m.name for m in REGISTRY.values() if m.trend)
    return plain + tuple(ratio_name(m) for m in plain if REGISTRY[m].has_deviation)


def ratio_name(metric: str) -> str:
    """``peak_slider_accel`` -> ``ratio_to_ideal_peak_slider_accel`` (the case's value over
    its ideal twin's: 2 where clearance doubles the peak)."""
    return RATIO + metric


# a mechanism measure's quantity -> SI unit, by component (design.md 4.7)
_MEASURE_UNITS = {
    "position": ("m", "rad"),
    "velocity": ("m/s", "rad/s"),
    "acceleration": (_ACCEL, "rad/s²"),
}


def measure_unit(quantity: str, component: str) -> str:
    """The SI unit of a mechanism measure's ``quantity`` (position, velocity, acceleration)
    of ``component`` (``angle``: rad, rad/s, rad/s²; x, y, magnitude: m, m/s, m/s²)."""
    if quantity not in _MEASURE_UNITS:
        raise ValueError(f"quantity {quantity!r} is not one of {tuple(_MEASURE_UNITS)}")
    return _MEASURE_UNITS[quantity][component == "angle"]


def measure_metrics(measure: str, quantity: str, component: str) -> tuple[Metric, ...]:
    """``peak_<measure>``, ``rms_<measure>`` and ``peak_<measure>_steady`` of a mechanism's
    measure (design.md 4.7), with the unit its quantity and component give (``angle``: rad,
    rad/s, rad/s²; x, y, magnitude: m, m/s, m/s²)."""
    unit = measure_unit(quantity, component)
    words = measure.replace("_", " ")
    peak = _m(f"peak_{measure}", f"Peak {words}", unit, has_deviation=True, trend=True)
    return (peak, _m(f"rms_{measure}", f"RMS {words}", unit), _steady(peak))


def settled_metrics(quantity: str, label: str, unit: str) -> tuple[Metric, ...]:
    """``peak_<quantity>_settled`` (a headline and trend metric, with a twin deviation, as
    the slider's), ``p95_`` and ``mean_``: the settled window's statistics of a measure
    (design.md 4.10) with its label and SI unit."""
    return _settled(quantity, label, unit, headline=True, trend=True, has_deviation=True)


def _words(name: str) -> str:
    return name.replace("_", " ").capitalize()


def _phrase(label: str) -> str:
    """A label inside a sentence: ``"Peak contact force"`` -> ``"peak contact force"``, an
    acronym kept (``"RMS slider acceleration"``)."""
    if len(label) > 1 and label[1].isupper():
        return label
    return label[:1].lower() + label[1:]


def _resolve(name: str, known: Mapping[str, Metric]) -> Metric:
    entry = known.get(name) or REGISTRY.get(name)
    if entry is not None:
        return entry
    base, sep, joint = name.rpartition(JOINT_SEPARATOR)
    if sep and base and joint:
        m = _resolve(base, known)
        return replace(m, name=name, label=f"{m.label}, joint {joint}", headline=False,
                       column=False, trend=False)
    if name.startswith(RATIO) and len(name) > len(RATIO):
        m = _resolve(name.removeprefix(RATIO), known)
        return Metric(name, f"{m.label} / ideal joint", trend=m.trend,
                      description="the case's value over its ideal twin's")
    if name.startswith(DEVIATION):
        m = _resolve(name.removeprefix(DEVIATION), known)
        return Metric(name, f"Deviation of {_phrase(m.label)} from the ideal joint",
                      description="relative to the ideal twin: m / m_twin - 1")
    if name.endswith(STEADY) and len(name) > len(STEADY):
        return _steady(_resolve(name.removesuffix(STEADY), known), name=name)
    for prefix, word in (("peak_", "Peak"), ("rms_", "RMS")):
        if name.startswith(prefix) and len(name) > len(prefix):
            # a measure whose unit this registry does not know (measure_metrics does)
            return Metric(name, f"{word} {name.removeprefix(prefix).replace('_', ' ')}")
    return Metric(name, _words(name))


@functools.cache  # a table of 1,000 cases asks it for every cell
def _cached(name: str) -> Metric:
    return _resolve(name, {})


def lookup(name: str, known: Mapping[str, Metric] | None = None) -> Metric:
    """The entry of metric ``name``: a registered one, a pattern (``_steady``,
    ``deviation_``, ``.<joint>``, a measure's ``peak_``/``rms_``), or - for a name nothing
    knows - one titled from its words with no unit; never an error. ``known``: entries of
    the study at hand (a mechanism's :func:`measure_metrics`), looked at first."""
    return _resolve(name, known) if known else _cached(name)


def label(name: str) -> str:
    """The title of metric ``name`` with its shown unit: ``"Max penetration [µm]"``."""
    return lookup(name).title


def display_unit(name: str) -> str:
    """The unit metric ``name`` is shown in (``"µm"`` for max_penetration)."""
    return str(lookup(name).display_unit)


def scale(name: str) -> float:
    """Factor from the stored SI value of ``name`` to its shown unit (1e6 for µm)."""
    return lookup(name).scale
