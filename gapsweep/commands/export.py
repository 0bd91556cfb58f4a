"""``gapsweep export``: a study's rows as CSV, Parquet or JSON (design.md 4.3, 4.5)."""

from __future__ import annotations

import csv
import io
import sys
from typing import Any

from gapsweep.core.errors import InputError

from .output import json_text


def _to_csv(columns: list[str], rows: list[dict[str, Any]]) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=columns, extrasaction="ignore", lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({k: ("" if row.get(k) is None else row.get(k)) for k in columns})
    return out.getvalue()


def _to_parquet(columns: list[str], rows: list[dict[str, Any]], path: str) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    # one Arrow column per export column; mixed types (a string parameter) become strings
    data = {}
    for name in columns:
        values = [row.get(name) for row in rows]
        try:
            data[name] = pa.array(values)
        except (pa.ArrowInvalid, pa.ArrowTypeError):
            data[name] = pa.array([None if v is None else str(v) for v in values])
    pq.write_table(pa.table(data), path)


def write_rows(columns: list[str], rows: list[dict[str, Any]], fmt: str, path: str | None) -> None:
    """Write ``rows`` (dicts keyed by ``columns``) as ``fmt`` to ``path`` (stdout if None)."""
    if fmt == "parquet":
        if not path:
            raise InputError("--output", path, "a file name for parquet (binary) output")
        _to_parquet(columns, rows, path)
        return
    if fmt == "csv":
        text = _to_csv(columns, rows)
    else:
        text = json_text([{k: row.get(k) for k in columns} for row in rows]) + "\n"
    if path:
        with open(path, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
    else:
        sys.stdout.write(text)
