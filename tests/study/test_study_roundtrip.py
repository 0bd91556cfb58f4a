"""A spec survives its own study file (TOML) and its JSON form unchanged."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from gapsweep.study.designs import plan_study
from gapsweep.study.spec import dumps_toml, load_spec_file, loads_spec, parse_spec, tomllib

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "clearance_x_stiffness.toml"

SPECS = [
    {
        "name": "Every field \"quoted\" \\ ünïcode",
        "model": "slider-crank",
        "description": "line one\nline two\ttab",
        "tags": ["a b", "c"],
        "design": "sobol",
        "ideal_twin": False,
        "series": "full",
        "samples": 16,
        "seed": 4,
        "morris_levels": 6,
        "metric": "peak_contact_force",
        "base": {"speed_rpm": 3000, "contact_law": "hertz", "refine_peaks": False,
                 "n_output": 1201, "youngs_modulus": 2.07e11, "impact_depth": 1e-06},
        "axes": {
            "friction": {"start": 0.0, "stop": 0.1, "count": 5},
            "clearance_mm": {"values": [0.02, 0.035, 0.1], "nominal": 0.035},
            "stiffness_scale": {"nominal": 1.0, "relative_percent": 30, "levels": 3},
        },
    },
    {"name": "strings and bools", "design": "grid",
     "axes": {"friction_law": {"values": ["none", "coulomb-tanh"]},
              "ideal": {"values": [True, False]}}},
]


@pytest.mark.parametrize("data", SPECS + [tomllib.loads(EXAMPLE.read_text())])
def test_round_trips(data: dict) -> None:
    spec = parse_spec(data)
    text = dumps_toml(spec)
    again = loads_spec(text, "toml")
    assert again == spec
    assert list(again.axes) == list(spec.axes)  # axis order is the grid's loop order
    assert list(again.base) == list(spec.base)
    as_json = json.dumps(spec.to_dict(), allow_nan=False)
    assert parse_spec(json.loads(as_json)) == spec
    assert loads_spec(as_json, "json") == spec
    assert plan_study(again) == plan_study(spec)


def test_to_dict_keeps_the_file_values() -> None:
    spec = load_spec_file(EXAMPLE)
    d = spec.to_dict()
    assert d["axes"] == {
        "clearance_mm": {"values": [0.02, 0.035, 0.05, 0.08, 0.1]},
        "stiffness_scale": {"nominal": 1.0, "relative_percent": 30.0, "levels": 3},
    }
    assert d["base"] == {"speed_rpm": 5000.0}
    assert d["name"] == "Clearance x stiffness" and d["tags"] == ["flores", "baseline"]


def test_json_file(tmp_path: Path) -> None:
    path = tmp_path / "study.json"
    path.write_text(json.dumps(load_spec_file(EXAMPLE).to_dict()))
    assert load_spec_file(path) == load_spec_file(EXAMPLE)
    from gapsweep.study.errors import SpecError

    with pytest.raises(SpecError) as info:
        load_spec_file(tmp_path / "study.yaml")
    assert info.value.errors[0].field == "file"
