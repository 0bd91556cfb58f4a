"""The stiffness model as a parameter and a study axis from the command line (issue 18):
``simulate --set/--sweep``, and a study file with a string-valued axis run to completion by
``gapsweep run`` (embedded default, its own data folder), shown and exported. Every metric
the commands print equals the core's own run of the same case."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys

import pytest
from gapsweep.core.cases import SliderCrankCase
from gapsweep.core.simulation import simulate_batch

MODELS = ("hertz-sphere", "johnson-cylinder", "liu-conformal")
METRICS = ("peak_slider_accel", "peak_slider_accel_steady", "peak_contact_force", "impacts")


def gapsweep(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "gapsweep", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )


@pytest.fixture(scope="module")
def core_metrics() -> dict[tuple[float, str], dict]:
    cases = [
        SliderCrankCase(clearance_mm=c, stiffness_model=m) for c in (0.02, 0.1) for m in MODELS
    ]
    return {
        (c.clearance_mm, c.stiffness_model): r.metrics
        for c, r in zip(cases, simulate_batch(cases), strict=True)
    }


def test_simulate_set_and_sweep_over_the_models(core_metrics):
    out = gapsweep(
        "simulate",
        "--set",
        "clearance_mm=0.02",
        "--sweep",
        "stiffness_model=" + ",".join(MODELS),
        "--json",
    )
    assert out.returncode == 0, out.stderr
    rows = json.loads(out.stdout)
    assert [r["stiffness_model"] for r in rows] == list(MODELS)
    for r in rows:
        for key in METRICS:
            assert r[key] == pytest.approx(
                core_metrics[(0.02, r["stiffness_model"])][key], rel=1e-12
            )
    one = gapsweep(
        "simulate",
        "--set",
        "clearance_mm=0.02",
        "--set",
        "stiffness_model=liu-conformal",
        "--set",
        "axial_length_mm=12",
        "--json",
    )
    assert one.returncode == 0, one.stderr
    # the CLI passes the length on: the core's 12 mm run, not the default 10 mm one
    (longer,) = simulate_batch([SliderCrankCase(clearance_mm=0.02, stiffness_model="liu-conformal",
                                                axial_length_mm=12.0)])
    force = json.loads(one.stdout)["peak_contact_force"]
    assert force == pytest.approx(longer.metrics["peak_contact_force"], rel=1e-12)
    default = core_metrics[(0.02, "liu-conformal")]["peak_contact_force"]
    assert SliderCrankCase().axial_length_mm == 10.0
    assert abs(force / default - 1.0) > 1e-3  # a line contact's stiffness grows with length


@pytest.mark.parametrize(
    ("assignment", "field", "allowed"),
    [
        ("stiffness_model=winkler", "stiffness_model", "hertz-sphere, johnson-cylinder"),
        ("axial_length_mm=0", "axial_length_mm", "> 0 mm"),
        ("axial_length_mm=-2", "axial_length_mm", "> 0 mm"),
    ],
)
def test_bad_stiffness_input_exits_2_naming_field_value_and_range(assignment, field, allowed):
    out = gapsweep("simulate", "--set", assignment)
    assert out.returncode == 2
    assert field in out.stderr and assignment.split("=")[1] in out.stderr
    assert allowed in out.stderr


def test_study_file_with_a_model_axis_runs_shows_and_exports(tmp_path, core_metrics):
    study = tmp_path / "models.toml"
    study.write_text(
        'name = "Stiffness models"\nseries = "none"\n[base]\nspeed_rpm = 5000\n'
        "[axes.clearance_mm]\nvalues = [0.02, 0.1]\n"
        '[axes.stiffness_model]\nvalues = ["hertz-sphere", "johnson-cylinder", "liu-conformal"]\n'
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("GAPSWEEP_")}
    env["GAPSWEEP_DATA"] = str(tmp_path / "data")
    run = gapsweep("run", study, "--json", env=env)
    assert run.returncode == 0, run.stderr[-3000:]
    summary = json.loads(run.stdout)
    assert (summary["cases"], summary["done"], summary["failed"]) == (6, 6, 0)
    show = json.loads(gapsweep("show", summary["study_id"], "--json", env=env).stdout)
    assert len(show["twins"]) == 1  # the ideal joint reads no stiffness model
    for case in show["cases"]:
        p = case["params"]
        expected = core_metrics[(p["clearance_mm"], p["stiffness_model"])]
        for key in METRICS:
            assert case["metrics"][key] == pytest.approx(expected[key], rel=1e-12)
    path = tmp_path / "models.csv"
    export = gapsweep("export", summary["study_id"], "--format", "csv", "-o", path, env=env)
    assert export.returncode == 0, export.stderr
    with open(path, newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert [r["stiffness_model"] for r in rows] == [m for _ in (0.02, 0.1) for m in MODELS]
    assert list(rows[0])[:3] == ["speed_rpm", "clearance_mm", "stiffness_model"]
