"""Reading cases: one case's detail and series, and a study's export rows (design.md 4.5)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
from gapsweep.core import metrics as metric_registry
from gapsweep.study.case_inputs import case_inputs
from sqlalchemy import select
from sqlalchemy.orm import Session

from .metrics import iso, result_metrics
from .models import METRIC_COLUMNS, Case, Result, Series, Study
from .series_codec import decode_series, series_names

CASE_ID_COLUMN = "case_id"


def deviation_columns() -> list[str]:
    """The ``deviation_*`` metrics a clearance case stores (the registry's, in its order)."""
    return [metric_registry.deviation_name(m) for m in metric_registry.with_deviation()]


def twin_of(session: Session, twin_id: int) -> list[int]:
    """The ids of the clearance cases whose ideal twin is case ``twin_id``, in id order."""
    return list(session.scalars(
        select(Case.id).where(Case.twin_id == twin_id, Case.kind == "case").order_by(Case.id)))


def case_detail(session: Session, case_id: int) -> dict[str, Any] | None:
    """Everything about one case for its page, None if unknown or its study was deleted:
    ``{"id","study_id","study_name","model","kind","index","params","status","attempts",
    "reason","metrics","twin_id","twin_metrics","twin_of","lease_holder","lease_expires","queued_at",
    "enqueued_at","started_at","finished_at","wall_time_s","series_policy","series"}``
    (``series``: the stored names, ``metrics`` with ``deviation_*`` when it has a twin,
    ``twin_of``: for an ideal twin, the cases it is the twin of)."""
    row = session.execute(
        select(Case, Study.name, Study.model, Study.series_policy, Study.deleted_at,
               Study.spec)
        .join(Study, Study.id == Case.study_id)
        .where(Case.id == case_id)
    ).first()
    if row is None or row.deleted_at is not None:
        return None
    case = row.Case
    metrics = result_metrics(session.scalar(select(Result).where(Result.case_id == case_id)))
    twin_metrics = None
    if case.twin_id is not None:  # its deviations are stored with its metrics
        twin = session.scalar(select(Result).where(Result.case_id == case.twin_id))
        twin_metrics = result_metrics(twin)
    blob = session.scalar(select(Series.data).where(Series.case_id == case_id))
    return {
        "id": case.id,
        "study_id": case.study_id,
        "study_name": row.name,
        "model": row.model,
        "kind": case.kind,
        "index": case.index,
        # as it runs: a mechanism study's table joined in (the page draws and re-runs it)
        "params": case_inputs(case.params, row.spec),
        "status": case.status,
        "attempts": case.attempts,
        "reason": case.reason,
        "metrics": metrics,
        "twin_id": case.twin_id,
        "twin_metrics": twin_metrics,
        "twin_of": twin_of(session, case.id) if case.kind == "twin" else [],
        "lease_holder": case.lease_holder,
        "lease_expires": iso(case.lease_expires),
        "queued_at": iso(case.queued_at),
        "enqueued_at": iso(case.enqueued_at),
        "started_at": iso(case.started_at),
        "finished_at": iso(case.finished_at),
        "wall_time_s": case.wall_time_s,
        "series_policy": row.series_policy,
        "series": [] if blob is None else series_names(blob),
    }


def case_series(
    session: Session, case_id: int, names: Iterable[str] | None = None
) -> dict[str, np.ndarray]:
    """The case's stored series (only ``names`` if given; an unknown name raises
    KeyError naming it). {} when the case has none (policy ``none``, or not done)."""
    blob = session.scalar(select(Series.data).where(Series.case_id == case_id))
    if blob is None:
        if names:
            raise KeyError(next(iter(names)))
        return {}
    return decode_series(blob, names)


def export_rows(session: Session, study_id: int) -> tuple[list[str], list[dict[str, Any]]]:
    """One row per design case (twins excluded), in design order: ``(columns, rows)`` with
    columns = the union of the cases' params keys in spec order, then ``status``, then the
    metric columns (the contract ones, the model's others as first seen, then
    ``deviation_*`` when the study has twins), then ``case_id`` (the case's id, as on its
    page ``/cases/<id>``). Missing values are None.

    ``case_id`` comes last because design.md 4.5 fixes the order before it (parameters, then
    status, then metrics): scripts that read the columns by position keep working."""
    rows = session.execute(
        select(Case.id, Case.params, Case.status, Case.twin_id, Result)
        .outerjoin(Result, Result.case_id == Case.id)
        .where(Case.study_id == study_id, Case.kind == "case")
        .order_by(Case.index)
    ).all()
    params_cols: dict[str, None] = {}
    metric_cols: dict[str, None] = {}
    deviations = deviation_columns()  # stored with the metrics; listed last
    has_twins = False
    out: list[dict[str, Any]] = []
    for case_id, params, status, twin_id, result in rows:
        # a mechanism study's cases carry its [mechanism] table: the study's, not a column
        params_cols.update(dict.fromkeys(k for k in params if k != "mechanism"))
        metrics = result_metrics(result)
        metric_cols.update(dict.fromkeys(k for k in metrics if k not in deviations))
        has_twins = has_twins or twin_id is not None
        out.append({**params, "status": status, **metrics, CASE_ID_COLUMN: case_id})
    ordered_metrics = [m for m in METRIC_COLUMNS if m in metric_cols]
    ordered_metrics += [m for m in metric_cols if m not in METRIC_COLUMNS]
    if has_twins:
        ordered_metrics += deviations
    columns = [*params_cols, "status", *ordered_metrics, CASE_ID_COLUMN]
    return columns, [{c: row.get(c) for c in columns} for row in out]


def design_case_ids(session: Session, study_id: int) -> list[int]:
    """The ids of the study's design cases (twins and certificates left out), in design
    order."""
    return list(session.scalars(
        select(Case.id).where(Case.study_id == study_id, Case.kind == "case")
        .order_by(Case.index)))
