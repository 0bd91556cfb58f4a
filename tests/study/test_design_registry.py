"""The design registry (issue 34.2): one list of designs that the schema, the planner, the
counter, the analyses and the pages all read. Its invariants: every entry's plan, count and
analysis resolve; the count a design announces is the number of cases its plan makes; the
lists derived from it are the ones the schema validates against."""

from __future__ import annotations

import typing

import pytest
from gapsweep.study import design_registry as registry
from gapsweep.study.schema import StudySpec
from gapsweep.study.spec import parse_spec

AXES = {"clearance_mm": {"values": [0.02, 0.05, 0.1], "nominal": 0.05},
        "stiffness_scale": {"nominal": 1.0, "relative_percent": 30, "levels": 3}}
BOUNDS = {"clearance_mm": {"start": 0.02, "stop": 0.1},
          "stiffness_scale": {"start": 0.7, "stop": 1.3}}
SPECS = {
    "grid": {"axes": AXES},
    "one-at-a-time": {"axes": AXES},
    "latin-hypercube": {"axes": BOUNDS, "samples": 7, "seed": 3},
    "sobol": {"axes": BOUNDS, "samples": 4, "seed": 3},
    "morris": {"axes": BOUNDS, "samples": 3, "seed": 3},
    "convergence": {"axes": {"rtol": {"values": [1e-5, 1e-6, 1e-7]}},
                    "metric": "peak_slider_accel"},
    "monte-carlo": {"axes": {"clearance_mm": {"distribution": "uniform", "low": 0.02,
                                              "high": 0.1}}, "samples": 9, "seed": 1},
    "optimize": {"axes": BOUNDS, "budget": 20, "seed": 1,
                 "objective": {"metric": "peak_slider_accel_settled", "goal": "min"}},
}


def test_the_schema_validates_against_the_registry_names():
    allowed = typing.get_args(StudySpec.model_fields["design"].annotation)
    assert allowed == registry.NAMES
    assert StudySpec.model_fields["design"].default == registry.DEFAULT_DESIGN
    assert set(registry.SAMPLING_DESIGNS) == {d.name for d in registry.REGISTRY.values()
                                              if d.samples}
    assert set(registry.ADAPTIVE_DESIGNS) == {"optimize", "calibrate"}
    assert set(registry.SAMPLING_DESIGNS) <= set(registry.SCATTERED_DESIGNS)


@pytest.mark.parametrize("name", sorted(SPECS))
def test_a_design_makes_the_cases_it_counts(name):
    design = registry.REGISTRY[name]
    spec = parse_spec({"name": name, "design": name, "ideal_twin": False, **SPECS[name]})
    cases, matrix = design.make_plan(spec)
    n = design.case_count(spec)
    if design.adaptive:  # the first generation, within the budget
        assert 0 < len(cases) <= n == spec.budget
    else:
        assert len(cases) == n > 0
    if design.samples:
        assert matrix is not None and len(matrix) == n


def test_every_entry_resolves_and_says_what_it_reads():
    for design in registry.REGISTRY.values():
        for ref in (design.plan, design.count, design.analyse):
            if ref is not None:
                assert callable(design._get(ref)), (design.name, ref)
        assert design.help and design.axes_help
        assert design.trends in (registry.TREND_LINES, registry.TREND_PANELS,
                                 registry.TREND_SCATTER)
        # a field the form shows is a key of the spec
        assert set(design.fields) <= set(StudySpec.model_fields), design.name
        assert bool(design.samples_help) == ("samples" in design.fields)
    assert registry.uses("morris", "morris_levels") and not registry.uses("grid", "samples")
    assert registry.get_design("no such design").name == registry.DEFAULT_DESIGN
