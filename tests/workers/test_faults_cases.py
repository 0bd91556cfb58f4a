"""Poison cases, two workers on one study, cancel and retry - with real worker processes
(issue 9, "Fault tests"). Each prints and asserts exact counts."""

from __future__ import annotations

import json
import os
import signal
import threading
import time
from datetime import datetime, timedelta, timezone

from gapsweep.db.lifecycle import cancel_study
from sqlalchemy import select
from support.processes import (
    case_rows,
    gapsweep_cli,
    holder_pid,
    progress,
    result_counts,
    start_worker,
    study_status,
    submit,
    wait_finished,
    wait_for,
    write_study,
)

# stiffness_scale 1e-9: the contact is too soft, the solver reports "penetration exceeded
# its bound" within a millisecond of simulated time - its deterministic, final verdict
POISON_SCALE = 1e-9


def _poison_study(tmp_path):
    # 2 clearances x 5 scales = 10 cases, of which 2 (index 0 and 5) are poison
    return write_study(tmp_path, "poison", clearances=[0.05, 0.1],
                       scales=[POISON_SCALE, 0.8, 1.0, 1.2, 1.5], t_end=0.3)


def _result_ids(sessions, study_id):
    from gapsweep.db.models import Case, Result

    with sessions() as s:
        return dict(s.execute(select(Result.case_id, Result.id).join(
            Case, Case.id == Result.case_id).where(Case.study_id == study_id,
                                                    Case.kind == "case")).all())


def test_solver_poison_fails_once_then_retry_runs_only_it(backend, procs, tmp_path):
    t0 = time.monotonic()
    env = backend.env()
    start_worker(procs, env, concurrency=2)
    study_id = submit(_poison_study(tmp_path), env)
    final = wait_finished(backend.sessions, study_id, 60.0)
    rows = case_rows(backend.sessions, study_id)
    failed = [r for r in rows if r.status == "failed"]
    summary = [(r.index, r.attempts, r.reason) for r in failed]
    print(f"\n[{backend.kind} solver poison] {final}; failed (index, attempts, reason) {summary}")
    assert final == {"queued": 0, "running": 0, "done": 8, "failed": 2, "cancelled": 0,
                     "total": 10}
    assert [r.index for r in failed] == [0, 5]
    # the solver's verdict is final at once: one attempt, its reason kept
    assert all(r.attempts == 1 and "penetration exceeded its bound" in r.reason for r in failed)
    assert result_counts(backend.sessions, study_id) == (8, 8)
    assert study_status(backend.sessions, study_id) == "done"

    before = {r.id: r for r in rows}
    results_before = _result_ids(backend.sessions, study_id)
    out = gapsweep_cli(["retry", str(study_id)], env)
    assert "2 failed case(s) queued again" in out
    again = wait_finished(backend.sessions, study_id, 60.0)
    after = case_rows(backend.sessions, study_id)
    ran_again = sorted(r.index for r in after if r.started_at != before[r.id].started_at)
    print(f"[{backend.kind} retry] {again}; ran again: indices {ran_again}, attempts "
          f"{[r.attempts for r in after if r.index in ran_again]}; results unchanged "
          f"{_result_ids(backend.sessions, study_id) == results_before}; "
          f"total {time.monotonic() - t0:.1f} s")
    assert again == final  # the poison fails again, the rest untouched
    assert ran_again == [0, 5]
    for r in after:
        if r.index in (0, 5):
            assert (r.status, r.attempts) == ("failed", 2)
            assert "penetration exceeded its bound" in r.reason
        else:
            assert (r.status, r.attempts, r.finished_at) == (
                "done", 1, before[r.id].finished_at)
    assert _result_ids(backend.sessions, study_id) == results_before


