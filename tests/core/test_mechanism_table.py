"""The [mechanism] table (design.md 4.7): expressions never reach ``eval``, and every bad
input is refused with its field path, the value and what is allowed."""

from __future__ import annotations

import ast
import time
from pathlib import Path

import pytest
from gapsweep.core.errors import InputError
from gapsweep.core.mechanism.case import MechanismCase
from gapsweep.core.mechanism.expressions import evaluate
from support.mechanism_tables import table

VARS = {"crank_mm": 60.0, "rod_mm": 150.0}


def test_expressions_compute_arithmetic_of_the_variables():
    assert evaluate("f", "crank_mm + rod_mm / 2", VARS) == 135.0
    assert evaluate("f", "sqrt(3**2 + 4**2) * cos(pi)", VARS) == pytest.approx(-5.0)
    assert evaluate("f", "atan2(1, 1)", VARS) == pytest.approx(0.7853981633974483)
    assert evaluate("f", -2.5, VARS) == -2.5


@pytest.mark.parametrize(
    ("text", "allowed"),
    [
        ("__import__('os').system('true')", "arithmetic"),
        ("rod_mm.real", "arithmetic"),
        ("(1).__class__", "arithmetic"),
        ("undefined_mm * 2", "names among"),
        ("crank_mm / (rod_mm - 150)", "finite value"),
        ("1 / 0", "finite value"),
        ("'a' * 3", "arithmetic"),
        ("[1, 2][0]", "arithmetic"),
        ("lambda: 1", "arithmetic"),
        ("sqrt(-1)", "domain of sqrt"),
        ("sqrt(x=1)", "arithmetic"),
        ("10 ** 40", "magnitude"),
    ],
)
def test_expressions_outside_the_whitelist_are_refused_naming_the_field(text, allowed):
    with pytest.raises(InputError) as exc:
        evaluate("mechanism.points.B[0]", text, VARS)
    assert exc.value.field == "mechanism.points.B[0]"
    assert exc.value.value == text
    assert allowed in exc.value.allowed


def test_a_tower_of_powers_is_refused_at_once():
    t0 = time.perf_counter()
    with pytest.raises(InputError, match="exponent"):
        evaluate("mechanism.points.B[0]", "9**9**9**9", VARS)
    assert time.perf_counter() - t0 < 0.5


def test_a_huge_expression_is_refused_before_parsing():
    with pytest.raises(InputError, match="at most 500 characters"):
        evaluate("mechanism.points.B[0]", "+".join(["1"] * 2000), VARS)


