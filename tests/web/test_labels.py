"""Labels and units (gapsweep.web.figures.labels): every metric a model reports and every
parameter of every model has a title with its unit; penetration metrics are shown in µm, and
every figure and table that shows one scales the stored metres by the same factor."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from gapsweep.core import parameters as registry
from gapsweep.core.api import MODELS
from gapsweep.core.cases import SliderCrankCase
from gapsweep.core.flexible.flexible_crank_loop import METRICS as FLEXIBLE_METRICS
from gapsweep.core.postprocessing import SPECTRAL_METRICS
from gapsweep.core.solver import named_metrics
from gapsweep.core.stepping import N_MET
from gapsweep.study.twins import DEVIATIONS
from gapsweep.web.components import case_grid
from gapsweep.web.figures.convergence import convergence_figure
from gapsweep.web.figures.labels import (
    DIMENSIONLESS,
    METRICS,
    level_name,
    metric_display,
    metric_label,
    metric_scale,
    metric_unit,
    parameter_label,
    parameter_parts,
)
from gapsweep.web.figures.parallel import parallel_figure
from gapsweep.web.figures.sensitivity import morris_figure, tornado_figure
from gapsweep.web.figures.trends import trend_figure
from gapsweep.web.views import case_view

# the cantilever's metrics (core/flexible/cantilever.py simulate_cantilever) and the flexible
# slider-crank's beyond its five headline ones (flexible_slider_crank.py)
CANTILEVER = ("tip_deflection_static", "tip_shortening_static", "static_iterations",
              "tip_deflection_mean", "tip_deflection_max", "first_frequency_hz",
              "first_frequency_linear_hz", "energy_drift", "dt", "stable_dt", "steps",
              "wall_time_s")  # fmt: skip
FLEXIBLE_EXTRA = ("max_rod_deflection", "energy_balance_error", "peak_kinetic_energy", "dt",
                  "steps", "wall_time_s")  # fmt: skip
PENETRATIONS = ("max_penetration", "max_penetration_steady", "onset_penetration_error",
                "max_free_flight_penetration")  # fmt: skip
TITLE = re.compile(r"^\S.* \[([^\[\]]+)\]$")


def _rigid_metrics() -> list[str]:
    """The names the compiled loop's metric row becomes (no run needed: the naming alone)."""
    case = SliderCrankCase()
    n = 9
    y_end = np.zeros(2 * n + 16)
    names = named_metrics(case.solver_options(), np.ones(N_MET), y_end, n)
    return [*names, *SPECTRAL_METRICS, "wall_time_s", *DEVIATIONS.values()]


def every_metric() -> list[str]:
    flexible = [*FLEXIBLE_METRICS, *(f"{m}_steady" for m in FLEXIBLE_METRICS), *FLEXIBLE_EXTRA]
    return sorted({*_rigid_metrics(), *flexible, *CANTILEVER})


def _base(name: str) -> str:
    return name.removeprefix("deviation_").removesuffix("_steady")


def test_every_metric_a_model_reports_has_an_entry_and_a_unit():
    names = every_metric()
    assert len(names) == 43  # 31 of the rigid slider-crank, 3 more flexible, 9 more cantilever
    missing = [m for m in names if _base(m) not in METRICS]
    assert missing == []
    for m in names:
        match = TITLE.match(metric_label(m))
        assert match, metric_label(m)
        assert match.group(1) == metric_unit(m)


def test_units_follow_what_the_metric_measures():
    for m in every_metric():
        unit = metric_unit(m)
        if "penetration" in m:  # first: "penetration" contains "ratio"
            assert unit == "µm", m
        elif m.startswith("deviation_") or m == "max_constraint_drift":
            assert unit == (DIMENSIONLESS if m.startswith("deviation_") else "m"), m
        elif "fraction" in m or "_ratio" in m or m.endswith(("_error", "_drift")):
            assert unit == DIMENSIONLESS, m
        elif m.endswith("_hz"):
            assert unit == "Hz", m
        elif "energy" in m:
            assert unit == "J", m
        elif "accel" in m:
            assert unit == "m/s²", m
        elif "force" in m:
            assert unit == "N", m
        elif "torque" in m:
            assert unit == "N m", m
        elif m in ("dt", "stable_dt", "wall_time_s"):
            assert unit == "s", m
        elif "deflection" in m or "shortening" in m or "drift" in m:
            assert unit == "m", m
        else:
            assert unit == "count", m


