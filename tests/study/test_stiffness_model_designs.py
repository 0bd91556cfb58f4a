"""A string-valued axis over the stiffness model through the study spec and its designs
(issue 18): the grid and one-at-a-time designs take it, the sampling designs refuse it
naming the axis, and the ideal twins ignore it (a contact field)."""

from __future__ import annotations

import pytest
from gapsweep.study.designs import plan_study
from gapsweep.study.errors import SpecError
from gapsweep.study.spec import loads_spec

MODELS = ["hertz-sphere", "johnson-cylinder", "liu-conformal"]
FILE = """
name = "Clearance x stiffness model"
[base]
speed_rpm = 5000
axial_length_mm = 12
[axes.clearance_mm]
values = [0.02, 0.035, 0.05, 0.08, 0.1]
[axes.stiffness_model]
values = ["hertz-sphere", "johnson-cylinder", "liu-conformal"]
"""


def test_grid_over_clearance_and_model_is_15_cases_and_one_twin():
    plan = plan_study(loads_spec(FILE, "toml"))
    assert [(p["clearance_mm"], p["stiffness_model"]) for p in plan.cases] == [
        (c, m) for c in (0.02, 0.035, 0.05, 0.08, 0.1) for m in MODELS
    ]
    assert all(p["axial_length_mm"] == 12 for p in plan.cases)
    assert plan.twins == [{"speed_rpm": 5000, "ideal": True}]
    assert plan.twin_of == [0] * 15


def test_one_at_a_time_takes_a_string_nominal():
    text = FILE.replace('"liu-conformal"]', '"liu-conformal"]\nnominal = "hertz-sphere"')
    text = text.replace("0.1]", "0.1]\nnominal = 0.05")
    text = text.replace('name = "', 'design = "one-at-a-time"\nname = "')
    plan = plan_study(loads_spec(text, "toml"))
    assert len(plan.cases) == 1 + 4 + 2
    assert sum(p["stiffness_model"] != "hertz-sphere" for p in plan.cases) == 2


@pytest.mark.parametrize("design", ["latin-hypercube", "sobol", "morris"])
def test_sampling_designs_refuse_the_string_axis_naming_it(design):
    text = FILE.replace('name = "', f'design = "{design}"\nsamples = 4\nname = "')
    with pytest.raises(SpecError) as info:
        loads_spec(text, "toml")
    fields = {e.field: e for e in info.value.errors}
    assert "numeric" in fields["axes.stiffness_model"].allowed


def test_an_unknown_model_in_the_file_names_its_level():
    with pytest.raises(SpecError) as info:
        loads_spec(FILE.replace('"johnson-cylinder"', '"winkler"'), "toml")
    (err,) = info.value.errors
    assert err.field == "axes.stiffness_model.values[1]" and err.value == "winkler"
    assert all(m in err.allowed for m in MODELS)
