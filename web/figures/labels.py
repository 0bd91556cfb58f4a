"""Axis titles and legend names, each with its unit: the one units convention of every figure.

Convention: a quantity is shown in the SI unit the solver stores it in (m, s, N, N m, J,
m/s², Hz) - penetration, eccentricity and the clearance circle of the case views in metres,
whose tick labels carry SI prefixes (``20µ`` on a ``[m]`` axis is 20 µm, see
:mod:`.style`). A study parameter is shown in the unit its name carries (``clearance_mm`` in
mm, ``speed_rpm`` in rpm); dimensionless quantities say ``[–]``.
"""

from __future__ import annotations

import math
from typing import Any

from gapsweep.web.parameters import unit as parameter_unit

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

# metric name (without "_steady" / "deviation_") -> (title, unit)
METRICS = {
    "peak_slider_accel": ("Peak slider acceleration", "m/s²"),
    "rms_slider_accel": ("RMS slider acceleration", "m/s²"),
    "peak_contact_force": ("Peak contact force", "N"),
    "max_penetration": ("Max penetration", "m"),
    "impacts": ("Impacts", "count"),
    "peak_driving_torque": ("Peak driving torque", "N m"),
    "contact_time_fraction": ("Contact time fraction", DIMENSIONLESS),
    "dominant_frequency_accel_hz": ("Dominant frequency of slider acceleration", "Hz"),
    "high_frequency_ratio_accel": ("High-frequency ratio of slider acceleration", DIMENSIONLESS),
    "dominant_frequency_force_hz": ("Dominant frequency of contact force", "Hz"),
    "high_frequency_ratio_force": ("High-frequency ratio of contact force", DIMENSIONLESS),
    "wall_time_s": ("Wall time", "s"),
    "max_constraint_drift": ("Max constraint drift", "m"),
    "energy_balance_error": ("Energy balance error", DIMENSIONLESS),
}

# parameter name -> (title, short legend word); the unit comes from gapsweep.web.parameters
PARAMETERS = {
    "clearance_mm": ("Clearance", "c"),
    "stiffness_scale": ("Stiffness scale", "stiffness"),
    "restitution": ("Restitution coefficient", "cr"),
    "friction": ("Friction coefficient", "μ"),
    "speed_rpm": ("Crank speed", "speed"),
    "bearing_radius_mm": ("Bearing radius", "R"),
    "stiffness_model": ("Stiffness model", "stiffness model"),
    "axial_length_mm": ("Axial length", "L"),
    "rtol": ("Relative tolerance", "rtol"),
    "atol": ("Absolute tolerance", "atol"),
}

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
        return f"Deviation of {title[0].lower()}{title[1:]} from the ideal joint", DIMENSIONLESS
    if name.endswith("_steady"):
        title, u = metric_parts(name.removesuffix("_steady"))
        return f"{title} (last revolution)", u
    return METRICS.get(name, (name.replace("_", " ").capitalize(), DIMENSIONLESS))


def metric_unit(name: str) -> str:
    """The unit of metric ``name`` (``"N"`` for peak_contact_force_steady)."""
    return metric_parts(name)[1]


def metric_label(name: str) -> str:
    """Axis title of a metric: ``"Peak slider acceleration [m/s²]"``."""
    return with_unit(*metric_parts(name))


def parameter_parts(name: str) -> tuple[str, str]:
    """(title, unit) of a study parameter; ``[–]`` when it has no unit."""
    title = PARAMETERS.get(name, (None, None))[0]
    if title is None:
        stem = name
        for suffix in ("_mm", "_rpm", "_deg", "_s"):
            stem = stem.removesuffix(suffix)
        title = stem.replace("_", " ").capitalize()
    return title, parameter_unit(name) or DIMENSIONLESS


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
    short = PARAMETERS.get(name, (None, name))[1]
    if name.endswith(SCALE_SUFFIX):
        return f"{short} ×{format_value(value)}"
    u = parameter_unit(name)
    return f"{short} = {format_value(value)}" + (f" {u}" if u else "")


def phrase(title: str) -> str:
    """A title inside a sentence: ``"Peak contact force"`` -> ``"peak contact force"``, an
    acronym kept (``"RMS slider acceleration"``)."""
    if len(title) > 1 and title[1].isupper():
        return title
    return title[:1].lower() + title[1:]
