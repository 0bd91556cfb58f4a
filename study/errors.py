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

#: the longest echo of a refused value: a 10 MB name or a 100 000-item list must not come
#: back whole in the 422 answer, the CLI's stderr and the form's message
MAX_ECHO_CHARS = 200


def _cut(text: str) -> str:
    """``text`` cut to :data:`MAX_ECHO_CHARS` characters, the last an ellipsis when cut."""
    return text if len(text) <= MAX_ECHO_CHARS else text[: MAX_ECHO_CHARS - 1] + "…"


def _json_ready(value: Any) -> Any:
    """``value`` if JSON can carry it as it is, else its ``str`` (NaN and inf included);
    a value whose text passes :data:`MAX_ECHO_CHARS` becomes that text, cut."""
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, str):
        return _cut(value)
    try:
        text = json.dumps(value, allow_nan=False)
    except (TypeError, ValueError):
        return _cut(str(value))
    return value if len(text) <= MAX_ECHO_CHARS else _cut(text)


@dataclass(frozen=True)
class FieldError:
    """One refused input.

    ``field``: its path in the study file, dots for keys and ``[i]`` for list items
    (``axes.clearance_mm.values[2]``). ``value``: the offending value as given (JSON-ready),
    or its text cut to :data:`MAX_ECHO_CHARS` characters when longer.
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
