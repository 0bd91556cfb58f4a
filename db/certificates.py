"""Convergence-certificate rows: a finished study's refined re-runs, stored as extra cases.

A certificate is a row of kind "certificate" (migration ``0003_case_kinds``) naming the design
case it refines (``source_case_id``) and the refinement (``slot``, an index into
``gapsweep.study.certificates.REFINEMENTS``); its ``index`` counts the study's certificates
by source then slot. Not being a design case keeps it out of the case counts, the "cases"
list and the export rows, and out of the study's status and its retries (:mod:`.lifecycle`).
The unique (source, slot) makes a second certificate of the same source and refinement
impossible, whoever tries. ``twin_id`` is the source's twin, so a certificate's deviations
read like its source's.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from sqlalchemy import func, insert, select
from sqlalchemy.orm import Session

from .lifecycle import live_study
from .metrics import case_entry
from .models import CASE_STATUSES, CERTIFICATE, Case, Result, Study, utcnow


def add_certificates(
    session: Session,
    *,
    study_id: int,
    certificates: Iterable[tuple[int, int, Mapping[str, Any]]],
) -> list[int]:
    """Write the study's certificate cases, status queued, once: ``certificates`` is
    ``(source_index, slot, params)`` per run. Returns the new ids (to enqueue after the
    commit), or [] when the study already has certificates or is not done. The study row is
    locked first (PostgreSQL), so two workers finishing the study's last chunks at once
    cannot both write them; the unique (study, kind, index) would refuse the second anyway."""
    row = session.execute(
        select(Study.status, Study.deleted_at).where(Study.id == study_id).with_for_update()
    ).first()
    if row is None or row.deleted_at is not None or row.status != "done":
        return []
    if session.scalar(
        select(func.count()).select_from(Case).where(Case.study_id == study_id,
                                                     Case.kind == CERTIFICATE)
    ):
        return []
    sources = {
        r.index: r
        for r in session.execute(
            select(Case.index, Case.id, Case.twin_id)
            .where(Case.study_id == study_id, Case.kind == "case")
        )
    }
    now = utcnow()
    runs = sorted((source_index, slot, params) for source_index, slot, params in certificates
                  if source_index in sources)
    rows = [
        {
            "study_id": study_id,
            "kind": CERTIFICATE,
            "index": n,
            "source_case_id": sources[source_index].id,
            "slot": slot,
            "twin_id": sources[source_index].twin_id,
            "params": dict(params),
            "status": "queued",
            "attempts": 0,
            "queued_at": now,
        }
        for n, (source_index, slot, params) in enumerate(runs)
    ]
    if not rows:
        return []
    return list(
        session.scalars(insert(Case).returning(Case.id, sort_by_parameter_order=True), rows)
    )


def study_certificates(session: Session, study_id: int) -> list[dict[str, Any]]:
    """The study's certificates, by source then slot: ``{"id","source_id","slot","params",
    "status","attempts","reason","metrics","twin_id"}`` (``source_id``: the design case
    refined, ``slot``: the refinement; metrics as the cases' - SI, no deviations)."""
    rows = session.execute(
        select(Case, Result)
        .outerjoin(Result, Result.case_id == Case.id)
        .where(Case.study_id == study_id, Case.kind == CERTIFICATE)
        .order_by(Case.index)
    ).all()
    return [certificate_entry(case, result) for case, result in rows]


def certificate_entry(case: Case, result: Result | None) -> dict:
    """One certificate row as the API lists it (see :func:`study_certificates`)."""
    return {**case_entry(case, result), "source_id": case.source_case_id, "slot": case.slot}


def certificate_progress(session: Session, study_id: int) -> dict[str, int]:
    """Certificate counts per status and their total: ``{"queued","running","done",
    "failed","cancelled","total"}`` (all 0 before the study finished)."""
    live_study(session, study_id)
    out = dict.fromkeys(CASE_STATUSES, 0)
    for status, n in session.execute(
        select(Case.status, func.count())
        .where(Case.study_id == study_id, Case.kind == CERTIFICATE)
        .group_by(Case.status)
    ):
        out[status] = int(n)
    out["total"] = sum(out[s] for s in CASE_STATUSES)
    return out
