"""ADAMS/Solver dataset import (design.md 4.13, 4.15, 4.16): our own datasets
(tests/study/adams_data, written for these tests in several styles) against closed forms and
ADAMS's published pendulum positions; refusals name the line, the statement and why; hostile
input is refused with nothing written."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from gapsweep.core.mechanism.build import build_mechanism, initial_state
from gapsweep.core.mechanism.table import parse_table
from gapsweep.core.solver import Job, SolverOptions, run_jobs
from gapsweep.study.adams import AdamsError, import_dataset
from gapsweep.study.adams.functions import FunctionError, linear_form
from gapsweep.study.adams.to_mechanism import plane_basis
from gapsweep.study.adams.tokenizer import MAX_CONTINUATIONS, MAX_STATEMENTS, tokenize

DATA = Path(__file__).parent / "adams_data"
# ADAMS's own CM positions (X, Z) [m] of Chrono's Revolute_Case01 pendulum (data/testing/joints)
ADAMS_PENDULUM = {0.5: (1.66081, -1.11432), 1.0: (-0.892381, -1.78988),
                  1.5: (-1.99167, -0.182356)}


def imported(name: str) -> dict:
    result = import_dataset((DATA / name).read_bytes(), name)
    assert not result.refused, result.refused
    return result.mechanism


def probe_paths(table: dict, t_end: float, n_output: int, probes=(0, 1)) -> tuple:
    """The time grid and the series of measures ``probes`` (the measure's coordinate) of
    the mechanism moving from rest (it has no driver)."""
    spec = parse_table(table)
    y0 = initial_state(spec, ideal=True, initial="centred")
    options = SolverOptions(t_end=t_end, rtol=1e-10, atol=1e-12, n_output=n_output)
    runs = run_jobs([Job(build_mechanism(spec, probe=p), y0, options) for p in probes])
    assert all(r.ok for r in runs), [r.reason for r in runs]
    return runs[0].series["t"], [r.series["slider_position"] for r in runs]


@pytest.mark.parametrize("dataset", ["pendulum.adm", "pendulum_abbreviated.adm",
                                     "pendulum_tilted.adm"])
def test_pendulum_matches_adams(dataset):
    table = imported(dataset)
    body = next(iter(table["bodies"].values()))
    assert body["mass_kg"] == 1.0 and body["inertia_kgm2"] == pytest.approx(0.1, rel=1e-12)
    assert table["gravity"] == pytest.approx([0.0, -9.80665], abs=1e-12)
    assert "driver" not in table  # no MOTION: it falls from rest under gravity
    t, (x, y) = probe_paths(table, 1.5, 301)
    for when, (ax, az) in ADAMS_PENDULUM.items():
        k = int(np.argmin(np.abs(t - when)))
        assert t[k] == pytest.approx(when)
        # ADAMS prints six digits
        assert x[k] == pytest.approx(ax, abs=2e-5), (dataset, when)
        assert y[k] == pytest.approx(az, abs=2e-5), (dataset, when)


def test_dataset_styles_give_the_same_table():
    plain, short = imported("pendulum.adm"), imported("pendulum_abbreviated.adm")
    assert plain["joints"]["pivot"]["at"] == short["joints"]["joint_1"]["at"]
    assert plain["bodies"]["pendulum"] == short["bodies"]["part_2"]
    # adams_view_name comments name the elements, ids otherwise
    assert set(plain["bodies"]) == {"pendulum"} and set(short["bodies"]) == {"part_2"}


def test_spring_damper_follows_its_damped_oscillation():
    table = imported("spring_damper.adm")
    (load,) = table["loads"].values()
    assert (load["stiffness_n_per_m"], load["damping_n_s_per_m"], load["free_length_mm"]) == (
        100.0, 1.0, 2000.0)
    t, (x,) = probe_paths(table, 2.0, 401, probes=(0,))
    w0, zeta = 10.0, 1.0 / (2.0 * math.sqrt(100.0))
    wd = w0 * math.sqrt(1.0 - zeta**2)
    exact = 2.0 + 0.5 * np.exp(-zeta * w0 * t) * (np.cos(wd * t)
                                                  + zeta * w0 / wd * np.sin(wd * t))
    assert np.max(np.abs(x - exact)) < 1e-7


def test_plane_axes_follow_the_stated_rule():
    ex, ey = plane_basis(np.array([0.0, 1.0, 0.0]))  # normal Y: x = X, y = Z
    assert np.allclose(ex, [1, 0, 0]) and np.allclose(ey, [0, 0, 1])
    ex, ey = plane_basis(np.array([0.0, 0.0, -1.0]))
    assert np.allclose(ex, [1, 0, 0]) and np.allclose(ey, [0, 1, 0])
    ex, ey = plane_basis(np.array([1.0, 0.0, 0.0]))
    assert np.allclose(ex, [0, 1, 0]) and np.allclose(ey, [0, 0, 1])
    n = np.array([-1.0, 1.0, 0.0]) / math.sqrt(2.0)  # x: X projected onto the plane
    ex, ey = plane_basis(n)
    assert np.allclose(ex, np.array([1.0, 1.0, 0.0]) / math.sqrt(2.0))
    assert np.allclose(ey, [0, 0, 1]) and abs(ex @ n) < 1e-15 and abs(ey @ n) < 1e-15


def test_function_forms_are_linear_and_nothing_else():
    form = linear_form("-100*(DM(3,1)-2.0) - 1.0*VR(3,1)")
    assert form == {("DM", 3, 1): -100.0, "1": 200.0, ("VR", 3, 1): -1.0}
    assert linear_form("30000D * TIME") == {"TIME": pytest.approx(math.radians(30000.0))}
    assert linear_form("2*PI*time/60*5000") == {"TIME": pytest.approx(5000 * math.pi / 30)}
    for bad in ("STEP(TIME,0,0,1,1)", "DM(1,2)*VR(1,2)", "TIME**2", "VARVAL(1)",
                "__import__('os')", "1/0", "(" * 60 + "1" + ")" * 60, "1" * 2001):
        with pytest.raises(FunctionError):
            linear_form(bad)


def _refused(text: str) -> list:
    return import_dataset(text.encode()).refused


HEAD = """title line: PART/99 here is never read
PART/1, GROUND
MARKER/1, PART = 1
PART/2, MASS = 1, CM = 2, IP = 1, 1, 1
MARKER/2, PART = 2
"""


def test_refusals_name_the_line_the_statement_and_why():
    (r,) = _refused(HEAD + "JOINT/7, SPHERICAL, I = 2, J = 1\n")
    assert str(r) == "line 6: JOINT/7: SPHERICAL: a 3-D joint"
    # axes not parallel: the second revolute's markers turned by 30 degrees
    text = (HEAD + "MARKER/3, PART = 2, REULER = 0, 30D, 0\nMARKER/4, PART = 1, "
            "REULER = 0, 30D, 0\nJOINT/1, REVOLUTE, I = 2, J = 1\n"
            "JOINT/3, REVOLUTE, I = 3, J = 4\n")
    (r,) = _refused(text)
    assert (r.line, r.statement) == (9, "JOINT/3")
    assert r.why == "JOINT/3's axis is not parallel to JOINT/1's"
    (r,) = _refused(HEAD + "MARKER/5, PART = 2, FLOATING\n")
    assert (r.line, r.statement) == (6, "MARKER/5") and "FLOATING" in r.why
    (r,) = _refused(HEAD + "GFORCE/1, I = 2, JFLOAT = 3, RM = 1, FUNCTION = USER(1)\n")
    assert (r.line, r.statement) == (6, "GFORCE/1")
    (r,) = _refused(HEAD + "JOINT/1, REVOLUTE, I = 2, J = 1\nSFORCE/1, I = 2, J = 1, "
                    "FUNCTION = STEP(TIME, 0, 0, 1, 10)\n")
    assert (r.line, r.statement) == (7, "SFORCE/1") and "STEP" in r.why
    (r,) = _refused(HEAD + "MARKER/3, PART = 1, ZP = 1, 0, 0\nMARKER/4, PART = 2, ZP = 1, 0, 0"
                    "\nJOINT/1, TRANSLATIONAL, I = 4, J = 3\nMOTION/1, JOINT = 1, "
                    "FUNCTION = 0.1*TIME\n")
    assert r.statement == "MOTION/1" and "translational MOTION" in r.why
    (r,) = _refused(HEAD + "PART/3, MASS = 1, QG = 0, 0, 0D\n")  # D only on angles
    assert r.statement == "PART/3" and "not an angle" in r.why
    (r,) = _refused(HEAD + "M/3, PART = 1\n")  # MARKER, MATRIX, MOTION, MREQUEST, ...
    assert "ambiguous statement" in r.why
    (r,) = _refused(HEAD + "MARKER/3, P = 1\n")  # PART or POINT_MASS
    assert "ambiguous argument of MARKER (PART, POINT_MASS)" in r.why


def test_output_statements_are_skipped_and_listed():
    text = (HEAD + "JOINT/1, REVOLUTE, I = 2, J = 1\nGRAPHICS/1, CIRCLE, CM = 2, R = 1\n"
            "OUTPUT/REQSAVE\nRESULTS/XRF\nVARIABLE/1, FUNCTION = DX(2)\nEND\nJOINT/9, FOO\n")
    result = import_dataset(text.encode())
    assert not result.refused
    assert [(s.line, s.statement) for s in result.skipped] == [
        (7, "GRAPHICS/1"), (8, "OUTPUT"), (9, "RESULTS"), (10, "VARIABLE/1")]
    assert result.title.startswith("title line")
    assert [s.statement for s in result.supported] == [
        "PART/1", "MARKER/1", "PART/2", "MARKER/2", "JOINT/1"]


def test_hostile_input_is_refused_as_a_whole():
    with pytest.raises(AdamsError, match="MB"):
        import_dataset(b"x" * (20 * 2**20 + 1))
    with pytest.raises(AdamsError, match="UTF-8") as exc:
        import_dataset(b"title\nPART/1, GROUND\nPART/2, MASS = \xff\n")
    assert exc.value.line == 3
    with pytest.raises(AdamsError, match="continuation"):
        tokenize("t\nPART/2\n" + ", MASS = 1\n" * (MAX_CONTINUATIONS + 1))
    with pytest.raises(AdamsError, match="statements"):
        tokenize("t\n" + "LIST\n" * (MAX_STATEMENTS + 1))
    with pytest.raises(AdamsError, match="a statement of 3,000,0") as exc:
        tokenize("t\nPART/1, GROUND\nPART/2, QG = " + "1, " * 1_000_000)
    assert (exc.value.line, exc.value.statement) == (3, "PART/2")
    with pytest.raises(AdamsError, match="Adams/View command file"):
        import_dataset(b"anything", "model.cmd")
    with pytest.raises(AdamsError, match="Adams/View command file"):
        import_dataset(b"!Adams View 2020\nmodel create model_name = crank\n", "model.adm")


def run_cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "gapsweep", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=600)


def test_cli_refusal_exits_2_and_writes_nothing(tmp_path):
    bad = tmp_path / "bad.adm"
    bad.write_text(HEAD + "JOINT/7, SPHERICAL, I = 2, J = 1\n")
    out = tmp_path / "study.toml"
    p = run_cli("import-adams", str(bad), "-o", str(out), "--json", cwd=tmp_path)
    assert p.returncode == 2
    assert not out.exists()
    report = json.loads(p.stdout)
    assert report["study"] is None and report["mechanism"] is None
    assert report["refused"] == [{"line": 6, "statement": "JOINT/7", "why": "SPHERICAL: a 3-D "
                                  "joint"}]
    assert "line 6: JOINT/7: SPHERICAL: a 3-D joint" in p.stderr


def test_cli_writes_a_study_that_checks(tmp_path):
    out = tmp_path / "pendulum.toml"
    p = run_cli("import-adams", str(DATA / "pendulum.adm"), "-o", str(out), "--json",
                cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    report = json.loads(p.stdout)
    assert report["study"] == str(out)
    assert set(report) >= {"study", "mechanism", "supported", "skipped", "refused"}
    assert {s["statement"] for s in report["skipped"]} == {"GRAPHICS/1", "OUTPUT", "RESULTS"}
    check = run_cli("mechanism", "check", str(out), "--json", cwd=tmp_path)
    assert check.returncode == 0, check.stderr
    assert json.loads(check.stdout)["degrees_of_freedom"] == 1
    from gapsweep.study.designs import plan_study
    from gapsweep.study.spec import load_spec_file

    spec = load_spec_file(out)
    assert spec.name == "Pendulum released from rest: 1 kg, CM 2 m from the pivot (gapsweep "\
        "test dataset)"
    plan = plan_study(spec)
    assert len(plan.cases) == 1 and plan.cases[0]["t_end"] == 1.0
    # without -o the study goes to standard output
    p = run_cli("import-adams", str(DATA / "pendulum.adm"), cwd=tmp_path)
    assert p.returncode == 0 and p.stdout == out.read_text()


def _uncommented(text: str) -> str:
    """The study with the CONTACT's suggested clearance and axis uncommented."""
    lines = []
    for line in text.splitlines():
        if line.startswith(("# clearance_mm", "# [axes.", "# values")):
            line = line[2:].split("  #")[0]
        lines.append(line)
    return "\n".join(lines) + "\n"


def test_slider_crank_dataset_equals_the_built_in_model(tmp_path):
    from gapsweep.core import metrics as metric_registry
    from gapsweep.core.api import run_cases
    from gapsweep.study.adams.study_file import study_toml
    from gapsweep.study.case_inputs import case_inputs
    from gapsweep.study.designs import plan_study
    from gapsweep.study.spec import loads_spec

    result = import_dataset((DATA / "slider_crank.adm").read_bytes())
    assert not result.refused
    assert [(c.statement, c.joint) for c in result.contacts] == [("CONTACT/1", "piston_pin")]
    text = study_toml(result, "slider_crank.adm", t_end=0.024)
    assert '# [axes."joints.piston_pin.clearance_mm"]' in text
    spec = loads_spec(_uncommented(text), "toml")
    plan = plan_study(spec)
    assert [c["joints.piston_pin.clearance_mm"] for c in plan.cases] == [0.05, 0.1, 0.2]
    case = next(c for c in plan.cases if c["joints.piston_pin.clearance_mm"] == 0.1)
    # a planned case holds what varies; the study's table joins it as a worker's claim does
    case = case_inputs(case, {"mechanism": spec.mechanism})
    mech = run_cases("mechanism", [case], threads=1)[0]
    built_in = run_cases("slider-crank", [{"clearance_mm": 0.1, "t_end": 0.024}], threads=1)[0]
    assert mech.ok and built_in.ok
    # design.md 4.15: equal to 1e-6 relative on every headline metric. The mechanism's step
    # control weighs its headline measure's quadrature as the built-in's weighs the slider's
    # (the loop's probe), so the two take the same steps and even the chaotic motion's late
    # figures (the last revolution's peaks, 4.10's settled ones) agree (7.6e-8 measured)
    assert mech.metrics["accepted_steps"] == built_in.metrics["accepted_steps"]
    theirs = [k for k in metric_registry.headline() if k in built_in.metrics]
    theirs += [f"peak_{stem}{window}" for stem in ("slider_accel", "contact_force",
                                                    "driving_torque")
               for window in ("", "_steady", "_settled")]
    theirs += ["max_penetration", "max_penetration_steady", "impacts", "impacts_steady"]
    assert "peak_slider_accel_settled" in theirs and "impacts_settled" in theirs
    for key in dict.fromkeys(theirs):
        mine = key.replace("slider_accel", "request_1_x")
        assert mech.metrics[mine] == pytest.approx(built_in.metrics[key], rel=1e-6), key


def test_an_imported_study_runs_as_written_and_exports_back(tmp_path):
    # design.md 4.16: `gapsweep run` takes the file import-adams wrote, unchanged; the case's
    # mechanism exports (--format adm) to a dataset that imports to the same table
    import os

    env = {k: v for k, v in os.environ.items() if not k.startswith("GAPSWEEP_")}
    env["GAPSWEEP_DATA"] = str(tmp_path / "data")
    study = tmp_path / "pendulum.toml"

    def cli(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "gapsweep", *args], env=env, cwd=tmp_path,
                              capture_output=True, text=True, timeout=600)

    assert cli("import-adams", str(DATA / "pendulum.adm"), "-o", str(study),
               "--t-end", "1.5").returncode == 0
    run = cli("run", str(study), "--json")
    assert run.returncode == 0, run.stderr[-2000:]
    study_id = json.loads(run.stdout)["study_id"]
    detail = json.loads(cli("show", str(study_id), "--json").stdout)
    (case,) = detail["cases"]
    assert case["status"] == "done"
    # the CM swings through the bottom of its 2 m circle
    assert case["metrics"]["peak_request_1_y"] == pytest.approx(2.0, rel=1e-4)
    back = tmp_path / "back.adm"
    out = cli("export", str(study_id), "--format", "adm", "-o", str(back))
    assert out.returncode == 0, out.stderr
    again = import_dataset(back.read_bytes())
    assert not again.refused
    assert again.mechanism == imported("pendulum.adm")


