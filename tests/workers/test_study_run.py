"""A study run end to end through the task function, with no worker process.

``workers.in_process.InProcessDispatcher`` runs each chunk in this process through
``case_runner.run_chunk`` - the claim, the batch solve, the store and the study's finish are
the ones a Celery worker runs. Every check compares what the archive holds with an
independent ``core.api.run_case`` of the same parameters, on SQLite and PostgreSQL.
"""

from __future__ import annotations

import math
import socket
from importlib import metadata
from pathlib import Path

import numpy as np
import pytest
from gapsweep.core.api import run_case
from gapsweep.db import studies
from gapsweep.db.engine import open_database
from gapsweep.study.spec import load_spec_file, parse_spec
from gapsweep.workers.in_process import InProcessDispatcher
from gapsweep.workers.series_policy import PREVIEW_SAMPLES, select_series
from gapsweep.workers.submit import submit_study
from support.database_fixtures import database_url  # noqa: E402, F401

from gapsweep.settings import get_settings

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "clearance_x_stiffness.toml"
RPM = 5000.0
# what a run may legitimately differ in: the time it took
TIMING = {"wall_time_s"}
DEVIATION_METRICS = ("peak_slider_accel", "rms_slider_accel", "peak_driving_torque")


@pytest.fixture
def run_study(database_url, tmp_path):  # noqa: F811
    """``run_study(spec) -> (detail, sessions)``: submit and run it in-process."""
    settings = get_settings(
        {"GAPSWEEP_DATA": str(tmp_path / "data"), "GAPSWEEP_DATABASE_URL": database_url}
    )
    sessions = open_database(database_url)

    def run(spec):
        dispatcher = InProcessDispatcher(sessions, settings)
        study_id = submit_study(spec, sessions=sessions, settings=settings, dispatcher=dispatcher)
        with sessions() as session:
            return studies.study_detail(session, study_id), sessions

    try:
        yield run
    finally:
        sessions.kw["bind"].dispose()


def small_spec(**changes) -> object:
    """Two clearance cases of the user's mechanism (one twin), with ``changes``."""
    data = {
        "name": "two cases",
        "base": {"speed_rpm": RPM},
        "axes": {"clearance_mm": {"values": [0.05, 0.1]}},
    }
    data.update(changes)
    return parse_spec(data)


def assert_metrics_equal(stored: dict, expected: dict) -> None:
    """Every metric the solver reports, stored exactly (floats to 1e-12 relative; the
    solver is deterministic, so integers and floats should in fact be identical)."""
    extra = {k for k in stored if k.startswith("deviation_")}
    assert set(stored) - extra == set(expected)
    for name, value in expected.items():
        if name in TIMING:
            continue
        got = stored[name]
        if isinstance(value, str):  # the class of the motion ("periodic-2"), via extra
            assert got == value, name
        elif isinstance(value, (bool, int, np.integer)):
            assert got == value and isinstance(got, int), name
        elif not math.isfinite(value):
            assert got is None, name  # JSON has no NaN: stored as null
        else:
            assert got == pytest.approx(float(value), rel=1e-12, abs=0.0), name


def test_user_study_stores_what_run_case_computes(run_study):
    spec = load_spec_file(EXAMPLE)
    detail, sessions = run_study(spec)

    assert detail["status"] == "done"
    assert detail["counts"] == {
        "queued": 0, "running": 0, "done": 15, "failed": 0, "cancelled": 0, "total": 15
    }
    assert len(detail["cases"]) == 15
    # the user's 15 cases differ only in clearance/contact fields: exactly one ideal twin
    assert len(detail["twins"]) == 1
    twin = detail["twins"][0]
    assert twin["params"] == {"speed_rpm": RPM, "ideal": True}
    assert twin["status"] == "done" and twin["attempts"] == 1
    twin_expected = run_case("slider-crank", twin["params"]).metrics
    assert_metrics_equal(twin["metrics"], twin_expected)
    assert not any(c["params"].get("ideal") for c in detail["cases"])

    grid = [(c, k) for c in (0.02, 0.035, 0.05, 0.08, 0.1) for k in (0.7, 1.0, 1.3)]
    for case, (clearance, scale) in zip(detail["cases"], grid, strict=True):
        assert case["params"] == {
            "speed_rpm": RPM, "clearance_mm": clearance, "stiffness_scale": pytest.approx(scale)
        }
        assert (case["status"], case["attempts"], case["reason"]) == ("done", 1, None)
        assert case["twin_id"] == twin["id"]
        expected = run_case("slider-crank", case["params"]).metrics
        assert_metrics_equal(case["metrics"], expected)
        for name in DEVIATION_METRICS:
            assert case["metrics"][f"deviation_{name}"] == pytest.approx(
                expected[name] / twin_expected[name] - 1.0, rel=1e-12, abs=1e-15
            )

    # exactly one Result row per case (twin and the 8 convergence certificates included:
    # 2 sources - the largest peak and the smallest clearance - x 4 refinements)
    assert len(detail["certificates"]) == 8
    from gapsweep.db.models import Case, Result
    from sqlalchemy import func, select

    with sessions() as session:
        per_case = session.execute(
            select(Case.id, func.count(Result.case_id))
            .outerjoin(Result, Result.case_id == Case.id)
            .where(Case.study_id == detail["id"])
            .group_by(Case.id)
        ).all()
    assert len(per_case) == 16 + 8 and all(n == 1 for _, n in per_case)


