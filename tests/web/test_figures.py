"""Study-level figures (trends, sensitivity, convergence, parallel): traces, data, axes."""

from __future__ import annotations

import numpy as np
import pytest
from gapsweep.study.analysis import analyse, convergence_summary
from gapsweep.study.designs import plan_study
from gapsweep.study.spec import parse_spec
from gapsweep.web.figures.convergence import convergence_figure
from gapsweep.web.figures.parallel import parallel_figure
from gapsweep.web.figures.sensitivity import (
    coefficients_figure,
    morris_figure,
    sobol_figure,
    tornado_figure,
    tornado_rows,
)
from gapsweep.web.figures.trends import trend_figure, trend_lines

CLEARANCES = (0.02, 0.04, 0.06, 0.08, 0.1)
STIFFNESS = (0.7, 1.0, 1.3)


def _peak(c: float, k: float) -> float:
    # an arbitrary, distinct value per case, so a mixed-up point is visible
    return 1e4 * (1 + 10 * c) * k


def grid_cases(failed: set[tuple[float, float]] = frozenset()) -> list[dict]:
    """The user's 5 x 3 study (clearance x stiffness), as the db layer returns cases."""
    cases = []
    for i, (k, c) in enumerate((k, c) for k in STIFFNESS for c in CLEARANCES):
        bad = (c, k) in failed
        cases.append(
            {
                "id": 100 + i,
                "params": {"clearance_mm": c, "stiffness_scale": k},
                "status": "failed" if bad else "done",
                "metrics": {}
                if bad
                else {
                    "peak_slider_accel": _peak(c, k),
                    "peak_slider_accel_steady": _peak(c, k) / 2,
                    "rms_slider_accel": None if (c, k) == (0.1, 1.3) else 1.0,
                },
            }
        )
    return cases


TWIN = {"peak_slider_accel": 9000.0, "peak_slider_accel_steady": 4000.0}


def test_trend_of_the_5x3_grid_is_3_lines_of_5_points_plus_the_twin_line():
    fig = trend_figure(grid_cases(), twin_metrics=TWIN)
    assert len(fig.data) == 4
    for trace, k in zip(fig.data[:3], STIFFNESS, strict=True):
        assert trace.name == f"stiffness ×{k:g}"
        np.testing.assert_array_equal(trace.x, CLEARANCES)
        np.testing.assert_array_equal(trace.y, [_peak(c, k) for c in CLEARANCES])
    base = fig.data[3]
    assert base.name == "ideal joint" and base.line.dash == "dash"
    assert list(base.x) == [0.02, 0.1] and list(base.y) == [9000.0, 9000.0]
    assert fig.layout.xaxis.title.text == "Clearance [mm]"
    assert fig.layout.yaxis.title.text == "Peak slider acceleration [m/s²]"
    assert "<sup>" not in fig.layout.title.text  # nothing skipped, no subtitle


def test_trend_steady_reads_the_last_revolution_metric_and_its_twin_line():
    fig = trend_figure(grid_cases(), steady=True, twin_metrics=TWIN, log_y=True)
    assert list(fig.data[0].y) == [_peak(c, 0.7) / 2 for c in CLEARANCES]
    assert list(fig.data[-1].y) == [4000.0, 4000.0]
    assert fig.layout.yaxis.type == "log"
    assert fig.layout.yaxis.title.text == ("Peak slider acceleration (last revolution) [m/s²]")


def test_trend_without_twin_metric_has_no_twin_line():
    fig = trend_figure(grid_cases(), twin_metrics={"peak_slider_accel": None})
    assert len(fig.data) == 3
    assert all(t.name != "ideal joint" for t in fig.data)
    assert len(trend_figure(grid_cases()).data) == 3


def test_trend_skips_failed_and_valueless_cases_and_counts_them():
    cases = grid_cases(failed={(0.04, 0.7), (0.1, 1.0)})
    fig = trend_figure(cases, twin_metrics=TWIN)
    assert [len(t.x) for t in fig.data[:3]] == [4, 4, 5]
    assert 0.04 not in list(fig.data[0].x)
    assert "2 of 15 cases skipped" in fig.layout.title.text
    rms = trend_figure(cases, "rms_slider_accel")
    assert [len(t.x) for t in rms.data] == [4, 4, 4]
    assert "3 of 15 cases skipped" in rms.layout.title.text
    assert rms.layout.yaxis.title.text == "RMS slider acceleration [m/s²]"


