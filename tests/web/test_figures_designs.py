"""The trends of each design (issue 20): one panel per factor for one-at-a-time (nominal
marked, the twins' line), a coloured scatter for sampled designs, a grid's third axis on
lines of its own, hover texts with units and case ids, text-valued axes."""

from __future__ import annotations

import pytest
from gapsweep.study.designs import plan_study
from gapsweep.study.spec import parse_spec
from gapsweep.web.figures.hover import quantity
from gapsweep.web.figures.trends import (
    NOMINAL_NAME,
    TWIN_NAME,
    factor_runs,
    one_at_a_time_figure,
    scatter_figure,
    trend_figure,
)
from gapsweep.web.views import study_view as view


def peak(p: dict) -> float:
    # distinct per case and monotone in each factor, so a mixed-up point shows
    return 1e4 * (1 + 10 * p["clearance_mm"]) * p.get("stiffness_scale", 1.0) * (
        p.get("speed_rpm", 3000.0) / 3000.0) ** 2


def twin_peak(speed: float) -> float:
    return 5e3 * (speed / 3000.0) ** 2


def study_cases(spec: dict) -> tuple[list[dict], list[dict]]:
    """A planned study's cases and twins as ``show --json`` lists them, all done."""
    plan = plan_study(parse_spec(spec))
    twins = [{"id": 900 + j, "params": t, "status": "done", "twin_id": None,
              "metrics": {"peak_slider_accel": twin_peak(t.get("speed_rpm", 3000.0))}}
             for j, t in enumerate(plan.twins)]
    cases = [{"id": 100 + i, "params": p, "status": "done",
              "twin_id": None if plan.twin_of[i] is None else 900 + plan.twin_of[i],
              "metrics": {"peak_slider_accel": peak(p)}}
             for i, p in enumerate(plan.cases)]
    return cases, twins


OAT = {"name": "oat", "design": "one-at-a-time", "ideal_twin": True, "axes": {
    "clearance_mm": {"values": [0.02, 0.05, 0.1], "nominal": 0.05},
    "speed_rpm": {"nominal": 3000, "relative_percent": 20, "levels": 3},
    "stiffness_scale": {"values": [0.5, 1.0, 1.5], "nominal": 1.0}}}


def test_one_at_a_time_is_one_panel_per_factor_against_its_own_values():
    cases, twins = study_cases(OAT)
    axes = list(OAT["axes"])
    fig = one_at_a_time_figure(cases, axes=axes, twins=twins)
    lines = [t for t in fig.data if t.mode == "lines+markers"]
    assert [t.meta for t in lines] == axes
    assert [t.name for t in lines] == ["Clearance", "Crank speed", "Stiffness scale"]
    want_x = {"clearance_mm": [0.02, 0.05, 0.1], "speed_rpm": [2400, 3000, 3600],
              "stiffness_scale": [0.5, 1.0, 1.5]}
    nominal = {"clearance_mm": 0.05, "speed_rpm": 3000.0, "stiffness_scale": 1.0}
    for line in lines:
        assert list(line.x) == pytest.approx(want_x[line.meta])
        # the other factors stay at their nominal: the metric is the model's at those points
        assert list(line.y) == pytest.approx(
            [peak({**nominal, line.meta: x}) for x in want_x[line.meta]])
        assert fig.layout[line.xaxis.replace("x", "xaxis")].title.text.startswith(
            {"clearance_mm": "Clearance [mm]", "speed_rpm": "Crank speed [rpm]",
             "stiffness_scale": "Stiffness scale"}[line.meta])
    # one nominal star per panel, on the nominal case, one legend entry
    stars = [t for t in fig.data if t.name == NOMINAL_NAME]
    assert len(stars) == 3 and [t.showlegend for t in stars] == [True, False, False]
    assert {s.customdata[0][0] for s in stars} == {100}
    assert [s.y[0] for s in stars] == pytest.approx([peak(nominal)] * 3)
    # the twins' line: constant over clearance and stiffness, the twin's along speed
    base = {t.meta: t for t in fig.data if t.name == TWIN_NAME}
    assert set(base) == set(axes)
    assert list(base["clearance_mm"].y) == pytest.approx([twin_peak(3000)] * 3)
    assert list(base["speed_rpm"].x) == pytest.approx([2400, 3000, 3600])
    assert list(base["speed_rpm"].y) == pytest.approx([twin_peak(s) for s in (2400, 3000, 3600)])
    # each twin line lies in its own panel
    for t in base.values():
        line = next(x for x in lines if x.meta == t.meta)
        assert (t.xaxis, t.yaxis) == (line.xaxis, line.yaxis)


