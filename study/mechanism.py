"""A study of a described mechanism (``model = "mechanism"``, design.md 4.7): the names its
spec may set, and the check of its ``[mechanism]`` table, for the spec's checks and plan.

The table itself is read by the core (:mod:`gapsweep.core.mechanism`); here it is only
asked what it allows: the dotted paths a design may vary, with their units and types.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from gapsweep.core.errors import InputError
from gapsweep.core.mechanism.case import MODEL, sweepable_names
from gapsweep.core.mechanism.table import CONTACT_KEYS

from .errors import FieldError

_CHOICES = ("contact_law", "friction_law", "stiffness_model", "integrator", "initial",
            "event_location", "stabilization")
_SWITCHES = ("ideal", "refine_peaks")
# a clearance joint's own parameters: an ideal run reads none of them (its ideal twin drops them)
_JOINT_CONTACT = re.compile(r"^joints\.[^.]+\.(clearance_mm|" + "|".join(CONTACT_KEYS) + r")$")


def names(table: Mapping[str, Any]) -> dict[str, str]:
    """Name -> unit of everything a study of ``table`` may set (raises InputError)."""
    return sweepable_names(table)


def kinds(table: Mapping[str, Any]) -> dict[str, str]:
    """Name -> "float" | "int" | "str" | "bool", as :func:`schema.param_kinds` gives them."""
    out = {}
    for name in names(table):
        key = name.rsplit(".", 1)[-1]
        if key in _CHOICES:
            out[name] = "str"
        elif key in _SWITCHES:
            out[name] = "bool"
        elif key == "n_output":
            out[name] = "int"
        else:
            out[name] = "float"
    return out


def table_errors(model: str, table: Any) -> list[FieldError]:
    """What is wrong with the spec's ``mechanism`` for ``model`` (empty if fine)."""
    if model != MODEL:
        if table is not None:
            return [FieldError("mechanism", "a [mechanism] table",
                               f"only with model = \"{MODEL}\" (this study's model is {model})")]
        return []
    if table is None:
        return [FieldError("mechanism", None, f"a [mechanism] table (model = \"{MODEL}\")")]
    try:
        names(table)
        from gapsweep.core.mechanism.case import MechanismCase

        MechanismCase.from_mapping({"mechanism": table})
    except InputError as exc:
        allowed = exc.allowed + (f" ({exc.detail})" if exc.detail else "")
        return [FieldError(exc.field, exc.value, allowed)]
    return []


def ideal_ignores(name: str) -> bool:
    """Whether an ideal run of a mechanism ignores parameter ``name`` (a clearance joint's)."""
    return bool(_JOINT_CONTACT.match(name))
