"""When the reconciler fails a study's last case (its lease expired with the attempts used
up), the study is analysed as when a worker stores its last case (issue 16, part 4): the
same analysis as the worker's path on a twin study, and as ``analyse`` on the stored metrics.
SQLite and PostgreSQL; no worker process (the reconciler pass is called directly)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from gapsweep.core.result import CaseResult
from gapsweep.db import leases, studies
from gapsweep.db.models import utcnow
from gapsweep.study.analysis import analyse
from gapsweep.study.designs import plan_study
from gapsweep.study.spec import parse_spec
from gapsweep.workers.reconciler import reconcile_once
from gapsweep.workers.study_finish import finish_study
from gapsweep.workers.submit import create_study_rows
from support.backends import Recorder  # noqa: E402
from support.database_fixtures import database_url, session_factory  # noqa: E402, F401

from gapsweep.settings import get_settings

# one-at-a-time over two axes of three levels: the nominal and four moves (5 cases)
SPEC = {"name": "reconciled", "design": "one-at-a-time", "ideal_twin": False, "series": "none",
        "axes": {"clearance_mm": {"values": [0.05, 0.1, 0.2], "nominal": 0.1},
                 "stiffness_scale": {"nominal": 1.0, "relative_percent": 30, "levels": 3}}}


def metrics_of(params: dict) -> dict[str, float]:
    """Made-up metrics, a known function of the parameters (no solver needed)."""
    c, k = float(params["clearance_mm"]), float(params["stiffness_scale"])
    return {"peak_slider_accel": 1e5 * c * k, "max_penetration": 1e-6 * c / k,
            "wall_time_s": 0.01}




@pytest.fixture
def sessions(session_factory):  # noqa: F811 - the database fixtures' sessions, by this name
    return session_factory


def all_but_last_done(sessions, *, lease_start) -> tuple[int, int]:
    """A new study with every case done but the last, which is claimed (attempt 1) with a
    lease taken at ``lease_start`` for 1 s; its id and the last case's id."""
    study_id = create_study_rows(parse_spec(SPEC), sessions=sessions)
    with sessions() as s:
        ids = leases.queued_case_ids(s, study_id=study_id)
    with sessions.begin() as s:
        first = leases.claim_cases(s, case_ids=ids[:-1], holder="w1", lease_s=60)
        leases.complete_cases(s, holder="w1", outcomes=[
            (c.id, CaseResult("slider-crank", c.params, metrics=metrics_of(c.params)), None)
            for c in first])
    with sessions.begin() as s:
        (last,) = leases.claim_cases(s, case_ids=ids[-1:], holder="w2", lease_s=1,
                                     now=lease_start)
    return study_id, last.id


def test_reconciler_failing_the_last_case_stores_the_workers_analysis(sessions, tmp_path):
    settings = get_settings({"GAPSWEEP_DATA": str(tmp_path), "GAPSWEEP_MAX_ATTEMPTS": "1",
                             "GAPSWEEP_REQUEUE_AFTER_S": "3600"})
    # the reference: the worker's path - its last case failed by the worker, then analysed
    worker_study, worker_last = all_but_last_done(sessions, lease_start=utcnow())
    with sessions.begin() as s:
        assert leases.fail_case(s, case_id=worker_last, holder="w2", reason="crashed",
                                final=True)
        assert studies.refresh_study_status(s, worker_study) == "done"
    finish_study(sessions, worker_study, settings=settings, dispatcher=None)

    # the reconciler's: the last case's worker vanished, its lease expired long ago
    study_id, last = all_but_last_done(sessions, lease_start=utcnow() - timedelta(hours=1))
    with sessions() as s:
        before = studies.study_detail(s, study_id)
    assert before["status"] == "running" and before["analysis"] is None
    dispatcher = Recorder()
    assert reconcile_once(sessions, settings, dispatcher) == 0
    sent = [i for chunk in dispatcher.sent for i in chunk]
    assert last not in sent  # attempts used up: failed, not sent again

    with sessions() as s:
        detail = studies.study_detail(s, study_id)
        reference = studies.study_detail(s, worker_study)
    # what went out is the finished study's certificates, as after a worker's last case
    assert sorted(sent) == sorted(c["id"] for c in detail["certificates"]) and sent
    (case,) = [c for c in detail["cases"] if c["id"] == last]
    assert (case["status"], case["reason"]) == ("failed", "lease expired 1 times (worker lost)")
    assert detail["status"] == "done"
    assert detail["counts"] == {"queued": 0, "running": 0, "done": 4, "failed": 1,
                                "cancelled": 0, "total": 5}
    spec = parse_spec(SPEC)
    expected = analyse(spec, plan_study(spec),
                       [None if c["id"] == last else metrics_of(c["params"])
                        for c in detail["cases"]])
    assert expected["missing"] == 1 and expected["coefficients"]
    assert detail["analysis"] == reference["analysis"] == expected

    # a later pass finds nothing, sends nothing and leaves the analysis as it is
    assert reconcile_once(sessions, settings, dispatcher) == 0
    assert [i for chunk in dispatcher.sent for i in chunk] == sent
    with sessions() as s:
        assert studies.study_detail(s, study_id)["analysis"] == expected


def test_a_pass_that_requeues_the_last_case_does_not_analyse(sessions, tmp_path):
    settings = get_settings({"GAPSWEEP_DATA": str(tmp_path), "GAPSWEEP_MAX_ATTEMPTS": "3",
                             "GAPSWEEP_REQUEUE_AFTER_S": "3600"})
    study_id, last = all_but_last_done(sessions, lease_start=utcnow() - timedelta(hours=1))
    dispatcher = Recorder()
    assert reconcile_once(sessions, settings, dispatcher) == 1
    assert dispatcher.sent == [[last]]
    with sessions() as s:
        detail = studies.study_detail(s, study_id)
    assert detail["status"] == "running" and detail["analysis"] is None
    assert detail["counts"]["queued"] == 1


def test_a_finished_study_is_read_once_for_its_analysis_and_its_certificates(
        sessions, tmp_path, monkeypatch):
    # issue 28: the analysis and the certificates each read the study's whole detail (one
    # query per case table, ~0.1 s per 1,000 cases); now the finish reads it once for both
    settings = get_settings({"GAPSWEEP_DATA": str(tmp_path), "GAPSWEEP_MAX_ATTEMPTS": "1",
                             "GAPSWEEP_REQUEUE_AFTER_S": "3600"})
    study_id, _ = all_but_last_done(sessions, lease_start=utcnow() - timedelta(hours=1))
    reads, original = [], studies.study_detail

    def spy(session, sid):
        reads.append(sid)
        return original(session, sid)

    monkeypatch.setattr(studies, "study_detail", spy)
    dispatcher = Recorder()
    reconcile_once(sessions, settings, dispatcher)
    assert reads == [study_id]
    monkeypatch.undo()
    with sessions() as s:
        detail = studies.study_detail(s, study_id)
    # both happened from that one read: the analysis stored, the certificates sent
    assert detail["analysis"]["missing"] == 1 and detail["certificates"]
    assert sorted(i for chunk in dispatcher.sent for i in chunk) == sorted(
        c["id"] for c in detail["certificates"])
