"""A finished study's convergence certificates, run through the task function (in-process:
the claim, solve and store a worker runs), on SQLite and PostgreSQL.

Checks that they run once (exactly the planned count, no duplicate, one claim each, a second
trigger writes nothing), that each stores what ``core.api.run_case`` computes for its
refined parameters, and that the study's counts, "cases", twins and export rows are those
of the same study without certificates.
"""

from __future__ import annotations

import pytest
from gapsweep.core.api import run_case
from gapsweep.db import studies
from gapsweep.db.certificates import add_certificates, certificate_progress
from gapsweep.db.engine import open_database
from gapsweep.db.models import Case
from gapsweep.study.certificates import BY_SLOT, certificate_report
from gapsweep.study.spec import parse_spec
from gapsweep.workers.certificates import start_certificates
from gapsweep.workers.in_process import InProcessDispatcher
from gapsweep.workers.submit import submit_study
from sqlalchemy import func, select
from support.database_fixtures import database_url  # noqa: E402, F401

from gapsweep.settings import get_settings

RPM = 5000.0


class Counting(InProcessDispatcher):
    """Runs chunks in-process and remembers every case id sent."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.sent: list[int] = []

    def send(self, chunk: list[int]) -> None:
        self.sent += chunk
        super().send(chunk)


@pytest.fixture
def env(database_url, tmp_path):  # noqa: F811
    settings = get_settings(
        {"GAPSWEEP_DATA": str(tmp_path / "data"), "GAPSWEEP_DATABASE_URL": database_url}
    )
    sessions = open_database(database_url)
    try:
        yield settings, sessions
    finally:
        sessions.kw["bind"].dispose()


def spec(design: str = "grid", **changes):
    data = {"name": "certificates", "design": design, "base": {"speed_rpm": RPM},
            "axes": {"clearance_mm": {"values": [0.05, 0.1, 0.035]}}}
    data.update(changes)
    return parse_spec(data)


def test_certificates_run_once_and_stay_out_of_counts_and_exports(env):
    settings, sessions = env
    dispatcher = Counting(sessions, settings)
    study_id = submit_study(spec(), sessions=sessions, settings=settings, dispatcher=dispatcher)
    with sessions() as s:
        detail = studies.study_detail(s, study_id)
        columns, rows = studies.export_rows(s, study_id)
        total, items = studies.list_studies(s, limit=10)
        progress = certificate_progress(s, study_id)

    # the study's own numbers are those of its 3 design cases and 1 twin
    assert detail["status"] == "done"
    assert detail["counts"] == {"queued": 0, "running": 0, "done": 3, "failed": 0,
                                "cancelled": 0, "total": 3}
    assert len(detail["cases"]) == 3 and len(detail["twins"]) == 1
    assert [r["clearance_mm"] for r in rows] == [0.05, 0.1, 0.035] and "status" in columns
    assert [(i["cases"], i["done"]) for i in items if i["id"] == study_id] == [(3, 3)]

    cases = detail["cases"]
    # the largest headline peak: the settled one, which every case reports (issue 23)
    key = "peak_slider_accel_settled"
    assert all(key in c["metrics"] for c in cases)
    peaks = [c["metrics"][key] for c in cases]
    largest = cases[peaks.index(max(peaks))]
    smallest = cases[2]  # 0.035 mm
    assert largest is not smallest  # two sources, four refinements each
    certs = detail["certificates"]
    assert len(certs) == 8
    assert progress == {"queued": 0, "running": 0, "done": 8, "failed": 0, "cancelled": 0,
                        "total": 8}
    assert sorted((c["source_id"], c["slot"]) for c in certs) == sorted(
        (s["id"], slot) for s in (largest, smallest) for slot in range(4))
    # each sent once, claimed once, and the ids are none of the design cases' or twins'
    cert_ids = [c["id"] for c in certs]
    assert sorted(i for i in dispatcher.sent if i in cert_ids) == sorted(cert_ids)
    assert set(cert_ids).isdisjoint({c["id"] for c in cases + detail["twins"]})
    twin_id = detail["twins"][0]["id"]
    by_id = {c["id"]: c for c in cases}
    for cert in certs:
        source = by_id[cert["source_id"]]
        refinement = BY_SLOT[cert["slot"]]
        changed = {k: v for k, v in cert["params"].items() if source["params"].get(k) != v}
        expected_value = {"rtol": 1e-7, "n_output": 4801,
                          "stiffness_scale": refinement.factor}[refinement.param]
        assert changed == {refinement.param: pytest.approx(expected_value, rel=1e-12)}
        assert (cert["status"], cert["attempts"], cert["twin_id"]) == ("done", 1, twin_id)
        expected = run_case("slider-crank", cert["params"]).metrics
        for name in ("peak_slider_accel", "max_penetration", "peak_contact_force", "impacts"):
            assert cert["metrics"][name] == pytest.approx(expected[name], rel=1e-12), name

    # a second trigger (every later chunk of a done study calls it) writes nothing
    assert start_certificates(sessions, study_id, settings=settings, dispatcher=dispatcher) == []
    with sessions.begin() as s:
        assert add_certificates(s, study_id=study_id,
                                certificates=[(0, 0, {"clearance_mm": 0.05})]) == []
    with sessions() as s:
        n_rows = s.scalar(select(func.count()).select_from(Case)
                          .where(Case.study_id == study_id))
    assert n_rows == 3 + 1 + 8

    # the verdict the page shows, from these runs: rtol / 10 and half the output step move
    # the whole-run peak far less than 1 % (measured: ~1e-7 relative and exactly 0)
    report = certificate_report("slider-crank", cases, certs)
    assert report["numerics_converged"] is True
    assert {s["case_id"] for s in report["sources"]} == {largest["id"], smallest["id"]}
    # one judged metric for the study (issue 35): the settled peak where, in every ladder,
    # the runs (the source and its refinements) all settled to one motion, else the
    # whole-run peak for every ladder
    every = True
    for source in report["sources"]:
        for param in ("rtol", "n_output", "stiffness_scale"):
            runs = [by_id[source["case_id"]]["metrics"]] + [
                c["metrics"] for c in certs
                if c["source_id"] == source["case_id"] and BY_SLOT[c["slot"]].param == param]
            motions = {(m.get("settled"), m.get("motion")) for m in runs}
            every &= len(motions) == 1 and next(iter(motions))[0] == 1
    assert report["metric"] == (key if every else "peak_slider_accel")
    for source in report["sources"]:
        ladders = {lad["ladder"]: lad for lad in source["ladders"]}
        assert {lad["metric"] for lad in ladders.values()} == {report["metric"]}
        tolerance = ladders["tolerance"]
        # rtol / 10 moves the verdict's metric under 1e-4 (measured: 1.2e-7 on the whole-run
        # peak at 0.05 mm, whose rtol run settles to another cycle; 1.9e-5 on the settled
        # peak at 0.035 mm), the whole-run peak, reported beside it, as little
        assert tolerance["change"] < 1e-4
        assert tolerance["steps"][-1]["changes"]["peak_slider_accel"] < 1e-4
        assert ladders["output step"]["change"] == 0.0  # metrics are taken at every step
        # K x2 and x4 leave the runs in different motions (irregular, chaotic): the ladder
        # reads the whole-run peak - the first impact's, which grows about as the Hertzian
        # K^0.4 (measured K^0.35 and K^0.34 for the two sources); where every run settled
        # to one motion, the settled peak moves far less (K^0.09 and K^-0.10 measured).
        # A sensitivity to a modelling input, judged against seed 002's 5 %
        stiff = ladders["contact stiffness"]
        if stiff["metric"] == "peak_slider_accel":
            assert 0.2 < stiff["stiffness_exponent"] < 0.5, stiff["verdict"]
        else:
            assert abs(stiff["stiffness_exponent"]) < 0.2, stiff["verdict"]
        assert stiff["converged"] is (stiff["change"] < 0.05)


def test_no_certificates_for_a_convergence_study_nor_a_cancelled_one(env):
    settings, sessions = env
    conv = spec("convergence", metric="peak_slider_accel",
                axes={"rtol": {"values": [1e-5, 1e-6, 1e-7]}})
    study_id = submit_study(conv, sessions=sessions, settings=settings,
                            dispatcher=Counting(sessions, settings))
    with sessions() as s:
        detail = studies.study_detail(s, study_id)
    assert detail["status"] == "done" and detail["certificates"] == []

    class Dropping(Counting):
        def send(self, chunk):  # the messages are lost: nothing runs
            self.sent += chunk

    study_id = submit_study(spec(), sessions=sessions, settings=settings,
                            dispatcher=Dropping(sessions, settings))
    with sessions.begin() as s:
        studies.cancel_study(s, study_id=study_id)
    assert start_certificates(sessions, study_id, settings=settings, dispatcher=None) == []
    with sessions() as s:
        assert studies.study_detail(s, study_id)["certificates"] == []


def test_certificates_in_flight_never_hold_the_study_back(env):
    """Certificates still queued (their messages not yet taken) when a retry reopens the
    study: it is done again as soon as its retried case has ended."""
    settings, sessions = env

    class CasesOnly(Counting):
        def send(self, chunk):  # the certificates' messages wait in the queue
            with sessions() as s:
                kinds = s.scalars(select(Case.kind).where(Case.id.in_(chunk))).all()
            if any(kind != "certificate" for kind in kinds):
                super().send(chunk)

    poisoned = spec(axes={"clearance_mm": {"values": [0.05]},
                          "stiffness_scale": {"values": [1e-9, 1.0]}}, ideal_twin=False)
    dispatcher = CasesOnly(sessions, settings)
    study_id = submit_study(poisoned, sessions=sessions, settings=settings,
                            dispatcher=dispatcher)
    with sessions() as s:
        detail = studies.study_detail(s, study_id)
    assert detail["status"] == "done" and detail["counts"]["failed"] == 1
    assert [c["status"] for c in detail["certificates"]] == ["queued"] * 4  # one source
    with sessions.begin() as s:
        again = studies.retry_failed(s, study_id=study_id)
    assert again == [detail["cases"][0]["id"]]  # the poison; never a certificate
    dispatcher.send(again)  # fails again at once
    with sessions() as s:
        detail = studies.study_detail(s, study_id)
    assert detail["status"] == "done"
    assert detail["counts"] == {"queued": 0, "running": 0, "done": 1, "failed": 1,
                                "cancelled": 0, "total": 2}
    assert [c["status"] for c in detail["certificates"]] == ["queued"] * 4
