"""The archive side: create a study with its cases, list the archive, read a study.

Keyword-only repository functions on a caller's :class:`~sqlalchemy.orm.Session`; none of
them commits (see :mod:`.lifecycle` for the transaction rule). The status transitions
(:func:`cancel_study`, :func:`retry_failed`, ...) live in :mod:`.lifecycle` and are
re-exported here; a case's own reads (:func:`case_detail`, :func:`case_series`,
:func:`export_rows`) in :mod:`.case_reads`.

Every dict returned is JSON-ready: ids are integers, times ISO 8601 strings with offset.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Protocol

from sqlalchemy import func, insert, or_, select
from sqlalchemy.orm import Session

from . import case_pages
from .case_reads import case_detail, case_series, export_rows
from .certificates import certificate_entry
from .leases import queued_case_ids
from .lifecycle import (
    StudyNotFoundError,
    cancel_study,
    purge_deleted,
    refresh_study_status,
    retry_failed,
    set_analysis,
    soft_delete,
)
from .metrics import case_entry, iso, plain
from .models import CASE_STATUSES, CERTIFICATE, Case, Result, Study, StudyTag, utcnow
from .search import best_entry

__all__ = [
    "CreatedStudy",
    "StudyNotFoundError",
    "cancel_study",
    "case_detail",
    "case_series",
    "create_study",
    "export_rows",
    "list_studies",
    "purge_deleted",
    "queued_case_ids",
    "refresh_study_status",
    "retry_failed",
    "set_analysis",
    "soft_delete",
    "study_detail",
    "study_head",
    "study_progress",
    "study_status",
]

MAX_PAGE = 10_000


class SpecLike(Protocol):
    """What :func:`create_study` reads of a ``gapsweep.study.spec.StudySpec``."""

    name: str
    model: str
    description: str
    tags: list[str]
    series: str
    design: str

    def to_dict(self) -> dict[str, Any]: ...


class PlanLike(Protocol):
    """What :func:`create_study` reads of a ``gapsweep.study.designs.StudyPlan``."""

    cases: list[dict[str, Any]]
    twins: list[dict[str, Any]]
    twin_of: list[int | None]


@dataclass(frozen=True)
class CreatedStudy:
    """What :func:`create_study` wrote: the flushed ``study`` and the ids of its twins and
    cases in their design order - the ids to enqueue, carried rather than read back."""

    study: Study
    twin_ids: list[int]
    case_ids: list[int]

    @property
    def id(self) -> int:
        return int(self.study.id)

    @property
    def queued_ids(self) -> list[int]:
        """Every id to enqueue, ideal twins first (as :func:`queued_case_ids` orders them)."""
        return [*self.twin_ids, *self.case_ids]


def create_study(
    session: Session,
    *,
    spec: SpecLike,
    plan: PlanLike,
    provenance: dict[str, Any],
    owner: str | None = None,
) -> CreatedStudy:
    """Write the study, its twins and its cases (status queued, each case linked to its
    twin) in the caller's transaction, and return what was written (the flushed Study, its
    twins' and cases' ids). On any error the session is rolled back - nothing of it is
    written - and the error re-raised. The caller commits, then enqueues the ids."""
    if len(plan.twin_of) != len(plan.cases):
        raise ValueError(
            f"plan.twin_of has {len(plan.twin_of)} entries for {len(plan.cases)} cases"
        )
    for i, t in enumerate(plan.twin_of):
        if t is not None and not 0 <= t < len(plan.twins):
            raise ValueError(f"plan.twin_of[{i}] = {t} is not one of {len(plan.twins)} twins")
    now = utcnow()
    try:
        tags = list(dict.fromkeys(str(t) for t in spec.tags))
        study = Study(
            name=spec.name,
            model=spec.model,
            description=spec.description or "",
            tags=tags,
            spec=plain(spec.to_dict()),
            design=spec.design,
            series_policy=spec.series,
            status="queued",
            created=now,
            provenance=plain(dict(provenance)),
            owner=owner,
        )
        session.add(study)
        session.flush()
        session.add_all(StudyTag(study_id=study.id, tag=t) for t in tags)
        twin_ids: list[int] = []
        if plan.twins:
            twin_ids = list(
                session.scalars(
                    insert(Case).returning(Case.id, sort_by_parameter_order=True),
                    [
                        _case_row(study.id, "twin", j, p, None, now)
                        for j, p in enumerate(plan.twins)
                    ],
                )
            )
        case_ids: list[int] = []
        if plan.cases:
            case_ids = list(
                session.scalars(
                    insert(Case).returning(Case.id, sort_by_parameter_order=True),
                    [
                        _case_row(study.id, "case", i, p, None if t is None else twin_ids[t],
                                  now)
                        for i, (p, t) in enumerate(zip(plan.cases, plan.twin_of, strict=True))
                    ],
                )
            )
        session.flush()
    except BaseException:
        session.rollback()
        raise
    return CreatedStudy(study, twin_ids, case_ids)


def _case_row(
    study_id: int, kind: str, index: int, params: dict, twin_id: int | None, now: Any
) -> dict[str, Any]:
    return {
        "study_id": study_id,
        "kind": kind,
        "index": index,
        "twin_id": twin_id,
        "params": dict(params),
        "status": "queued",
        "attempts": 0,
        "queued_at": now,
    }


_SORTS = {
    "created": Study.created,
    "id": Study.id,
    "name": Study.name,
    "model": Study.model,
    "status": Study.status,
}


def list_studies(
    session: Session,
    *,
    search: str | None = None,
    tag: str | None = None,
    status: str | None = None,
    model: str | None = None,
    limit: int = 50,
    offset: int = 0,
    sort: str = "created",
    descending: bool = True,
) -> tuple[int, list[dict[str, Any]]]:
    """One page of the archive (soft-deleted studies left out): ``(total, items)``, items
    ``{"id","name","model","status","tags","created","cases","done","failed"}`` with the
    design cases' counts (twins not counted). ``search`` matches name or description,
    case-insensitively, as plain text (``%`` and ``_`` are not wildcards). Three queries
    whatever the page size: the total, the page, and one grouped count."""
    if sort not in _SORTS:
        raise ValueError(f"sort={sort!r}: one of {', '.join(_SORTS)}")
    if not 1 <= limit <= MAX_PAGE or offset < 0:
        raise ValueError(f"limit must be 1..{MAX_PAGE} and offset >= 0 (got {limit}, {offset})")
    conds = [Study.deleted_at.is_(None)]
    if search:
        conds.append(
            or_(
                Study.name.icontains(search, autoescape=True),
                Study.description.icontains(search, autoescape=True),
            )
        )
    if tag:
        conds.append(Study.id.in_(select(StudyTag.study_id).where(StudyTag.tag == tag)))
    if status:
        conds.append(Study.status == status)
    if model:
        conds.append(Study.model == model)
    total = session.scalar(select(func.count()).select_from(Study).where(*conds)) or 0
    key = _SORTS[sort]
    order = (key.desc(), Study.id.desc()) if descending else (key.asc(), Study.id.asc())
    page = session.execute(
        select(Study.id, Study.name, Study.model, Study.status, Study.tags, Study.created)
        .where(*conds)
        .order_by(*order)
        .limit(limit)
        .offset(offset)
    ).all()
    counts = _case_counts(session, [row.id for row in page])
    items = [
        {
            "id": row.id,
            "name": row.name,
            "model": row.model,
            "status": row.status,
            "tags": list(row.tags or []),
            "created": iso(row.created),
            **counts.get(row.id, {"cases": 0, "done": 0, "failed": 0}),
        }
        for row in page
    ]
    return int(total), items


def described_models() -> list[str]:
    """The models whose studies carry their mechanism as a table (the model registry's)."""
    from gapsweep.core.api import DESCRIBED, MODELS

    return [name for name, m in MODELS.items() if m.can(DESCRIBED)]


def study_mechanisms(session: Session, *, limit: int = 50) -> list[dict[str, Any]]:
    """The ``[mechanism]`` tables of the archive's live mechanism studies, newest first, one
    entry per distinct table (the newest study holding it): ``[{"study_id", "study_name",
    "name", "mechanism"}]`` (``name``: the table's own). At most ``limit`` studies read."""
    import json

    rows = session.execute(
        select(Study.id, Study.name, Study.spec)
        .where(Study.deleted_at.is_(None), Study.model.in_(described_models()))
        .order_by(Study.id.desc())
        .limit(limit)
    ).all()
    out, seen = [], set()
    for study_id, study_name, spec in rows:
        table = (spec or {}).get("mechanism")
        if not isinstance(table, dict):
            continue
        key = json.dumps(table, sort_keys=True, default=str)
        if key in seen:
            continue
        seen.add(key)
        out.append({"study_id": study_id, "study_name": study_name,
                    "name": str(table.get("name") or "mechanism"), "mechanism": table})
    return out


def _case_counts(session: Session, study_ids: Iterable[int]) -> dict[int, dict[str, int]]:
    """{study id: {"cases", "done", "failed"}} of the design cases, in one grouped query."""
    ids = list(study_ids)
    if not ids:
        return {}
    rows = session.execute(
        select(Case.study_id, Case.status, func.count())
        .where(Case.study_id.in_(ids), Case.kind == "case")
        .group_by(Case.study_id, Case.status)
    ).all()
    out: dict[int, dict[str, int]] = {i: {"cases": 0, "done": 0, "failed": 0} for i in ids}
    for study_id, case_status, n in rows:
        out[study_id]["cases"] += n
        if case_status in ("done", "failed"):
            out[study_id][case_status] += n
    return out


def study_status(session: Session, study_id: int) -> str | None:
    """The study's stored status (None for no such study): one primary-key read, for a
    caller after a transaction that refreshed it (:func:`refresh_study_status`)."""
    return session.scalar(select(Study.status).where(Study.id == study_id))


def study_progress(session: Session, study_id: int) -> dict[str, int]:
    """Case counts per status and their total, design cases only (twins excluded):
    ``{"queued","running","done","failed","cancelled","total"}``."""
    out = dict.fromkeys(CASE_STATUSES, 0)
    rows = session.execute(
        select(Case.status, func.count())
        .where(Case.study_id == study_id, Case.kind == "case")
        .group_by(Case.status)
    ).all()
    for case_status, n in rows:
        out[case_status] = int(n)
    out["total"] = sum(out[s] for s in CASE_STATUSES)
    return out


#: running cases a progress report lists at most (a study runs as many as it has workers)
RUNNING_LISTED = 100


def running_steps(session: Session, study_id: int) -> list[dict[str, int]]:
    """The running design cases that said how far they have come (a wear life's settled
    runs, ``cases.progress``): ``[{"id", "step", "steps"}]`` in id order, at most
    :data:`RUNNING_LISTED`."""
    rows = session.execute(
        select(Case.id, Case.progress)
        .where(Case.study_id == study_id, Case.kind == "case", Case.status == "running")
        .order_by(Case.id)
        .limit(RUNNING_LISTED)
    ).all()
    return [{"id": r.id, "step": int(r.progress["step"]), "steps": int(r.progress["steps"])}
            for r in rows if isinstance(r.progress, dict)]


def study_progress_report(session: Session, study_id: int) -> dict[str, Any] | None:
    """What a follower polls (``GET /api/studies/<id>/progress``, remote ``wait``): ``{"id",
    "status", "counts", "started", "finished", "running"}``, ``counts`` as
    :func:`study_progress`, ``running`` :func:`running_steps`; None when there is no such
    (live) study. Three indexed queries, however many cases: the study row's few columns
    (not its spec or analysis), the status counts and the running cases' steps."""
    row = session.execute(
        select(Study.status, Study.started, Study.finished, Study.search).where(
            Study.id == study_id, Study.deleted_at.is_(None)
        )
    ).first()
    if row is None:
        return None
    out = {
        "id": study_id,
        "status": row.status,
        "counts": study_progress(session, study_id),
        "started": iso(row.started),
        "finished": iso(row.finished),
        "running": running_steps(session, study_id),
    }
    if row.search:  # an adaptive study: its generation and best cost so far (design.md 4.9)
        out.update(search_generations(row.search))
        out["search"] = {**{k: row.search.get(k) for k in ("generation", "cases", "budget",
                                                           "finished", "blocked")},
                         "best_cost": (row.search.get("best") or {}).get("cost")}
    return out


def search_entries(search: dict[str, Any] | None, cases: list[dict[str, Any]]) -> dict:
    """An adaptive study's ``"search"`` summary and ``"best"`` case (design.md 4.9)."""
    if search is None:
        return {}
    return {"search": search, "best": best_entry(search, cases), **search_generations(search)}


def search_generations(search: dict[str, Any]) -> dict[str, int | None]:
    """``{"generation", "generations"}`` of an adaptive study (design.md 4.15): the
    generations complete and the generations its stopping rule runs (None when the summary
    predates the count)."""
    return {"generation": search.get("generation"), "generations": search.get("generations")}


def study_detail(session: Session, study_id: int) -> dict[str, Any] | None:
    """The study as ``gapsweep show --json`` prints it (design.md 4.3, 4.5), None when there
    is no such (live) study: ``{"id","name","model","status","description","tags",
    "created","started","finished","spec","provenance","analysis","counts","cases",
    "twins","certificates"}``; each case ``{"id","params","status","attempts","reason",
    "metrics","twin_id"}`` in design order, a clearance case's metrics carrying
    ``deviation_*`` from its twin, as stored (twins: the same keys, ``twin_id`` null). Certificates
    (the finished study's refined re-runs, :mod:`.certificates`) are listed apart like the
    twins, each with the ``source_id`` of the case it refines and its refinement ``slot``."""
    study = session.get(Study, study_id)
    if study is None or study.deleted_at is not None:
        return None
    rows = session.execute(
        select(Case, Result)
        .outerjoin(Result, Result.case_id == Case.id)
        .where(Case.study_id == study_id)
        .order_by(Case.kind.desc(), Case.index)  # descending: twins, cases, certificates
    ).all()
    twins: list[dict[str, Any]] = []
    cases: list[dict[str, Any]] = []
    certificates: list[dict[str, Any]] = []
    for case, result in rows:
        if case.kind == CERTIFICATE:  # by source then slot: their index order
            certificates.append(certificate_entry(case, result))
            continue
        entry = case_entry(case, result)
        (twins if case.kind == "twin" else cases).append(entry)
    return {
        **_study_fields(session, study),
        "cases": cases,
        "twins": twins,
        "certificates": certificates,
        **search_entries(study.search, cases),
    }


def _study_fields(session: Session, study: Study) -> dict[str, Any]:
    return {
        "id": study.id,
        "name": study.name,
        "model": study.model,
        "status": study.status,
        "description": study.description,
        "tags": list(study.tags or []),
        "created": iso(study.created),
        "owner": study.owner,
        "started": iso(study.started),
        "finished": iso(study.finished),
        "spec": study.spec,
        "provenance": study.provenance,
        "analysis": study.analysis,
        "counts": study_progress(session, study.id),
    }


def study_head(session: Session, study_id: int, *, page: int = case_pages.PAGE
               ) -> dict[str, Any] | None:
    """:func:`study_detail` with at most ``page`` cases and ``page`` twins (their first
    pages in design order), plus ``"cases_total"``, ``"twins_total"`` and the cursors of the
    next pages, ``"cases_cursor"`` and ``"twins_cursor"`` (None when the page holds them all:
    a study of at most ``page`` cases reads as :func:`study_detail` with the totals added).
    A few indexed queries and two pages, however large the study (design.md 4.16)."""
    study = session.get(Study, study_id)
    if study is None or study.deleted_at is not None:
        return None
    cases, cases_cursor = case_pages.case_page(session, study_id=study_id, limit=page)
    twins, twins_cursor = case_pages.case_page(session, study_id=study_id, kind="twin",
                                               limit=page)
    certificates, _ = case_pages.case_page(session, study_id=study_id, kind=CERTIFICATE,
                                           limit=case_pages.PAGE)
    fields = _study_fields(session, study)
    out = {
        **fields,
        "cases": cases,
        "twins": twins,
        "certificates": certificates,
    }
    if study.search is not None:
        best = (study.search or {}).get("best") or {}
        entry = (case_pages.case_at(session, study_id=study_id, index=best["index"])
                 if best.get("index") is not None else None)
        out["search"] = study.search
        out["best"] = None if entry is None else {
            "id": entry["id"], "params": entry["params"], "metrics": entry["metrics"],
            "cost": best.get("cost")}
        out.update(search_generations(study.search))
    out.update(cases_total=fields["counts"]["total"],
               twins_total=case_pages.count(session, study_id=study_id, kind="twin"),
               cases_cursor=cases_cursor, twins_cursor=twins_cursor)
    return out
