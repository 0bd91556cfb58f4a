"""Axis titles, table headers and legend names, each with its unit: the one units convention
of every figure and table.

Convention: a quantity is shown in the SI unit the solver stores it in (m, s, N, N m, J,
m/s², Hz), with one exception: penetration *metrics* (``max_penetration``, the onset error,
the free-flight penetration) are micrometres of a clearance of tens of µm, so they are shown
in µm - :func:`metric_scale` is the factor from the stored SI value, and every figure and
table that shows a metric's value multiplies by it (:func:`metric_display`). Series
(penetration, eccentricity, the clearance circle of the case views) stay in metres, whose
tick labels carry SI prefixes (``20µ`` on a ``[m]`` axis is 20 µm, see :mod:`.style`).
A study parameter is shown in the unit its name carries (``clearance_mm`` in mm,
``speed_rpm`` in rpm), with the title the core's parameter registry gives it;
dimensionless quantities say ``[–]``, counts ``[count]``.
"""

from __future__ import annotations

import functools
import math
from typing import Any

from gapsweep.core import parameters as registry

DIMENSIONLESS = "–"

# series name -> (title, unit)
SERIES = {
    "t": ("Time", "s"),
    "slider_position": ("Slider position", "m"),
    "slider_velocity": ("Slider velocity", "m/s"),
    "slider_acceleration": ("Slider acceleration", "m/s²"),
    "driving_torque": ("Driving torque", "N m"),
    "contact_normal_force": ("Contact normal force", "N"),
    "contact_tangential_force": ("Contact tangential force", "N"),
    "penetration": ("Penetration", "m"),
    "eccentricity_x": ("Eccentricity x", "m"),
    "eccentricity_y": ("Eccentricity y", "m"),
    "contact_state": ("Contact state", DIMENSIONLESS),
    "kinetic_energy": ("Kinetic energy", "J"),
    "potential_energy": ("Potential energy", "J"),
    "contact_energy": ("Contact energy", "J"),
    "damping_dissipation": ("Damping dissipation", "J"),
    "friction_dissipation": ("Friction dissipation", "J"),
    "driver_work": ("Driver work", "J"),
    "energy_residual": ("Energy residual", "J"),
    "constraint_drift": ("Constraint drift", "m"),
}

COUNT = "count"
MICROMETRE = "µm"

# metric name (without "_steady" / "deviation_") -> (title, unit shown); every metric a model
# reports is listed (tests/web/test_labels.py), so none falls back to [–] by omission
METRICS = {
    # rigid and flexible slider-crank (design.md 4.1)
    "peak_slider_accel": ("Peak slider acceleration", "m/s²"),
    "rms_slider_accel": ("RMS slider acceleration", "m/s²"),
    "peak_contact_force": ("Peak contact force", "N"),
    "max_penetration": ("Max penetration", MICROMETRE),
    "impacts": ("Impacts", COUNT),
    "peak_driving_torque": ("Peak driving torque", "N m"),
    "contact_time_fraction": ("Contact time fraction", DIMENSIONLESS),
    "peak_kinetic_energy": ("Peak kinetic energy", "J"),
    "onset_penetration_error": ("Onset penetration error", MICROMETRE),
    "max_free_flight_penetration": ("Max free-flight penetration", MICROMETRE),
    "max_rod_deflection": ("Max rod deflection", "m"),
    # the settled motion (design.md 4.10): the per-revolution peaks over the settled window
    "p95_slider_accel": ("P95 slider acceleration", "m/s²"),
    "mean_slider_accel": ("Mean peak slider acceleration", "m/s²"),
    "p95_contact_force": ("P95 contact force", "N"),
    "mean_contact_force": ("Mean peak contact force", "N"),
    "p95_driving_torque": ("P95 driving torque", "N m"),
    "mean_driving_torque": ("Mean peak driving torque", "N m"),
    "settled": ("Settled (1 yes, 0 no)", DIMENSIONLESS),
    "revolutions": ("Revolutions run", COUNT),
    "settled_after_revolutions": ("Settled after", COUNT),
    "section_drift": ("Section drift per revolution, in clearances", DIMENSIONLESS),
    "motion": ("Motion", DIMENSIONLESS),
    "motion_period": ("Motion period, revolutions", COUNT),
    "chaos_indicator": ("Chaos indicator (0-1 test K)", DIMENSIONLESS),
    "share_free_flight": ("Share of time in free flight", DIMENSIONLESS),
    "share_impact": ("Share of time in impact", DIMENSIONLESS),
    "share_contact": ("Share of time in continuous contact", DIMENSIONLESS),
    # spectra of the last revolution
    "dominant_frequency_accel_hz": ("Dominant frequency of slider acceleration", "Hz"),
    "high_frequency_ratio_accel": ("High-frequency ratio of slider acceleration", DIMENSIONLESS),
    "dominant_frequency_force_hz": ("Dominant frequency of contact force", "Hz"),
    "high_frequency_ratio_force": ("High-frequency ratio of contact force", DIMENSIONLESS),
    # the cantilever (seed 001)
    "tip_deflection_static": ("Static tip deflection", "m"),
    "tip_deflection_mean": ("Mean tip deflection", "m"),
    "tip_deflection_max": ("Max tip deflection", "m"),
    "tip_shortening_static": ("Static tip shortening", "m"),
    "first_frequency_hz": ("First natural frequency", "Hz"),
    "first_frequency_linear_hz": ("First natural frequency, linearised", "Hz"),
    "energy_drift": ("Energy drift", DIMENSIONLESS),
    # the solver's own figures
    "wall_time_s": ("Wall time", "s"),
    "max_constraint_drift": ("Max constraint drift", "m"),
    "energy_balance_error": ("Energy balance error", DIMENSIONLESS),
    "rhs_evaluations": ("RHS evaluations", COUNT),
    "accepted_steps": ("Accepted steps", COUNT),
    "rejected_steps": ("Rejected steps", COUNT),
    "peak_refinements": ("Peak refinements", COUNT),
    "steps": ("Time steps", COUNT),
    "static_iterations": ("Static Newton iterations", COUNT),
    "dt": ("Time step", "s"),
    "stable_dt": ("Stable time step", "s"),
}

