"""The errors a study spec is refused with: every problem found, each naming its field.

A :class:`FieldError` is what the CLI prints (``field: value — allowed``), what the API
returns (``{"field", "value", "allowed"}``, design.md 4.5) and what the web form shows beside
the offending input. :class:`SpecError` carries all of them, not only the first.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any


def _json_ready(value: Any) -> Any:
    """``value`` if JSON can carry it as it is, else its ``str`` (NaN and inf included)."""
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    try:
        json.dumps(value, allow_nan=False)
    except (TypeError, ValueError):
        return str(value)
    return value


@dataclass(frozen=True)
class FieldError:
    """One refused input.

    ``field``: its path in the study file, dots for keys and ``[i]`` for list items
    (``axes.clearance_mm.values[2]``). ``value``: the offending value as given (JSON-ready).
    ``allowed``: what would be accepted, in words (``> 0 and < bearing radius 10 mm``).
    """

    field: str
    value: Any
    allowed: str

    def __post_init__(self) -> None:
        object.__setattr__(self, "value", _json_ready(self.value))

    def to_dict(self) -> dict[str, Any]:
        return {"field": self.field, "value": self.value, "allowed": self.allowed}

    def __str__(self) -> str:
        return f"{self.field}: {_show(self.value)} — {self.allowed}"


def _show(value: Any) -> str:
    if isinstance(value, str):
        return value if value else '""'
    return json.dumps(value)


class SpecError(ValueError):
    """A study spec was refused; ``errors`` lists every problem found (at least one)."""

    def __init__(self, errors: list[FieldError]) -> None:
        if not errors:
            raise ValueError("SpecError needs at least one FieldError")
        self.errors = list(errors)
        super().__init__("; ".join(str(e) for e in self.errors))

    def to_dict(self) -> dict[str, Any]:
        """``{"errors": [{"field", "value", "allowed"}, ...]}`` (design.md 4.5)."""
        return {"errors": [e.to_dict() for e in self.errors]}
