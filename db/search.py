"""An adaptive study's rows (design.md 4.9): its next generation of cases and its search
summary. The cases are the optimizer's whole state (``gapsweep.study.search``); the summary
on ``studies.search`` is derived from them and only read by pages and ``show --json``.

A generation is written with the case indices the replay gives it, so the unique
``(study_id, kind, index)`` of the cases table makes writing it idempotent: a second
process that replays to the same generation at the same time gets an IntegrityError and
writes nothing (:func:`add_generation` returns [] then). No function commits.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import exists, insert, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from .lifecycle import lock_study, refresh_study_status, search_settled  # noqa: F401 - re-exported
from .metrics import plain, result_metrics
from .models import Case, Result, Study, utcnow


def design_cases(session: Session, study_id: int) -> list[dict[str, Any]]:
    """The study's design cases in index order: ``{"id", "index", "params", "status",
    "reason", "metrics"}`` (what the replay reads)."""
    rows = session.execute(
        select(Case, Result).outerjoin(Result, Result.case_id == Case.id)
        .where(Case.study_id == study_id, Case.kind == "case").order_by(Case.index)
    ).all()
    return [{"id": c.id, "index": c.index, "params": dict(c.params), "status": c.status,
             "reason": c.reason, "metrics": result_metrics(r)} for c, r in rows]


def add_generation(
    session: Session, *, study_id: int, first_index: int, params: Sequence[Mapping[str, Any]],
    state: Mapping[str, Any],
) -> list[int]:
    """Write the cases ``params`` (queued) at indices ``first_index``... and the search
    summary; returns their ids, or [] when another process wrote them first (the session
    is rolled back then)."""
    now = utcnow()
    try:
        with session.begin_nested():
            ids = list(session.scalars(
                insert(Case).returning(Case.id, sort_by_parameter_order=True),
                [{"study_id": study_id, "kind": "case", "index": first_index + k,
                  "params": plain(dict(p)), "status": "queued", "attempts": 0,
                  "queued_at": now} for k, p in enumerate(params)],
            ))
    except IntegrityError:
        return []
    session.execute(update(Study).where(Study.id == study_id)
                    .values(search=plain(dict(state))))
    return ids


def set_search_state(session: Session, *, study_id: int, state: Mapping[str, Any]) -> str:
    """Store the search summary and bring the study's status in line (a finished or waiting
    search lets it end); returns the status."""
    session.execute(update(Study).where(Study.id == study_id)
                    .values(search=plain(dict(state))))
    return refresh_study_status(session, study_id)


def best_entry(search: Mapping[str, Any] | None, cases: Sequence[Mapping[str, Any]]) -> dict | None:
    """``{"id", "params", "metrics", "cost"}`` of the search's best case (design.md 4.9)."""
    best = (search or {}).get("best")
    if not best or best.get("index") is None or best["index"] >= len(cases):
        return None
    case = cases[best["index"]]
    return {"id": case["id"], "params": case["params"], "metrics": case["metrics"],
            "cost": best.get("cost")}


def stalled_searches(session: Session, *, designs: Sequence[str]) -> list[int]:
    """Live, running (or queued) studies of an adaptive design whose search has not
    finished and that have no queued or running case: their driver stopped between two
    generations (the reconciler advances them)."""
    busy = exists().where(Case.study_id == Study.id, Case.status.in_(("queued", "running")))
    rows = session.execute(
        select(Study.id, Study.search).where(
            Study.design.in_(list(designs)), Study.status.in_(("queued", "running")),
            Study.deleted_at.is_(None), ~busy)
        .order_by(Study.id)
    ).all()
    return [r.id for r in rows if not search_settled(r.search)]