def test_trend_lines_sorts_points_by_x_whatever_the_case_order():
    lines, skipped = trend_lines(grid_cases()[::-1], "peak_slider_accel", "clearance_mm", None)
    assert skipped == 0 and list(lines) == [None]
    x, y = lines[None]
    assert list(x) == sorted(x) and len(x) == 15


@pytest.mark.parametrize(
    ("metric", "title"),
    [
        ("peak_contact_force", "Peak contact force [N]"),
        ("max_penetration", "Max penetration [µm]"),
        ("peak_driving_torque", "Peak driving torque [N m]"),
        (
            "deviation_peak_slider_accel",
            "Deviation of peak slider acceleration from the ideal joint [–]",
        ),
    ],
)
def test_trend_axis_titles_carry_units(metric, title):
    fig = trend_figure(grid_cases(), metric, x_axis="stiffness_scale", group_axis="clearance_mm")
    assert fig.layout.yaxis.title.text == title
    assert fig.layout.xaxis.title.text == "Stiffness scale [–]"


# --- sensitivity ---------------------------------------------------------------------------

TORNADO = {
    "tornado": [
        # swings: stiffness 3000, restitution 500, friction 12000, speed missing
        {
            "axis": "stiffness_scale",
            "low": 0.7,
            "high": 1.3,
            "metric_low": 9000.0,
            "metric_high": 12000.0,
            "nominal_metric": 10000.0,
        },
        {
            "axis": "restitution",
            "low": 0.63,
            "high": 1.0,
            "metric_low": 10300.0,
            "metric_high": 9800.0,
            "nominal_metric": 10000.0,
        },
        {
            "axis": "friction",
            "low": 0.007,
            "high": 0.013,
            "metric_low": 4000.0,
            "metric_high": 16000.0,
            "nominal_metric": 10000.0,
        },
        {
            "axis": "speed_rpm",
            "low": 3500,
            "high": 6500,
            "metric_low": None,
            "metric_high": 15000.0,
            "nominal_metric": 10000.0,
        },
    ]
}


def test_tornado_sorts_factors_by_swing_and_bars_start_at_the_nominal():
    fig = tornado_figure(TORNADO)
    assert [t.name for t in fig.data] == ["low", "high"]
    order = ["friction", "stiffness_scale", "restitution", "speed_rpm"]
    for trace in fig.data:
        assert list(trace.y) == order
        assert list(trace.base) == [10000.0] * 4
    assert list(fig.data[0].x) == [-6000.0, -1000.0, 300.0, None]
    assert list(fig.data[1].x) == [6000.0, 2000.0, -200.0, 5000.0]
    assert fig.layout.yaxis.autorange == "reversed"  # largest swing on top
    assert list(fig.layout.yaxis.categoryarray) == order
    assert fig.layout.xaxis.title.text == "Peak slider acceleration [m/s²]"
    assert [s.x0 for s in fig.layout.shapes] == [10000.0]


def test_tornado_rows_per_metric_dict():
    per_metric = {"tornado": {"peak_contact_force": TORNADO["tornado"][:2]}}
    rows = tornado_rows(per_metric, "peak_contact_force")
    assert [r["axis"] for r in rows] == ["stiffness_scale", "restitution"]
    assert tornado_figure(per_metric, "peak_contact_force").layout.xaxis.title.text == (
        "Peak contact force [N]"
    )


def test_coefficients_coloured_low_and_high_as_the_tornado():
    """One colour meaning on the page: the coefficients' bars are coloured by the level's
    side of the nominal, as the tornado's bars are (they were coloured by factor)."""
    analysis = {
        "nominal": {"stiffness_scale": 1.0, "restitution": 0.9},
        "coefficients": {
            "peak_slider_accel": {
                "stiffness_scale": [
                    {"value": 0.7, "coefficient": 0.33},
                    {"value": 1.3, "coefficient": 0.67},
                ],
                "restitution": [{"value": 0.63, "coefficient": -0.1}],
            }
        }
    }
    fig = coefficients_figure(analysis)
    low, high = fig.data
    assert (low.name, high.name) == ("low level", "high level")
    assert list(low.x) == ["stiffness ×0.7", "cr = 0.63"] and list(low.y) == [0.33, -0.1]
    assert list(high.x) == ["stiffness ×1.3"] and list(high.y) == [0.67]
    assert fig.layout.xaxis.categoryarray == ("stiffness ×0.7", "stiffness ×1.3", "cr = 0.63")
    assert fig.layout.yaxis.title.text.endswith("[–]")
    tornado = tornado_figure({"tornado": {}, "nominal": {}})
    assert [t.marker.color for t in tornado.data] == [low.marker.color, high.marker.color]


