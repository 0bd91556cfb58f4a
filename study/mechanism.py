"""A study of a described mechanism (``model = "mechanism"``, design.md 4.7): the names its
spec may set, and the check of its ``[mechanism]`` table, for the spec's checks and plan.

The table itself is read by the core (:mod:`gapsweep.core.mechanism`); here it is only
asked what it allows: the dotted paths a design may vary, with their units and types.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from gapsweep.core.errors import InputError
from gapsweep.core.mechanism.case import MODEL, sweepable_names

from .errors import FieldError


def names(table: Mapping[str, Any]) -> dict[str, str]:
    """Name -> unit of everything a study of ``table`` may set (raises InputError)."""
    return sweepable_names(table)


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
        parsed(table)
    except InputError as exc:
        allowed = exc.allowed + (f" ({exc.detail})" if exc.detail else "")
        return [FieldError(exc.field, exc.value, allowed)]
    return []


def driverless_t_end(table: Any) -> dict[str, float]:
    """``{"t_end": 1.0}`` for a mechanism table without a driver (design.md 4.13: it moves
    for its study's t_end), to check what does not depend on the duration; else ``{}``."""
    return {"t_end": 1.0} if isinstance(table, dict) and "driver" not in table else {}


#: the tables parsed lately, by their JSON text: the spec's check parses a study's table and
#: its estimate reads the parse (issue 34.4: not parsed a second time)
_PARSED: dict[str, Any] = {}
_PARSED_KEPT = 8


def parsed(table: Mapping[str, Any]) -> Any:
    """The core's :class:`~gapsweep.core.mechanism.case.MechanismCase` of ``table`` (raises
    InputError), parsed once per table however often a study asks (the check, the
    estimate). A table without a driver is read with any ``t_end`` (its study's is checked
    with the base; what is asked of the parse here does not depend on it)."""
    key = json.dumps(table, sort_keys=True, default=str)
    if key not in _PARSED:
        from gapsweep.core.mechanism.case import MechanismCase

        case = MechanismCase.from_mapping({"mechanism": table, **driverless_t_end(table)})
        while len(_PARSED) >= _PARSED_KEPT:
            _PARSED.pop(next(iter(_PARSED)))
        _PARSED[key] = case
    return _PARSED[key]