# a metric's window, named in its title: "Peak slider acceleration (settled) [m/s²]"
WINDOW_SUFFIXES = {"_steady": "last revolution", "_settled": "settled",
                   "_startup": "start-up"}

# shown unit -> factor from the stored SI value (metres)
DISPLAY_SCALE = {MICROMETRE: 1e6}

# parameters that scale a nominal value: legend "stiffness ×0.7"
SCALE_SUFFIX = "_scale"


def with_unit(title: str, unit: str) -> str:
    """``"Clearance", "mm"`` -> ``"Clearance [mm]"``."""
    return f"{title} [{unit}]"


def series_unit(name: str) -> str:
    """The unit of series ``name`` (``"m/s²"`` for slider_acceleration)."""
    return SERIES.get(name, (name, DIMENSIONLESS))[1]


def series_label(name: str) -> str:
    """Axis title of a series: ``"Slider acceleration [m/s²]"``."""
    title, u = SERIES.get(name, (name.replace("_", " ").capitalize(), DIMENSIONLESS))
    return with_unit(title, u)


def metric_parts(name: str) -> tuple[str, str]:
    """(title, unit) of a metric, with the ``_steady`` and ``deviation_`` variants.

    ``deviation_*`` metrics are relative to the ideal twin (m / m_twin - 1), so dimensionless.
    """
    if name.startswith("deviation_"):
        title, _ = metric_parts(name.removeprefix("deviation_"))
        return f"Deviation of {phrase(title)} from the ideal joint", DIMENSIONLESS
    for suffix, window in WINDOW_SUFFIXES.items():
        if name.endswith(suffix):
            title, u = metric_parts(name.removesuffix(suffix))
            return f"{title} ({window})", u
    return METRICS.get(name, (name.replace("_", " ").capitalize(), DIMENSIONLESS))


def metric_unit(name: str) -> str:
    """The unit of metric ``name`` (``"N"`` for peak_contact_force_steady)."""
    return metric_parts(name)[1]


def metric_label(name: str) -> str:
    """Axis title of a metric: ``"Peak slider acceleration [m/s²]"``."""
    return with_unit(*metric_parts(name))


@functools.cache  # a table of 1,000 cases asks it for every cell
def metric_scale(name: str) -> float:
    """Factor from the stored (SI) value of metric ``name`` to the unit it is shown in
    (1e6 for the penetrations shown in µm, else 1)."""
    return DISPLAY_SCALE.get(metric_unit(name), 1.0)


def metric_display(name: str, value: Any) -> Any:
    """A stored value of metric ``name`` in the unit its label names; anything not a number
    (None, a bool, text) is returned as it is, an int only when the scale is 1."""
    scale = metric_scale(name)
    if scale == 1.0 or isinstance(value, bool) or not isinstance(value, (int, float)):
        return value
    return float(value) * scale


def parameter_parts(name: str) -> tuple[str, str]:
    """(title, unit) of a study parameter, from the core's registry; ``[–]`` when it has no
    unit. A name the registry does not know is titled from its words."""
    entry = registry.find(name)
    if entry is not None:
        return entry.label, entry.unit or DIMENSIONLESS
    stem = name
    for suffix in ("_mm", "_rpm", "_deg", "_s"):
        stem = stem.removesuffix(suffix)
    return stem.replace("_", " ").capitalize(), registry.unit(name) or DIMENSIONLESS


def parameter_label(name: str) -> str:
    """Axis title of a parameter: ``"Clearance [mm]"``, ``"Stiffness scale [–]"``."""
    return with_unit(*parameter_parts(name))


def format_value(value: Any) -> str:
    """A parameter value as a legend shows it: ``0.7``, ``1e-07``, ``True``, ``hertz``."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return str(value)
    return f"{value:g}" if math.isfinite(value) else str(value)


def level_name(name: str, value: Any) -> str:
    """Legend entry of one level of a parameter: ``"stiffness ×0.7"``, ``"c = 0.05 mm"``."""
    entry = registry.find(name)
    short = entry.symbol if entry is not None and entry.symbol else name
    if name.endswith(SCALE_SUFFIX):
        return f"{short} ×{format_value(value)}"
    u = registry.unit(name)
    return f"{short} = {format_value(value)}" + (f" {u}" if u else "")


def phrase(title: str) -> str:
    """A title inside a sentence: ``"Peak contact force"`` -> ``"peak contact force"``, an
    acronym kept (``"RMS slider acceleration"``)."""
    if len(title) > 1 and title[1].isupper():
        return title
    return title[:1].lower() + title[1:]