def test_the_labels_the_issue_named():
    assert metric_label("peak_kinetic_energy") == "Peak kinetic energy [J]"
    assert metric_label("max_penetration") == "Max penetration [µm]"
    assert metric_label("max_penetration_steady") == "Max penetration (last revolution) [µm]"
    assert metric_label("onset_penetration_error") == "Onset penetration error [µm]"
    assert metric_label("max_free_flight_penetration") == "Max free-flight penetration [µm]"
    assert metric_label("deviation_rms_slider_accel") == (
        "Deviation of RMS slider acceleration from the ideal joint [–]")
    assert metric_label("deviation_peak_slider_accel") == (
        "Deviation of peak slider acceleration from the ideal joint [–]")


def test_penetrations_are_scaled_to_micrometres_and_nothing_else_is():
    for m in every_metric():
        assert metric_scale(m) == (1e6 if m in PENETRATIONS else 1.0), m
    assert metric_display("max_penetration", 1.52726e-5) == pytest.approx(15.2726, rel=1e-12)
    assert metric_display("peak_slider_accel", 12345.6) == 12345.6
    assert metric_display("impacts", 7) == 7 and isinstance(metric_display("impacts", 7), int)
    for value in (None, True, "n/a"):
        assert metric_display("max_penetration", value) is value


def test_every_parameter_label_carries_the_registry_unit():
    for model in MODELS:
        for p in registry.model_parameters(model):
            title, unit = parameter_parts(p.name)
            assert parameter_label(p.name) == f"{p.label} [{p.unit or DIMENSIONLESS}]"
            assert (title, unit) == (p.label, p.unit or DIMENSIONLESS)
    assert parameter_label("clearance_mm") == "Clearance [mm]"
    assert parameter_label("speed_rpm") == "Crank speed [rpm]"
    assert parameter_label("stiffness_scale") == "Stiffness scale [–]"
    assert parameter_label("friction_velocity") == "Friction velocity v0 [m/s]"
    assert parameter_label("youngs_modulus") == "Young's modulus [Pa]"
    # a name no model registers yet: titled from its words, unit from its suffix
    assert parameter_label("axial_length_mm") == "Axial length [mm]"


def test_legend_names_use_the_registry_symbol_and_unit():
    assert level_name("clearance_mm", 0.05) == "c = 0.05 mm"
    assert level_name("stiffness_scale", 0.7) == "stiffness ×0.7"
    assert level_name("restitution", 0.9) == "cr = 0.9"
    assert level_name("speed_rpm", 3000.0) == "speed = 3000 rpm"
    assert level_name("contact_law", "hertz") == "contact law = hertz"


# --- the µm shown where the metric is shown ------------------------------------------------

PEN = {0.02: 2.0e-6, 0.05: 7.5e-6, 0.1: 1.52726e-5}  # m, by clearance [mm]


def _cases() -> list[dict]:
    return [{"id": i, "status": "done", "params": {"clearance_mm": c},
             "metrics": {"max_penetration": pen, "peak_slider_accel": 1e4 * (1 + c)}}
            for i, (c, pen) in enumerate(PEN.items())]


def test_trends_show_penetration_in_micrometres_and_accelerations_as_stored():
    fig = trend_figure(_cases(), "max_penetration", group_axis=None,
                       twin_metrics={"max_penetration": 1e-6})
    assert fig.layout.yaxis.title.text == "Max penetration [µm]"
    np.testing.assert_allclose(fig.data[0].y, [1e6 * p for p in PEN.values()], rtol=1e-12)
    np.testing.assert_allclose(fig.data[-1].y, [1.0, 1.0], rtol=1e-12)  # the twin, in µm
    accel = trend_figure(_cases(), "peak_slider_accel", group_axis=None)
    np.testing.assert_array_equal(accel.data[0].y, [1e4 * (1 + c) for c in PEN])