SOBOL = {
    "indices": {
        "peak_slider_accel": {
            "clearance_mm": {"S1": 0.6, "S1_conf": 0.05, "ST": 0.7, "ST_conf": 0.08},
            "stiffness_scale": {"S1": 0.2, "S1_conf": 0.03, "ST": 0.3, "ST_conf": None},
        }
    }
}


def test_sobol_bars_with_error_bars_equal_to_the_conf_values():
    fig = sobol_figure(SOBOL)
    s1, st = fig.data
    assert list(s1.x) == ["clearance_mm", "stiffness_scale"] == list(st.x)
    assert list(s1.y) == [0.6, 0.2] and list(st.y) == [0.7, 0.3]
    assert list(s1.error_y.array) == [0.05, 0.03]
    assert list(st.error_y.array) == [0.08, None]
    assert fig.layout.yaxis.title.text == "Sobol index [–]"


def test_morris_scatter_of_mu_star_against_sigma_with_labels():
    analysis = {
        "indices": {
            "rms_slider_accel": {
                "clearance_mm": {"mu_star": 500.0, "mu_star_conf": 50.0, "sigma": 300.0},
                "friction": {"mu_star": 20.0, "mu_star_conf": 4.0, "sigma": 5.0},
            }
        }
    }
    fig = morris_figure(analysis, "rms_slider_accel")
    (trace,) = fig.data
    assert list(trace.text) == ["clearance_mm", "friction"]
    assert list(trace.x) == [500.0, 20.0] and list(trace.y) == [300.0, 5.0]
    assert list(trace.error_x.array) == [50.0, 4.0]
    assert fig.layout.xaxis.title.text.endswith("[m/s²]")
    assert fig.layout.yaxis.title.text.endswith("[m/s²]")
    assert fig.layout.title.text == "Morris screening: RMS slider acceleration"


def test_tornado_and_coefficients_read_the_study_analysis_output():
    # the real one-at-a-time analysis (gapsweep.study.analysis), metrics made up per case
    spec = parse_spec(
        {
            "name": "oat",
            "design": "one-at-a-time",
            "axes": {
                "restitution": {"values": [0.63, 0.9, 1.0], "nominal": 0.9},
                "stiffness_scale": {"values": [0.7, 1.0, 1.3], "nominal": 1.0},
            },
        }
    )
    plan = plan_study(spec)
    metrics = [
        {"peak_contact_force": 1e4 * p["stiffness_scale"] + 100 * p["restitution"]}
        for p in plan.cases
    ]
    analysis = analyse(spec, plan, metrics)
    fig = tornado_figure(analysis, "peak_contact_force")
    assert list(fig.data[0].y) == ["stiffness_scale", "restitution"]  # swing 6000 > 37
    nominal = 1e4 + 90
    assert list(fig.data[0].base) == pytest.approx([nominal, nominal])
    assert list(fig.data[0].x) == pytest.approx([7090 - nominal, 10063 - nominal])
    assert list(fig.data[1].x) == pytest.approx([13090 - nominal, 10100 - nominal])
    coef = coefficients_figure(analysis, "peak_contact_force")
    low, high = coef.data
    stiff = [y for x, y in zip(low.x + high.x, low.y + high.y, strict=True) if "stiffness" in x]
    assert stiff == pytest.approx([(3000 / nominal) / 0.3] * 2)


# --- convergence ---------------------------------------------------------------------------


def test_convergence_metric_vs_level_with_richardson_order_and_verdict():
    # f = 100 + 5 h^2 at h = 0.4, 0.2, 0.1: order 2, limit 100 (the core's own analysis)
    levels = [0.4, 0.2, 0.1]
    values = [100 + 5 * h**2 for h in levels]
    analysis = {
        "axis": "max_step",
        "metric": "peak_contact_force",
        **convergence_summary(levels, values),
    }
    fig = convergence_figure(analysis)
    line, richardson = fig.data
    assert list(line.x) == levels and list(line.y) == pytest.approx(values)
    assert richardson.name == "Richardson estimate" and richardson.line.dash == "dash"
    assert list(richardson.x) == [0.1, 0.4]
    assert list(richardson.y) == pytest.approx([100.0, 100.0])
    assert fig.layout.xaxis.type == "log"
    assert list(fig.layout.xaxis.tickvals) == levels  # labelled at each level, none between
    assert fig.layout.xaxis.title.text == "Max step [s]"
    assert fig.layout.yaxis.title.text == "Peak contact force [N]"
    assert "observed order 2.00" in fig.layout.title.text
    assert analysis["verdict"] in fig.layout.title.text
    assert analysis["verdict"].startswith("converged")  # last change 0.15 % < 1 %


