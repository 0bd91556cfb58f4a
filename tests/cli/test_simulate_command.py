"""``gapsweep simulate`` as other tools use it (design.md 4), run as a real subprocess."""

import json
import math
import subprocess
import sys

import pytest

R, L, RPM = 0.05, 0.12, 5000.0
BASE = ["peak_slider_accel", "rms_slider_accel", "peak_contact_force", "max_penetration", "impacts"]


def gapsweep(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "gapsweep", *args], capture_output=True, text=True, timeout=300
    )


def test_ideal_json_matches_closed_form_peak():
    out = gapsweep("simulate", "--ideal", "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    w = RPM * 2 * math.pi / 60
    assert data["peak_slider_accel"] == pytest.approx(w * w * (R + R * R / L), rel=1e-6)
    assert data["impacts"] == 0


def test_clearance_json_has_the_contract_keys():
    out = gapsweep("simulate", "--set", "clearance_mm=0.05", "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    for key in [*BASE, *(k + "_steady" for k in BASE), "wall_time_s"]:
        assert isinstance(data[key], (int, float)) and math.isfinite(data[key]), key
    assert data["impacts"] >= 1
    assert 0 < data["max_penetration"] < 0.05e-3


def test_human_readable_default_output():
    out = gapsweep("simulate", "--set", "clearance_mm=0.1", "--set", "t_end=0.006")
    assert out.returncode == 0, out.stderr
    assert "peak_slider_accel" in out.stdout and "m/s²" in out.stdout
    assert "clearance_mm=0.1" in out.stdout


@pytest.mark.parametrize(
    ("assignment", "field"),
    [
        ("clearance_mm=-1", "clearance_mm"),
        ("clearance_mm=nan", "clearance_mm"),
        ("clearance_mm=10", "clearance_mm"),
        ("restitution=1.5", "restitution"),
        ("stiffness_scale=0", "stiffness_scale"),
        ("contact_law=magic", "contact_law"),
        ("speed_rpm=fast", "speed_rpm"),
        ("no_such_thing=1", "no_such_thing"),
    ],
)
def test_bad_input_exits_2_naming_the_field(assignment, field):
    out = gapsweep("simulate", "--set", assignment, "--json")
    assert out.returncode == 2
    assert out.stdout == ""
    assert field in out.stderr and "Traceback" not in out.stderr


def test_sweep_prints_one_object_per_grid_point_and_progress_on_stderr():
    out = gapsweep(
        "simulate",
        "--sweep",
        "clearance_mm=0.02,0.1",
        "--sweep",
        "stiffness_scale=0.7:1.3:3",
        "--set",
        "t_end=0.004",
        "--json",
    )
    assert out.returncode == 0, out.stderr
    rows = json.loads(out.stdout)
    assert [(r["clearance_mm"], r["stiffness_scale"]) for r in rows] == [
        (c, s) for c in (0.02, 0.1) for s in (0.7, 1.0, 1.3)
    ]
    assert all(r["status"] == "ok" and r["t_end"] == 0.004 for r in rows)
    assert "[6/6] cases done" in out.stderr


def test_a_bad_sweep_value_runs_nothing():
    out = gapsweep("simulate", "--sweep", "clearance_mm=0.05,-0.01", "--json")
    assert out.returncode == 2 and out.stdout == ""
    assert "clearance_mm" in out.stderr


def test_unknown_model():
    out = gapsweep("simulate", "--model", "pendulum")
    assert out.returncode == 2 and "model" in out.stderr
