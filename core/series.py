"""The series registry: every time series a case stores, once (beside :mod:`.metrics`).

Each :class:`Series` says what a stored series is: its label and its SI unit (series are
stored and shown in SI; a figure's tick labels carry the SI prefixes), and whether its
spectrum is computed and stored (``spectrum``: the short key of its spectral metrics,
``dominant_frequency_<key>_hz`` and ``high_frequency_ratio_<key>``). The lists other layers
need are derived from it - the solver's output grid (:data:`SOLVER_SERIES`, in its column
order), the spectra the worker stores and the pages offer (:data:`SPECTRUM_SERIES`), the
spectral metrics of the post-processing, the labels and units of every figure - so a new
series is one :class:`Series` line in :data:`REGISTRY`.

Names that are families rather than entries resolve by pattern (:func:`lookup`): a clearance
joint's ``<series>.<joint>`` (``contact_normal_force.piston_pin``, design.md 4.7) and a
described mechanism's measure (:func:`measure_series` gives it its unit from its quantity
and component). A name nothing knows still gets an entry titled from its words, so no page
fails on a series it has not heard of.

This module imports nothing heavy: the web's labels read it without a solver.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

from .metrics import DIMENSIONLESS, JOINT_SEPARATOR, measure_unit


@dataclass(frozen=True)
class Series:
    """One stored series: ``name``, ``label`` (no unit), ``unit`` (SI, or
    :data:`~.metrics.DIMENSIONLESS`), ``spectrum``: the key of its spectral metrics when the
    worker computes and stores its spectrum ("" when it does not)."""

    name: str
    label: str
    unit: str = DIMENSIONLESS
    spectrum: str = ""

    @property
    def title(self) -> str:
        """The label with its unit: ``"Slider acceleration [m/s²]"``."""
        return f"{self.label} [{self.unit}]"


_ENTRIES: tuple[Series, ...] = (
    # the solver's output grid (core/solver.py), in its column order
    Series("t", "Time", "s"),
    Series("slider_position", "Slider position", "m"),
    Series("slider_velocity", "Slider velocity", "m/s"),
    Series("slider_acceleration", "Slider acceleration", "m/s²", spectrum="accel"),
    Series("driving_torque", "Driving torque", "N m"),
    Series("contact_normal_force", "Contact normal force", "N", spectrum="force"),
    Series("contact_tangential_force", "Contact tangential force", "N"),
    Series("penetration", "Penetration", "m"),
    Series("eccentricity_x", "Eccentricity x", "m"),
    Series("eccentricity_y", "Eccentricity y", "m"),
    Series("contact_state", "Contact state"),
    Series("kinetic_energy", "Kinetic energy", "J"),
    Series("potential_energy", "Potential energy", "J"),
    Series("contact_energy", "Contact energy", "J"),
    Series("damping_dissipation", "Damping dissipation", "J"),
    Series("friction_dissipation", "Friction dissipation", "J"),
    Series("driver_work", "Driver work", "J"),
    Series("energy_residual", "Energy residual", "J"),
    Series("constraint_drift", "Constraint drift", "m"),
)

#: series name -> its entry, in the solver grid's column order
REGISTRY: dict[str, Series] = {s.name: s for s in _ENTRIES}
if len(REGISTRY) != len(_ENTRIES):  # pragma: no cover - a duplicated name is a typo
    raise ValueError("a series is registered twice")

#: the solver's output columns, in order (core/solver.py)
SOLVER_SERIES: tuple[str, ...] = tuple(REGISTRY)
#: the series whose spectra are stored and shown (their contact-force joints follow)
SPECTRUM_SERIES: tuple[str, ...] = tuple(s.name for s in _ENTRIES if s.spectrum)
#: (series, key) of the spectral metrics ``dominant_frequency_<key>_hz`` ...
SPECTRAL_KEYS: tuple[tuple[str, str], ...] = tuple((s.name, s.spectrum) for s in _ENTRIES
                                                   if s.spectrum)


def measure_series(measure: str, quantity: str, component: str) -> Series:
    """The series of a described mechanism's measure (design.md 4.7), labelled by its name
    and in the unit its quantity and component give (``angle``: rad, rad/s, rad/s²)."""
    return Series(measure, measure.replace("_", " ").capitalize(),
                  measure_unit(quantity, component))


def lookup(name: str, known: Mapping[str, Series] | None = None) -> Series:
    """The entry of series ``name``: ``known`` first (a study's measures), then a registered
    one, then a joint's ``<series>.<joint>``; a name nothing knows is titled from its words
    (dimensionless); never an error."""
    entry = (known or {}).get(name) or REGISTRY.get(name)
    if entry is not None:
        return entry
    base, sep, joint = name.rpartition(JOINT_SEPARATOR)
    if sep and base and joint and (known or {}).get(base, REGISTRY.get(base)):
        s = lookup(base, known)
        return replace(s, name=name, label=f"{s.label}, joint {joint}", spectrum="")
    return Series(name, name.replace("_", " ").capitalize())