def test_convergence_without_richardson_estimate_and_unjudged_analyses():
    # oscillating changes: an order but no extrapolation (None once JSON-ready)
    analysis = {
        "axis": "rtol",
        "metric": "peak_slider_accel",
        **convergence_summary([1e-4, 1e-5, 1e-6], [10.0, 10.2, 10.15]),
    }
    assert analysis["richardson_estimate"] is None
    fig = convergence_figure(analysis)
    assert len(fig.data) == 1
    assert fig.layout.xaxis.title.text == "Relative tolerance [–]"
    waiting = convergence_figure({"incomplete": 2}, metric="peak_contact_force", axis="rtol")
    assert len(waiting.data) == 0 and "waiting for 2 cases" in waiting.layout.title.text
    err = convergence_figure({"axis": "rtol", "metric": "impacts", "error": "levels: bad"})
    assert len(err.data) == 0 and "levels: bad" in err.layout.title.text
    assert err.layout.yaxis.title.text == "Impacts [count]"


# --- parallel coordinates ------------------------------------------------------------------


def test_parallel_coordinates_one_dimension_per_axis_plus_the_metric():
    cases = [
        {
            "id": i,
            "status": "failed" if i == 3 else "done",
            "params": {"clearance_mm": c, "stiffness_scale": k, "contact_law": law},
            "metrics": {"peak_contact_force": 1000.0 * i},
        }
        for i, (c, k, law) in enumerate(
            [
                (0.02, 0.7, "hertz"),
                (0.05, 1.0, "lankarani-nikravesh"),
                (0.1, 1.3, "hertz"),
                (0.1, 0.7, "hertz"),
            ]
        )
    ]
    fig = parallel_figure(
        cases, ["clearance_mm", "stiffness_scale", "contact_law"], "peak_contact_force"
    )
    (trace,) = fig.data
    dims = trace.dimensions
    assert [d.label for d in dims] == [
        "Clearance [mm]",
        "Stiffness scale [–]",
        "Contact law [–]",
        "Peak contact force [N]",
    ]
    assert list(dims[0].values) == [0.02, 0.05, 0.1]
    assert list(dims[2].values) == [0, 1, 0]
    assert list(dims[2].ticktext) == ["hertz", "lankarani-nikravesh"]
    assert list(dims[3].values) == [0.0, 1000.0, 2000.0] == list(trace.line.color)
    assert "1 of 4 cases skipped" in fig.layout.title.text


def test_crossings_of_a_limit_interpolate_and_count_a_touch_once():
    from gapsweep.web.figures.trends import crossings

    assert crossings([0, 1, 2], [0, 10, 0], 5) == [0.5, 1.5]  # up and down again
    assert crossings([0, 1, 2], [0, 5, 10], 5) == [1.0]  # through a point on the limit
    assert crossings([0, 1], [5, 5], 5) == [0.0, 1.0]  # along the limit: its ends
    assert crossings([0, 1, 2], [1, 2, 3], 5) == []  # never reaches it
    assert crossings(["a", "b"], [0, 10], 5) == []  # text x: no crossing to speak of


def test_a_crossing_between_two_classes_of_motion_says_so():
    """Issue 35.6: the limit's crossing interpolated between a periodic and a chaotic case
    was drawn without a word."""
    from gapsweep.web.figures.trends import trend_figure

    def case(cid, c, peak, motion):
        return {"id": cid, "status": "done", "params": {"clearance_mm": c},
                "metrics": {"peak_slider_accel": peak, "motion": motion}}

    cases = [case(1, 0.02, 100.0, "periodic-1"), case(2, 0.05, 200.0, "periodic-1"),
             case(3, 0.08, 400.0, "chaotic")]
    fig = trend_figure(cases, "peak_slider_accel", x_axis="clearance_mm", group_axis=None,
                       limit=150.0)
    (mark,) = [t for t in fig.data if "crosses at" in (t.name or "")]
    assert list(mark.x) == [0.035] and "change of motion" not in mark.name  # one branch
    fig = trend_figure(cases, "peak_slider_accel", x_axis="clearance_mm", group_axis=None,
                       limit=300.0)
    (mark,) = [t for t in fig.data if "crosses at" in (t.name or "")]
    assert list(mark.x) == pytest.approx([0.065])
    assert mark.name.endswith("between a periodic-1 and a chaotic case: interpolated across "
                              "a change of motion")