def test_a_study_of_a_driverless_mechanism_needs_t_end():
    from gapsweep.study.errors import SpecError
    from gapsweep.study.spec import parse_spec

    table = imported("pendulum.adm")
    with pytest.raises(SpecError) as exc:
        parse_spec({"name": "p", "model": "mechanism", "mechanism": table})
    assert [e.field for e in exc.value.errors] == ["base.t_end"]
    spec = parse_spec({"name": "p", "model": "mechanism", "mechanism": table,
                       "axes": {"t_end": {"values": [0.5, 1.0]}}})
    assert spec.levels("t_end") == [0.5, 1.0]


@pytest.mark.parametrize("case", ["50 MB", "cmd", "not utf-8", "function"])
def test_cli_hostile_input_exits_2_with_nothing_written(tmp_path, case):
    path = tmp_path / ("model.cmd" if case == "cmd" else "model.adm")
    if case == "50 MB":
        with open(path, "wb") as f:  # sparse: no 50 MB on disk
            f.truncate(50 * 2**20)
        expected = "the file is 50.0 MB; at most 20 MB is read"
    elif case == "cmd":
        path.write_text("model create model_name = crank\n")
        expected = "Adams/View command file (.cmd)"
    elif case == "not utf-8":
        path.write_bytes(b"title\nPART/1, GROUND\n! caf\xe9\n")
        expected = "not UTF-8"
    else:
        path.write_text(HEAD + "JOINT/1, REVOLUTE, I = 2, J = 1\nMOTION/1, JOINT = 1, "
                        "FUNCTION = IF(TIME: 0, 1, 2)\n")
        expected = "line 7: MOTION/1"
    out = tmp_path / "study.toml"
    p = run_cli("import-adams", str(path), "-o", str(out), "--json", cwd=tmp_path)
    assert p.returncode == 2
    assert not out.exists()
    (refused,) = json.loads(p.stdout)["refused"]
    assert expected in f"line {refused['line']}: {refused['statement']}: {refused['why']}"


