"""``run_chunk`` when the solver call raises (not the solver's verdict: a crash): a chunk
runs in pieces (issue 16), and only the piece whose call raised is counted as an attempt and
sent back to the queue, a case per message; the chunk's other cases are solved and stored.
Pieces of one case here (``CANCEL_CHECK_S`` 0, as for cases of 50 ms or more)."""

from __future__ import annotations

from gapsweep.db import leases, studies
from gapsweep.db.engine import open_database
from gapsweep.study.spec import parse_spec
from gapsweep.workers import case_runner
from gapsweep.workers.submit import create_study_rows
from support.backends import Recorder

from gapsweep.settings import get_settings

SPEC = {"name": "a crash in a chunk", "ideal_twin": False, "series": "none",
        "base": {"t_end": 0.004},
        "axes": {"clearance_mm": {"values": [0.02, 0.05, 0.1, 0.2]}}}


def test_only_the_case_whose_call_raised_is_retried(tmp_path, monkeypatch):
    monkeypatch.setattr(case_runner, "CANCEL_CHECK_S", 0.0)
    url = f"sqlite:///{tmp_path / 'gapsweep.db'}"
    settings = get_settings({"GAPSWEEP_DATA": str(tmp_path), "GAPSWEEP_DATABASE_URL": url})
    sessions = open_database(url)
    try:
        study_id = create_study_rows(parse_spec(SPEC), sessions=sessions)
        with sessions() as s:
            ids = leases.queued_case_ids(s, study_id=study_id)
        solve = case_runner.run_cases

        def crash_on_0_1(model, params, *, threads, **more):
            if [p["clearance_mm"] for p in params] == [0.1]:
                raise MemoryError("out of memory")
            return solve(model, params, threads=threads, **more)

        monkeypatch.setattr(case_runner, "run_cases", crash_on_0_1)
        dispatcher = Recorder()
        report = case_runner.run_chunk(ids, sessions=sessions, holder="w1", settings=settings,
                                       dispatcher=dispatcher)
        assert (report.claimed, report.done, report.retried, report.failed) == (4, 3, 1, 0)
        assert dispatcher.sent == [[ids[2]]]  # alone, as every retried case
        with sessions() as s:
            detail = studies.study_detail(s, study_id)
        got = {c["id"]: c for c in detail["cases"]}
        assert [got[i]["status"] for i in ids] == ["done", "done", "queued", "done"]
        assert got[ids[2]]["attempts"] == 1
        assert got[ids[2]]["reason"] == "worker error: MemoryError: out of memory"
        assert detail["status"] == "running"
    finally:
        sessions.kw["bind"].dispose()


WEAR = {"name": "wear lives", "ideal_twin": False, "series": "none",
        "base": {"clearance_mm": 0.02, "wear_cycles": 1e5, "wear_steps": 2, "wear_nodes": 90,
                 "max_revolutions": 30},
        "axes": {"wear_coefficient_m2_per_n": {"values": [1e-16, 2e-16]}}}


def test_a_wear_life_reports_each_step_while_it_runs(tmp_path, monkeypatch):
    """A study of wear-life cases (``wear_steps`` + 1 settled runs each): as each run of a
    life ends, its case's row says so, and the study's progress report - what ``wait`` and
    the progress route read - lists the running case at that step, k of ``wear_steps`` + 1;
    a stored case leaves the list."""
    url = f"sqlite:///{tmp_path / 'gapsweep.db'}"
    settings = get_settings({"GAPSWEEP_DATA": str(tmp_path), "GAPSWEEP_DATABASE_URL": url})
    sessions = open_database(url)
    try:
        study_id = create_study_rows(parse_spec(WEAR), sessions=sessions)
        with sessions() as s:
            ids = leases.queued_case_ids(s, study_id=study_id)
        write, seen = leases.report_progress, []

        def observed(session, **kw):
            ok = write(session, **kw)
            session.flush()
            seen.append((kw["case_id"], studies.running_steps(session, study_id)))
            return ok

        monkeypatch.setattr(leases, "report_progress", observed)
        report = case_runner.run_chunk(ids, sessions=sessions, holder="w1", settings=settings)
        assert (report.claimed, report.done, report.failed) == (2, 2, 0)
        first = [{"id": ids[0], "step": 3, "steps": 3}]  # its life over, stored with the chunk
        assert seen == ([(ids[0], [{"id": ids[0], "step": k, "steps": 3}]) for k in (1, 2, 3)]
                        + [(ids[1], first + [{"id": ids[1], "step": k, "steps": 3}])
                           for k in (1, 2, 3)])
        with sessions() as s:
            after = studies.study_progress_report(s, study_id)
        assert after["running"] == [] and after["counts"]["done"] == 2
    finally:
        sessions.kw["bind"].dispose()