def test_one_at_a_time_runs_share_only_the_nominal_case():
    cases, _ = study_cases(OAT)
    runs = factor_runs(cases, list(OAT["axes"]), cases[0]["params"])
    assert [len(r) for r in runs.values()] == [3, 3, 3]
    assert all(r[0]["id"] == 100 or 100 in {c["id"] for c in r} for r in runs.values())
    assert sum(len(r) for r in runs.values()) == len(cases) + 2  # the nominal in all three


LHS = {"name": "lhs", "design": "latin-hypercube", "samples": 40, "seed": 3,
       "ideal_twin": True, "axes": {
           "clearance_mm": {"start": 0.02, "stop": 0.1, "count": 2},
           "stiffness_scale": {"nominal": 1.0, "relative_percent": 30, "levels": 3}}}


def test_latin_hypercube_is_one_scatter_coloured_by_the_second_factor():
    cases, twins = study_cases(LHS)
    fig = scatter_figure(cases, x_axis="clearance_mm", color_axis="stiffness_scale",
                         twin_metrics=twins[0]["metrics"])
    points, base = fig.data
    assert points.mode == "markers" and len(points.x) == 40
    by_id = {c["id"]: c for c in cases}
    for x, y, k, (cid,) in zip(points.x, points.y, points.marker.color, points.customdata,
                               strict=True):
        p = by_id[cid]["params"]
        assert (x, k) == (p["clearance_mm"], p["stiffness_scale"])
        assert y == pytest.approx(peak(p))
    assert points.marker.showscale is True
    assert points.marker.colorbar.title.text == "Stiffness scale [–]"
    assert base.name == TWIN_NAME and list(base.y) == [twin_peak(3000)] * 2
    assert fig.layout.xaxis.title.text == "Clearance [mm]"


def test_text_valued_colour_factor_is_one_legend_entry_per_value():
    cases = [{"id": i, "status": "done", "params": {"clearance_mm": 0.01 * (i + 1),
              "stiffness_model": ("hertz-sphere", "johnson")[i % 2]},
              "metrics": {"peak_slider_accel": 100.0 * i}} for i in range(6)]
    fig = scatter_figure(cases, x_axis="clearance_mm", color_axis="stiffness_model")
    assert [t.name for t in fig.data] == ["stiffness model = hertz-sphere",
                                          "stiffness model = johnson"]
    assert [len(t.x) for t in fig.data] == [3, 3]
    # and as the x axis of a grid trend: a categorical axis, one point per value
    grid = trend_figure(cases, x_axis="stiffness_model", group_axis="clearance_mm")
    assert sorted(x for t in grid.data for x in t.x) == ["hertz-sphere"] * 3 + ["johnson"] * 3


def test_a_grid_third_axis_gets_lines_of_its_own_not_a_zigzag():
    spec = {"name": "g", "design": "grid", "axes": {
        "clearance_mm": {"values": [0.02, 0.05, 0.1]},
        "stiffness_scale": {"values": [0.7, 1.3]},
        "speed_rpm": {"values": [2000, 4000]}}}
    cases, twins = study_cases(spec)
    fig = trend_figure(cases, x_axis="clearance_mm", group_axis="stiffness_scale",
                       other_axes=["speed_rpm"], twins=twins)
    lines = [t for t in fig.data if t.name != TWIN_NAME]
    assert len(lines) == 4 and all(list(t.x) == [0.02, 0.05, 0.1] for t in lines)
    assert lines[0].name == "stiffness ×0.7, speed = 2000 rpm"
    for t in lines:
        assert list(t.y) == sorted(t.y)  # monotone in clearance: no zigzag
    # twins change along speed, a line attribute here: no single twin line to draw
    assert all(t.name != TWIN_NAME for t in fig.data)
    by_speed = trend_figure(cases, x_axis="speed_rpm", group_axis="clearance_mm",
                            other_axes=["stiffness_scale"], twins=twins)
    base = by_speed.data[-1]
    assert base.name == TWIN_NAME
    assert list(base.y) == pytest.approx([twin_peak(2000), twin_peak(4000)])


