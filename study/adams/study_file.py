"""The study file ``gapsweep import-adams`` writes (TOML, design.md 4.2 and 4.13).

A grid study with no axes: one case, its base (design.md 4.16), that ``gapsweep run`` takes
unchanged. The dataset's title is the study's name. A CONTACT is not imported: the joint
between its parts gets a commented ``clearance_mm`` and the study a commented
``joints.<joint>.clearance_mm`` axis, so that uncommenting both sweeps the clearance.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from .to_mechanism import Import

_BARE = re.compile(r"^[A-Za-z0-9_-]+$")
DEFAULT_T_END = 1.0  # [s] a mechanism without a MOTION moves this long unless told
SUGGESTED_CLEARANCES_MM = (0.05, 0.1, 0.2)


def _key(name: str) -> str:
    return name if _BARE.match(name) else json.dumps(name)


def value(v: Any) -> str:
    """A TOML value: numbers in their shortest round-tripping form."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if not math.isfinite(v):
            raise ValueError(f"a study file carries finite numbers only, not {v}")
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(value(x) for x in v) + "]"
    raise TypeError(f"cannot write {type(v).__name__}")


def _tables(lines: list[str], header: str, table: dict[str, Any],
            comments: dict[str, list[str]]) -> None:
    """``[header]`` with its scalar keys, then its sub-tables (recursively)."""
    subs = {k: v for k, v in table.items() if isinstance(v, dict)}
    own = [f"{_key(k)} = {value(v)}" for k, v in table.items() if not isinstance(v, dict)]
    if own or comments.get(header) or not subs:  # a table of tables needs no header
        lines += ["", f"[{header}]", *own, *comments.get(header, [])]
    for k, v in subs.items():
        _tables(lines, f"{header}.{_key(k)}", v, comments)


def mechanism_toml(table: dict[str, Any], comments: dict[str, list[str]] | None = None
                   ) -> list[str]:
    """The ``[mechanism]`` table's lines, ``comments`` added under the named headers."""
    lines: list[str] = []
    _tables(lines, "mechanism", table, comments or {})
    return lines


def study_toml(result: Import, source: str, t_end: float | None = None) -> str:
    """The study file of an import (its mechanism must be there)."""
    assert result.mechanism is not None
    mech = result.mechanism
    lines = [f"# Imported from {source} by `gapsweep import-adams` (design.md 4.13):",
             f"# {len(result.supported)} statements imported, {len(result.skipped)} skipped."]
    for s in result.skipped:
        lines.append(f"#   skipped: {s}")
    for note in result.notes:
        lines.append(f"#   {note}")
    lines += [f"name = {value((result.title or 'ADAMS dataset')[:200])}",
              'model = "mechanism"', 'design = "grid"']
    if "driver" not in mech:
        lines += ["", "[base]", f"t_end = {value(float(t_end or DEFAULT_T_END))}"
                  "  # s: no MOTION, the mechanism moves under its loads from rest"]
    elif t_end is not None:
        lines += ["", "[base]", f"t_end = {value(float(t_end))}"]
    comments: dict[str, list[str]] = {}
    axes: list[str] = []
    for c in result.contacts:
        if c.joint is None:
            axes.append(f"# {c.statement} (line {c.line}) is not imported and no revolute joint "
                        "joins its parts: model the contact as a clearance joint by hand")
            continue
        header = f"mechanism.joints.{_key(c.joint)}"
        comments.setdefault(header, []).append(
            f"# clearance_mm = {SUGGESTED_CLEARANCES_MM[0]}  # {c.statement} (line {c.line}): "
            "uncomment with the axis at the end to sweep this joint's clearance")
        axes += [f"# {c.statement} (line {c.line}) between {' and '.join(c.bodies)} is not "
                 f"imported: sweep the clearance of joint {c.joint} instead",
                 f'# [axes."joints.{c.joint}.clearance_mm"]',
                 f"# values = {value(list(SUGGESTED_CLEARANCES_MM))}"]
    lines += mechanism_toml(mech, comments)
    if axes:
        lines += ["", *axes]
    return "\n".join(lines) + "\n"
