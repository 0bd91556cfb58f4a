"""Mechanism studies (design.md 4.7): the spec carries the [mechanism] table, designs sweep
its dotted paths, twins drop the clearance joints' parameters, and bad input is refused
with its field path before anything is written."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import tomllib
from gapsweep.study.case_inputs import case_inputs
from gapsweep.study.designs import plan_study
from gapsweep.study.errors import SpecError
from gapsweep.study.spec import load_spec_file, parse_spec

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _study(name: str) -> dict:
    with open(EXAMPLES / f"mechanism_{name}.toml", "rb") as f:
        return tomllib.load(f)


def _errors(data: dict) -> list:
    with pytest.raises(SpecError) as info:
        parse_spec(data)
    return info.value.errors


@pytest.mark.parametrize("name", ["reference_slider_crank", "offset_slider_crank_gas",
                                  "four_bar_crank_rocker", "two_clearance_slider_crank",
                                  "toggle_press"])
def test_every_shipped_mechanism_study_plans(name):
    spec = load_spec_file(EXAMPLES / f"mechanism_{name}.toml")
    plan = plan_study(spec)
    n = 1
    for axis in spec.axes.values():
        n *= axis.n_levels
    assert len(plan.cases) == n
    # a case's params are what varies; the table is the study's, joined when it runs
    assert all(set(c) == set(spec.base) | set(spec.axes) for c in plan.cases)
    assert all(case_inputs(c, spec.to_dict())["mechanism"] == spec.mechanism
               for c in plan.cases)


def test_twins_drop_the_clearance_joints_parameters_only():
    data = _study("two_clearance_slider_crank")  # 2 x 2 clearances: one twin
    plan = plan_study(parse_spec(data))
    assert len(plan.cases) == 4 and len(plan.twins) == 1
    assert set(plan.twins[0]) == {"ideal"}
    data = _study("four_bar_crank_rocker")  # clearance x speed: one twin per speed
    plan = plan_study(parse_spec(data))
    assert len(plan.twins) == 2
    assert sorted(t["driver.speed_rpm"] for t in plan.twins) == [600, 1200]


def test_a_variable_axis_changes_the_geometry():
    data = _study("reference_slider_crank")
    data["axes"] = {"variables.rod_mm": {"values": [110, 130]}}
    plan = plan_study(parse_spec(data))
    assert [c["variables.rod_mm"] for c in plan.cases] == [110, 130]
    assert len(plan.twins) == 2


@pytest.mark.parametrize(
    ("axes", "field", "allowed"),
    [
        ({"joints.piston_pin.clearance": {"values": [0.1]}}, "axes.joints.piston_pin.clearance",
         "a parameter of mechanism"),
        ({"variables.rod_mm": {"values": ["long"]}}, "axes.variables.rod_mm.values[0]",
         "a number"),
        ({"joints.piston_pin.clearance_mm": {"values": [0.05, 12.0]}},
         "axes.joints.piston_pin.clearance_mm.values[1]", "< bearing radius 10 mm"),
        ({"bodies.rod.mass_kg": {"values": [0.2, -1]}}, "axes.bodies.rod.mass_kg.values[1]",
         "> 0 kg"),
        ({"variables.crank_mm": {"values": [50, 150]}}, "axes.variables.crank_mm.values[1]",
         "full revolution"),
    ],
)
def test_bad_axes_name_the_path_value_and_allowed(axes, field, allowed):
    data = _study("reference_slider_crank")
    data["axes"] = axes
    errors = _errors(data)
    assert [e.field for e in errors] == [field]
    assert allowed in errors[0].allowed


def test_the_table_belongs_to_mechanism_studies_only():
    data = _study("reference_slider_crank")
    del data["mechanism"]
    assert [e.field for e in _errors(data)] == ["mechanism"]
    data = json.loads(json.dumps(_study("reference_slider_crank")))
    data["model"] = "slider-crank"
    data["axes"] = {"clearance_mm": {"values": [0.1]}}
    assert [e.field for e in _errors(data)] == ["mechanism"]


def test_a_broken_table_is_refused_with_its_field():
    data = copy.deepcopy(_study("reference_slider_crank"))
    data["mechanism"]["points"]["B"] = ["crank_mm + rod_mm + __import__('os').getpid()", 0]
    assert [e.field for e in _errors(data)] == ["mechanism.points.B[0]"]


def test_the_spec_round_trips_with_its_mechanism():
    spec = load_spec_file(EXAMPLES / "mechanism_toggle_press.toml")
    again = parse_spec(json.loads(json.dumps(spec.to_dict())))
    assert again.mechanism == spec.mechanism
    assert plan_study(again).cases == plan_study(spec).cases


def _gapsweep(tmp_path, *args):
    env = {k: v for k, v in os.environ.items() if not k.startswith("GAPSWEEP_")}
    env["GAPSWEEP_DATA"] = str(tmp_path / "data")
    exe = Path(sys.executable).with_name("gapsweep")
    return subprocess.run([str(exe), *args], env=env, capture_output=True, text=True,
                          cwd=tmp_path, timeout=300)


def test_cli_refuses_a_broken_mechanism_and_writes_nothing(tmp_path):
    text = (EXAMPLES / "mechanism_four_bar_crank_rocker.toml").read_text()
    # a non-Grashof four-bar: the crank stops where the links cannot close
    bad = tmp_path / "bad.toml"
    bad.write_text(text.replace("coupler_mm = 120", "coupler_mm = 65").replace(
        "rocker_mm = 80", "rocker_mm = 70").replace("crank_mm = 40", "crank_mm = 50"))
    out = _gapsweep(tmp_path, "mechanism", "check", str(bad), "--json")
    assert out.returncode == 2
    (err,) = json.loads(out.stdout)["errors"]
    assert err["field"] == "mechanism.driver.joint" and "deg" in err["allowed"]
    out = _gapsweep(tmp_path, "run", str(bad), "--json")
    assert out.returncode == 2
    assert json.loads(out.stdout)["errors"][0]["field"].startswith("mechanism.")
    listed = _gapsweep(tmp_path, "studies", "--json")
    assert json.loads(listed.stdout)["total"] == 0
    good = _gapsweep(tmp_path, "mechanism", "check",
                     str(EXAMPLES / "mechanism_four_bar_crank_rocker.toml"), "--json")
    report = json.loads(good.stdout)
    assert report["degrees_of_freedom"] == 1
    assert report["clearance_joints"] == ["rocker_pin"]
    assert report["sweepable"]["variables.coupler_mm"] == "mm"
    assert report["driver"]["period_s"] == pytest.approx(0.1)


def test_certificates_refine_every_clearance_joint_and_read_the_first_measure():
    from gapsweep.study.certificates import REFINEMENTS, headline, plan_certificates

    spec = parse_spec(_study("two_clearance_slider_crank"))
    plan = plan_study(spec)
    # the cases as they ran (the study's table joined in: workers/certificates.py)
    cases = [{"params": case_inputs(p, spec.to_dict()), "status": "done",
              "metrics": {"peak_slider_accel": 1000.0 + i, "peak_contact_force": 1.0,
                          "max_penetration": 1e-6}} for i, p in enumerate(plan.cases)]
    assert headline("mechanism", cases) == "peak_slider_accel"
    certs = plan_certificates("mechanism", "grid", cases)
    assert {c.source_index for c in certs} == {3}  # the largest peak
    assert {c.slot for c in certs} == {r.slot for r in REFINEMENTS}
    k4 = next(c for c in certs if c.slot == 3)
    assert k4.params["joints.crank_pin.stiffness_scale"] == 4.0
    assert k4.params["joints.piston_pin.stiffness_scale"] == 4.0
    four_bar = parse_spec(_study("four_bar_crank_rocker"))
    first = case_inputs(plan_study(four_bar).cases[0], four_bar.to_dict())
    assert headline("mechanism", [{"params": first}]) == "peak_rocker_alpha"


def test_the_estimate_reads_the_check_s_parse_of_the_table(monkeypatch):
    """Issue 34.4: the spec's check parses the [mechanism] table; the estimate reads that
    parse instead of parsing it again."""
    from gapsweep.core.mechanism import case as mechanism_case
    from gapsweep.study import mechanism as study_mechanism
    from gapsweep.study.designs import estimate_seconds

    monkeypatch.setattr(study_mechanism, "_PARSED", {})
    real = mechanism_case.MechanismCase.from_mapping.__func__
    calls = []

    def counted(cls, data, *args, **kwargs):
        calls.append(1)
        return real(cls, data, *args, **kwargs)

    monkeypatch.setattr(mechanism_case.MechanismCase, "from_mapping", classmethod(counted))
    data = _study("four_bar_crank_rocker")
    data["mechanism"]["name"] = "parsed once"  # a table no other test parsed
    spec = parse_spec(data)
    assert calls  # the check read the table
    calls.clear()
    assert estimate_seconds(spec, 10) == pytest.approx(10 * 0.004)  # no t_end: per case
    assert calls == []