def test_provenance_is_filled_in(run_study):
    detail, _ = run_study(small_spec())
    prov = detail["provenance"]
    assert prov["gapsweep"] == metadata.version("gapsweep")
    assert prov["numpy"] == metadata.version("numpy") == np.__version__
    assert prov["scipy"] == metadata.version("scipy")
    assert prov["numba"] == metadata.version("numba")
    assert prov["host"] == socket.gethostname()
    assert prov["git_commit"] and len(prov["git_commit"].removesuffix("-dirty")) == 40
    solver = prov["solver_options"]
    assert solver["integrator"] == "dopri5"
    assert solver["rtol"] == 1e-6 and solver["atol"] == 1e-10
    # no t_end: until the section settles, at most max_revolutions (issue 23)
    assert solver["n_output"] == 2401 and solver["t_end"] == 0.0
    assert solver["max_revolutions"] == 80
    assert detail["spec"] == small_spec().to_dict()


def test_one_at_a_time_study_stores_its_coefficients(run_study):
    spec = parse_spec({
        "name": "oat",
        "design": "one-at-a-time",
        "ideal_twin": False,
        "series": "none",
        "base": {"speed_rpm": RPM},
        "axes": {
            "clearance_mm": {"values": [0.035, 0.05, 0.08], "nominal": 0.05},
            "stiffness_scale": {"nominal": 1.0, "relative_percent": 30, "levels": 3},
        },
    })
    detail, _ = run_study(spec)
    assert detail["status"] == "done"
    assert len(detail["cases"]) == 1 + 2 + 2 and detail["twins"] == []
    coefficients = detail["analysis"]["coefficients"]
    by_axis = coefficients["peak_slider_accel"]
    assert set(by_axis) == {"clearance_mm", "stiffness_scale"}
    # the coefficient of each moved level, recomputed from the stored metrics
    cases = detail["cases"]
    nominal = next(c for c in cases if c["params"] == {
        "speed_rpm": RPM, "clearance_mm": 0.05, "stiffness_scale": 1.0})
    m0 = nominal["metrics"]["peak_slider_accel"]
    for entry in by_axis["clearance_mm"]:
        moved = next(c for c in cases if c["params"]["clearance_mm"] == entry["value"]
                     and c["params"]["stiffness_scale"] == 1.0)
        m = moved["metrics"]["peak_slider_accel"]
        expected = ((m - m0) / m0) / ((entry["value"] - 0.05) / 0.05)
        assert entry["coefficient"] == pytest.approx(expected, rel=1e-9)
    assert sorted(e["value"] for e in by_axis["clearance_mm"]) == [0.035, 0.08]