def test_hover_names_the_units_and_the_case():
    cases = [{"id": 123, "status": "done", "params": {"clearance_mm": 0.1,
              "stiffness_scale": 1.0}, "metrics": {"peak_slider_accel": 30374.05}}]
    fig = trend_figure(cases)
    assert fig.data[0].text[0] == ("c = 0.1 mm · stiffness ×1 · "
                                   "peak slider acceleration 30.4 km/s² · case 123")
    assert fig.data[0].customdata[0][0] == 123
    assert quantity(1.52726e-5, "m") == "15.3 µm"
    assert quantity(12, "count") == "12 count"
    assert quantity(0.25, "–") == "0.25"


def test_trend_choices_and_a_click_per_design():
    grid = {"spec": {"design": "grid", "axes": {"stiffness_scale": {}, "clearance_mm": {}}}}
    c = view.trend_choices(grid)
    assert (c["x"], c["group"], c["group_label"]) == ("clearance_mm", "stiffness_scale",
                                                      "one line per")
    oat = view.trend_choices({"spec": {"design": "one-at-a-time", "axes": OAT["axes"]}})
    assert oat["x"] == view.ALL_FACTORS and oat["group_shown"] is False
    assert [o["value"] for o in oat["x_options"]][1:] == list(OAT["axes"])
    lhs = view.trend_choices({"spec": {"design": "latin-hypercube", "axes": LHS["axes"]}})
    assert (lhs["x"], lhs["group"], lhs["group_label"]) == ("clearance_mm",
                                                            "stiffness_scale", "colour by")
    assert view.clicked_case({"points": [{"customdata": [123], "x": 0.1}]}) == 123
    for bad in (None, {}, {"points": []}, {"points": [{"x": 1}]},
                {"points": [{"customdata": ["1; drop"]}]}, {"points": [{"customdata": [True]}]}):
        assert view.clicked_case(bad) is None


# --- sensitivity, parallel coordinates, spectra choice ----------------------------------------


def test_spearman_bars_equal_the_analysis_with_their_p_values():
    from gapsweep.study.analysis import analyse
    from gapsweep.web.figures.sensitivity import spearman_figure

    spec = parse_spec(LHS)
    plan = plan_study(spec)
    # rises with clearance, falls with stiffness (rank-exact), so |rho| = 1 is impossible
    # for either alone but the signs are known
    metrics = [{"peak_slider_accel": 1e4 * p["clearance_mm"] / p["stiffness_scale"] ** 0.5}
               for p in plan.cases]
    analysis = analyse(spec, plan, metrics)
    rho = analysis["correlations"]["peak_slider_accel"]
    fig = spearman_figure(analysis)
    (bars,) = fig.data
    assert sorted(bars.y) == ["clearance_mm", "stiffness_scale"]
    for axis, x, text, (r, p) in zip(bars.y, bars.x, bars.text, bars.customdata, strict=True):
        assert x == r == rho[axis]["rho"] and p == rho[axis]["p_value"]
        assert text.startswith(f"ρ = {x:.2f} · p ")
    assert rho["clearance_mm"]["rho"] > 0.5 and rho["stiffness_scale"]["rho"] < 0
    assert abs(bars.x[0]) >= abs(bars.x[1])  # strongest on top
    assert list(fig.layout.yaxis.ticktext) == [
        {"clearance_mm": "Clearance [mm]", "stiffness_scale": "Stiffness scale [–]"}[a]
        for a in bars.y]
    assert fig.layout.yaxis.automargin is True
    assert list(fig.layout.xaxis.range) == [-1.05, 1.05]


