"""A study of a described mechanism (``model = "mechanism"``, design.md 4.7): the names its
spec may set, and the check of its ``[mechanism]`` table, for the spec's checks and plan.

The table itself is read by the core (:mod:`gapsweep.core.mechanism`); here it is only
asked what it allows: the dotted paths a design may vary, with their units and types.
"""

from __future__ import annotations

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
        from gapsweep.core.mechanism.case import MechanismCase

        # without a driver a case needs its t_end (checked with the base): any serves here
        MechanismCase.from_mapping({"mechanism": table, **driverless_t_end(table)})
    except InputError as exc:
        allowed = exc.allowed + (f" ({exc.detail})" if exc.detail else "")
        return [FieldError(exc.field, exc.value, allowed)]
    return []


def driverless_t_end(table: Any) -> dict[str, float]:
    """``{"t_end": 1.0}`` for a mechanism table without a driver (design.md 4.13: it moves
    for its study's t_end), to check what does not depend on the duration; else ``{}``."""
    return {"t_end": 1.0} if isinstance(table, dict) and "driver" not in table else {}