def test_a_driverless_mechanism_checks_and_draws(tmp_path):
    study = tmp_path / "pendulum.toml"
    assert run_cli("import-adams", str(DATA / "pendulum.adm"), "-o", str(study),
                   cwd=tmp_path).returncode == 0
    check = run_cli("mechanism", "check", str(study), "--json", cwd=tmp_path)
    assert check.returncode == 0, check.stderr
    report = json.loads(check.stdout)
    assert report["driver"] is None and "driver.speed_rpm" not in report["sweepable"]
    draw = run_cli("mechanism", "draw", str(study), "-o", str(tmp_path / "p.svg"), cwd=tmp_path)
    assert draw.returncode == 0, draw.stderr
    assert "<svg" in (tmp_path / "p.svg").read_text()


def test_motion_forms_and_their_sense():
    def driver(motion: str, joint: str = "JOINT/1, REVOLUTE, I = 2, J = 1") -> dict:
        result = import_dataset((HEAD + joint + "\n" + motion + "\n").encode())
        assert not result.refused, result.refused
        return result.mechanism["driver"]

    # 360 deg/s about +Z (the X, Y plane's normal): +60 rpm, as a velocity or as rate*TIME
    assert driver("MOTION/1, JOINT = 1, ROT, VEL, FUNCTION = 2*PI") == {
        "joint": "joint_1", "speed_rpm": 60.0}
    assert driver("MOTION/1, JOINT = 1, FUNCTION = 360D*TIME")["speed_rpm"] == 60.0
    # I on the ground: the ground becomes the first body and the sense turns
    assert driver("MOTION/1, JOINT = 1, FUNCTION = 360D*TIME",
                  "JOINT/1, REVOLUTE, I = 1, J = 2")["speed_rpm"] == -60.0
    for motion, why in (("MOTION/1, JOINT = 1, FUNCTION = 1 + 360D*TIME", "no offset"),
                        ("MOTION/1, JOINT = 1, ACCELERATION, FUNCTION = 1", "ACCELERATION"),
                        ("MOTION/1, JOINT = 1, ROUTINE = lib::mot", "user subroutine")):
        (r,) = _refused(HEAD + "JOINT/1, REVOLUTE, I = 2, J = 1\n" + motion + "\n")
        assert r.statement == "MOTION/1" and why in r.why