def test_crashing_case_fails_after_max_attempts(procs, tmp_path, request):
    """A case that kills its worker process every time it runs (here: the test SIGKILLs
    whichever pool child holds it) ends failed after GAPSWEEP_MAX_ATTEMPTS claims; every
    other case is done. Embedded (SQLite + filesystem broker)."""
    from support.backends import make_backend

    t0 = time.monotonic()
    gen = make_backend("embedded", tmp_path, procs)
    backend = next(gen)
    request.addfinalizer(gen.close)
    env = backend.env(GAPSWEEP_MAX_ATTEMPTS="2", GAPSWEEP_CHUNK_SIZE="1")
    # t_end 2.0 s for the victim (index 1, ~0.6 s of solver time): long enough to catch it
    path = tmp_path / "crash.json"
    path.write_text(json.dumps({
        "name": "crash", "design": "grid", "ideal_twin": False, "series": "none",
        "axes": {"clearance_mm": {"values": [0.05, 0.1, 0.2, 0.3, 0.5]},
                 "t_end": {"values": [0.2, 2.0]}},
    }))
    worker = start_worker(procs, env, concurrency=2)
    study_id = submit(path, env)
    victim = next(r for r in case_rows(backend.sessions, study_id) if r.index == 1)
    kills: list[int] = []
    stop = threading.Event()

    def killer() -> None:
        while not stop.is_set():
            r = next(r for r in case_rows(backend.sessions, study_id) if r.id == victim.id)
            if r.status == "running" and r.lease_holder:
                pid = holder_pid(r.lease_holder)
                if pid not in kills and pid in worker.children():
                    os.kill(pid, signal.SIGKILL)
                    kills.append(pid)
            if r.status in ("failed", "done"):
                return
            time.sleep(0.005)

    thread = threading.Thread(target=killer, daemon=True)
    thread.start()
    try:
        final = wait_finished(backend.sessions, study_id, 90.0)
    finally:
        stop.set()
        thread.join(5)
    rows = case_rows(backend.sessions, study_id)
    v = next(r for r in rows if r.id == victim.id)
    print(f"\n[embedded crash poison] {final}; victim index 1: {v.status}, attempts "
          f"{v.attempts}, reason {v.reason!r}; pool children killed {len(kills)}; "
          f"results {result_counts(backend.sessions, study_id)}; "
          f"total {time.monotonic() - t0:.1f} s")
    assert final == {"queued": 0, "running": 0, "done": 9, "failed": 1, "cancelled": 0,
                     "total": 10}
    assert (v.status, v.attempts) == ("failed", 2)
    assert v.reason == "lease expired 2 times (worker lost)"
    assert len(kills) == 2
    assert result_counts(backend.sessions, study_id) == (9, 9)
    assert all(r.status == "done" for r in rows if r.id != victim.id)


def test_two_workers_200_cases_no_case_claimed_twice(backend, procs, tmp_path):
    t0 = time.monotonic()
    env = backend.env(GAPSWEEP_LEASE_S="30")  # no fault here: no lease may expire
    workers = [start_worker(procs, env, concurrency=1, name=f"two{k}") for k in range(2)]
    path = write_study(tmp_path, "two-workers", clearances=[0.02, 0.05, 0.1, 0.2, 0.5],
                       scales=[0.5 + 0.025 * k for k in range(40)], t_end=0.05)
    study_id = submit(path, env)
    final = wait_finished(backend.sessions, study_id, 150.0)
    rows = case_rows(backend.sessions, study_id)
    # a lease holder is host:pid of a pool child; its process group is its worker
    group_of = {w.pid: f"two{k}" for k, w in enumerate(workers)}
    per_worker: dict[str, int] = {}
    for r in rows:
        name = group_of[os.getpgid(holder_pid(r.lease_holder))]
        per_worker[name] = per_worker.get(name, 0) + 1
    by_status = {s: sum(r.status == s for r in rows) for s in final if s != "total"}
    print(f"\n[{backend.kind} two workers] {final}; per worker {per_worker}; results "
          f"{result_counts(backend.sessions, study_id)}; attempts "
          f"{sorted({r.attempts for r in rows})}; total {time.monotonic() - t0:.1f} s")
    assert final == {"queued": 0, "running": 0, "done": 200, "failed": 0, "cancelled": 0,
                     "total": 200}
    assert by_status == {k: v for k, v in final.items() if k != "total"}
    assert result_counts(backend.sessions, study_id) == (200, 200)
    assert all(r.attempts == 1 for r in rows)  # each case claimed exactly once
    assert sorted(per_worker) == ["two0", "two1"] and sum(per_worker.values()) == 200
    assert min(per_worker.values()) >= 20  # both took a real share