def test_the_evaluator_never_calls_eval():
    source = Path(evaluate.__code__.co_filename).read_text()
    names = {n.func.id for n in ast.walk(ast.parse(source))
             if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
    assert not names & {"eval", "exec", "compile"}


def test_the_mechanism_package_defines_no_kernel():
    # core/jit.py leaves core/mechanism/ out of the kernels' cache key: that holds only
    # while no module there defines or inlines a kernel
    folder = Path(evaluate.__code__.co_filename).parent
    for path in folder.glob("*.py"):
        text = path.read_text()
        assert "jit import" not in text and "@kernel" not in text, path.name


def _refused(mech: dict, **params) -> InputError:
    with pytest.raises(InputError) as exc:
        MechanismCase.from_mapping({"mechanism": mech, **params})
    return exc.value


def test_unknown_point_body_and_joint_are_refused():
    m = table("reference_slider_crank")
    m["joints"]["crank_pin"]["at"] = "Z"
    e = _refused(m)
    assert (e.field, e.value) == ("mechanism.joints.crank_pin.at", "Z")
    assert "A, B, O" in e.allowed
    m = table("reference_slider_crank")
    m["joints"]["crank_pin"]["bodies"] = ["crank", "piston"]
    e = _refused(m)
    assert (e.field, e.value) == ("mechanism.joints.crank_pin.bodies[1]", "piston")
    assert "ground, crank, rod, slider" in e.allowed
    m = table("reference_slider_crank")
    m["driver"]["joint"] = "wrist_pin"
    e = _refused(m)
    assert (e.field, e.value) == ("mechanism.driver.joint", "wrist_pin")
    assert "piston_pin" in e.allowed


def test_a_bad_point_expression_names_its_coordinate():
    m = table("reference_slider_crank")
    m["points"]["B"] = ["crank_mm + __import__('os')", 0]
    e = _refused(m)
    assert e.field == "mechanism.points.B[0]"
    m["points"]["B"] = ["crank_mm + rod_mm", "nan_mm"]
    assert _refused(m).field == "mechanism.points.B[1]"


@pytest.mark.parametrize(
    ("path", "value", "field", "allowed"),
    [
        (("bodies", "rod", "mass_kg"), -0.2, "mechanism.bodies.rod.mass_kg", "> 0 kg"),
        (("bodies", "rod", "mass_kg"), float("nan"), "mechanism.bodies.rod.mass_kg", "finite"),
        (("joints", "piston_pin", "clearance_mm"), 10.0,
         "mechanism.joints.piston_pin.clearance_mm", "< bearing radius 10 mm"),
        (("joints", "guide", "direction"), [0, 0], "mechanism.joints.guide.direction",
         "non-zero"),
        (("joints", "guide", "type"), "ball", "mechanism.joints.guide.type",
         "revolute, translational, fixed"),
        (("driver", "joint"), "guide", "mechanism.driver.joint", "a revolute joint"),
        (("measures", "slider_accel", "body"), "piston", "mechanism.measures.slider_accel.body",
         "one of crank, rod, slider"),
        (("joints", "crank_pin", "restitution"), 0.9, "mechanism.joints.crank_pin.restitution",
         "only with clearance_mm"),
    ],
)
def test_bad_values_are_refused_with_field_value_and_allowed(path, value, field, allowed):
    m = table("reference_slider_crank")
    node = m
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    e = _refused(m)
    assert e.field == field
    assert allowed in e.allowed


def test_a_non_grashof_four_bar_is_refused_naming_the_angle_and_the_joint():
    m = table("four_bar_crank_rocker")
    # 50 + 100 > 60 + 70: the crank cannot turn a full revolution
    m["variables"].update(ground_mm=100, crank_mm=50, coupler_mm=60, rocker_mm=70)
    e = _refused(m)
    assert e.field == "mechanism.driver.joint"
    assert "full revolution" in e.allowed
    assert "at driver angle" in e.detail and " deg" in e.detail
    assert "joint " in e.detail


def test_sweep_paths_must_exist_and_be_numbers():
    m = table("reference_slider_crank")
    e = _refused(m, **{"joints.piston_pin.clearance": 0.1})
    assert e.field == "joints.piston_pin.clearance"
    assert "joints.piston_pin.clearance_mm" in e.allowed
    e = _refused(m, **{"variables.rod_mm": "long"})
    assert (e.field, e.value, e.allowed) == ("variables.rod_mm", "long", "a number")
    # a value the mechanism refuses is named by the path the case set
    e = _refused(m, **{"joints.piston_pin.clearance_mm": 12})
    assert e.field == "joints.piston_pin.clearance_mm"


def test_dotted_values_reach_the_mechanism():
    case = MechanismCase.from_mapping({"mechanism": table("reference_slider_crank"),
                                       "variables.rod_mm": 150, "bodies.rod.mass_kg": 0.4,
                                       "driver.speed_rpm": 3000})
    spec = case.spec
    assert dict(spec.points)["B"] == pytest.approx((0.2, 0.0))
    assert next(b for b in spec.bodies if b.name == "rod").mass == 0.4
    assert spec.period == pytest.approx(0.02)
    # until settled: the cap is max_revolutions driver periods, the section at each period
    options = case.solver_options()
    assert options.t_end == pytest.approx(80 * 0.02) and options.period == pytest.approx(0.02)


def test_variables_may_be_expressions_of_each_other_in_any_order():
    # a variable written before the ones it uses (the case reads its table from sorted JSON,
    # a form or a TOML writer may reorder them too)
    m = table("reference_slider_crank")
    m["variables"] = {"rod_mm": "2.4 * crank_mm", "tilt": "pi / 6", "crank_mm": 50,
                      "offset_mm": "rod_mm * sin(tilt)"}
    spec = MechanismCase.from_mapping({"mechanism": m}).spec
    v = dict(spec.variables)
    assert v["rod_mm"] == pytest.approx(120.0)
    assert v["tilt"] == pytest.approx(0.5235987755982988)
    assert v["offset_mm"] == pytest.approx(60.0)
    assert dict(spec.points)["B"] == pytest.approx((0.17, 0.0))  # crank + rod, in m
    # a sweep of the variable used moves the one that uses it
    swept = MechanismCase.from_mapping({"mechanism": m, "variables.crank_mm": 60}).spec
    assert dict(swept.variables)["rod_mm"] == pytest.approx(144.0)


@pytest.mark.parametrize(
    ("variables", "field", "cycle"),
    [
        ({"a_mm": "b_mm + 1", "b_mm": "2 * a_mm"}, "mechanism.variables.a_mm",
         "a_mm -> b_mm -> a_mm"),
        ({"r_mm": "r_mm + 1"}, "mechanism.variables.r_mm", "r_mm -> r_mm"),
        ({"x": 1, "a": "c", "b": "a * x", "c": "sqrt(b)"}, "mechanism.variables.a",
         "a -> c -> b -> a"),
    ],
)
def test_a_cycle_of_variables_is_refused_naming_them(variables, field, cycle):
    m = table("reference_slider_crank")
    m["variables"].update(variables)
    e = _refused(m)
    assert e.field == field
    assert cycle in e.detail
    assert "without a cycle" in e.allowed


def test_an_undefined_name_in_a_variable_names_its_field_and_every_variable():
    m = table("reference_slider_crank")
    m["variables"] = {"bore_mm": "2 * radius_mm", "crank_mm": 60, "rod_mm": 150}
    e = _refused(m)
    assert (e.field, e.value) == ("mechanism.variables.bore_mm", "2 * radius_mm")
    assert "'radius_mm' is not defined" in e.detail
    assert "crank_mm, rod_mm, pi" in e.allowed
