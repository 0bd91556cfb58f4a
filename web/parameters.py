"""A model's parameters as the form shows them: name, unit, default.

The names and defaults come from the core (``get_model(name).defaults()``, the list
``gapsweep params`` prints). Units are not data in the core (its fields carry them in their
names, ``clearance_mm``, or in comments), so the unit of each name the form shows is listed
here; a name not listed shows no unit (a ratio, a count or a choice).
"""

from __future__ import annotations

import math
from functools import cache
from typing import Any

# by name suffix first (the core's own convention), then by exact name
SUFFIX_UNITS = (("_mm", "mm"), ("_rpm", "rpm"), ("_deg", "deg"), ("_s", "s"))
UNITS = {
    "stiffness": "N/m^1.5",
    "youngs_modulus": "Pa",
    "impact_damping": "N s/m",
    "impact_depth": "m",
    "damping_max": "N s/m",
    "damping_depth": "m",
    "friction_velocity": "m/s",
    "friction_velocity_full": "m/s",
    "gravity": "m/s²",
    "t_end": "s",
    "max_step": "s",
    "contact_max_step": "s",
    "initial_step": "s",
    "atol": "m",
    "baumgarte_alpha": "1/s",
    "baumgarte_beta": "1/s",
    "dt": "s",
    "output_interval": "s",
    "damping_time": "s",
    "length": "m",
    "width": "m",
    "height": "m",
    "density": "kg/m³",
    "tip_load": "N",
    "shape_times": "s",
}


def unit(name: str) -> str:
    """The unit of parameter ``name`` ("" for ratios, counts and choices)."""
    if name in UNITS:
        return UNITS[name]
    return next((u for suffix, u in SUFFIX_UNITS if name.endswith(suffix)), "")


def label(name: str) -> str:
    """``clearance_mm`` -> ``"clearance_mm [mm]"``: the name the study file uses, with unit."""
    u = unit(name)
    return f"{name} [{u}]" if u else name


def show_default(value: Any) -> str:
    """A default as the form shows it (``inf``, ``automatic`` for None, lists as a, b)."""
    if value is None:
        return "automatic"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return "inf" if math.isinf(value) else f"{value:g}"
    if isinstance(value, (list, tuple)):
        return ", ".join(show_default(v) for v in value)
    return str(value)


@cache
def defaults(model: str) -> dict[str, Any]:
    """Every parameter of ``model`` with its default (imports the model's case module)."""
    from gapsweep.core.api import get_model

    return get_model(model).defaults()


def model_names() -> list[str]:
    from gapsweep.core.api import MODELS

    return list(MODELS)


def model_description(model: str) -> str:
    from gapsweep.core.api import MODELS

    entry = MODELS.get(model)
    return entry.description if entry is not None else ""


def parameter_rows(model: str) -> list[dict[str, str]]:
    """One row per parameter: ``{"name", "unit", "default", "value": ""}``, core order."""
    return [
        {"name": name, "unit": unit(name), "default": show_default(value), "value": ""}
        for name, value in defaults(model).items()
    ]
