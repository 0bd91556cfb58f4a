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


def test_a_case_reports_its_crank_frequency_and_the_worker_uses_it():
    # the worker placed the spectra by parsing each case again (issue 34.4); the core now
    # reports the crank's frequency it ran at, whatever the driver's direction
    from gapsweep.core.api import run_case
    from gapsweep.workers.series_policy import select_series
    from support.mechanism_tables import table

    assert run_case("slider-crank", {"speed_rpm": 3000, "t_end": 0.002}).rotation_hz == 50.0
    assert run_case("cantilever", {"t_end": 0.001}).rotation_hz == 0.0
    mech = table("four_bar_crank_rocker")
    results = {}
    for rpm in (600.0, -600.0):  # a crank driven backwards turns at the same 10 Hz
        mech["driver"]["speed_rpm"] = rpm
        results[rpm] = run_case("mechanism", {"mechanism": mech, "t_end": 0.25})
        assert results[rpm].ok, results[rpm].reason
        assert results[rpm].rotation_hz == pytest.approx(10.0, rel=1e-12)
    spectra = {rpm: select_series(r, "preview", r.rotation_hz) for rpm, r in results.items()}
    # the window is whole revolutions of the 10 Hz crank either way (the old per-case parse
    # gave -10 Hz backwards, and the spectrum fell back to the run's whole time base)
    for s in spectra.values():
        assert s["spectrum_freq_hz"][1] == pytest.approx(10.0 / round(
            10.0 / s["spectrum_freq_hz"][1]), rel=1e-9)
    assert len(spectra[600.0]["spectrum_freq_hz"]) == len(spectra[-600.0]["spectrum_freq_hz"])
