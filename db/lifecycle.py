"""A study's status and the user's actions on it: refresh, cancel, retry, delete, purge.

Transaction rule of the whole package: repository functions never commit; the caller does
(``with Session.begin() as session: ...``), so a command's writes are one transaction, and
work is enqueued only after the commit (design.md 3).

Lock order, to keep PostgreSQL deadlock-free: case rows first, then the study row (claiming,
completing, cancelling and retrying all go that way). :func:`refresh_study_status` locks the
study row before it looks at the cases, so two workers finishing a study's last two cases at
once cannot both see the other's case still running and leave the study ``running``.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import and_, delete, exists, func, select, update
from sqlalchemy.orm import Session

from .models import CERTIFICATE, Case, Measurement, Result, Series, Study, StudyTag, utcnow


class StudyNotFoundError(LookupError):
    """No study with this id (or it was deleted)."""

    def __init__(self, study_id: int) -> None:
        self.study_id = study_id
        super().__init__(f"no study with id {study_id}")


def live_study(session: Session, study_id: int) -> Study:
    """The study ``study_id`` unless missing or soft-deleted (then :class:`StudyNotFoundError`)."""
    study = session.get(Study, study_id)
    if study is None or study.deleted_at is not None:
        raise StudyNotFoundError(study_id)
    return study


def _cases_in(study_id: int, *statuses: str):
    """Any of the study's cases or twins in ``statuses``. Its convergence certificates
    (:mod:`.certificates`) are left out: they run after the study is done and never hold its
    status back - not even when a retry reopened the study while they were still running."""
    return exists().where(Case.study_id == study_id, Case.status.in_(statuses),
                          Case.kind != CERTIFICATE)


def search_settled(search: dict | None) -> bool:
    """Whether an adaptive study may end (``studies.search``, db/search.py): its search
    finished, or it waits for a retry of a case a crash lost."""
    return bool(search) and bool(search.get("finished") or search.get("blocked"))


def refresh_study_status(session: Session, study_id: int, *, now: datetime | None = None) -> str:
    """Bring the study's status in line with its cases (twins included: they run too;
    certificates not) and return it: queued -> running once a case has started;
    queued/running -> done when nothing is queued or running; a cancelled study stays
    cancelled and gets its ``finished`` time when its last running case ends."""
    now = now or utcnow()
    # the row lock that serialises concurrent refreshes of one study (no-op on SQLite,
    # whose writers are serialised by the database lock already)
    row = session.execute(
        select(Study.status, Study.finished, Study.search).where(Study.id == study_id)
        .with_for_update()
    ).first()
    if row is None:
        raise StudyNotFoundError(study_id)
    status = row.status
    idle = ~_cases_in(study_id, "queued", "running")
    if status == "queued":
        started = session.execute(
            update(Study)
            .where(Study.id == study_id, Study.status == "queued",
                   _cases_in(study_id, "running", "done", "failed"))
            .values(status="running", started=func.coalesce(Study.started, now))
        ).rowcount
        status = "running" if started else status
    # an adaptive study between two generations is idle but not done (db/search.py)
    if status in ("queued", "running") and (row.search is None or search_settled(row.search)):
        finished = session.execute(
            update(Study)
            # the status read above may be stale on SQLite (pysqlite runs that SELECT
            # outside the write transaction): a cancel committed since must not turn into
            # "done", so the UPDATE itself checks the status it replaces
            .where(Study.id == study_id, Study.status.in_(("queued", "running")), idle)
            .values(status="done", finished=now, started=func.coalesce(Study.started, now))
        ).rowcount
        status = "done" if finished else status
    elif status == "cancelled" and row.finished is None:
        session.execute(
            update(Study)
            .where(Study.id == study_id, ~_cases_in(study_id, "running"))
            .values(finished=now)
        )
    session.expire_all()  # the ORM copies are stale after the core updates
    return status


def lock_study(session: Session, study_id: int) -> str | None:
    """Hold the study's row until the transaction ends: one search step or one cancel at a
    time. Returns the study's status as of the lock (None: no live study).

    PostgreSQL: ``FOR UPDATE``. SQLite: a write that changes nothing. pysqlite runs a SELECT
    outside any transaction and begins one only before a write, so a ``FOR UPDATE`` there
    (dropped by SQLite) held nothing: a search step read the cases, another process stored
    the last one and finished the search, and the first then wrote its stale "waiting"
    summary over it (CI: a done study at generation 5 of 6). The write takes the database
    lock, and every read after it in the transaction sees all that was committed before."""
    if session.get_bind().dialect.name == "sqlite":
        session.execute(update(Study).where(Study.id == study_id)
                        .values(status=Study.status))
    return session.scalar(select(Study.status)
                          .where(Study.id == study_id, Study.deleted_at.is_(None))
                          .with_for_update())


def cancel_study(session: Session, *, study_id: int, now: datetime | None = None) -> int:
    """Cancel a study: its queued cases (twins too) become ``cancelled`` at once; a worker
    finishes the case it is solving and releases the rest of its chunk as ``cancelled``
    (workers/case_runner.py). Returns the number of cases cancelled here. A done study
    stays done. It holds the study's row first (:func:`lock_study`): a search step writing
    the next generation either commits before (its cases are cancelled here) or sees the
    cancel under the same lock and writes nothing (workers/search.py)."""
    now = now or utcnow()
    lock_study(session, study_id)
    study = live_study(session, study_id)
    if study.status == "done":
        return 0
    n = session.execute(
        update(Case)
        .where(Case.study_id == study_id, Case.status == "queued")
        .values(status="cancelled", finished_at=now),
        execution_options={"synchronize_session": False},
    ).rowcount
    session.execute(update(Study).where(Study.id == study_id).values(status="cancelled"))
    refresh_study_status(session, study_id, now=now)
    return n


def requeue(session: Session, where: tuple, *, now: datetime, returning: Any = Case.id,
            **also: Any) -> list[Any]:
    """The one transition back to the queue: the cases matching ``where`` become ``queued``
    with no lease and no message sent (``enqueued_at`` None: :func:`.leases.stale_queued`
    finds them), queued at ``now``; ``also``: more values (a reason, cleared times).
    Returns ``returning`` of each (their ids by default), to enqueue after the commit."""
    return list(session.scalars(
        update(Case)
        .where(*where)
        .values(status="queued", lease_holder=None, lease_expires=None, queued_at=now,
                enqueued_at=None, **also)
        .returning(returning),
        execution_options={"synchronize_session": False},
    ))


def _retryable(study_id: int) -> tuple:
    """The failed cases :func:`retry_failed` queues again: design cases and twins, not the
    certificates (see :mod:`.certificates`)."""
    return (Case.study_id == study_id, Case.status == "failed", Case.kind != CERTIFICATE)


def retryable_count(session: Session, study_id: int) -> int:
    """How many cases :func:`retry_failed` would queue again (what a Retry button needs)."""
    return int(session.scalar(select(func.count()).select_from(Case)
                              .where(*_retryable(study_id))) or 0)


def retry_failed(session: Session, *, study_id: int, now: datetime | None = None) -> list[int]:
    """Queue the study's failed cases (twins too, not its convergence certificates: a
    certificate that failed is part of their verdict, and re-running one would reopen a
    finished study) again: attempts kept, reason and lease cleared. Returns their ids, to
    enqueue after the commit. The study goes back to running (or queued, if it never
    started); its cancelled cases stay cancelled."""
    now = now or utcnow()
    study = live_study(session, study_id)
    ids = requeue(session, _retryable(study_id), now=now, reason=None, started_at=None,
                  finished_at=None)
    if ids:
        status = "running" if study.started is not None else "queued"
        session.execute(
            update(Study).where(Study.id == study_id).values(status=status, finished=None)
        )
        session.expire_all()
    return sorted(ids)


def soft_delete(session: Session, *, study_id: int, now: datetime | None = None) -> None:
    """Hide a study from the archive (``deleted_at`` set); its queued cases are cancelled so
    workers skip them. :func:`purge_deleted` removes it for good."""
    now = now or utcnow()
    live_study(session, study_id)
    cancel_study(session, study_id=study_id, now=now)
    session.execute(update(Study).where(Study.id == study_id).values(deleted_at=now))
    session.expire_all()


def purge_deleted(
    session: Session, *, older_than_s: float = 0.0, now: datetime | None = None
) -> dict[str, int]:
    """Delete for good the studies soft-deleted more than ``older_than_s`` ago, with their
    cases, results and series. Returns the rows removed per table."""
    now = now or utcnow()
    doomed = select(Study.id).where(
        Study.deleted_at.is_not(None), Study.deleted_at <= now - timedelta(seconds=older_than_s)
    )
    cases = select(Case.id).where(Case.study_id.in_(doomed))
    counts = {
        "studies": session.scalar(select(func.count()).select_from(doomed.subquery())),
        "cases": session.scalar(select(func.count()).select_from(cases.subquery())),
        "results": session.scalar(
            select(func.count()).select_from(Result).where(Result.case_id.in_(cases))
        ),
        "series": session.scalar(
            select(func.count()).select_from(Series).where(Series.case_id.in_(cases))
        ),
    }
    # explicit deletes, children first: correct whether or not the database cascades
    opts = {"synchronize_session": False}
    session.execute(delete(Series).where(Series.case_id.in_(cases)), execution_options=opts)
    session.execute(delete(Result).where(Result.case_id.in_(cases)), execution_options=opts)
    session.execute(delete(Measurement).where(Measurement.study_id.in_(doomed)),
                    execution_options=opts)
    session.execute(
        update(Case)
        .where(and_(Case.study_id.in_(doomed), Case.twin_id.is_not(None)))
        .values(twin_id=None),
        execution_options=opts,
    )
    session.execute(delete(Case).where(Case.study_id.in_(doomed)), execution_options=opts)
    session.execute(delete(StudyTag).where(StudyTag.study_id.in_(doomed)), execution_options=opts)
    session.execute(delete(Study).where(Study.id.in_(doomed)), execution_options=opts)
    session.expire_all()
    return {k: int(v or 0) for k, v in counts.items()}


def set_analysis(session: Session, *, study_id: int, analysis: dict) -> None:
    """Store the study's analysis (JSON-ready, from ``gapsweep.study.analysis.analyse``)."""
    study = live_study(session, study_id)
    study.analysis = analysis
    session.flush()
