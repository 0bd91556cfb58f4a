"""How the study commands print: errors, JSON, progress lines and the summary table."""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Callable, Sequence
from typing import Any, TextIO

from gapsweep.core import metrics as registry


def json_ready(value: Any) -> Any:
    """``value`` as strict JSON can carry it, as the API answers (web/api/routes.py): NaN and
    infinities become null, numpy scalars and arrays plain numbers and lists."""
    if isinstance(value, dict):
        return {k: json_ready(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_ready(v) for v in value]
    if hasattr(value, "tolist"):  # numpy scalars and arrays
        return json_ready(value.tolist())
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def json_text(data: Any) -> str:
    """``data`` as strict JSON text (no NaN/Infinity tokens: other parsers refuse them);
    what is not JSON (a datetime) as its ``str``."""
    return json.dumps(json_ready(data), default=str, allow_nan=False)


def print_json(data: Any) -> None:
    """Print ``data`` as one line of strict JSON (:func:`json_text`)."""
    print(json_text(data))


def print_errors(errors: Sequence[Any], *, as_json: bool) -> None:
    """A refused spec: ``{"errors": [...]}`` on stdout with --json, else one line per error
    (``field: value — allowed``) on stderr (design.md 4.5)."""
    if as_json:
        print_json({"errors": [e.to_dict() for e in errors]})
    for e in errors:
        print(str(e), file=sys.stderr)


def progress_printer(stream: TextIO, quiet: bool) -> Callable[[dict[str, int]], None]:
    """Prints a study's progress when it changes: rewritten in place on a terminal, one line
    per change otherwise (a log file gets whole lines)."""
    last: list[tuple] = []
    tty = stream.isatty()

    def show(progress: dict[str, int]) -> None:
        key = tuple(sorted(progress.items()))
        if quiet or (last and last[0] == key):
            return
        last[:] = [key]
        total = progress.get("total", 0)
        finished = sum(progress.get(k, 0) for k in ("done", "failed", "cancelled"))
        line = (f"[{finished}/{total}] done {progress.get('done', 0)}, failed "
                f"{progress.get('failed', 0)}, running {progress.get('running', 0)}, "
                f"queued {progress.get('queued', 0)}")
        end = "\n" if not tty or finished == total else ""
        stream.write(("\r" if tty else "") + line + end)
        stream.flush()

    return show


def _cell(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return "nan" if math.isnan(value) else f"{value:.5g}"
    return str(value)


def metric_header(name: str) -> str:
    """A table's header of metric ``name`` with the unit its values are shown in, as the
    pages label it (the core's metric registry): ``max_penetration [µm]``, ``impacts [count]``;
    a ratio without a unit."""
    unit = registry.display_unit(name)
    return name if unit == registry.DIMENSIONLESS else f"{name} [{unit}]"


def study_table(detail: dict[str, Any], metrics: Sequence[str], *, with_attempts=False) -> None:
    """One row per case: parameters that vary, status, the headline metrics in the units the
    header names (:func:`metric_header`; ``--json`` stays SI); a failed case shows its reason
    under the table."""
    cases = detail.get("cases", [])
    names: list[str] = []
    for case in cases:
        names += [k for k in case["params"] if k not in names]
    varying = [n for n in names if len({repr(c["params"].get(n)) for c in cases}) > 1] or names
    header = ["id", *varying, "status"] + (["attempts"] if with_attempts else [])
    header += [metric_header(m) for m in metrics]
    rows = []
    for case in cases:
        row = [case["id"], *(case["params"].get(n) for n in varying), case["status"]]
        row += [case.get("attempts")] if with_attempts else []
        row += [registry.lookup(m).display((case.get("metrics") or {}).get(m)) for m in metrics]
        rows.append([_cell(v) for v in row])
    widths = [max(len(h), *(len(r[k]) for r in rows)) if rows else len(h)
              for k, h in enumerate(header)]
    print("  ".join(h.rjust(w) for h, w in zip(header, widths, strict=True)))
    for r in rows:
        print("  ".join(c.rjust(w) for c, w in zip(r, widths, strict=True)))
    for case in cases:
        if case.get("reason"):
            print(f"case {case['id']}: {case['status']}: {case['reason']}")
