"""A finished study's convergence certificates with real worker processes, on the embedded
default (SQLite + filesystem broker) and on Redis + PostgreSQL: queued by whichever worker
process ends the study's last case, through the broker, each run exactly once - also when
two worker processes end the study's last chunks at the same moment (chunks of one case)."""

from __future__ import annotations

import time

import pytest
from gapsweep.db import studies
from support.processes import start_worker, submit, wait_finished, write_study

pytestmark = pytest.mark.timeout(300)


def test_certificates_run_once_through_the_broker(backend, procs, tmp_path):
    env = backend.env(GAPSWEEP_CHUNK_SIZE="1")
    start_worker(procs, env, concurrency=2)
    study_file = write_study(tmp_path, "certified", clearances=[0.02, 0.05, 0.1, 0.08],
                             scales=[1.0], t_end=0.024)
    study_id = submit(study_file, env)
    final = wait_finished(backend.sessions, study_id, 120)
    assert final == {"queued": 0, "running": 0, "done": 4, "failed": 0, "cancelled": 0,
                     "total": 4}

    deadline = time.monotonic() + 120
    while True:
        with backend.sessions() as s:
            detail = studies.study_detail(s, study_id)
        certs = detail["certificates"]
        assert detail["status"] == "done"  # the certificates never reopen the study
        if certs and all(c["status"] in ("done", "failed") for c in certs):
            break
        assert time.monotonic() < deadline, [(c["id"], c["status"]) for c in certs]
        time.sleep(0.5)
    print(f"\n[{backend.kind}] {len(certs)} certificates: "
          f"{sorted((c['source_id'], c['slot'], c['status'], c['attempts']) for c in certs)}")
    # 0.1 mm: the largest peak; 0.02 mm: the smallest clearance; 4 refinements each
    by_params = {c["params"]["clearance_mm"]: c["id"] for c in detail["cases"]}
    assert sorted((c["source_id"], c["slot"]) for c in certs) == sorted(
        (by_params[cl], slot) for cl in (0.02, 0.1) for slot in range(4))
    assert all((c["status"], c["attempts"]) == ("done", 1) for c in certs)
    assert all(c["metrics"]["peak_slider_accel"] > 0 for c in certs)
    assert detail["counts"]["total"] == 4 and len(detail["cases"]) == 4
    with backend.sessions() as s:
        _, rows = studies.export_rows(s, study_id)
    assert len(rows) == 4
