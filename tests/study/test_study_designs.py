"""Designs turn a spec into exactly the cases design.md 4.2 and 4.5 describe."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest
from gapsweep.core.api import get_model
from gapsweep.study.designs import DESIGNS, estimate_seconds, lhs_matrix, plan_study
from gapsweep.study.spec import load_spec_file, parse_spec
from gapsweep.study.twins import IDEAL_IGNORES, deviations

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "clearance_x_stiffness.toml"
CLEARANCES = [0.02, 0.035, 0.05, 0.08, 0.1]


def test_every_design_of_the_schema_is_registered() -> None:
    from gapsweep.study.spec import StudySpec

    names = StudySpec.model_fields["design"].annotation.__args__
    assert set(DESIGNS) == set(names)


def test_example_file_is_the_users_15_case_study() -> None:
    spec = load_spec_file(EXAMPLE)
    assert spec.name == "Clearance x stiffness" and spec.design == "grid"
    assert spec.ideal_twin and spec.series == "preview"
    plan = plan_study(spec)
    expected = [
        {"speed_rpm": 5000.0, "clearance_mm": c, "stiffness_scale": k}
        for c in CLEARANCES
        for k in (0.7, 1.0, 1.3)
    ]
    assert plan.cases == expected
    assert [list(p) for p in plan.cases] == [["speed_rpm", "clearance_mm", "stiffness_scale"]] * 15
    assert plan.twins == [{"speed_rpm": 5000.0, "ideal": True}]
    assert plan.twin_of == [0] * 15
    assert plan.design_matrix is None
    model = get_model(spec.model)
    for params in plan.cases + plan.twins:
        model.parse(params)  # every case is one the core accepts


def test_twins_follow_the_parameters_an_ideal_run_reads() -> None:
    spec = parse_spec({"name": "s", "axes": {"speed_rpm": {"values": [3000, 5000]},
                                             "clearance_mm": {"values": [0.05, 0.1]},
                                             "friction": {"values": [0.0, 0.1]}}})
    plan = plan_study(spec)
    assert len(plan.cases) == 8
    assert plan.twins == [{"speed_rpm": 3000.0, "ideal": True},
                          {"speed_rpm": 5000.0, "ideal": True}]
    assert plan.twin_of == [0, 0, 0, 0, 1, 1, 1, 1]


def test_no_twins_when_off_or_when_the_model_has_no_ideal_joint() -> None:
    spec = parse_spec({"name": "s", "ideal_twin": False,
                       "axes": {"clearance_mm": {"values": [0.05, 0.1]}}})
    plan = plan_study(spec)
    assert plan.twins == [] and plan.twin_of == [None, None]
    spec = parse_spec({"name": "s", "model": "cantilever",
                       "axes": {"elements": {"values": [2, 4]}}})
    plan = plan_study(spec)
    assert plan.twins == [] and plan.twin_of == [None, None]
    assert plan.cases == [{"elements": 2}, {"elements": 4}]


def test_ideal_cases_have_no_twin() -> None:
    spec = parse_spec({"name": "s", "axes": {"ideal": {"values": [False, True]}}})
    plan = plan_study(spec)
    assert plan.twin_of == [0, None]
    assert plan.twins == [{"ideal": True}]


def test_twin_ignores_only_fields_the_model_has() -> None:
    known = set(get_model("slider-crank").defaults()) | set(
        get_model("flexible-slider-crank").defaults())
    assert known >= IDEAL_IGNORES


def test_deviations_relative_to_the_twin() -> None:
    case = {"peak_slider_accel": 3000.0, "rms_slider_accel": 900.0, "peak_driving_torque": 5.0,
            "peak_slider_accel_settled": 2400.0}
    twin = {"peak_slider_accel": 2000.0, "rms_slider_accel": 1000.0, "peak_driving_torque": 0.0,
            "peak_slider_accel_settled": 2000.0}
    assert deviations(case, twin) == {
        "deviation_peak_slider_accel": pytest.approx(0.5),
        "deviation_peak_slider_accel_settled": pytest.approx(0.2),
        "deviation_rms_slider_accel": pytest.approx(-0.1),
        "deviation_peak_driving_torque": None,  # the twin's value is 0
    }
    assert set(deviations(case, None).values()) == {None}


def test_one_at_a_time_cases() -> None:
    spec = parse_spec({
        "name": "s", "design": "one-at-a-time", "base": {"speed_rpm": 4000},
        "axes": {
            "stiffness_scale": {"nominal": 1.0, "relative_percent": 30, "levels": 5},
            "restitution": {"values": [0.5, 0.7, 0.9], "nominal": 0.7},
            "friction": {"values": [0.0, 0.05], "nominal": 0.05},
        },
    })
    plan = plan_study(spec)
    nominal = {"speed_rpm": 4000.0, "stiffness_scale": 1.0, "restitution": 0.7, "friction": 0.05}
    expected = [nominal] + [
        {**nominal, "stiffness_scale": k} for k in (0.7, 0.85, 1.15, 1.3)
    ] + [{**nominal, "restitution": r} for r in (0.5, 0.9)] + [{**nominal, "friction": 0.0}]
    assert len(plan.cases) == 1 + (5 - 1) + (3 - 1) + (2 - 1)
    assert plan.cases == expected
    assert len(plan.twins) == 1


def test_range_axis_levels_include_both_ends() -> None:
    spec = parse_spec({"name": "s", "axes": {"friction": {"start": 0.0, "stop": 0.1,
                                                          "count": 5}}})
    assert [c["friction"] for c in plan_study(spec).cases] == [0.0, 0.025, 0.05, 0.075, 0.1]
    spec = parse_spec({"name": "s", "axes": {"stiffness_scale": {"nominal": 2.0,
                                                                 "relative_percent": 50,
                                                                 "levels": 1}}})
    assert plan_study(spec).cases == [{"stiffness_scale": 2.0}]


def test_integer_parameters_are_rounded() -> None:
    spec = parse_spec({"name": "s", "design": "latin-hypercube", "samples": 7, "seed": 2,
                       "axes": {"n_output": {"start": 101, "stop": 2001, "count": 2}}})
    plan = plan_study(spec)
    values = [c["n_output"] for c in plan.cases]
    assert all(type(v) is int for v in values)
    assert values == [round(row[0]) for row in plan.design_matrix]


def test_latin_hypercube_one_sample_per_stratum_per_axis() -> None:
    n = 12
    spec = parse_spec({
        "name": "s", "design": "latin-hypercube", "samples": n, "seed": 7,
        "axes": {"clearance_mm": {"start": 0.02, "stop": 0.1, "count": 2},
                 "friction": {"start": 0.0, "stop": 0.2, "count": 2},
                 "stiffness_scale": {"nominal": 1.0, "relative_percent": 30, "levels": 3}},
    })
    plan = plan_study(spec)
    assert len(plan.cases) == n
    bounds = [(0.02, 0.1), (0.0, 0.2), (0.7, 1.3)]
    x = np.array(plan.design_matrix)
    for j, (lo, hi) in enumerate(bounds):
        strata = np.floor((x[:, j] - lo) / (hi - lo) * n).astype(int)
        assert sorted(strata.tolist()) == list(range(n))
    names = list(spec.axes)
    for params, row in zip(plan.cases, x, strict=True):
        assert [params[k] for k in names] == pytest.approx(row.tolist())
    assert plan_study(spec) == plan  # deterministic from the seed
    other = lhs_matrix([[0.0, 1.0]], n, seed=8)
    assert not np.allclose(other[:, 0], (x[:, 0] - 0.02) / 0.08)


@pytest.mark.parametrize("d", [1, 2, 3])
def test_sobol_and_morris_case_counts(d: int) -> None:
    axes = dict(itertools.islice({
        "clearance_mm": {"start": 0.02, "stop": 0.1, "count": 2},
        "friction": {"values": [0.0, 0.1, 0.05]},
        "restitution": {"nominal": 0.8, "relative_percent": 10, "levels": 1},
    }.items(), d))
    n = 8
    sobol = plan_study(parse_spec({"name": "s", "design": "sobol", "samples": n, "axes": axes}))
    assert len(sobol.cases) == n * (2 * d + 2) == len(sobol.design_matrix)
    morris = plan_study(parse_spec({"name": "s", "design": "morris", "samples": n,
                                    "axes": axes}))
    assert len(morris.cases) == n * (d + 1) == len(morris.design_matrix)
    bounds = [(0.02, 0.1), (0.0, 0.1), (0.72, 0.88)][:d]
    for plan in (sobol, morris):
        x = np.array(plan.design_matrix)
        for j, (lo, hi) in enumerate(bounds):
            assert lo - 1e-12 <= x[:, j].min() and x[:, j].max() <= hi + 1e-12
    # Morris points sit on a 4-level grid of each range
    grid = (np.array(morris.design_matrix)[:, 0] - 0.02) / 0.08 * 3
    assert np.allclose(grid, np.round(grid))


def test_convergence_cases_in_the_given_order() -> None:
    spec = parse_spec({"name": "s", "design": "convergence", "metric": "peak_contact_force",
                       "axes": {"rtol": {"values": [1e-5, 1e-6, 1e-7]}}})
    assert plan_study(spec).cases == [{"rtol": 1e-5}, {"rtol": 1e-6}, {"rtol": 1e-7}]


def test_design_requirements_of_4_5() -> None:
    from gapsweep.study.errors import SpecError

    def fields(data: dict) -> list[str]:
        with pytest.raises(SpecError) as info:
            parse_spec({"name": "s", **data})
        return [e.field for e in info.value.errors]

    assert fields({"design": "one-at-a-time", "axes": {
        "stiffness_scale": {"nominal": 1.0, "relative_percent": 30, "levels": 4},
        "clearance_mm": {"values": [0.05, 0.1]},
        "friction": {"start": 0.0, "stop": 0.1, "count": 3},
    }}) == ["axes.stiffness_scale.levels", "axes.clearance_mm.nominal", "axes.friction"]
    assert fields({"design": "convergence", "axes": {
        "rtol": {"values": [1e-5, 1e-6]}, "atol": {"values": [1e-9, 1e-10]}}}) == [
        "axes", "metric"]
    assert fields({"design": "convergence", "metric": "impacts", "axes": {
        "rtol": {"values": [1e-5, 1e-6, 1e-8]}}}) == ["axes.rtol"]  # no constant ratio
    assert fields({"design": "sobol", "axes": {
        "contact_law": {"values": ["hertz", "flores"]},
        "clearance_mm": {"values": [0.05]}}}) == [
        "samples", "axes.contact_law", "axes.clearance_mm"]


def test_estimate_scales_with_cases_and_t_end() -> None:
    spec = load_spec_file(EXAMPLE)
    # no t_end: until settled, estimated at the cap, max_revolutions (80) of 0.012 s
    assert estimate_seconds(spec, 16) == pytest.approx(16 * 0.004 * 80 * 0.012 / 0.024)
    fixed = parse_spec({**spec.to_dict(), "base": {"speed_rpm": 5000, "t_end": 0.024}})
    assert estimate_seconds(fixed, 16) == pytest.approx(16 * 0.004)
    longer = parse_spec({**spec.to_dict(), "base": {"speed_rpm": 5000, "t_end": 0.048}})
    assert estimate_seconds(longer, 16) == pytest.approx(2 * 16 * 0.004)
    flexible = parse_spec({"name": "f", "model": "flexible-slider-crank",
                           "axes": {"clearance_mm": {"values": [0.1]}}})
    assert estimate_seconds(flexible, 1) > 100 * estimate_seconds(fixed, 1)
