"""Work carried instead of redone (issue 34.4): a study's submit enqueues the ids it wrote
without reading them back, and a worker's chunk refreshes its study's status once (in the
store's transaction), not once there and again after."""

from __future__ import annotations

import pytest
from gapsweep.core.result import CaseResult
from gapsweep.db import leases, studies
from gapsweep.db.engine import open_database
from gapsweep.study.spec import parse_spec
from gapsweep.workers import case_runner, submit
from sqlalchemy import event
from support.backends import Recorder

from gapsweep.settings import get_settings

SPEC = {"name": "carried", "series": "none", "base": {"t_end": 0.004},
        "axes": {"clearance_mm": {"values": [0.02, 0.05, 0.1]}}}


@pytest.fixture
def sessions(tmp_path):
    url = f"sqlite:///{tmp_path / 'gapsweep.db'}"
    factory = open_database(url)
    yield factory, get_settings({"GAPSWEEP_DATA": str(tmp_path), "GAPSWEEP_DATABASE_URL": url})
    factory.kw["bind"].dispose()


def test_submit_enqueues_the_ids_create_study_returned(sessions, monkeypatch):
    factory, settings = sessions

    def read_back(*a, **k):
        raise AssertionError("the ids just written were read back")

    monkeypatch.setattr(leases, "queued_case_ids", read_back)
    dispatcher = Recorder()
    study_id = submit.submit_study(parse_spec(SPEC), sessions=factory, settings=settings,
                                   dispatcher=dispatcher)
    monkeypatch.undo()
    with factory() as s:
        written = leases.queued_case_ids(s, study_id=study_id)
    assert [i for chunk in dispatcher.sent for i in chunk] == written
    assert len(written) == 4  # three cases and their one ideal twin, the twin first


def _refreshes(engine) -> list[str]:
    """The statements that open a status refresh (db.lifecycle.refresh_study_status reads
    the study's status, finish time and search together, under its row lock)."""
    seen: list[str] = []

    @event.listens_for(engine, "before_cursor_execute")
    def count(conn, cursor, statement, *args):  # noqa: ARG001 - SQLAlchemy's signature
        if statement.lstrip().startswith("SELECT studies.status, studies.finished, "
                                         "studies.search"):
            seen.append(statement)

    return seen


def test_a_chunk_refreshes_its_study_status_once(sessions, monkeypatch):
    factory, settings = sessions
    study_id = submit.create_study_rows(parse_spec(SPEC), sessions=factory)
    with factory() as s:
        ids = leases.queued_case_ids(s, study_id=study_id)

    def solved(model, params, *, threads, **more):
        return [CaseResult(model, dict(p), metrics={"peak_slider_accel": 1.0 + i})
                for i, p in enumerate(params)]

    monkeypatch.setattr(case_runner, "run_cases", solved)
    seen = _refreshes(factory.kw["bind"])
    report = case_runner.run_chunk(ids, sessions=factory, holder="w1", settings=settings,
                                   dispatcher=Recorder())
    assert (report.claimed, report.done) == (4, 4)
    assert len(seen) == 1, seen
    with factory() as s:
        assert studies.study_status(s, study_id) == "done"
