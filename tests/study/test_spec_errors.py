"""Bad study specs are refused with the field path, the value and what is allowed."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from gapsweep.study.errors import FieldError, SpecError
from gapsweep.study.spec import load_spec_file, loads_spec, parse_spec

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "clearance_x_stiffness.toml"
CLEARANCE_RANGE = "> 0 and < bearing radius 10 mm"


def errors_of(data: dict) -> list[FieldError]:
    with pytest.raises(SpecError) as info:
        parse_spec(data)
    return info.value.errors


def one_error(data: dict) -> FieldError:
    errors = errors_of(data)
    assert len(errors) == 1, errors
    return errors[0]


def study(**axes: dict) -> dict:
    return {"name": "s", "base": {"speed_rpm": 5000}, "axes": axes}


@pytest.mark.parametrize("bad", [-0.01, 0.0, 10.0, 12.5])
def test_clearance_out_of_range_names_item_value_and_range(bad: float) -> None:
    err = one_error(study(clearance_mm={"values": [0.02, 0.05, bad]}))
    assert err.field == "axes.clearance_mm.values[2]"
    assert err.value == bad
    assert err.allowed == CLEARANCE_RANGE
    assert str(err) == f"axes.clearance_mm.values[2]: {bad} — {CLEARANCE_RANGE}"


def test_nan_clearance_from_toml() -> None:
    text = 'name = "s"\n[axes.clearance_mm]\nvalues = [0.02, nan]\n'
    with pytest.raises(SpecError) as info:
        loads_spec(text, "toml")
    (err,) = info.value.errors
    assert (err.field, err.value, err.allowed) == (
        "axes.clearance_mm.values[1]", "nan", "a finite number")
    assert err.to_dict() == {"field": "axes.clearance_mm.values[1]", "value": "nan",
                             "allowed": "a finite number"}


def test_nan_in_a_factor_axis() -> None:
    err = one_error(study(stiffness_scale={"nominal": 1.0, "relative_percent": math.inf,
                                           "levels": 3}))
    assert err.field == "axes.stiffness_scale.relative_percent"
    assert err.allowed == "a finite number"


def test_unknown_parameter_suggests_the_close_name() -> None:
    err = one_error(study(clearence_mm={"values": [0.05]}))
    assert err.field == "axes.clearence_mm"
    assert err.value == "clearence_mm"
    assert "clearance_mm" in err.allowed and "gapsweep params" in err.allowed


def test_unknown_base_parameter() -> None:
    err = one_error({"name": "s", "base": {"sped_rpm": 10},
                     "axes": {"clearance_mm": {"values": [0.05]}}})
    assert err.field == "base.sped_rpm"
    assert "speed_rpm" in err.allowed


def test_base_value_checked_by_the_core() -> None:
    err = one_error({"name": "s", "base": {"speed_rpm": -1},
                     "axes": {"clearance_mm": {"values": [0.05]}}})
    assert (err.field, err.value, err.allowed) == ("base.speed_rpm", -1, "> 0")


def test_unknown_keys_top_level_and_in_an_axis() -> None:
    errors = errors_of({**study(clearance_mm={"values": [0.05], "step": 1}), "colour": "red"})
    by_field = {e.field: e for e in errors}
    assert set(by_field) == {"colour", "axes.clearance_mm.step"}
    assert "name, model" in by_field["colour"].allowed
    assert "relative_percent" in by_field["axes.clearance_mm.step"].allowed


def test_empty_axis() -> None:
    err = one_error(study(clearance_mm={"values": []}))
    assert (err.field, err.value, err.allowed) == (
        "axes.clearance_mm.values", [], "at least one value")


def test_no_axes_at_all() -> None:
    # design.md 4.16: a grid with no axes is one case (its base); other designs need axes
    for data in ({"name": "s", "design": "one-at-a-time"},
                 {"name": "s", "design": "latin-hypercube", "axes": {}, "samples": 4}):
        err = one_error(data)
        assert err.field == "axes"
        assert "at least one axis" in err.allowed


def test_a_grid_with_no_axes_is_its_base_alone() -> None:
    from gapsweep.study.designs import plan_study

    spec = parse_spec({"name": "s", "base": {"clearance_mm": 0.07}})
    plan = plan_study(spec)
    assert len(plan.cases) == 1
    assert plan.cases[0]["clearance_mm"] == 0.07


def test_levels_zero() -> None:
    err = one_error(study(stiffness_scale={"nominal": 1.0, "relative_percent": 30, "levels": 0}))
    assert (err.field, err.value, err.allowed) == ("axes.stiffness_scale.levels", 0, ">= 1")


def test_count_zero() -> None:
    err = one_error(study(friction={"start": 0.0, "stop": 0.1, "count": 0}))
    assert (err.field, err.value, err.allowed) == ("axes.friction.count", 0, ">= 1")


def test_relative_percent_that_makes_a_level_nonpositive() -> None:
    err = one_error(study(stiffness_scale={"nominal": 1.0, "relative_percent": 120, "levels": 3}))
    assert err.field == "axes.stiffness_scale.relative_percent"
    assert err.value == 120
    assert "> 0" in err.allowed and "-0.2" in err.allowed


def test_range_start_outside_the_parameter_range() -> None:
    err = one_error(study(friction={"start": -0.1, "stop": 0.1, "count": 3}))
    assert (err.field, err.value, err.allowed) == ("axes.friction.start", -0.1, ">= 0")


def test_mixed_axis_forms() -> None:
    err = one_error(study(clearance_mm={"values": [0.05], "start": 0.01}))
    assert err.field == "axes.clearance_mm"
    assert "start/stop/count" in err.allowed
    # said for a person: which form it looks like and what to add or remove
    assert err.allowed.startswith("a list of values: remove start")


def test_a_partial_form_says_what_to_add() -> None:
    err = one_error(study(friction={"start": 0.0, "levels": 3}))
    assert err.allowed.startswith("a range: add stop, count; remove levels")
    err = one_error(study(stiffness_scale={"nominal": 1.0, "levels": 3}))
    assert err.allowed.startswith("a nominal ± percent: add relative_percent")


def test_start_stop_without_count_is_bounds_for_sampling_designs_only() -> None:
    axes = {"clearance_mm": {"start": 0.02, "stop": 0.1}, "friction": {"start": 0, "stop": 0.1}}
    spec = parse_spec({"name": "s", "design": "latin-hypercube", "samples": 6, "seed": 3,
                       "axes": axes})
    assert spec.axes["clearance_mm"].bounds() == (0.02, 0.1)
    errors = errors_of({"name": "s", "axes": axes})  # a grid has no levels without a count
    assert [e.field for e in errors] == ["axes.clearance_mm.count", "axes.friction.count"]
    err = one_error({"name": "s", "design": "one-at-a-time",
                     "axes": {"clearance_mm": {"start": 0.02, "stop": 0.1}}})
    assert err.field == "axes.clearance_mm.count"


def test_the_example_files_commented_axis_is_valid_once_uncommented() -> None:
    """The example study file's commented friction axis, uncommented, is TOML and a valid
    third axis (it once read ``[axes.friction] start = ..., stop = ...`` on one line)."""
    lines = EXAMPLE.read_text(encoding="utf-8").splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith("# [axes.friction]"))
    text = "\n".join(lines[:first] + [line[2:] for line in lines[first:first + 4]])
    spec = loads_spec(text, "toml")
    assert spec.levels("friction") == [0.0, 0.025, 0.05, 0.075, 0.1]


def test_nominal_must_be_one_of_the_values() -> None:
    err = one_error(study(clearance_mm={"values": [0.02, 0.05], "nominal": 0.03}))
    assert (err.field, err.value) == ("axes.clearance_mm.nominal", 0.03)


def test_axis_also_in_base() -> None:
    err = one_error({"name": "s", "base": {"clearance_mm": 0.1},
                     "axes": {"clearance_mm": {"values": [0.05]}}})
    assert err.field == "axes.clearance_mm"
    assert "base.clearance_mm" in err.allowed


def test_a_value_wrong_only_with_another_parameter_says_which() -> None:
    # friction_velocity_full defaults to 1e-3 m/s and must stay above friction_velocity
    err = one_error(study(friction_velocity={"values": [1e-4, 2e-3]}))
    assert err.field == "axes.friction_velocity.values[1]"
    assert "friction_velocity_full" in err.allowed


def test_string_axis_values_checked_by_the_core() -> None:
    err = one_error(study(contact_law={"values": ["hertz", "flores", "bogus"]}))
    assert (err.field, err.value) == ("axes.contact_law.values[2]", "bogus")
    assert "hunt-crossley" in err.allowed


def test_unknown_design_and_model() -> None:
    err = one_error({**study(clearance_mm={"values": [0.05]}), "design": "sobel"})
    assert (err.field, err.value) == ("design", "sobel")
    assert "one-at-a-time" in err.allowed and "convergence" in err.allowed
    err = one_error({**study(clearance_mm={"values": [0.05]}), "model": "crank"})
    assert (err.field, err.value) == ("model", "crank")
    assert "slider-crank" in err.allowed


def test_name_length() -> None:
    for name, echoed in (("", ""), ("x" * 201, "x" * 199 + "…")):
        err = one_error({**study(clearance_mm={"values": [0.05]}), "name": name})
        assert (err.field, err.value, err.allowed) == ("name", echoed, "1-200 characters")
    err = one_error({"axes": {"clearance_mm": {"values": [0.05]}}})
    assert (err.field, err.allowed) == ("name", "required")


def test_multiple_errors_reported_together() -> None:
    data = {
        "name": "",
        "design": "sobel",
        "colour": 1,
        "base": {"speed_rpm": 0},
        "axes": {
            "clearance_mm": {"values": [0.05, -1.0, 20.0]},
            "stiffness_scale": {"nominal": 1.0, "relative_percent": 30, "levels": 0},
        },
    }
    fields = [e.field for e in errors_of(data)]
    assert sorted(fields) == sorted([
        "name", "design", "colour", "base.speed_rpm", "axes.clearance_mm.values[1]",
        "axes.clearance_mm.values[2]", "axes.stiffness_scale.levels",
    ])


def test_case_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GAPSWEEP_MAX_CASES", "10")
    with pytest.raises(SpecError) as info:
        load_spec_file(EXAMPLE)
    (err,) = info.value.errors
    assert (err.field, err.value) == ("axes", 15)
    assert "at most 10 cases" in err.allowed and "GAPSWEEP_MAX_CASES" in err.allowed
    monkeypatch.setenv("GAPSWEEP_MAX_CASES", "15")
    assert len(load_spec_file(EXAMPLE).axes) == 2


def test_case_limit_of_a_sampling_design(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GAPSWEEP_MAX_CASES", "10")
    err = one_error({**study(clearance_mm={"start": 0.02, "stop": 0.1, "count": 2}),
                     "design": "sobol", "samples": 4})
    assert (err.field, err.value) == ("design", 16)  # 4 * (2 * 1 + 2)


def test_malformed_toml_and_json() -> None:
    with pytest.raises(SpecError) as info:
        loads_spec('name = "s"\n[axes.clearance_mm\nvalues = [1]\n', "toml")
    (err,) = info.value.errors
    assert err.field == "file"
    assert "line 2" in err.allowed
    with pytest.raises(SpecError) as info:
        loads_spec('{"name": "s",\n "axes": ', "json")
    (err,) = info.value.errors
    assert err.field == "file" and "line 2" in err.allowed


def test_not_a_table() -> None:
    with pytest.raises(SpecError) as info:
        loads_spec("[1, 2]", "json")
    assert info.value.errors[0].field == "file"


def test_spec_error_to_dict() -> None:
    with pytest.raises(SpecError) as info:
        parse_spec(study(clearance_mm={"values": [-0.01]}))
    assert info.value.to_dict() == {"errors": [{
        "field": "axes.clearance_mm.values[0]", "value": -0.01, "allowed": CLEARANCE_RANGE}]}


def test_a_huge_level_count_is_refused_before_levels_are_built() -> None:
    err = one_error(study(friction={"start": 0.0, "stop": 0.1, "count": 10**12}))
    assert (err.field, err.value) == ("axes.friction.count", 10**12)
    assert "at most 100000" in err.allowed


def test_text_levels_cannot_be_sampled() -> None:
    err = one_error({"name": "s", "model": "cantilever", "design": "sobol", "samples": 4,
                     "axes": {"dt": {"values": ["auto", 1e-6]}}})
    assert (err.field, err.allowed) == ("axes.dt", "numbers to sample between")


def test_a_long_value_is_echoed_cut_at_200_characters() -> None:
    name = "".join(chr(0x41 + k % 26) for k in range(100_000))
    err = one_error({**study(clearance_mm={"values": [0.05]}), "name": name})
    assert len(err.value) == 200 and err.value == name[:199] + "…"
    assert len(str(err)) == len("name: ") + 200 + len(" — 1-200 characters")
    assert err.to_dict()["value"] == err.value
    # a value of exactly 200 characters comes back whole
    assert FieldError("name", "y" * 200, "whatever").value == "y" * 200


def test_a_long_list_or_table_is_echoed_as_its_json_text_cut() -> None:
    values = [0.05 + 1e-4 * k for k in range(5000)]
    err = FieldError("axes.clearance_mm.values", values, "at most 1000 values")
    text = json.dumps(values)
    assert len(err.value) == 200 and err.value == text[:199] + "…"
    table = {f"key{k}": k for k in range(100)}
    assert FieldError("base", table, "known names").value == json.dumps(table)[:199] + "…"
    # short ones stay JSON values, not text
    assert FieldError("base", {"a": 1}, "known names").value == {"a": 1}
    assert FieldError("x", [1.5, 2], "numbers").value == [1.5, 2]
