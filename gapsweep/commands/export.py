"""``gapsweep export``: a study's rows as CSV, Parquet or JSON (design.md 4.3, 4.5), or as a
MATLAB file with its stored series (the seeds' users work in MATLAB)."""

from __future__ import annotations

import csv
import io
import re
import sys
from collections.abc import Iterable, Mapping
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


def write_pages(columns: list[str], pages: Iterable[list[dict[str, Any]]], fmt: str,
                path: str | None) -> None:
    """:func:`write_rows` for CSV and JSON with the rows coming a page at a time: each page
    is written before the next is read (memory bounded by a page; the same text)."""
    if path:
        with open(path, "w", encoding="utf-8", newline="") as handle:
            _write_pages(columns, pages, fmt, handle)
    else:
        _write_pages(columns, pages, fmt, sys.stdout)


def _write_pages(columns: list[str], pages: Iterable[list[dict[str, Any]]], fmt: str,
                 handle: Any) -> None:
    if fmt == "csv":
        from gapsweep.archive.streaming import csv_chunks

        for chunk in csv_chunks(columns, pages):
            handle.write(chunk)
        return
    handle.write("[")
    first = True
    for rows in pages:
        for row in rows:
            handle.write(("" if first else ", ") + json_text({k: row.get(k) for k in columns}))
            first = False
    handle.write("]\n")


MAT_NAME_LENGTH = 63  # MATLAB's longest field name (namelengthmax)


def matlab_name(name: str, taken: set[str]) -> str:
    """``name`` as a MATLAB field name - letters, digits and underscores, starting with a
    letter, at most 63 characters (``joints.pin.clearance_mm`` -> ``joints_pin_clearance_mm``)
    - and not one of ``taken`` (a suffix ``_2``, ``_3`` ... where two names meet)."""
    base = re.sub(r"\W", "_", name, flags=re.ASCII)
    base = (base if base[:1].isalpha() else "x" + base)[:MAT_NAME_LENGTH]
    field, n = base, 1
    while field in taken:
        n += 1
        field = f"{base[:MAT_NAME_LENGTH - len(str(n)) - 1]}_{n}"
    taken.add(field)
    return field


def _mat_column(values: list[Any]) -> Any:
    """A column as MATLAB holds it: doubles (NaN where missing) when every value is a number,
    else a cell of text ('' where missing)."""
    import numpy as np

    if all(v is None or isinstance(v, (int, float)) for v in values):
        return np.array([np.nan if v is None else float(v) for v in values], dtype=float)
    return np.array(["" if v is None else str(v) for v in values], dtype=object)


def _mat_struct(names: list[str], rows: list[dict[str, Any]]) -> tuple[dict[str, Any], list]:
    """A struct of columns (one field per name, made MATLAB-safe) and the original names."""
    taken: set[str] = set()
    return ({matlab_name(n, taken): _mat_column([r.get(n) for r in rows]) for n in names},
            list(names))


def write_mat(path: str | None, study: Mapping[str, Any], columns: list[str],
              rows: list[dict[str, Any]], series: Mapping[int, Mapping[str, Any]]) -> None:
    """The study as a MATLAB file (``scipy.io.savemat``, MAT v5): one row per design case,
    n x 1 columns::

        study_id, name, model       the study
        case_id, status             per case (status a cell of text)
        params.<name>, metrics.<name>   a struct of columns each (SI units; NaN = missing;
                                    text parameters as cells); param_names and
                                    metric_names hold the original names in column order
        series{i}.<name>            case i's stored series (a struct of vectors; empty
                                    where none were stored: policy none, or not done):
                                    against series{i}.t (policy full) or series{i}.t_<name>
                                    (preview); spectrum_<name> against spectrum_freq_hz,
                                    poincare_<name> against poincare_time

    Names that are no MATLAB field name are made one (:func:`matlab_name`)."""
    import numpy as np
    from scipy.io import savemat

    if not path:
        raise InputError("--output", path, "a file name for mat (binary) output")
    params = columns[: columns.index("status")]
    metrics = [c for c in columns[columns.index("status") + 1:] if c != "case_id"]
    cells = np.empty((len(rows),), dtype=object)
    for i, row in enumerate(rows):
        stored = series.get(row["case_id"]) or {}
        taken: set[str] = set()
        cells[i] = {matlab_name(n, taken): np.asarray(v) for n, v in stored.items()}
    param_struct, param_names = _mat_struct(params, rows)
    metric_struct, metric_names = _mat_struct(metrics, rows)
    savemat(path, {
        "study_id": float(study["id"]),
        "name": str(study["name"]),
        "model": str(study["model"]),
        "case_id": _mat_column([r["case_id"] for r in rows]),
        "status": _mat_column([r["status"] for r in rows]),
        "params": param_struct,
        "param_names": np.array(param_names, dtype=object),
        "metrics": metric_struct,
        "metric_names": np.array(metric_names, dtype=object),
        "series": cells,
    }, long_field_names=True, do_compression=True)
