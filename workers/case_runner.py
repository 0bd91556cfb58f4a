"""The one function every case runs through: claim, solve, store (design.md 3).

:func:`run_chunk` is what the Celery task calls, and what ``gapsweep run`` calls in-process.
It takes case ids only (a queue message carries nothing else), claims them with a lease,
runs the claimed cases through ``core.api.run_cases`` a case at a time (checking between
two cases that their study was not cancelled), keeps the leases alive while they run, and
stores each result once, in a transaction that succeeds only while this worker still holds
the case's lease.

Failures: a failure the solver reports is final at once (the solver is deterministic); an
exception out of the batch (a crash, a lost database) is retried up to ``max_attempts``.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import groupby

from gapsweep.core.api import run_cases
from gapsweep.db import leases, studies
from gapsweep.db.models import utcnow
from sqlalchemy.engine import Connection
from sqlalchemy.orm import Session, sessionmaker

from gapsweep.settings import Settings

from .dispatch import Dispatcher, enqueue
from .purge import sweep_after_dead_chunk
from .search import SearchMetrics, advance_search
from .series_policy import select_series
from .study_finish import finish_study

log = logging.getLogger(__name__)


#: the solving time [s of CPU per solver thread] a piece of a chunk aims at between two
#: cancel checks (a piece is never less than one case per solver thread). Measured with
#: benchmarks/cancel_check_cost.py (2 shared cores, load 5-10): a check costs ~0.2 ms on
#: SQLite and ~1.5 ms on PostgreSQL, and a solver call per case ~0.5 ms of CPU more than one
#: call per chunk, against ~8 ms of solver time per case of the user's 0.024 s study here
#: (~1.3 ms on a quiet machine, design.md 1.4): a call and a check per such case would cost
#: it ~10-25 % of its throughput; pieces of ~50 ms cost ~1-4 %. Cases of 50 ms or more - the
#: fault tests' take >= 0.2 s - are still run and checked one by one. CPU, not wall time:
#: on a loaded machine a case's wall time grows with the load (40 ms at load 10 for 8 ms of
#: CPU), and pieces sized on it shrank to a case each - a check and a call per case, the
#: overhead this limit exists to avoid, where the machine could least afford it (issue 28).
CANCEL_CHECK_S = 0.05


@dataclass
class ChunkReport:
    """What became of a chunk's case ids (counts)."""

    claimed: int = 0
    done: int = 0
    failed: int = 0
    retried: int = 0
    rejected: int = 0  # results refused because the lease was lost meanwhile
    cancelled: int = 0  # claimed, not run: their study was cancelled meanwhile


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
    if not claimed:  # a dead message (its study cancelled, say): drop the others like it
        sweep_after_dead_chunk(settings, sessions)
        return report
    touched = sorted({c.study_id for c in claimed})
    retried: list[int] = []
    with (
        LeaseKeeper(sessions, [c.id for c in claimed], holder, settings.lease_s),
        CancelCheck(sessions) as check,
    ):
        check.search_metrics = SearchMetrics(sessions)
        for (model, policy), group in groupby(claimed, key=lambda c: (c.model, c.series_policy)):
            retried += _run_group(
                model, policy, list(group), sessions, check, holder, settings, threads, report
            )
    if retried and dispatcher is not None:
        # those that used up their attempts are failed by now: their claim will be refused
        enqueue(retried, sessions=sessions, dispatcher=dispatcher, chunk_size=1)
    for study_id in touched:
        # the store refreshed the status in its transaction (db.leases), an adaptive study's
        # advance in its own: read here, not refreshed a second time
        advance_search(sessions, study_id, settings=settings, dispatcher=dispatcher)
        with sessions() as session:
            status = studies.study_status(session, study_id)
        if status == "done":
            finish_study(sessions, study_id, settings=settings, dispatcher=dispatcher)
    return report


