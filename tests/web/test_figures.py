"""Study-level figures (trends, sensitivity, convergence, parallel): traces, data, axes."""

from __future__ import annotations

import numpy as np
import pytest
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


def test_trend_of_the_5x3_grid_is_3_lines_of_5_points_plus_the_baseline():
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


def test_trend_steady_reads_the_last_revolution_metric_and_its_baseline():
    fig = trend_figure(grid_cases(), steady=True, twin_metrics=TWIN, log_y=True)
    assert list(fig.data[0].y) == [_peak(c, 0.7) / 2 for c in CLEARANCES]
    assert list(fig.data[-1].y) == [4000.0, 4000.0]
    assert fig.layout.yaxis.type == "log"
    assert fig.layout.yaxis.title.text == (
        "Peak slider acceleration (last revolution) [m/s²]"
    )


def test_trend_without_twin_metric_has_no_baseline():
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
        ("max_penetration", "Max penetration [m]"),
        ("peak_driving_torque", "Peak driving torque [N m]"),
        ("deviation_peak_slider_accel", "Deviation of peak slider acceleration from the ideal "
         "joint [–]"),
    ],
)
def test_trend_axis_titles_carry_units(metric, title):
    fig = trend_figure(grid_cases(), metric, x_axis="stiffness_scale", group_axis="clearance_mm")
    assert fig.layout.yaxis.title.text == title
    assert fig.layout.xaxis.title.text == "Stiffness scale [–]"
