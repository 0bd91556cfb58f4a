"""A study's export rows a page at a time (``cases.csv``, ``gapsweep export``, the Python
API's table; issue 41): the columns and row shape of :func:`.case_reads.export_rows`, with
memory bounded by one page of cases instead of the study.

The header must be written before the first row, so the columns are settled first, without
reading every case: the parameters are the spec's (its ``base`` then its ``axes``: every
case's ``params`` is their union, design.md 4.5) with any other key the first page shows, the
metric columns are those of :data:`~.models.METRIC_COLUMNS` that hold a value in any case (one
aggregate query), then the other metrics the first page of results reports (a model reports
the same metrics for each of its cases), then ``deviation_*`` when the study has twins.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from . import case_pages
from .case_reads import CASE_ID_COLUMN, deviation_columns
from .models import METRIC_COLUMNS, Case, Result, Study


def export_columns(session: Session, study_id: int) -> list[str]:
    """The export's columns for the study (see the module's note); parameters, ``status``,
    metrics, ``case_id``."""
    spec = session.scalar(select(Study.spec).where(Study.id == study_id)) or {}
    params: dict[str, None] = {}
    params.update(dict.fromkeys(k for k in (spec.get("base") or {}) if k != "mechanism"))
    params.update(dict.fromkeys(spec.get("axes") or {}))
    first, _ = case_pages.case_page(session, study_id=study_id, limit=case_pages.PAGE)
    extra: dict[str, None] = {}
    for entry in first:
        params.update(dict.fromkeys(k for k in entry["params"] if k != "mechanism"))
        extra.update(dict.fromkeys(k for k in entry["metrics"]
                                   if k not in METRIC_COLUMNS
                                   and not k.startswith("deviation_")))
    counts = session.execute(
        select(*[func.count(getattr(Result, m)) for m in METRIC_COLUMNS])
        .select_from(Case).join(Result, Result.case_id == Case.id)
        .where(Case.study_id == study_id, Case.kind == "case")).one()
    metrics = [m for m, n in zip(METRIC_COLUMNS, counts, strict=True) if n]
    has_twins = bool(session.scalar(
        select(func.count()).select_from(Case)
        .where(Case.study_id == study_id, Case.kind == "case", Case.twin_id.is_not(None))))
    deviations = deviation_columns() if has_twins else []
    return [*params, "status", *metrics, *extra, *deviations, CASE_ID_COLUMN]


def export_row(entry: dict[str, Any], columns: list[str]) -> dict[str, Any]:
    """One case entry (:func:`.case_pages.case_page`) as an export row of ``columns``."""
    row = {**entry["params"], "status": entry["status"], **entry["metrics"],
           CASE_ID_COLUMN: entry["id"]}
    return {c: row.get(c) for c in columns}


def iter_export_rows(sessions: Any, study_id: int, columns: list[str],
                     page: int = case_pages.PAGE) -> Iterator[list[dict[str, Any]]]:
    """The export rows in design order, a page at a time, each page in its own session:
    from the database's rows straight to export rows (no case entry built between: at
    100,000 cases that copy made the paged export slower than the whole one)."""
    for rows in case_pages.iter_page_rows(sessions, study_id=study_id, page=page):
        out = []
        for row in rows:
            values = dict(row.params)
            values["status"] = row.status
            values.update(case_pages.row_metrics(row))
            values[CASE_ID_COLUMN] = row.id
            out.append({c: values.get(c) for c in columns})
        yield out
