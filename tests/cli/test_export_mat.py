"""``gapsweep export ID --format mat`` (issue 28, part 4): the study as a MATLAB file -
cases, parameters, metrics and the stored series - read back with ``scipy.io.loadmat`` and
compared with ``gapsweep show --json`` and with the series as stored. The cases are stored
directly (claim, complete with made-up metrics and series): no solver, no worker."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys

import numpy as np
from gapsweep.core.result import CaseResult
from gapsweep.db import leases
from gapsweep.db.engine import open_database
from gapsweep.study.spec import parse_spec
from gapsweep.workers.submit import create_study_rows
from scipy.io import loadmat

from gapsweep.commands.export import matlab_name

SPEC = {"name": "For MATLAB", "ideal_twin": False, "series": "preview",
        "axes": {"clearance_mm": {"values": [0.02, 0.05, 0.1]},
                 "contact_law": {"values": ["lankarani-nikravesh", "hunt-crossley"]}}}


def gapsweep(env, *args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "gapsweep", *map(str, args)], env=env,
                          capture_output=True, text=True, timeout=120,
                          stdin=subprocess.DEVNULL)


def stored_study(data) -> tuple[int, dict[int, dict[str, np.ndarray]]]:
    """Six cases: four done (the first two with series, one of them under a per-joint name),
    one failed, one still queued; the study's id and the series stored per case id."""
    sessions = open_database(f"sqlite:///{data / 'gapsweep.db'}")
    try:
        study_id = create_study_rows(parse_spec(SPEC), sessions=sessions)
        with sessions() as s:
            ids = leases.queued_case_ids(s, study_id=study_id)
        with sessions.begin() as s:
            claimed = leases.claim_cases(s, case_ids=ids[:5], holder="t", lease_s=60)
        t = np.linspace(0.0, 0.024, 7)
        series = {claimed[0].id: {"time": t, "slider_acceleration": np.sin(400 * t)},
                  claimed[1].id: {"time": t[:4],
                                  "poincare_eccentricity_x.piston_pin": 1e-5 * t[:4]}}
        outcomes = []
        for k, c in enumerate(claimed):
            metrics = {"peak_slider_accel": 1000.0 * (k + 1), "impacts": k,
                       "max_penetration": 1e-6 * (k + 1) if k != 2 else math.nan}
            result = (CaseResult("slider-crank", c.params, metrics=metrics) if k != 4 else
                      CaseResult("slider-crank", c.params, status="failed",
                                 reason="made to fail"))
            outcomes.append((c.id, result, series.get(c.id)))
        with sessions.begin() as s:
            leases.complete_cases(s, holder="t", outcomes=outcomes)
    finally:
        sessions.kw["bind"].dispose()
    return study_id, series


def test_the_mat_file_holds_what_show_json_shows_and_the_stored_series(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("GAPSWEEP_")}
    env["GAPSWEEP_DATA"] = str(data)
    study_id, series = stored_study(data)
    out = tmp_path / "study.mat"
    done = gapsweep(env, "export", study_id, "--format", "mat", "-o", out)
    assert done.returncode == 0, done.stderr
    shown = gapsweep(env, "show", study_id, "--json")
    assert shown.returncode == 0, shown.stderr
    detail = json.loads(shown.stdout)
    mat = loadmat(out, simplify_cells=True)

    assert (mat["study_id"], mat["name"], mat["model"]) == (study_id, "For MATLAB",
                                                            "slider-crank")
    cases = detail["cases"]
    assert mat["case_id"].tolist() == [c["id"] for c in cases]
    assert mat["status"].tolist() == [c["status"] for c in cases] == (
        ["done"] * 4 + ["failed", "queued"])
    assert list(mat["param_names"]) == ["clearance_mm", "contact_law"]
    assert mat["params"]["clearance_mm"].tolist() == [c["params"]["clearance_mm"]
                                                      for c in cases]
    assert mat["params"]["contact_law"].tolist() == [c["params"]["contact_law"] for c in cases]
    assert {"peak_slider_accel", "impacts", "max_penetration"} <= set(mat["metric_names"])
    for name in mat["metric_names"]:
        column = mat["metrics"][matlab_name(name, set())]
        for value, case in zip(column, cases, strict=True):
            expected = (case["metrics"] or {}).get(name)
            if expected is None:  # not done, or no value (NaN stored as null)
                assert math.isnan(value), (name, case["id"])
            else:
                assert value == expected, (name, case["id"])
    assert mat["metrics"]["impacts"][:4].tolist() == [0, 1, 2, 3]

    by_case = dict(zip(mat["case_id"].tolist(), mat["series"], strict=True))
    first, second = list(series)
    assert set(by_case[first]) == {"time", "slider_acceleration"}
    # stored as float32 where that keeps them (db/series_codec.py): equal to that precision
    np.testing.assert_allclose(by_case[first]["slider_acceleration"],
                               series[first]["slider_acceleration"], rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(by_case[second]["poincare_eccentricity_x_piston_pin"],
                               series[second]["poincare_eccentricity_x.piston_pin"], rtol=1e-6)
    assert all(by_case[c["id"]] == {} for c in cases[2:])  # none stored

    refused = gapsweep(env, "export", study_id, "--format", "mat")  # binary: needs -o
    assert refused.returncode == 2 and "--output" in refused.stderr


def test_matlab_names():
    taken: set[str] = set()
    assert matlab_name("joints.piston_pin.clearance_mm", taken) == "joints_piston_pin_clearance_mm"
    assert matlab_name("joints-piston_pin.clearance_mm", taken) == (
        "joints_piston_pin_clearance_mm_2")
    assert matlab_name("2nd", taken) == "x2nd"
    assert len(matlab_name("a" * 80, taken)) == 63
