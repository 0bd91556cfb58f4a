"""Adaptive studies through the task function in-process (the claim, solve, store and
next-generation step a worker runs), on SQLite and PostgreSQL: the stored cases are those
of the core-direct run with the same seed; a driver lost between two generations is
replaced by the reconciler, and the study is never "done" in between; cancel stops the
search; a case lost to a crash holds the search until retry."""

from __future__ import annotations

import pytest
from gapsweep.db import leases
from gapsweep.db import search as search_rows
from gapsweep.db.engine import open_database
from gapsweep.db.lifecycle import cancel_study, retry_failed
from gapsweep.db.studies import study_detail
from gapsweep.study.search_run import run_search
from gapsweep.study.spec import parse_spec
from gapsweep.workers import case_runner
from gapsweep.workers.in_process import InProcessDispatcher
from gapsweep.workers.reconciler import reconcile_once
from gapsweep.workers.submit import submit_study
from support.database_fixtures import database_url  # noqa: E402, F401

from gapsweep.settings import get_settings

SPEC = {
    "name": "optimize in-process", "design": "optimize", "series": "none",
    "base": {"ideal": True, "gravity": 0.0, "t_end": 0.024, "n_output": 25},
    "axes": {"speed_rpm": {"start": 3000.0, "stop": 6000.0}},
    "objective": {"metric": "peak_slider_accel", "goal": "target", "value": 1.2e4},
    "budget": 30, "seed": 4,
}


@pytest.fixture
def env(database_url, tmp_path):  # noqa: F811
    settings = get_settings({"GAPSWEEP_DATA": str(tmp_path / "data"),
                             "GAPSWEEP_DATABASE_URL": database_url})
    sessions = open_database(database_url)
    try:
        yield settings, sessions
    finally:
        sessions.kw["bind"].dispose()


def _detail(sessions, study_id):
    with sessions() as s:
        return study_detail(s, study_id)


def test_cases_and_best_equal_the_core_run(env):
    settings, sessions = env
    spec = parse_spec(SPEC)
    reference = run_search(spec, threads=1)
    study_id = submit_study(spec, sessions=sessions, settings=settings,
                            dispatcher=InProcessDispatcher(sessions, settings))
    detail = _detail(sessions, study_id)
    assert detail["status"] == "done"
    assert [c["params"] for c in detail["cases"]] == [c["params"] for c in reference.cases]
    assert len(detail["cases"]) == 30 and detail["search"]["generation"] == 3
    assert detail["best"]["params"] == reference.best["params"]
    assert detail["best"]["cost"] == reference.last.state["best"]["cost"]
    assert [h["best_cost"] for h in detail["search"]["history"]] == reference.last.state[
        "best_cost"]


class Recorder:
    def __init__(self) -> None:
        self.sent: list[list[int]] = []

    def send(self, chunk):
        self.sent.append(chunk)

    def pending_messages(self):
        return 0


def test_a_lost_driver_is_replaced_by_the_reconciler(env, monkeypatch):
    settings, sessions = env
    spec = parse_spec(SPEC)
    queue = Recorder()
    study_id = submit_study(spec, sessions=sessions, settings=settings, dispatcher=queue)
    first = [i for chunk in queue.sent for i in chunk]
    assert len(first) == 10
    # the worker that stores generation 0 dies before it writes generation 1
    monkeypatch.setattr(case_runner, "advance_search", lambda *a, **k: [])
    case_runner.run_chunk(first, sessions=sessions, holder="w1", settings=settings,
                          dispatcher=queue)
    detail = _detail(sessions, study_id)
    assert detail["status"] == "running" and len(detail["cases"]) == 10  # not done
    monkeypatch.undo()
    queue.sent.clear()
    reconcile_once(sessions, settings, queue)
    sent = [i for chunk in queue.sent for i in chunk]
    assert len(sent) == 10 and len(_detail(sessions, study_id)["cases"]) == 20
    reconcile_once(sessions, settings, Recorder())  # a second pass writes nothing
    assert len(_detail(sessions, study_id)["cases"]) == 20
    # cancel: the search stops, nothing more is written
    with sessions.begin() as s:
        cancel_study(s, study_id=study_id)
    reconcile_once(sessions, settings, queue)
    detail = _detail(sessions, study_id)
    assert detail["status"] == "cancelled" and len(detail["cases"]) == 20


def test_a_case_lost_to_a_crash_holds_the_search_until_retry(env):
    settings, sessions = env
    spec = parse_spec(SPEC)
    queue = Recorder()
    study_id = submit_study(spec, sessions=sessions, settings=settings, dispatcher=queue)
    first = [i for chunk in queue.sent for i in chunk]
    case_runner.run_chunk(first[1:], sessions=sessions, holder="w1", settings=settings,
                          dispatcher=queue)
    with sessions.begin() as s:  # the last case: claimed, then its worker lost 3 times
        leases.claim_cases(s, case_ids=first[:1], holder="w2", lease_s=60)
        leases.fail_case(s, case_id=first[0], holder="w2", final=False, max_attempts=1,
                         reason="lease expired 1 times (worker lost)")
    reconcile_once(sessions, settings, queue)
    detail = _detail(sessions, study_id)
    assert len(detail["cases"]) == 10 and detail["status"] == "done"
    assert detail["search"]["blocked"] and not detail["search"]["finished"]
    with sessions.begin() as s:
        again = retry_failed(s, study_id=study_id)
    InProcessDispatcher(sessions, settings).send(again)
    detail = _detail(sessions, study_id)
    assert detail["status"] == "done" and detail["search"]["finished"]
    with sessions() as s:
        cases = search_rows.design_cases(s, study_id)
    reference = run_search(spec, threads=1)
    assert [c["params"] for c in cases] == [c["params"] for c in reference.cases]


def test_a_cancel_between_the_drivers_read_and_its_write_stops_the_search(env, monkeypatch):
    """The driver read the study live, then a cancel committed before it took the study's
    lock (CI saw it: generation 6 written after the cancel, queued for good, `wait` hung).
    Under the lock it sees the cancel and writes nothing."""
    from gapsweep.workers import search as driver

    settings, sessions = env
    spec = parse_spec(SPEC)
    queue = Recorder()
    study_id = submit_study(spec, sessions=sessions, settings=settings, dispatcher=queue)
    first = [i for chunk in queue.sent for i in chunk]
    monkeypatch.setattr(case_runner, "advance_search", lambda *a, **k: [])
    case_runner.run_chunk(first, sessions=sessions, holder="w1", settings=settings,
                          dispatcher=queue)
    monkeypatch.undo()
    read_live = driver._adaptive_spec(sessions, study_id)
    assert read_live is not None
    with sessions.begin() as s:
        cancel_study(s, study_id=study_id)
    monkeypatch.setattr(driver, "_adaptive_spec", lambda *a: read_live)
    queue.sent.clear()
    assert driver.advance_search(sessions, study_id, settings=settings, dispatcher=queue) == []
    detail = _detail(sessions, study_id)
    assert detail["status"] == "cancelled" and len(detail["cases"]) == 10
    assert queue.sent == []