def test_parallel_coordinates_show_penetration_in_micrometres():
    fig = parallel_figure(_cases(), ["clearance_mm"], "max_penetration")
    dims = fig.data[0].dimensions
    assert dims[-1].label == "Max penetration [µm]"
    np.testing.assert_allclose(dims[-1].values, [1e6 * p for p in PEN.values()], rtol=1e-12)


def test_tables_show_penetration_in_micrometres():
    header = {c["field"]: c["headerName"]
              for c in case_grid.column_defs({"clearance_mm": "number"})}
    assert header["max_penetration"] == "Max penetration [µm]"
    rows = [case_grid.shown_row({"id": c["id"], **c["metrics"]}) for c in _cases()]
    assert [r["max_penetration"] for r in rows] == [2.0, 7.5, 15.2726]
    # a filter typed in µm compares with the stored metres; other metrics are unscaled
    typed = {"max_penetration": {"filterType": "number", "type": "greaterThan", "filter": 7.5},
             "peak_slider_accel": {"filterType": "number", "type": "lessThan", "filter": 3.0}}
    stored = case_grid.stored_units(typed)
    assert stored["max_penetration"]["filter"] == pytest.approx(7.5e-6, rel=1e-12)
    assert stored["peak_slider_accel"] == typed["peak_slider_accel"]
    metric_rows = case_view.metric_rows(_cases()[2]["metrics"], counters=False)
    assert {"quantity": "Max penetration [µm]", "value": "15.2726"} in metric_rows
    _, side = case_view.side_by_side(_cases())
    row = next(r for r in side if r["name"] == "Max penetration [µm]")
    assert [row[str(i)] for i in range(3)] == ["2", "7.5", "15.2726"]


def test_tornado_morris_and_convergence_show_penetration_in_micrometres():
    rows = [{"axis": "stiffness_scale", "low": 0.7, "high": 1.3, "metric_low": 1.2e-5,
             "metric_high": 0.8e-5, "nominal_metric": 1e-5}]
    fig = tornado_figure({"tornado": {"max_penetration": rows}}, "max_penetration")
    assert fig.layout.xaxis.title.text == "Max penetration [µm]"
    low, high = fig.data
    assert low.base[0] == pytest.approx(10.0) and low.x[0] == pytest.approx(2.0)
    assert high.x[0] == pytest.approx(-2.0) and high.customdata[0][1] == pytest.approx(8.0)
    morris = morris_figure({"indices": {"max_penetration": {
        "clearance_mm": {"mu_star": 3e-6, "mu_star_conf": 1e-7, "sigma": 2e-6}}}},
        "max_penetration")
    assert morris.data[0].x[0] == pytest.approx(3.0) and morris.data[0].y[0] == pytest.approx(2.0)
    assert morris.data[0].error_x.array[0] == pytest.approx(0.1)
    conv = convergence_figure({"metric": "max_penetration", "axis": "rtol",
                               "levels": [1e-6, 1e-7, 1e-8],
                               "values": [1.01e-5, 1.001e-5, math.nan],
                               "richardson_estimate": 1e-5})
    assert list(conv.data[0].y[:2]) == pytest.approx([10.1, 10.01])
    assert conv.data[0].y[2] is None
    assert list(conv.data[1].y) == pytest.approx([10.0, 10.0])


def test_the_forms_rows_take_units_and_kinds_from_the_registry():
    from gapsweep.web.views import parameters as form

    for model in MODELS:
        rows = form.parameter_rows(model)
        assert [r["name"] for r in rows] == list(MODELS[model].defaults())
        for row in rows:
            entry = registry.find(row["name"], model)
            assert (row["unit"], row["kind"]) == (entry.unit, entry.kind)
            assert row["value"] == ""
    rows = {r["name"]: r for r in form.parameter_rows("slider-crank")}
    assert rows["clearance_mm"] == {"name": "clearance_mm", "unit": "mm", "kind": "joint",
                                    "default": "0.5", "value": ""}
    assert rows["max_step"]["default"] == "inf" and rows["gravity"]["unit"] == "m/s²"
    assert form.label("clearance_mm") == "clearance_mm [mm]"
    assert form.label("restitution") == "restitution"
