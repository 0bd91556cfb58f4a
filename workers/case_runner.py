"""The one function every case runs through: claim, solve, store (design.md 3).

:func:`run_chunk` is what the Celery task calls, and what ``gapsweep run`` calls in-process.
It takes case ids only (a queue message carries nothing else), claims them with a lease,
runs the claimed cases through ``core.api.run_cases`` (the batch path), keeps the leases
alive while the batch runs, and stores each result once, in a transaction that succeeds only
while this worker still holds the case's lease.

Failures: a failure the solver reports is final at once (the solver is deterministic); an
exception out of the batch (a crash, a lost database) is retried up to ``max_attempts``.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import groupby

from gapsweep.core.api import get_model, run_cases
from gapsweep.db import leases, studies
from sqlalchemy.orm import Session, sessionmaker

from gapsweep.settings import Settings

from .certificates import start_certificates
from .dispatch import Dispatcher, enqueue
from .series_policy import select_series
from .study_finish import finish_study

log = logging.getLogger(__name__)


@dataclass
class ChunkReport:
    """What became of a chunk's case ids (counts)."""

    claimed: int = 0
    done: int = 0
    failed: int = 0
    retried: int = 0
    rejected: int = 0  # results refused because the lease was lost meanwhile


class LeaseKeeper:
    """Renews the leases of running cases every third of the lease, in a thread.

    A batch of cases costs milliseconds to seconds, but a long case (or a slow machine)
    may outlive one lease; renewing keeps the reconciler from handing it to another worker.
    """

    def __init__(
        self, sessions: sessionmaker[Session], case_ids: list[int], holder: str, lease_s: float
    ) -> None:
        self._sessions, self._ids, self._holder, self._lease_s = sessions, case_ids, holder, lease_s
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="lease-keeper", daemon=True)

    def _run(self) -> None:
        while not self._stop.wait(self._lease_s / 3.0):
            try:
                with self._sessions.begin() as session:
                    leases.renew_leases(
                        session, case_ids=self._ids, holder=self._holder, lease_s=self._lease_s
                    )
            except Exception:  # a lost database: the next renewal tries again
                log.exception("lease renewal failed")

    def __enter__(self) -> LeaseKeeper:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


def rotation_hz(model: str, params: dict) -> float:
    """Crank frequency [Hz] of a case (0 for models without a crank speed)."""
    case = get_model(model).parse(params)
    return float(getattr(case, "speed_rpm", 0.0)) / 60.0


def run_chunk(
    case_ids: Sequence[int],
    *,
    sessions: sessionmaker[Session],
    holder: str,
    settings: Settings,
    threads: int | None = 1,
    dispatcher: Dispatcher | None = None,
) -> ChunkReport:
    """Claim, run and store the cases ``case_ids``; returns what became of them.

    Ids that are no longer queued (done, cancelled, held by another worker) are skipped:
    a duplicate message costs nothing. ``holder`` names this worker (host:pid) in the lease.
    Cases that crashed go back to the queue, each alone, through ``dispatcher`` (when
    none is given the reconciler sends them).
    """
    report = ChunkReport()
    with sessions.begin() as session:
        claimed = leases.claim_cases(
            session, case_ids=list(case_ids), holder=holder, lease_s=settings.lease_s
        )
    report.claimed = len(claimed)
    if not claimed:
        return report
    touched = sorted({c.study_id for c in claimed})
    retried: list[int] = []
    with LeaseKeeper(sessions, [c.id for c in claimed], holder, settings.lease_s):
        for (model, policy), group in groupby(claimed, key=lambda c: (c.model, c.series_policy)):
            retried += _run_group(
                model, policy, list(group), sessions, holder, settings, threads, report
            )
    if retried and dispatcher is not None:
        # those that used up their attempts are failed by now: their claim will be refused
        enqueue(retried, sessions=sessions, dispatcher=dispatcher, chunk_size=1)
    for study_id in touched:
        with sessions.begin() as session:
            status = studies.refresh_study_status(session, study_id)
        if status == "done":
            finish_study(sessions, study_id)
            start_certificates(sessions, study_id, settings=settings, dispatcher=dispatcher)
    return report


def _run_group(model, policy, group, sessions, holder, settings, threads, report) -> list[int]:
    """Run one model's claimed cases as a batch and store them; returns the ids sent back
    to the queue after a crash."""
    try:
        results = run_cases(model, [c.params for c in group], threads=threads)
    except Exception as exc:  # not the solver's verdict: count it as an attempt and retry
        log.exception("batch of %d case(s) crashed", len(group))
        reason = f"worker error: {type(exc).__name__}: {exc}"
        retried = []
        with sessions.begin() as session:
            for case in group:
                leases.fail_case(
                    session,
                    case_id=case.id,
                    holder=holder,
                    reason=reason,
                    final=False,
                    max_attempts=settings.max_attempts,
                )
                retried.append(case.id)
        report.retried += len(retried)
        return retried
    outcomes = [
        (case.id, r, select_series(r, policy, rotation_hz(model, case.params)) if r.ok else None)
        for case, r in zip(group, results, strict=True)
    ]
    # one transaction for the chunk: one guarded update, bulk inserts (db.leases)
    with sessions.begin() as session:
        stored = leases.complete_cases(session, holder=holder, outcomes=outcomes)
    for (_, result, _), ok in zip(outcomes, stored, strict=True):
        if result.ok:
            report.done += ok
            report.rejected += not ok
        else:
            report.failed += 1
    return []
