"""The worker side: claim cases with a lease, renew it, store the outcome, reconcile.

A case is claimed by a conditional update (queued -> running, attempts + 1, holder, expiry);
on PostgreSQL the candidates are first locked with ``SELECT ... FOR UPDATE SKIP LOCKED`` (of
the case rows only), so concurrent workers pass each other instead of queueing; on SQLite,
whose writers are serialised, the ``WHERE status = 'queued'`` of the ``UPDATE ... RETURNING``
does the same job. Either way two claimers never get the same case.

The outcome is written only while the writer holds the case: :func:`complete_case` stores the
Result (+ Series) and ``done`` in the caller's one transaction only if the case is running,
held by this holder, its lease unexpired and no result exists; otherwise it writes nothing
and returns False. The unique ``results.case_id`` is the last line of defence.

Times are the workers' clocks (UTC); machines of a cluster are assumed NTP-synchronised to
well within the lease length. No function commits (the caller does, see :mod:`.lifecycle`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import numpy as np
from gapsweep.study.case_inputs import case_inputs
from gapsweep.study.twins import deviations as twin_deviations
from sqlalchemy import (
    Float,
    case,
    cast,
    exists,
    func,
    insert,
    literal,
    null,
    or_,
    select,
    update,
)
from sqlalchemy.orm import Session

from gapsweep.settings import get_settings

from .lifecycle import refresh_study_status, requeue
from .metrics import result_metrics, split_metrics
from .models import Case, Result, Series, Study, UTCDateTime, utcnow
from .series_codec import encode_series

_NO_SYNC = {"synchronize_session": False}


@dataclass(frozen=True)
class ClaimedCase:
    """A case this worker now holds: what it needs to run it and store the outcome."""

    id: int
    study_id: int
    model: str
    kind: str  # "case" | "twin" | "certificate"
    index: int
    params: dict[str, Any]  # as it runs: the study's [mechanism] table joined in
    attempts: int  # claims so far, this one included
    series_policy: str  # "preview" | "full" | "none"
    lease_expires: datetime


def claim_cases(
    session: Session,
    *,
    case_ids: Sequence[int],
    holder: str,
    lease_s: float,
    now: datetime | None = None,
) -> list[ClaimedCase]:
    """Claim those of ``case_ids`` that are queued (and whose study is neither cancelled nor
    deleted) for ``holder`` for ``lease_s`` seconds; returns them in the order asked. Cases
    another worker holds or has finished are silently left out."""
    if not case_ids:
        return []
    now = now or utcnow()
    expires = now + timedelta(seconds=lease_s)
    candidates = list(
        session.scalars(
            select(Case.id)
            .join(Study, Study.id == Case.study_id)
            .where(
                Case.id.in_(list(case_ids)),
                Case.status == "queued",
                Study.status != "cancelled",
                Study.deleted_at.is_(None),
            )
            .with_for_update(skip_locked=True, of=Case)
        )
    )
    if not candidates:
        return []
    rows = session.execute(
        update(Case)
        .where(Case.id.in_(candidates), Case.status == "queued")
        .values(
            status="running",
            attempts=Case.attempts + 1,
            lease_holder=holder,
            lease_expires=expires,
            started_at=now,
            finished_at=None,
            progress=null(),  # a retried case starts over (SQL NULL, not JSON null)
        )
        .returning(Case.id, Case.study_id, Case.kind, Case.index, Case.params, Case.attempts),
        execution_options=_NO_SYNC,
    ).all()
    if not rows:
        return []
    study_ids = sorted({r.study_id for r in rows})
    studies = {
        s.id: s
        for s in session.execute(
            select(Study.id, Study.model, Study.series_policy, Study.spec)
            .where(Study.id.in_(study_ids))
        )
    }
    session.execute(
        update(Study)
        .where(Study.id.in_(study_ids), Study.status == "queued")
        .values(status="running", started=func.coalesce(Study.started, now)),
        execution_options=_NO_SYNC,
    )
    by_id = {
        r.id: ClaimedCase(
            id=r.id,
            study_id=r.study_id,
            model=studies[r.study_id].model,
            kind=r.kind,
            index=r.index,
            params=case_inputs(r.params, studies[r.study_id].spec),
            attempts=r.attempts,
            series_policy=studies[r.study_id].series_policy,
            lease_expires=expires,
        )
        for r in rows
    }
    return [by_id[i] for i in case_ids if i in by_id]


def running_for(holder: str, case_ids: Iterable[int], *,
                unexpired_at: datetime | None = None) -> tuple:
    """The SQL conditions "``case_ids`` are running for ``holder``" (its claim stands);
    with ``unexpired_at``, also "and its lease has not expired at that time"."""
    held = (Case.id.in_(list(case_ids)), Case.status == "running", Case.lease_holder == holder)
    return held if unexpired_at is None else (*held, Case.lease_expires > unexpired_at)


def renew_leases(
    session: Session,
    *,
    case_ids: Sequence[int],
    holder: str,
    lease_s: float,
    now: datetime | None = None,
) -> int:
    """Extend the leases ``holder`` still has on ``case_ids`` to now + ``lease_s``; returns
    how many it still holds. A lease that has expired is not held any more, requeued by the
    reconciler yet or not: like :func:`complete_cases`, which refuses its result, a renewal
    does not revive it - so a worker cut off for longer than a lease (a database outage)
    loses its cases to the queue, whoever reaches the database first afterwards."""
    if not case_ids:
        return 0
    now = now or utcnow()
    return session.execute(
        update(Case)
        .where(*running_for(holder, case_ids, unexpired_at=now))
        .values(lease_expires=now + timedelta(seconds=lease_s)),
        execution_options=_NO_SYNC,
    ).rowcount


def report_progress(session: Session, *, case_id: int, holder: str, step: int,
                    steps: int) -> bool:
    """Record that ``holder``'s running case ``case_id`` has done ``step`` of its ``steps``
    parts (a wear life's settled runs); False (nothing written) when it no longer holds it."""
    return session.execute(
        update(Case)
        .where(*running_for(holder, [case_id]))
        .values(progress={"step": int(step), "steps": int(steps)}),
        execution_options=_NO_SYNC,
    ).rowcount == 1


def stopped_studies(session: Session, *, study_ids: Sequence[int]) -> set[int]:
    """Those of ``study_ids`` cancelled or deleted: a worker runs none of their claimed cases
    it has not started (one primary-key lookup; see workers/case_runner.py)."""
    if not study_ids:
        return set()
    return set(
        session.scalars(
            select(Study.id).where(
                Study.id.in_(list(study_ids)),
                or_(Study.status == "cancelled", Study.deleted_at.is_not(None)),
            )
        )
    )


def release_cases(
    session: Session, *, case_ids: Sequence[int], holder: str, now: datetime | None = None
) -> list[int]:
    """Cases ``holder`` claimed but did not run, of a study cancelled or deleted since the
    claim: ``cancelled``, the claim undone (attempts back, no start time, no holder) -
    they never ran, like the study's cases the cancel found queued. Cases of a live study,
    or no longer held, are left alone. Returns the ids released."""
    if not case_ids:
        return []
    now = now or utcnow()
    stopped = select(Study.id).where(
        or_(Study.status == "cancelled", Study.deleted_at.is_not(None))
    )
    rows = session.execute(
        update(Case)
        .where(*running_for(holder, case_ids), Case.study_id.in_(stopped))
        .values(
            status="cancelled",
            attempts=Case.attempts - 1,
            started_at=None,
            finished_at=now,
            lease_holder=None,
            lease_expires=None,
        )
        .returning(Case.id, Case.study_id),
        execution_options=_NO_SYNC,
    ).all()
    for study_id in sorted({r.study_id for r in rows}):
        refresh_study_status(session, study_id, now=now)
    return sorted(r.id for r in rows)


def complete_case(
    session: Session,
    *,
    case_id: int,
    holder: str,
    result: Any,
    series: Mapping[str, np.ndarray] | None = None,
    now: datetime | None = None,
) -> bool:
    """Store a finished case: ``result`` is a core ``CaseResult``; ``series`` the arrays to
    keep per the study's policy (the worker reduces them; ignored for policy ``none``).
    Writes Result (+ Series), ``done`` and the wall time only while ``holder`` holds an
    unexpired lease and no result exists; else writes nothing and returns False. A result
    whose status is not ``ok`` is a final failure (:func:`fail_case` with its reason).
    For a chunk of cases, :func:`complete_cases` does the same in a few statements."""
    return complete_cases(session, holder=holder, outcomes=[(case_id, result, series)], now=now)[0]


Outcome = tuple[int, Any, "Mapping[str, np.ndarray] | None"]


def complete_cases(
    session: Session,
    *,
    holder: str,
    outcomes: Sequence[Outcome],
    now: datetime | None = None,
    finished: Mapping[int, datetime] | None = None,
) -> list[bool]:
    """:func:`complete_case` for a chunk: ``outcomes`` = ``(case_id, CaseResult, series)``
    each; returns per outcome whether it was stored. One guarded UPDATE for the chunk, one
    bulk insert each for results and series, one status refresh per study - what makes a
    worker's batch cheap to store (see benchmarks/archive_scale.py). ``finished`` gives a
    case's ``finished_at`` (when its solve ended, before the chunk is stored; default
    ``now``); the lease must be held at ``now``, the time of the store."""
    now = now or utcnow()
    finished = finished or {}
    ids = [case_id for case_id, _, _ in outcomes]
    if len(set(ids)) != len(ids):
        raise ValueError("a case appears twice in one complete_cases call")
    stored: dict[int, bool] = {}
    good: dict[int, tuple[dict[str, Any], Mapping[str, np.ndarray] | None]] = {}
    for case_id, result, series in outcomes:
        if getattr(result, "status", "ok") != "ok":
            reason = getattr(result, "reason", "") or "the solver reported a failure"
            stored[case_id] = fail_case(
                session, case_id=case_id, holder=holder, reason=reason, final=True,
                now=finished.get(case_id, now),
            )
        else:
            good[case_id] = (split_metrics(result.metrics), series)
    if good:
        # compressed before the first write: SQLite holds its one write lock from the UPDATE
        # to the commit, and a chunk's zlib (~1-2 ms a case) under it kept the other workers
        # waiting in the busy handler's coarse sleeps (issue 28: 2 processes ran the study
        # slower than 1)
        blobs_of = {cid: encode_series(series) for cid, (_, series) in good.items() if series}
        walls = {cid: cols.get("wall_time_s") for cid, (cols, _) in good.items()}
        accepted = session.execute(
            update(Case)
            .where(*running_for(holder, good, unexpired_at=now),
                   ~exists().where(Result.case_id == Case.id))
            .values(
                status="done",
                lease_expires=None,
                # binds typed as the column (UTC on both databases), no SQL CAST: SQLite's
                # CAST(... AS DATETIME) is numeric (2026)
                finished_at=case(
                    {c: literal(finished.get(c, now), UTCDateTime()) for c in good},
                    value=Case.id,
                    else_=literal(now, UTCDateTime()),
                ),
                # typed: a CASE of nothing but NULLs is text to PostgreSQL (a result
                # without wall_time_s was refused: "column is of type double precision")
                wall_time_s=cast(case(walls, value=Case.id, else_=None), Float),
                reason=None,
            )
            .returning(Case.id, Case.study_id, Case.kind, Case.twin_id),
            execution_options=_NO_SYNC,
        ).all()
        study_of = {row.id: row.study_id for row in accepted}
        if study_of:
            _with_deviations(session, accepted, good)
            session.execute(
                insert(Result), [{"case_id": cid, **good[cid][0]} for cid in study_of]
            )
            _fill_dependents(session, [r.id for r in accepted if r.kind == "twin"], good)
            policies = dict(
                session.execute(
                    select(Study.id, Study.series_policy).where(
                        Study.id.in_(set(study_of.values()))
                    )
                ).all()
            )
            blobs = []
            for cid, sid in study_of.items():
                if cid in blobs_of and policies[sid] != "none":
                    blob = blobs_of[cid]
                    blobs.append(
                        {"case_id": cid, "policy": policies[sid], "n_bytes": len(blob),
                         "data": blob}
                    )
            if blobs:
                session.execute(insert(Series), blobs)
            for sid in sorted(set(study_of.values())):
                refresh_study_status(session, sid, now=now)
        stored.update({cid: cid in study_of for cid in good})
    return [stored[cid] for cid in ids]


def _metrics_of(columns: Mapping[str, Any]) -> dict[str, Any]:
    """The metrics dict of :func:`.metrics.split_metrics`'s keyword arguments (None dropped)."""
    out = {k: v for k, v in columns.items() if k != "extra" and v is not None}
    out.update(columns.get("extra") or {})
    return out


def _with_deviations(session: Session, accepted: Sequence[Any],
                     good: dict[int, tuple[dict[str, Any], Any]]) -> None:
    """Put each accepted clearance case's ``deviation_*`` from its ideal twin
    (:func:`gapsweep.study.twins.deviations`) into the ``extra`` it is about to be stored
    with: computed once, here, and read stored everywhere (issue 34.3). A twin not done yet
    gives None values, filled when the twin is stored (:func:`_fill_dependents`)."""
    cases = [r for r in accepted if r.kind == "case" and r.twin_id is not None]
    if not cases:
        return
    twin_ids = {r.twin_id for r in cases}
    stored_now = {r.id for r in accepted}  # a twin of this chunk whose lease held
    twins = {cid: _metrics_of(good[cid][0]) for cid in twin_ids & stored_now}
    missing = sorted(twin_ids - set(twins))
    if missing:
        twins.update((r.case_id, result_metrics(r)) for r in session.scalars(
            select(Result).where(Result.case_id.in_(missing))))
    for row in cases:
        columns = good[row.id][0]
        found = twin_deviations(_metrics_of(columns), twins.get(row.twin_id))
        columns["extra"] = {**(columns.get("extra") or {}), **found}


def _fill_dependents(session: Session, twin_ids: Sequence[int],
                     good: dict[int, tuple[dict[str, Any], Any]]) -> None:
    """Once ideal twins are stored, the ``deviation_*`` of their clearance cases stored
    before them (one bulk UPDATE by primary key)."""
    if not twin_ids:
        return
    twins = {cid: _metrics_of(good[cid][0]) for cid in twin_ids}
    rows = session.execute(
        select(Result, Case.twin_id).join(Case, Case.id == Result.case_id)
        .where(Case.twin_id.in_(list(twin_ids)), Case.kind == "case")).all()
    updates = [{"id": result.id,
                "extra": {**(result.extra or {}),
                          **twin_deviations(result_metrics(result), twins[twin_id])}}
               for result, twin_id in rows]
    if updates:
        session.execute(update(Result), updates)


def fail_case(
    session: Session,
    *,
    case_id: int,
    holder: str,
    reason: str,
    final: bool,
    max_attempts: int | None = None,
    now: datetime | None = None,
) -> bool:
    """Record a failed attempt of a case ``holder`` holds (status running). ``final``
    (the solver's own verdict: deterministic, design.md 4.5) -> ``failed`` with ``reason``;
    otherwise (a crash) back to ``queued`` - to be re-enqueued, see :func:`stale_queued` -
    unless ``max_attempts`` claims (default: the settings') are used up, then ``failed``.
    Returns False (nothing written) when the holder no longer holds the case."""
    now = now or utcnow()
    limit = get_settings().max_attempts if max_attempts is None else max_attempts
    held = running_for(holder, [case_id])
    if final:
        study_id = _fail(session, held, reason, now)
    else:
        study_id = _fail(session, (*held, Case.attempts >= limit), reason, now)
        if study_id is None:
            study_id = next(iter(requeue(session, held, now=now, returning=Case.study_id,
                                         reason=reason)), None)
    if study_id is None:
        return False
    refresh_study_status(session, study_id, now=now)
    return True


def _fail(session: Session, where: tuple, reason: str, now: datetime) -> int | None:
    return session.scalar(
        update(Case)
        .where(*where)
        .values(status="failed", reason=reason, lease_expires=None, finished_at=now)
        .returning(Case.study_id),
        execution_options=_NO_SYNC,
    )


@dataclass(frozen=True)
class ExpiredLeases:
    """What :func:`expire_leases` did: the case ids put back in the queue (to enqueue) and
    the studies whose last case it ended (``done`` now: to analyse, as a worker would)."""

    requeued: list[int]
    finished_studies: list[int]


def requeue_expired(
    session: Session, *, now: datetime | None = None, max_attempts: int | None = None
) -> list[int]:
    """Running cases whose lease has expired (worker SIGKILLed, machine lost): back to
    ``queued``; ``failed`` with reason "lease expired N times (worker lost)" once
    ``max_attempts`` claims are used up; ``cancelled`` if their study was cancelled or
    deleted meanwhile. Returns the ids requeued, to enqueue (then :func:`mark_enqueued`);
    :func:`expire_leases` also says which studies this finished."""
    return expire_leases(session, now=now, max_attempts=max_attempts).requeued


def expire_leases(
    session: Session, *, now: datetime | None = None, max_attempts: int | None = None
) -> ExpiredLeases:
    """:func:`requeue_expired`, also returning the studies it left ``done`` (their last
    case failed here: the reconciler analyses them after the commit)."""
    now = now or utcnow()
    limit = get_settings().max_attempts if max_attempts is None else max_attempts
    rows = session.execute(
        select(Case.id, Case.study_id, Case.attempts, Study.status, Study.deleted_at)
        .join(Study, Study.id == Case.study_id)
        .where(Case.status == "running", Case.lease_expires < now)
        .with_for_update(skip_locked=True, of=Case)
    ).all()
    expired = (Case.status == "running", Case.lease_expires < now)
    lost, study_ids = [], set()
    for r in rows:
        if r.status == "cancelled" or r.deleted_at is not None:
            values: dict[str, Any] = {"status": "cancelled", "finished_at": now}
        elif r.attempts >= limit:
            values = {
                "status": "failed",
                "finished_at": now,
                "reason": f"lease expired {r.attempts} times (worker lost)",
            }
        else:
            lost.append(r.id)
            continue
        n = session.execute(
            update(Case).where(Case.id == r.id, *expired).values(lease_expires=None, **values),
            execution_options=_NO_SYNC,
        ).rowcount
        if n:
            study_ids.add(r.study_id)
    done = requeue(session, (Case.id.in_(lost), *expired), now=now) if lost else []
    finished = [
        study_id
        for study_id in sorted(study_ids)
        if refresh_study_status(session, study_id, now=now) == "done"
    ]
    return ExpiredLeases(requeued=sorted(done), finished_studies=finished)


def queued_case_ids(session: Session, *, study_id: int) -> list[int]:
    """Ids of the study's queued cases, twins included (what to enqueue after a commit)."""
    return list(
        session.scalars(
            select(Case.id)
            .where(Case.study_id == study_id, Case.status == "queued")
            .order_by(Case.id)
        )
    )


def stale_queued(
    session: Session, *, older_than_s: float, now: datetime | None = None
) -> list[int]:
    """Queued cases (of live, uncancelled studies) enqueued - or, never enqueued, queued -
    more than ``older_than_s`` ago: their message was probably lost (a broker restart
    without persistence). Re-enqueue them; a duplicate message costs one failed claim."""
    now = now or utcnow()
    cutoff = now - timedelta(seconds=older_than_s)
    return list(
        session.scalars(
            select(Case.id)
            .join(Study, Study.id == Case.study_id)
            .where(
                Case.status == "queued",
                func.coalesce(Case.enqueued_at, Case.queued_at) < cutoff,
                Study.status != "cancelled",
                Study.deleted_at.is_(None),
            )
            .order_by(Case.id)
        )
    )


def mark_enqueued(session: Session, *, case_ids: Sequence[int], now: datetime | None = None) -> int:
    """Note that messages for ``case_ids`` were sent (``enqueued_at`` = now)."""
    if not case_ids:
        return 0
    return session.execute(
        update(Case).where(Case.id.in_(list(case_ids))).values(enqueued_at=now or utcnow()),
        execution_options=_NO_SYNC,
    ).rowcount

