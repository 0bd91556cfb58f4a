"""An optimize study on real worker processes, its driver SIGKILLed mid-study (design.md
4.9, issue 27): the worker that stores a generation's last cases writes the next one, so
killing the worker (main process and pool) mid-generation kills the driver. Another worker
and the reconciler carry on from the last complete generation; every case is stored once,
none lost, and the cases and the best are those of an undisturbed run with the same seed
(computed here through the core, :func:`gapsweep.study.search_run.run_search`).
Embedded (SQLite + filesystem broker) and Redis + PostgreSQL."""

from __future__ import annotations

import json
import signal
import time

from gapsweep.db import search as search_rows
from gapsweep.db.studies import study_detail
from gapsweep.study.search_run import run_search
from gapsweep.study.spec import parse_spec
from support.processes import (
    case_rows,
    result_counts,
    start_worker,
    submit_in_background,
    wait_for,
    wait_worker_ready,
)

SPEC = {
    "name": "faults-optimize", "design": "optimize", "ideal_twin": False, "series": "none",
    "base": {"t_end": 0.05, "n_output": 51},
    "axes": {"clearance_mm": {"start": 0.02, "stop": 0.1},
             "stiffness_scale": {"start": 0.7, "stop": 1.3}},
    "objective": {"metric": "peak_slider_accel_steady", "goal": "min"},
    "budget": 30, "seed": 11,
}


def test_driver_killed_mid_study_the_search_goes_on(backend, procs, tmp_path):
    t0 = time.monotonic()
    path = tmp_path / "optimize.json"
    path.write_text(json.dumps(SPEC))
    env = backend.env()
    submitted = submit_in_background(path, env)  # the submit and the worker start overlap
    first = start_worker(procs, env, concurrency=2)
    study_id = submitted()

    def second_generation_running():
        rows = case_rows(backend.sessions, study_id)
        return len(rows) > 10 and any(r.status == "running" for r in rows[10:])

    wait_for("generation 1 running", second_generation_running, 120.0, 0.01)
    first.kill_group(signal.SIGKILL)
    killed = case_rows(backend.sessions, study_id)
    second = start_worker(procs, env, concurrency=2, wait=False)
    # the undisturbed run, through the core, while the second worker starts
    reference = run_search(parse_spec(SPEC), threads=1)
    assert len(reference.cases) == 30  # 3 generations of 10
    wait_worker_ready(second, env)

    def done():
        with backend.sessions() as s:
            return study_detail(s, study_id)["status"] == "done"

    wait_for("the study to finish", done, 150.0, 0.1)
    with backend.sessions() as s:
        detail = study_detail(s, study_id)
        cases = search_rows.design_cases(s, study_id)
    rows = case_rows(backend.sessions, study_id)
    results, distinct = result_counts(backend.sessions, study_id)
    retried = [r.index for r in rows if r.attempts > 1]
    print(f"\n[{backend.kind}] killed with {len(killed)} cases written "
          f"({sum(r.status == 'done' for r in killed)} done); {len(rows)} cases, results "
          f"{results} ({distinct} distinct), retried {retried}, generations "
          f"{detail['search']['generation']}; {time.monotonic() - t0:.1f} s")
    assert [r.index for r in rows] == list(range(30))
    assert [c["params"] for c in cases] == [c["params"] for c in reference.cases]
    assert (results, distinct) == (30, 30)
    assert all(r.status == "done" for r in rows)
    assert retried, "the kill caught no case in flight"
    assert detail["search"]["finished"] and detail["search"]["generation"] == 3
    assert detail["best"]["params"] == reference.best["params"]
    assert detail["best"]["metrics"]["peak_slider_accel_steady"] == reference.best[
        "metrics"]["peak_slider_accel_steady"]