def test_tornado_names_the_factors_values_and_the_nominal():
    from gapsweep.study.analysis import analyse
    from gapsweep.web.figures.sensitivity import tornado_figure

    spec = parse_spec({"name": "oat", "design": "one-at-a-time", "axes": {
        "speed_rpm": {"nominal": 5000, "relative_percent": 30, "levels": 3},
        "stiffness_scale": {"values": [0.7, 1.0, 1.3], "nominal": 1.0}}})
    plan = plan_study(spec)
    analysis = analyse(spec, plan, [{"peak_slider_accel": peak({"clearance_mm": 0.05, **p})}
                                    for p in plan.cases])
    fig = tornado_figure(analysis)
    low, high = fig.data
    assert list(low.y) == ["speed_rpm", "stiffness_scale"]  # swing of speed² is larger
    assert list(low.text) == ["3500", "0.7"] and list(high.text) == ["6500", "1.3"]
    ticks = list(fig.layout.yaxis.ticktext)
    assert ticks[0] == "Crank speed [rpm]<br><sub>3500 – 6500, nominal 5000</sub>"
    assert ticks[1].startswith("Stiffness scale [–]<br><sub>0.7 – 1.3, nominal 1")
    assert fig.layout.yaxis.automargin is True and fig.layout.yaxis.title.standoff == 14
    m0 = peak({"clearance_mm": 0.05, "speed_rpm": 5000, "stiffness_scale": 1.0})
    (note,) = fig.layout.annotations
    assert note.x == pytest.approx(m0) and note.text.startswith("nominal case: ")


def test_parallel_title_is_clear_of_the_dimension_labels():
    from gapsweep.web.figures.parallel import parallel_figure

    cases, _ = study_cases({"name": "g", "axes": {"clearance_mm": {"values": [0.02, 0.1]},
                                                   "stiffness_scale": {"values": [0.7, 1.3]},
                                                   "speed_rpm": {"values": [2000, 4000]}}})
    fig = parallel_figure(cases, ["clearance_mm", "stiffness_scale", "speed_rpm"])
    # the labels sit above the plot area, the title at the top of the margin above them
    assert fig.layout.margin.t >= 100
    assert fig.layout.title.yref == "container" and fig.layout.title.yanchor == "top"


def test_spectra_of_a_sampled_study_are_spread_over_the_first_axis():
    from gapsweep.web.views.study_results import spectra_cases

    cases, _ = study_cases({**LHS, "axes": {**LHS["axes"],
                                            "speed_rpm": {"start": 2000, "stop": 4000,
                                                          "count": 2}}})
    detail = {"spec": {**LHS, "axes": {**LHS["axes"], "speed_rpm": {}}}, "cases": cases}
    picked = spectra_cases(detail, limit=12)
    xs = [c["params"]["clearance_mm"] for c in picked]
    assert len(picked) == 12 and xs == sorted(xs)
    all_x = sorted(c["params"]["clearance_mm"] for c in cases)
    assert (xs[0], xs[-1]) == (all_x[0], all_x[-1])  # the whole range, not one middle case
    oat_cases, _ = study_cases(OAT)
    oat = spectra_cases({"spec": OAT, "cases": oat_cases})
    assert [c["params"]["clearance_mm"] for c in oat] == [0.02, 0.05, 0.1]
    assert {c["params"]["speed_rpm"] for c in oat} == {3000.0}


def test_a_grid_without_grouping_colours_the_other_axes_combinations():
    spec = {"name": "g", "design": "grid", "axes": {
        "clearance_mm": {"values": [0.02, 0.1]},
        "stiffness_scale": {"values": [0.7, 1.3]},
        "speed_rpm": {"values": [2000, 4000]}}}
    cases, _ = study_cases(spec)
    fig = trend_figure(cases, x_axis="clearance_mm", group_axis=None,
                       other_axes=["stiffness_scale", "speed_rpm"])
    assert [t.name for t in fig.data] == [
        "stiffness ×0.7, speed = 2000 rpm", "stiffness ×0.7, speed = 4000 rpm",
        "stiffness ×1.3, speed = 2000 rpm", "stiffness ×1.3, speed = 4000 rpm"]
    assert len({t.line.color for t in fig.data}) == 4
    assert all(list(t.x) == [0.02, 0.1] for t in fig.data)
