"""The adaptive designs' keys refused with their field (design.md 4.9), nothing planned."""

from __future__ import annotations

import pytest
from gapsweep.study.errors import SpecError
from gapsweep.study.spec import parse_spec

BOX = {"speed_rpm": {"start": 3000.0, "stop": 6000.0}}
OBJ = {"metric": "peak_slider_accel", "goal": "min"}
CSV = "time_s,slider_acceleration\n0,1\n0.001,2\n"


@pytest.mark.parametrize("spec,field", [
    ({"design": "optimize", "axes": BOX, "objective": OBJ}, "budget"),
    ({"design": "optimize", "axes": BOX, "budget": 20}, "objective"),
    ({"design": "optimize", "axes": BOX, "budget": 20,
      "objective": {"metric": "peak_slider_accel", "goal": "target"}}, "objective.value"),
    ({"design": "optimize", "axes": {"speed_rpm": {"start": 3000.0, "stop": 3000.0}},
      "budget": 20, "objective": OBJ}, "axes.speed_rpm"),
    ({"design": "grid", "axes": {"speed_rpm": {"values": [3000]}}, "budget": 20}, "budget"),
    ({"design": "grid", "axes": BOX}, "axes.speed_rpm.count"),
    ({"design": "calibrate", "axes": BOX, "budget": 20}, "measurement"),
    ({"design": "calibrate", "axes": BOX, "budget": 20,
      "measurement": {"csv": "time_s,slider_acceleration\n0,1\n0.001,nan\n"}},
     "measurement.slider_acceleration[2]"),
    ({"design": "calibrate", "axes": BOX, "budget": 20, "series": "driving_torque",
      "measurement": {"csv": CSV}}, "series"),
])
def test_refused_naming_the_field(spec, field):
    with pytest.raises(SpecError) as err:
        parse_spec({"name": "s", **spec})
    assert field in [e.field for e in err.value.errors], err.value


def test_a_calibration_spec_keeps_its_fitted_series_and_round_trips():
    spec = parse_spec({"name": "c", "design": "calibrate", "axes": BOX, "budget": 20,
                       "series": "slider_acceleration", "measurement": {"csv": CSV}})
    assert spec.fit_series == "slider_acceleration" and spec.series == "preview"
    assert parse_spec(spec.to_dict()) == spec
