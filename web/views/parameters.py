"""A model's parameters as the form shows them: name, unit, default.

Names, kinds and units come from the core's parameter registry (:mod:`gapsweep.core.
parameters`, the list ``gapsweep params`` prints), defaults from the model's case type; a
name the registry does not know shows no unit.
"""

from __future__ import annotations

import math
from functools import cache
from typing import Any

from gapsweep.core import parameters as registry


def unit(name: str) -> str:
    """The unit parameter ``name`` is given in ("" for ratios, counts and choices)."""
    return registry.unit(name)


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
    """One row per parameter: ``{"name", "unit", "kind", "default", "value": ""}``, in the
    case's field order (units and kinds from the registry, of this model's entry)."""
    rows = []
    for name, value in defaults(model).items():
        entry = registry.find(name, model) if model in registry.REGISTRY else None
        rows.append({"name": name, "unit": entry.unit if entry else unit(name),
                     "kind": entry.kind if entry else "", "default": show_default(value),
                     "value": ""})
    return rows