def _run_group(
    model, policy, group, sessions, check, holder, settings, threads, report
) -> list[int]:
    """Run one model's claimed cases and store them; returns the ids sent back to the queue
    after a crash.

    The cases run a piece at a time and between two pieces one primary-key read
    (:class:`CancelCheck`) asks whether their study was cancelled (or deleted) meanwhile. A
    piece is one case per solver thread at first, then as many as the cases solved so far
    say fit in :data:`CANCEL_CHECK_S` (at least one per thread): a cancel stops a worker
    within the case it is solving - or, for cases shorter than that, within that much
    solving - not at the end of its chunk. The claimed cases it did not start are released
    as cancelled. The solved cases are stored together at the end, each with the time its
    solve ended.
    """
    lanes = max(1, threads or 1)
    outcomes, finished, retried, released = [], {}, [], []
    stopped: set[int] = set()  # studies cancelled or deleted since the claim
    lo, size, solve_s, solved = 0, lanes, 0.0, 0
    while lo < len(group):
        if lo > 0:  # the claim itself checked before the first piece
            stopped |= check.stopped({c.study_id for c in group[lo:]} - stopped)
            if solved:
                per_case = solve_s / solved  # CPU seconds of one case (on one lane)
                size = lanes * max(1, int(CANCEL_CHECK_S / per_case)) if per_case else lanes
        piece, lo = group[lo : lo + size], lo + size
        part = [c for c in piece if c.study_id not in stopped]
        released += [c.id for c in piece if c.study_id in stopped]
        if not part:
            continue
        try:
            c0 = time.process_time()  # every thread of the process: all the lanes
            results = run_cases(model, [c.params for c in part], threads=threads,
                                case_progress=_steps_reporter(part, sessions, holder))
            solve_s, solved = solve_s + time.process_time() - c0, solved + len(part)
        except Exception as exc:  # not the solver's verdict: count it as an attempt and retry
            log.exception("batch of %d case(s) crashed", len(part))
            reason = f"worker error: {type(exc).__name__}: {exc}"
            with sessions.begin() as session:
                for case in part:
                    leases.fail_case(
                        session,
                        case_id=case.id,
                        holder=holder,
                        reason=reason,
                        final=False,
                        max_attempts=settings.max_attempts,
                    )
                    retried.append(case.id)
            continue
        end = utcnow()
        for case, r in zip(part, results, strict=True):
            check.search_metrics.add(case.study_id, r)  # an adaptive study's costs
            series = select_series(r, policy, r.rotation_hz) if r.ok else None
            outcomes.append((case.id, r, series))
            finished[case.id] = end
    report.retried += len(retried)
    # one transaction for the chunk: one guarded update, bulk inserts (db.leases)
    with sessions.begin() as session:
        stored = leases.complete_cases(
            session, holder=holder, outcomes=outcomes, finished=finished
        ) if outcomes else []
        report.cancelled += len(
            leases.release_cases(session, case_ids=released, holder=holder)
        )
    for (_, result, _), ok in zip(outcomes, stored, strict=True):
        if result.ok:
            report.done += ok
            report.rejected += not ok
        else:
            report.failed += 1
    return retried


def _steps_reporter(part, sessions: sessionmaker[Session], holder: str):
    """``case_progress`` for a piece: each step a long case of ``part`` reports (a wear
    life's settled run, seconds each) is written to its row (``cases.progress``) in a short
    transaction of its own, so the study's progress shows it while the case runs. A lost
    database costs the report, never the case."""

    def report(index: int, step: int, steps: int) -> None:
        try:
            with sessions.begin() as session:
                leases.report_progress(session, case_id=part[index].id, holder=holder,
                                       step=step, steps=steps)
        except Exception:
            log.exception("a case's progress report failed")

    return report


class CancelCheck:
    """Asks, between two cases of a chunk, which of their studies were cancelled or deleted.

    One primary-key read on a connection held for the chunk: a session from the pool would
    add ``pool_pre_ping``'s round trip to every read (measured on PostgreSQL at load ~8:
    1.75 ms a check from the pool, see benchmarks/cancel_check_cost.py). Each read ends its
    transaction at once (no connection idle in a transaction while a case is solved). When
    the database cannot answer, nothing is stopped: the chunk goes on, its store decides.
    """

    def __init__(self, sessions: sessionmaker[Session]) -> None:
        self._engine = sessions.kw["bind"]
        self._conn: Connection | None = None
        self.search_metrics: SearchMetrics | None = None  # set by run_chunk

    def stopped(self, study_ids: set[int]) -> set[int]:
        if not study_ids:
            return set()
        try:
            if self._conn is None:
                self._conn = self._engine.connect()
            with Session(bind=self._conn) as session:  # closing rolls the read back
                return leases.stopped_studies(session, study_ids=sorted(study_ids))
        except Exception:
            log.exception("the cancel check failed")
            self.close()  # a broken connection: the next check takes a fresh one
            return set()

    def close(self) -> None:
        if self._conn is not None:
            try:
                self._conn.close()
            except Exception:  # already broken: nothing to give back
                log.debug("closing the cancel check's connection failed", exc_info=True)
            self._conn = None

    def __enter__(self) -> CancelCheck:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
