"""The variation and response-surface views without a browser: the figures' data against
the pure analysis, the page's texts against the API, the poor-fit flag, the HTML export."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
from archive_fixtures import component_ids, fake_metrics, find, page, texts
from gapsweep.study.response_surface import fit_surface
from gapsweep.study.variation import histogram, summary
from gapsweep.web import ids
from gapsweep.web.figures.variation import contributions_figure, histogram_figure
from gapsweep.web.figures.whatif_export import whatif_html
from gapsweep.web.views import tolerance_views

MC = {
    "name": "H7/g6 x stiffness", "model": "slider-crank", "design": "monte-carlo",
    "samples": 40, "seed": 5, "series": "none",
    "axes": {"clearance_mm": {"fit": "H7/g6", "diameter_mm": 20},
             "stiffness_scale": {"distribution": "normal", "nominal": 1.0,
                                 "relative_percent": 30}},
}


def test_histogram_figure_bars_are_the_bins():
    y = np.random.default_rng(0).normal(5.0, 1.0, 300)
    h = histogram(y)
    fig = histogram_figure("peak_slider_accel", h, summary(y), limit=6.0)
    bar = fig.data[0]
    edges = np.array(h["edges"])
    assert list(bar.y) == h["counts"] and sum(bar.y) == 300
    assert np.allclose(bar.x, (edges[:-1] + edges[1:]) / 2) and np.allclose(bar.width,
                                                                           np.diff(edges))
    lines = sorted(s.x0 for s in fig.layout.shapes)  # P5, P50, P95 and the limit
    assert lines == pytest.approx(sorted([*np.percentile(y, [5, 50, 95]), 6.0]))
    assert fig.layout.xaxis.title.text == "Peak slider acceleration [m/s²]"


def test_penetration_histogram_is_shown_in_micrometres():
    y = np.array([1e-6, 2e-6, 3e-6, 4e-6])
    fig = histogram_figure("max_penetration", histogram(y, bins=3), summary(y))
    assert fig.data[0].x[0] == pytest.approx(1.5)  # µm, from 1..4 µm in three bins
    assert "µm" in fig.layout.xaxis.title.text


def test_contribution_bars_sum_to_one_and_name_the_factors():
    shares = {"clearance_mm": 0.25, "stiffness_scale": 0.7, "restitution": 0.05}
    fig = contributions_figure("impacts", shares, 0.9)
    assert sum(fig.data[0].x) == pytest.approx(1.0)
    # each bar is its own factor's share, smallest first (a horizontal bar chart draws the
    # first at the bottom: the largest share on top)
    assert list(zip(fig.data[0].y, fig.data[0].x, strict=True)) == [
        ("Restitution coefficient [–]", 0.05), ("Clearance [mm]", 0.25),
        ("Stiffness scale [–]", 0.7)]


@pytest.fixture
def mc_study(archive):
    with archive.request():
        study_id = archive.create(MC)
        archive.run(archive.case_ids(study_id))
        yield page("study"), archive, study_id


def test_variation_tab_texts_equal_the_api(mc_study):
    module, archive, study_id = mc_study
    tabs = [t.tab_id for t in find(module.layout(study_id=str(study_id)),
                                   ids.STUDY_TABS).children]
    assert tabs[:2] == ["cases", "variation"] and "surface" in tabs
    detail = module.load_detail(study_id)
    y = np.array([fake_metrics(c["params"])["peak_slider_accel"] for c in detail["cases"]])
    limit = float(np.round(np.percentile(y, 70)))
    content = tolerance_views.variation_content(detail, "peak_slider_accel", limit)
    api = archive.client().get(f"/api/studies/{study_id}/variation", query_string={
        "metric": "peak_slider_accel", "limit": limit}).get_json()
    shown = texts(find(content, ids.VARIATION_EXCEEDANCE))
    assert f"= {api['exceedance']['probability']:.4f}" in shown
    lo, hi = api["exceedance"]["ci95"]
    assert f"{lo:.4f}–{hi:.4f}" in shown
    assert f"n = {api['n']} done cases" in texts(find(content, ids.VARIATION_SUMMARY))
    notes = texts(content)
    assert "fit H7/g6 on 20 mm" in notes and "not truncated" in notes
    assert "One ideal twin for all samples" in notes


def test_surface_tab_flags_a_poor_fit_and_draws_no_contour(mc_study):
    module, _, study_id = mc_study
    detail = module.load_detail(study_id)
    # scatter the metric: the surface cannot predict it
    rng = np.random.default_rng(1)
    for case in detail["cases"]:
        case["metrics"]["impacts"] = float(rng.normal())
    content = tolerance_views.surface_content(detail, "impacts", 2, "clearance_mm",
                                              "stiffness_scale")
    assert ids.SURFACE_CONTOUR not in component_ids(content)
    assert "Predicted R²" in texts(content) and "No contour is drawn" in texts(content)
    good = tolerance_views.surface_content(detail, "peak_slider_accel", 2, "clearance_mm",
                                           "stiffness_scale")
    assert ids.SURFACE_CONTOUR in component_ids(good)


def test_whatif_text_is_the_surface_prediction(mc_study):
    module, archive, study_id = mc_study
    detail = module.load_detail(study_id)
    values = {"clearance_mm": 0.012, "stiffness_scale": 1.1}
    text, nearest = tolerance_views.whatif_texts(detail, "peak_slider_accel", 2, values)
    exact = 1000 * (1 + 100 * 0.012) * 1.1  # the fake metric is this quadratic
    assert "Clearance [mm] 0.012, Stiffness scale [–] 1.1" in text
    assert float(re.search(r"= ([0-9.e+-]+)$", text).group(1)) == pytest.approx(exact, rel=1e-7)
    assert re.search(r"Nearest run case:\s+case \d+", texts(nearest))


def test_exported_page_carries_the_surface(mc_study):
    module, _, study_id = mc_study
    detail = module.load_detail(study_id)
    page_text = tolerance_views.export_page(detail, "peak_slider_accel", 2)
    model = json.loads(re.search(r'<script id="model" type="application/json">(.*?)</script>',
                                 page_text, re.S).group(1))
    assert model["factors"] == ["clearance_mm", "stiffness_scale"]
    assert page_text.count('type="range"') == 2 and "Plotly.react" in page_text
    # the page's polynomial, evaluated here, is the fitted surface
    x = np.array([0.01, 0.9])
    u = (x - np.array(model["centre"])) / np.array(model["half"])
    y = sum(c * np.prod(u ** np.array(t)) for c, t in zip(model["coef"], model["terms"],
                                                          strict=True))
    assert y == pytest.approx(1000 * (1 + 100 * 0.01) * 0.9, rel=1e-9)


def test_whatif_html_without_a_study():
    x = np.array([[0.0], [1.0], [2.0], [3.0]])
    s = fit_surface(x, np.array([1.0, 2.0, 5.0, 10.0]), ["friction"], order=2)
    text = whatif_html("t", "peak_slider_accel", s.to_dict(), s.terms)
    assert text.startswith("<!DOCTYPE html>") and "Friction coefficient [–]" in text


def test_trends_of_a_variation_study_scatter_its_samples(mc_study):
    from gapsweep.web.views import study_results

    module, _, study_id = mc_study
    detail = module.load_detail(study_id)
    fig = study_results.trends(detail, metric="peak_slider_accel", x_axis="clearance_mm",
                               group_axis="stiffness_scale", window="whole", log_y=False)
    cases = [t for t in fig.data if t.mode and "markers" in t.mode and "lines" not in t.mode]
    assert sum(len(t.x) for t in cases) == 40  # one point per sample, no line per level
