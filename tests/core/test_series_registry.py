"""The series registry (issue 34.2): the solver's output grid, the stored spectra and their
metrics, and every figure's label and unit come from one list; and a model's measures
(core.measures) name a described mechanism's own series and metrics in their units."""

from __future__ import annotations

from pathlib import Path

import tomllib
from gapsweep.core import metrics, series
from gapsweep.core.api import DESCRIBED, MODELS, measures_of
from gapsweep.core.postprocessing import SPECTRAL_METRICS
from gapsweep.core.solver import SERIES_NAMES
from gapsweep.core.stepping import N_SER

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_the_solver_grid_and_the_spectra_are_the_registry_s():
    assert SERIES_NAMES == series.SOLVER_SERIES and len(SERIES_NAMES) == N_SER
    assert SERIES_NAMES[0] == "t"
    assert series.SPECTRUM_SERIES == ("slider_acceleration", "contact_normal_force")
    # every spectral metric the post-processing writes is a registered metric
    assert SPECTRAL_METRICS and all(m in metrics.REGISTRY for m in SPECTRAL_METRICS)
    for name, entry in series.REGISTRY.items():
        assert entry.name == name and entry.title.endswith(f"[{entry.unit}]")


def test_a_joint_series_and_an_unknown_name_resolve():
    joint = series.lookup("contact_normal_force.piston_pin")
    assert joint.unit == "N" and "piston_pin" in joint.label
    assert series.lookup("no_such_series").unit == metrics.DIMENSIONLESS


def test_a_mechanism_measures_its_own_table():
    with open(EXAMPLES / "mechanism_four_bar_crank_rocker.toml", "rb") as f:
        table = tomllib.load(f)["mechanism"]
    assert [m for m, e in MODELS.items() if e.can(DESCRIBED)] == ["mechanism"]
    m = measures_of("mechanism", table)
    # design.md 4.7: each measure's peak_, its settled headline; units from quantity/component
    for name, spec in table["measures"].items():
        unit = {"acceleration": "rad/s²", "position": "rad"}[spec["quantity"]]
        assert f"peak_{name}_settled" in m.headline and f"peak_{name}" in m.trend
        assert m.metric(f"peak_{name}_settled").si_unit == unit
        assert m.series_entry(name).unit == unit
    assert m.default_metric == f"peak_{next(iter(table['measures']))}_settled"
    assert not any("slider" in n for n in (*m.headline, *m.trend))
    assert m.joints == ("rocker_pin",)
    # the run's probe is the rocker's angle, not a slider
    assert m.series_entry("slider_acceleration").unit == "rad/s²"
    # a built-in model reads the registries
    built = measures_of("slider-crank")
    assert built.headline == metrics.headline() and built.default_metric.startswith(
        "peak_slider_accel")
