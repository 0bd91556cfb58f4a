"""A worker SIGKILLed mid-case (its main process, or one pool child), another started:
every case of a 60-case study ends done exactly once, and the killed chunk shows its retry
(issue 9, "Fault tests"). Embedded (SQLite + filesystem broker) and Redis + PostgreSQL."""

from __future__ import annotations

import os
import signal
import time
from datetime import datetime, timezone

import pytest
from support.processes import (
    case_rows,
    grid_60,
    group_alive,
    holder_pid,
    result_counts,
    start_worker,
    study_status,
    submit,
    wait_finished,
    wait_for,
    wait_running,
)


@pytest.mark.parametrize("target", ["main", "main-only", "child"])
def test_sigkill_mid_case_then_another_worker(backend, procs, tmp_path, target):
    t0 = time.monotonic()
    env = backend.env()
    first = start_worker(procs, env, concurrency=2)
    study_id = submit(grid_60(tmp_path), env)
    running = wait_running(backend.sessions, study_id, min_done=6)
    child = holder_pid(running[0].lease_holder)
    assert child in first.children(), (child, first.children())
    # the processes the kill takes down: the pool with the main process, or the one child
    killed = set(first.children()) if target.startswith("main") else {child}
    orphans_left = None
    if target == "main":
        # the worker's main process and its pool at once: a machine or container lost
        first.kill_group(signal.SIGKILL)
    elif target == "main-only":
        os.kill(first.pid, signal.SIGKILL)
    else:
        os.kill(child, signal.SIGKILL)
    killed_at, killed_wall = time.monotonic(), datetime.now(timezone.utc)
    # the cases the killed processes held (their chunks, claimed together), read before
    # their leases (3 s) can expire and be taken over
    held = {r.id for r in case_rows(backend.sessions, study_id)
            if r.status == "running" and r.lease_holder and holder_pid(r.lease_holder) in killed}
    if target.startswith("main"):
        start_worker(procs, env, concurrency=2)
    if target == "main-only":
        # the orphaned pool children must not linger (nor keep running cases)
        wait_for("the orphaned pool children to exit", lambda: not group_alive(first.pid),
                 30.0, 0.1)
        orphans_left = round(time.monotonic() - killed_at, 1)
    progress = wait_finished(backend.sessions, study_id, 90.0)
    rows = case_rows(backend.sessions, study_id)
    results, distinct = result_counts(backend.sessions, study_id)
    retried = sorted(r.id for r in rows if r.attempts > 1)
    print(f"\n[{backend.kind}, SIGKILL {target}] progress {progress}; results {results} "
          f"({distinct} distinct); killed chunk {sorted(held)}; retried {retried} "
          f"(attempts {[r.attempts for r in rows if r.attempts > 1]}); "
          f"recovered {time.monotonic() - killed_at:.1f} s after the kill; "
          f"orphans gone after {orphans_left} s; total {time.monotonic() - t0:.1f} s")
    assert progress == {"queued": 0, "running": 0, "done": 60, "failed": 0, "cancelled": 0,
                        "total": 60}
    assert (results, distinct) == (60, 60)
    assert all(r.status == "done" for r in rows)
    # every case a dead process held was claimed again (an orphaned pool child, left by a
    # kill of the main process alone, may still finish its chunk); nothing else but what was
    # in flight: two processes x one chunk of 2, plus as much for a claim racing the kill
    # A case whose chunk the killed process was storing as the kill came (its COMMIT sent,
    # not yet applied when ``held`` was read: seen once in CI at load 6) is done by that
    # process, once - its solve ended before the kill - and is not claimed again.
    stored_by_killed = {r.id for r in rows if r.id in held and r.attempts == 1
                        and _utc(r.finished_at) <= killed_wall}
    if target != "main-only":
        assert held - stored_by_killed <= set(retried), (held, stored_by_killed, retried)
    assert len(retried) <= 8, retried
    assert all(r.attempts <= 2 for r in rows)
    assert study_status(backend.sessions, study_id) == "done"


def _utc(t: datetime) -> datetime:
    """A stored timestamp as aware UTC (SQLite returns it naive)."""
    return t if t.tzinfo is not None else t.replace(tzinfo=timezone.utc)