def test_cancel_mid_study(backend, procs, tmp_path):
    """A cancel stops each worker within the case it is solving (issue 16): chunks of 4
    cases, and at most one case per worker process finishes after the cancel committed -
    the rest of its chunk is released as cancelled, never run. Cases of t_end 2 s take well
    over case_runner.CANCEL_CHECK_S (50 ms) on any machine, so each runs alone."""
    t0 = time.monotonic()
    concurrency, chunk = 2, 4
    env = backend.env(GAPSWEEP_CHUNK_SIZE=str(chunk))
    start_worker(procs, env, concurrency=concurrency)
    path = write_study(tmp_path, "cancel", clearances=[0.02, 0.05, 0.1, 0.2, 0.3, 0.5],
                       scales=[0.5 + 0.1 * k for k in range(10)], t_end=2.0)
    study_id = submit(path, env)

    def just_claimed() -> list:
        """The running cases, once a chunk was stored and a worker has just claimed its
        next one (less than half a case ago: it is solving that chunk's first case)."""
        rows = case_rows(backend.sessions, study_id)
        done = [r for r in rows if r.status == "done"]
        if len(done) < chunk:
            return []
        # the first case of a chunk ends one case after the claim: the shortest such span
        one_case = min(r.finished_at - r.started_at for r in done)
        fresh = datetime.now(timezone.utc) - max(one_case / 2, timedelta(seconds=0.05))
        running = [r for r in rows if r.status == "running"]
        return running if any(r.started_at > fresh for r in running) else []

    held = wait_for("a chunk just claimed", just_claimed, 90.0, 0.01)
    # the cancel `gapsweep cancel` makes, in this process: its commit time is known to the
    # millisecond (the CLI's exit came up to a second after it, hiding the cases in flight).
    # Its own timestamps are taken before it waits for the rows a claim holds (FOR UPDATE),
    # so a claim that commits in that wait - legitimately before the cancel - can carry a
    # later started_at than the cancelled rows' finished_at: compare with the commit
    with backend.sessions.begin() as s:
        cancel_study(s, study_id=study_id)
    committed = datetime.now(timezone.utc)
    at_once = progress(backend.sessions, study_id)
    final = wait_finished(backend.sessions, study_id, 30.0)
    rows = case_rows(backend.sessions, study_id)
    cancelled = [r for r in rows if r.status == "cancelled"]
    started_after = [r.index for r in rows if r.started_at and r.started_at > committed]
    # a stored case's finished_at is when its solve ended (the chunk is stored at its end)
    finished_after = [r.index for r in rows if r.status == "done" and r.finished_at > committed]
    released = [r.index for r in cancelled if r.index in {h.index for h in held}]
    by_index = {r.index: r for r in rows}
    print(f"\n[{backend.kind} cancel, chunks of {chunk}] right after the cancel: "
          f"{at_once}; final {final}; held by workers at the cancel: "
          f"{sorted(r.index for r in held)}; of them released unrun: {released}; started "
          f"after the cancel: {started_after}; finished after it: {finished_after} "
          f"(<= {concurrency} workers x 1); total {time.monotonic() - t0:.1f} s")
    assert at_once["queued"] == 0  # queued cases cancelled at once
    assert final["queued"] == final["running"] == final["failed"] == 0
    assert final["done"] + final["cancelled"] == 60 and final["cancelled"] > 0
    assert started_after == []  # nothing started after the cancel committed
    assert len(finished_after) <= concurrency * 1  # within the case in hand, per worker
    # every cancelled case never ran: the queued ones, and the claimed ones released
    assert all(r.started_at is None and r.attempts == 0 for r in cancelled)
    # each case the workers held at the cancel was either solved, or released unrun
    assert all(by_index[h.index].status in ("done", "cancelled") for h in held)
    assert len(released) >= 1  # the chunk just claimed did not run to its end
    assert result_counts(backend.sessions, study_id) == (final["done"], final["done"])
    assert study_status(backend.sessions, study_id) == "cancelled"
