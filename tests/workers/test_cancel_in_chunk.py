"""A cancel that arrives while a worker is inside a chunk stops it within the case it is
solving (issue 16, part 4): the chunk's other claimed cases are released as cancelled -
never run, the claim undone - and the case solved before the cancel is stored. In-process
(``run_chunk``, the task's body) with the cancel committed from another session between two
solver calls, on SQLite and PostgreSQL; the process-level figure is in test_faults_cases."""

from __future__ import annotations

import time

import pytest
from gapsweep.db import leases, studies
from gapsweep.db.models import Case
from gapsweep.study.spec import parse_spec
from gapsweep.workers import case_runner
from gapsweep.workers.submit import create_study_rows
from sqlalchemy import select
from support.database_fixtures import database_url, session_factory  # noqa: E402, F401

from gapsweep.settings import get_settings

SPEC = {"name": "cancel in a chunk", "ideal_twin": False, "series": "none",
        "base": {"t_end": 0.004},
        "axes": {"clearance_mm": {"values": [0.02, 0.05, 0.1, 0.2, 0.3, 0.5]}}}


@pytest.fixture
def sessions(session_factory):  # noqa: F811 - the database fixtures' sessions, by this name
    return session_factory


def rows(sessions, study_id: int) -> list:
    """The study's design cases (not the certificates a finished study queues)."""
    with sessions() as s:
        return s.execute(select(Case.index, Case.status, Case.attempts, Case.started_at,
                                Case.finished_at, Case.lease_holder)
                         .where(Case.study_id == study_id, Case.kind == "case")
                         .order_by(Case.index)).all()


def queued_study(sessions, tmp_path) -> tuple:
    """The settings of a data folder in ``tmp_path``, and SPEC's study created: (settings,
    study id, its queued case ids)."""
    settings = get_settings({"GAPSWEEP_DATA": str(tmp_path)})
    study_id = create_study_rows(parse_spec(SPEC), sessions=sessions)
    with sessions() as s:
        return settings, study_id, leases.queued_case_ids(s, study_id=study_id)


def test_cancel_between_two_cases_of_a_chunk(sessions, tmp_path, monkeypatch):
    monkeypatch.setattr(case_runner, "CANCEL_CHECK_S", 0.0)  # these cases take ~ms
    settings, study_id, ids = queued_study(sessions, tmp_path)
    calls: list[int] = []
    solve = case_runner.run_cases

    def solve_then_cancel(model, params, *, threads, **more):
        calls.append(len(params))
        out = solve(model, params, threads=threads, **more)
        if len(calls) == 2:  # the user cancels while the second case is being solved
            with sessions.begin() as s:
                assert studies.cancel_study(s, study_id=study_id) == 0  # nothing queued
        return out

    monkeypatch.setattr(case_runner, "run_cases", solve_then_cancel)
    report = case_runner.run_chunk(ids, sessions=sessions, holder="w1", settings=settings)

    assert calls == [1, 1]  # one case per solver call; nothing solved after the cancel
    assert (report.claimed, report.done, report.cancelled, report.retried) == (6, 2, 4, 0)
    got = rows(sessions, study_id)
    assert [r.status for r in got] == ["done"] * 2 + ["cancelled"] * 4
    assert all(r.attempts == 1 and r.started_at is not None for r in got[:2])
    # released: the claim undone, as for the cases the cancel found queued
    assert all(r.attempts == 0 and r.started_at is None and r.lease_holder is None
               and r.finished_at is not None for r in got[2:])
    # each stored case carries the end of its own solve: the first before the second's
    assert got[0].finished_at < got[1].finished_at
    with sessions() as s:
        detail = studies.study_detail(s, study_id)
    assert detail["status"] == "cancelled" and detail["finished"] is not None
    assert detail["counts"] == {"queued": 0, "running": 0, "done": 2, "failed": 0,
                                "cancelled": 4, "total": 6}


@pytest.mark.parametrize(("interval_s", "pieces"), [(0.0, [1] * 6), (3600.0, [1, 5])])
def test_a_live_study_runs_its_whole_chunk_in_pieces(sessions, tmp_path, monkeypatch,
                                                     interval_s, pieces):
    """One case first, then pieces of the cases that fit in CANCEL_CHECK_S (at least one),
    a read between two pieces (none before the first: the claim checked)."""
    monkeypatch.setattr(case_runner, "CANCEL_CHECK_S", interval_s)
    settings, study_id, ids = queued_study(sessions, tmp_path)
    checks: list[list[int]] = []
    solved: list[int] = []
    check, solve = leases.stopped_studies, case_runner.run_cases

    def counting(session, *, study_ids):
        checks.append(list(study_ids))
        return check(session, study_ids=study_ids)

    def one_by_one(model, params, *, threads, **more):
        solved.append(len(params))
        return solve(model, params, threads=threads, **more)

    monkeypatch.setattr(leases, "stopped_studies", counting)
    monkeypatch.setattr(case_runner, "run_cases", one_by_one)
    report = case_runner.run_chunk(ids, sessions=sessions, holder="w1", settings=settings)
    assert (report.claimed, report.done, report.cancelled) == (6, 6, 0)
    assert solved == pieces
    assert checks == [[study_id]] * (len(pieces) - 1)
    assert [r.status for r in rows(sessions, study_id)] == ["done"] * 6


def test_pieces_are_sized_on_cpu_not_on_a_loaded_machines_wall_time(sessions, tmp_path,
                                                                     monkeypatch):
    """A case that waits (a loaded machine: 0.3 s of wall time, its few ms of CPU) does not
    shrink the pieces to one case each: 0.15 s of solving CPU holds the other five."""
    monkeypatch.setattr(case_runner, "CANCEL_CHECK_S", 0.15)
    settings, study_id, ids = queued_study(sessions, tmp_path)
    solved: list[int] = []
    solve = case_runner.run_cases

    def waiting(model, params, *, threads, **more):
        solved.append(len(params))
        time.sleep(0.3 * len(params))  # off the CPU, as behind other processes
        return solve(model, params, threads=threads, **more)

    monkeypatch.setattr(case_runner, "run_cases", waiting)
    report = case_runner.run_chunk(ids, sessions=sessions, holder="w1", settings=settings)
    assert (report.claimed, report.done) == (6, 6)
    assert solved == [1, 5]  # on wall time: [1, 1, 1, 1, 1, 1]


def test_release_leaves_live_studies_and_other_holders_alone(sessions):
    study_id = create_study_rows(parse_spec(SPEC), sessions=sessions)
    with sessions() as s:
        ids = leases.queued_case_ids(s, study_id=study_id)
    with sessions.begin() as s:
        leases.claim_cases(s, case_ids=ids[:3], holder="w1", lease_s=60)
        leases.claim_cases(s, case_ids=ids[3:], holder="w2", lease_s=60)
    with sessions.begin() as s:  # the study is live: nothing to release
        assert leases.release_cases(s, case_ids=ids, holder="w1") == []
        assert leases.stopped_studies(s, study_ids=[study_id]) == set()
    with sessions.begin() as s:
        studies.cancel_study(s, study_id=study_id)
    with sessions.begin() as s:
        assert leases.stopped_studies(s, study_ids=[study_id, 10**6]) == {study_id}
        assert leases.release_cases(s, case_ids=ids, holder="w1") == ids[:3]
    assert [r.status for r in rows(sessions, study_id)] == ["cancelled"] * 3 + ["running"] * 3
