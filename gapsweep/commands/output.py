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
        cancelled = progress.get("cancelled", 0)  # said, not counted as run (issue 28)
        line = (f"[{finished - cancelled}/{total}] {_generation(progress)}"
                f"done {progress.get('done', 0)}, failed "
                f"{progress.get('failed', 0)}, {f'cancelled {cancelled}, ' if cancelled else ''}"
                f"running {progress.get('running', 0)}{_steps(progress)}, "
                f"queued {progress.get('queued', 0)}")
        end = "\n" if not tty or finished == total else ""
        stream.write(("\r" if tty else "") + line + end)
        stream.flush()

    return show


def _steps(progress: dict[str, int]) -> str:
    """`` (life steps k/N)`` over the running cases that report their steps (a wear life's
    settled runs, design.md 4.12); '' when none does."""
    if not progress.get("steps"):
        return ""
    return f" (life steps {progress['steps_done']}/{progress['steps']})"


def _generation(progress: dict[str, int]) -> str:
    """``generation g/G, `` for an adaptive study (design.md 4.14): the generation running
    (1-based), or the last one once the search has finished; '' for other designs."""
    if "generations" not in progress:
        return ""
    done, planned = progress["generation"], progress["generations"]
    current = done if progress.get("search_finished") else min(done + 1, max(planned, 1))
    return f"generation {current}/{planned}, "


def _cell(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        # six digits without an exponent up to 999999 (187692 m/s², not 1.8769e+05)
        return "nan" if math.isnan(value) else f"{value:.6g}"
    return str(value)


# a header cell's line width: the table of the user's study (id, two parameters, status, the
# six headline metrics) then fits 100 columns
HEADER_LINE = 9


def header_lines(name: str, unit: str = "") -> list[str]:
    """A column's header as lines of at most :data:`HEADER_LINE` characters (a longer word
    keeps its length): the name cut at its underscores, each continuing line starting with
    the ``_`` so the lines put together give the name back, then ``[unit]``:
    ``peak_slider_accel``, ``m/s²`` -> ``["peak", "_slider", "_accel", "[m/s²]"]``."""
    lines: list[str] = []
    for word in name.split("_"):
        if lines and len(lines[-1]) + 1 + len(word) <= HEADER_LINE:
            lines[-1] += "_" + word
        else:
            lines.append(("_" if lines else "") + word)
    return lines + ([f"[{unit}]"] if unit else [])


def print_table(header: Sequence[list[str]], rows: Sequence[Sequence[str]]) -> None:
    """Columns right-aligned under multi-line headers (bottom-aligned), a rule of dashes
    under the headers (its dashes give each column's width), then the rows."""
    widths = [max(len(x) for x in [*head, *(r[k] for r in rows)]) for k, head in enumerate(header)]
    depth = max(len(head) for head in header)
    for line in range(depth):
        cells = [(([""] * (depth - len(head)) + head)[line]).rjust(w)
                 for head, w in zip(header, widths, strict=True)]
        print("  ".join(cells).rstrip())
    print("  ".join("-" * w for w in widths))
    for r in rows:
        print("  ".join(c.rjust(w) for c, w in zip(r, widths, strict=True)))


def study_table(detail: dict[str, Any], metrics: Sequence[str], *, with_attempts=False) -> None:
    """One row per case: parameters that vary, status, the headline metrics in the units the
    header names (the registry's shown unit; ``--json`` stays SI), each header cut over lines
    (:func:`header_lines`) so that the user's study fits 100 columns; a failed case shows its
    reason under the table."""
    cases = detail.get("cases", [])
    names: list[str] = []
    for case in cases:
        names += [k for k in case["params"] if k not in names]
    varying = [n for n in names if len({repr(c["params"].get(n)) for c in cases}) > 1] or [
        n for n in names if not isinstance(cases[0]["params"].get(n), (dict, list))]  # one case
    plain = ["id", *varying, "status"] + (["attempts"] if with_attempts else [])
    header = [header_lines(h) for h in plain]
    for m in metrics:
        unit = registry.display_unit(m)
        header.append(header_lines(m, "" if unit == registry.DIMENSIONLESS else unit))
    rows = []
    for case in cases:
        row = [case["id"], *(case["params"].get(n) for n in varying), case["status"]]
        row += [case.get("attempts")] if with_attempts else []
        row += [registry.lookup(m).display((case.get("metrics") or {}).get(m)) for m in metrics]
        rows.append([_cell(v) for v in row])
    print_table(header, rows)
    for case in cases:
        if case.get("reason"):
            print(f"case {case['id']}: {case['status']}: {case['reason']}")
