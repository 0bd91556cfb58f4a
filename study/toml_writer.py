"""A TOML writer for the study file, and only for it (no dependency for one schema).

The spec's data is flat scalars and lists of them, plus the ``[base]`` table and one
``[axes.NAME]`` table per axis, so a few lines cover it; ``tomllib`` reads the output back.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from typing import Any

_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")


def _key(name: str) -> str:
    return name if _BARE_KEY.match(name) else json.dumps(name, ensure_ascii=False)


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"TOML study files carry finite numbers only, not {value}")
        return repr(value)  # shortest round-tripping form: 0.1, 1e-06, 5000.0
    if isinstance(value, str):
        # a JSON string is a TOML basic string (same escapes, \uXXXX included)
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    raise TypeError(f"cannot write {type(value).__name__} to a study file")


def _table(lines: list[str], header: str | None, table: Mapping[str, Any]) -> None:
    if header is not None:
        lines += ["", f"[{header}]"]
    lines += [f"{_key(k)} = {_value(v)}" for k, v in table.items() if v is not None]


def write_study(data: Mapping[str, Any]) -> str:
    """TOML text of a spec's :meth:`~.spec.StudySpec.to_dict`."""
    lines: list[str] = []
    _table(lines, None, {k: v for k, v in data.items() if k not in ("base", "axes")})
    if data.get("base"):
        _table(lines, "base", data["base"])
    for name, axis in data.get("axes", {}).items():
        _table(lines, f"axes.{_key(name)}", axis)
    return "\n".join(lines) + "\n"
