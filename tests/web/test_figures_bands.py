"""Trends of a large study (issue 41.2): past the point limit the median and the min-max band
per x level and group, equal to numpy's on the same numbers; a click on a level gives the
case grid's filter for it; a study under the limit keeps its points."""

from __future__ import annotations

import numpy as np
from gapsweep.web.figures import trend_bands
from gapsweep.web.figures.labels import metric_scale
from gapsweep.web.views import study_results

METRIC = "peak_slider_accel"


def _cases(n_x: int, n_group: int, per: int, seed: int = 5):
    rng = np.random.default_rng(seed)
    cases, k = [], 0
    for i in range(n_x):
        for g in range(n_group):
            for _ in range(per):
                k += 1
                cases.append({"id": k, "status": "done" if k % 13 else "failed",
                              "params": {"clearance_mm": 0.01 * (i + 1), "stiffness_scale":
                                         0.5 + g, "friction": float(rng.random())},
                              "metrics": {METRIC: float(rng.lognormal(8, 0.5))}})
    return cases


def _detail(cases):
    return {"id": 1, "model": "slider-crank", "status": "done", "twins": [], "cases": cases,
            "spec": {"design": "grid", "axes": {"clearance_mm": {}, "stiffness_scale": {},
                                                "friction": {}}}}


def test_the_band_is_the_median_and_extremes_of_each_level_and_group():
    cases = _cases(30, 3, 70)  # 6,300 cases
    fig = trend_bands.band_figure(cases, METRIC, x_axis="clearance_mm",
                                  group_axis="stiffness_scale")
    medians = [t for t in fig.data if t.name and "median" in t.name]
    assert len(medians) == 3
    scale = metric_scale(METRIC)
    for g, trace in enumerate(medians):
        for j, x in enumerate(trace.x):
            ys = [c["metrics"][METRIC] * scale for c in cases if c["status"] == "done"
                  and c["params"]["stiffness_scale"] == 0.5 + g
                  and c["params"]["clearance_mm"] == x]
            assert trace.y[j] == np.median(ys)
            assert f"min {min(ys):.6g}, max {max(ys):.6g}, {len(ys)} cases" in trace.text[j]
            assert list(trace.customdata[j]) == ["level", x, x]
    points = sum(len(t.x) for t in fig.data)
    assert points < len(cases) / 10  # the figure grows with the levels, not the cases


def test_a_continuous_axis_is_binned_and_a_click_filters_the_grid_to_the_bin():
    cases = _cases(10, 1, 600)  # friction: 6,000 distinct values
    fig = trend_bands.band_figure(cases, METRIC, x_axis="friction", group_axis=None)
    median = next(t for t in fig.data if t.name and "median" in t.name)
    assert len(median.x) == trend_bands.MAX_LEVELS
    _, low, high = median.customdata[0]
    inside = [c for c in cases if c["status"] == "done" and low <= c["params"]["friction"] <= high]
    assert int(median.text[0].split(", ")[-1].split()[0]) == len(inside)
    click = {"points": [{"customdata": list(median.customdata[0])}]}
    assert trend_bands.level_filter("friction", trend_bands.clicked_level(click)) == {
        "friction": {"filterType": "number", "type": "inRange", "filter": low,
                     "filterTo": high}}
    assert trend_bands.clicked_level({"points": [{"customdata": [17]}]}) is None


def test_the_trends_tab_draws_points_under_the_limit_and_bands_past_it():
    small = study_results.trends(_detail(_cases(10, 3, 10)), metric=METRIC,
                                 x_axis="clearance_mm", group_axis="stiffness_scale",
                                 window="whole")
    assert not any(t.name and "median" in t.name for t in small.data)
    big = study_results.trends(_detail(_cases(30, 3, 70)), metric=METRIC,
                               x_axis="clearance_mm", group_axis="stiffness_scale",
                               window="whole")
    assert sum(bool(t.name and "median" in t.name) for t in big.data) == 3
