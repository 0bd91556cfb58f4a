"""The workers' PostgreSQL connections terminated mid-study (``pg_terminate_backend``,
three bursts): the workers reconnect, the interrupted chunks are retried, the study
completes and nothing is stored twice (issue 9, "Fault tests")."""

from __future__ import annotations

import time

from database_fixtures import ADMIN_URL
from processes import (
    case_rows,
    grid_60,
    progress,
    result_counts,
    start_worker,
    submit,
    wait_finished,
    wait_for,
)
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url


def test_postgres_connections_terminated_mid_study(redis_pg, procs, tmp_path):
    t0 = time.monotonic()
    backend = redis_pg
    db = make_url(backend.database_url).database
    env = backend.env()
    start_worker(procs, env, concurrency=2)
    study_id = submit(grid_60(tmp_path), env)
    admin = create_engine(ADMIN_URL, isolation_level="AUTOCOMMIT")
    terminated = []
    try:
        for k in range(3):
            goal = 8 + 12 * k
            wait_for(f"{goal} cases done",
                     lambda g=goal: progress(backend.sessions, study_id)["done"] >= g, 60.0)
            # a burst (every 0.1 s for 1 s) so that some land inside a transaction, not
            # only on idle pooled connections (which pool_pre_ping replaces unnoticed)
            n, end = 0, time.monotonic() + 1.0
            with admin.connect() as conn:
                while time.monotonic() < end:
                    n += conn.execute(
                        text("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                             "WHERE datname = :db AND pid <> pg_backend_pid()"),
                        {"db": db},
                    ).scalar_one()
                    time.sleep(0.1)
            terminated.append(int(n))
    finally:
        admin.dispose()
    final = wait_finished(backend.sessions, study_id, 120.0)
    rows = case_rows(backend.sessions, study_id)
    results = result_counts(backend.sessions, study_id)
    print(f"\n[pg_terminate_backend, 3 bursts] connections terminated {terminated}; final {final}; "
          f"results {results}; retried {sum(r.attempts > 1 for r in rows)} case(s) "
          f"(attempts {sorted(r.attempts for r in rows if r.attempts > 1)}); "
          f"total {time.monotonic() - t0:.1f} s")
    assert all(n >= 1 for n in terminated)
    assert final == {"queued": 0, "running": 0, "done": 60, "failed": 0, "cancelled": 0,
                     "total": 60}
    assert results == (60, 60)
    assert all(r.status == "done" and 1 <= r.attempts <= 3 for r in rows)