@pytest.mark.parametrize("policy", ["preview", "full", "none"])
def test_series_policy(run_study, policy):
    detail, sessions = run_study(small_spec(series=policy))
    assert detail["status"] == "done"
    for entry in [*detail["twins"], *detail["cases"]]:
        with sessions() as session:
            stored = studies.case_series(session, entry["id"])
            names = studies.case_detail(session, entry["id"])["series"]
        assert sorted(names) == sorted(stored)
        expected = select_series(run_case("slider-crank", entry["params"]), policy, RPM / 60)
        # case_series gives back what the worker chose to store, as the codec keeps it:
        # floats as float32 (db/series_codec.py: 7 digits, the metrics are float64 columns)
        assert sorted(stored) == sorted(expected)
        for name, values in expected.items():
            np.testing.assert_array_equal(
                stored[name], np.asarray(values).astype(np.float32), err_msg=name
            )
        if policy == "none":
            assert stored == {}
        elif policy == "preview":
            # the Poincare section: whole, on its own time base (poincare_time)
            assert stored["poincare_time"].size == entry["metrics"]["revolutions"] + 1
            series = [n for n in stored if not n.startswith(("t:", "spectrum_", "poincare_"))]
            assert "slider_acceleration" in series and "contact_normal_force" in series
            for name in series:
                assert 2 <= stored[name].size <= PREVIEW_SAMPLES, name
                assert stored[f"t:{name}"].shape == stored[name].shape
            for name in ("spectrum_freq_hz", "spectrum_slider_acceleration",
                         "spectrum_contact_normal_force"):
                assert stored[name].size > PREVIEW_SAMPLES  # full-resolution spectra
        else:
            # the first revolution and the ring of the last 32 (core/cases.py): every
            # revolution of a run that ends before 33, at 600 samples a revolution
            rows = 600 * min(entry["metrics"]["revolutions"], 33) + 1
            assert stored["t"].size == rows
            assert stored["slider_acceleration"].size == rows
            assert "final_state" not in stored
    if policy != "none":
        with sessions() as session, pytest.raises(KeyError):
            studies.case_series(session, detail["cases"][0]["id"], ["no_such_series"])
        with sessions() as session:
            one = studies.case_series(session, detail["cases"][0]["id"], ["slider_acceleration"])
        assert list(one) == ["slider_acceleration"]


def test_a_case_the_solver_fails_is_failed_once_with_its_reason(run_study):
    # a contact 10^6 times too soft: the journal sinks through its bound at once
    spec = small_spec(axes={"stiffness_scale": {"values": [1.0, 1e-6, 0.7]}},
                      base={"speed_rpm": RPM, "clearance_mm": 0.05})
    poison = run_case("slider-crank", {"speed_rpm": RPM, "clearance_mm": 0.05,
                                       "stiffness_scale": 1e-6})
    assert poison.status == "failed" and poison.reason
    detail, _ = run_study(spec)
    assert detail["status"] == "done"  # failed cases are counted, not hidden
    assert detail["counts"]["done"] == 2 and detail["counts"]["failed"] == 1
    by_scale = {c["params"]["stiffness_scale"]: c for c in detail["cases"]}
    bad = by_scale[1e-6]
    assert (bad["status"], bad["attempts"], bad["reason"]) == ("failed", 1, poison.reason)
    assert bad["metrics"] == {}
    for scale in (1.0, 0.7):
        good = by_scale[scale]
        assert (good["status"], good["attempts"], good["reason"]) == ("done", 1, None)
        assert_metrics_equal(good["metrics"], run_case("slider-crank", good["params"]).metrics)
    assert [t["status"] for t in detail["twins"]] == ["done"]


def test_cases_are_stamped_enqueued_before_their_message_goes_out(database_url, tmp_path):  # noqa: F811
    """A worker may take a message the moment it is sent: by then the stamp's UPDATE must
    have committed, or its row locks make the claim (``SKIP LOCKED``) skip every case of
    the chunk and the message is dropped with nothing run."""
    from gapsweep.db.models import Case
    from gapsweep.workers.submit import create_study_rows, enqueue_study
    from sqlalchemy import select

    settings = get_settings(
        {"GAPSWEEP_DATA": str(tmp_path / "data"), "GAPSWEEP_DATABASE_URL": database_url}
    )
    sessions = open_database(database_url)
    seen: list[tuple[int, int]] = []

    class Watching(InProcessDispatcher):
        def send(self, chunk: list[int]) -> None:
            with sessions() as session:  # another transaction, as a worker's would be
                stamped = session.scalars(
                    select(Case.enqueued_at).where(Case.id.in_(chunk))
                ).all()
            seen.append((len(chunk), sum(t is not None for t in stamped)))
            super().send(chunk)

    try:
        spec = load_spec_file(EXAMPLE)
        study_id = create_study_rows(spec, sessions=sessions)
        n = enqueue_study(study_id, spec, sessions=sessions, settings=settings,
                          dispatcher=Watching(sessions, settings))
        # 1 twin + 15 cases run until settled (~0.16 s each, estimated): one a message;
        # then the finished study's 8 certificates, one a message
        assert n == 16 and seen == [(1, 1)] * (16 + 8)
        with sessions() as session:
            assert studies.study_progress(session, study_id)["done"] == 15
    finally:
        sessions.kw["bind"].dispose()
