"""The workers' PostgreSQL connections terminated mid-study (issue 9, "Fault tests"; issue
16: the drop must hit a chunk in flight).

Two faults in one study of 60 cases, two worker processes, chunks of 2:

1. a burst of ``pg_terminate_backend`` (every 0.1 s for 1 s): mostly idle pooled
   connections, which the workers replace unnoticed (``pool_pre_ping``);
2. an outage that catches chunks in flight: the moment the workers hold running cases,
   the database refuses new connections (``ALLOW_CONNECTIONS false``) and every connection
   to it is terminated, for longer than a lease (3 s here). The chunks being solved cannot
   store their results nor renew their leases; once the database is back, the reconciler
   finds the leases expired and sends those cases again.

Counted from the database at the end: every case done exactly once (60 results for 60
distinct cases, none lost), and the cases running as the database went away - read through a
connection kept open across the refusal - each retried (attempts 2) with one result, the
outage having outlasted their lease.
"""

from __future__ import annotations

import time

from gapsweep.db.engine import make_engine
from gapsweep.db.models import Case, Result
from sqlalchemy import create_engine, func, select, text
from sqlalchemy.engine import make_url
from support.database_fixtures import ADMIN_URL
from support.processes import (
    FAST_ENV,
    case_rows,
    grid_60,
    progress,
    result_counts,
    start_worker,
    submit,
    wait_finished,
    wait_for,
)

TERMINATE = text("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                 "WHERE datname = :db AND pid <> pg_backend_pid()")


def stored_per_case(sessions, case_ids) -> dict[int, int]:
    """{case id: its result rows} of ``case_ids`` (missing: none stored)."""
    with sessions() as s:
        return dict(s.execute(select(Result.case_id, func.count()).where(
            Result.case_id.in_(case_ids)).group_by(Result.case_id)).all())


def test_postgres_connections_terminated_mid_study(redis_pg, procs, tmp_path):
    t0 = time.monotonic()
    backend = redis_pg
    db = make_url(backend.database_url).database
    lease_s = float(FAST_ENV["GAPSWEEP_LEASE_S"])
    env = backend.env()
    start_worker(procs, env, concurrency=2)
    # cases of t_end 1.5 s (a chunk of 2 is ~1 s of solving): the outage below lands while the
    # chunk seen running is still running (with 0.3 s cases it could finish in between)
    study_id = submit(grid_60(tmp_path, t_end=1.5), env)
    admin = create_engine(ADMIN_URL, isolation_level="AUTOCOMMIT")
    quote = admin.dialect.identifier_preparer.quote
    try:
        # 1. a burst, so that some land inside a transaction, not only on idle connections
        wait_for("8 cases done", lambda: progress(backend.sessions, study_id)["done"] >= 8,
                 60.0)
        burst, end = 0, time.monotonic() + 1.0
        with admin.connect() as conn:
            while time.monotonic() < end:
                burst += conn.execute(TERMINATE, {"db": db}).scalar_one()
                time.sleep(0.1)

        # 2. the outage, the moment chunks are in flight
        def in_flight():
            rows = case_rows(backend.sessions, study_id)
            done = sum(r.status == "done" for r in rows)
            held = [r.id for r in rows if r.status == "running"]
            return held if done >= 20 and held else None

        wait_for("20 cases done and a chunk in flight", in_flight, 60.0, 0.01)
        backend.sessions.kw["bind"].dispose()  # this test's own connections go too
        witness = make_engine(backend.database_url)  # one connection open across the refusal
        with admin.connect() as conn, witness.connect() as seen:
            conn.execute(text(f"ALTER DATABASE {quote(db)} ALLOW_CONNECTIONS false"))
            outage_start = time.monotonic()
            try:
                # the cases in flight as the database goes away: read through the one
                # connection still open, then closed with the workers' ones
                held = list(seen.scalars(select(Case.id).where(
                    Case.study_id == study_id, Case.kind == "case", Case.status == "running")))
                seen.invalidate()
                cut = conn.execute(TERMINATE, {"db": db}).scalar_one()
                time.sleep(lease_s + 2.0)  # the leases in hand expire meanwhile
            finally:
                conn.execute(text(f"ALTER DATABASE {quote(db)} ALLOW_CONNECTIONS true"))
            outage_s = time.monotonic() - outage_start
        witness.dispose()
    finally:
        admin.dispose()
    final = wait_finished(backend.sessions, study_id, 120.0)
    rows = case_rows(backend.sessions, study_id)
    results = result_counts(backend.sessions, study_id)
    retried = sorted((r.id, r.attempts) for r in rows if r.attempts > 1)
    held_retried = [cid for cid, _ in retried if cid in held]
    print(f"\n[PostgreSQL faults] burst terminated {burst} connection(s); outage {outage_s:.1f} s "
          f"(lease {lease_s:.0f} s) terminated {cut} with {len(held)} case(s) in flight "
          f"{held}; final {final}; results {results}; retried {len(retried)} case(s) "
          f"(id, attempts) {retried}, {len(held_retried)} of them in flight at the outage; "
          f"total {time.monotonic() - t0:.1f} s")
    assert burst >= 1 and cut >= 1
    assert final == {"queued": 0, "running": 0, "done": 60, "failed": 0, "cancelled": 0,
                     "total": 60}  # nothing lost
    assert results == (60, 60)  # nothing stored twice
    assert all(r.status == "done" and 1 <= r.attempts <= 3 for r in rows)
    # the outage hit chunks in flight and outlasted their leases (an expired lease is not
    # renewed, db.leases.renew_leases): those cases ran again (not just any: the burst above
    # may retry one too), each stored once
    assert outage_s > lease_s
    assert held and set(held) <= {cid for cid, _ in retried}, (held, retried)
    assert stored_per_case(backend.sessions, held) == dict.fromkeys(held, 1)
