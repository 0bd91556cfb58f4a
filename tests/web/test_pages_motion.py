"""The settled motion on the pages (issue 23): the trends tab reads the settled metric by
default and says so, falls back to the whole run (and says so) for a study run before
settled metrics; the case page's settled-motion section; the study's motion tab (the
bifurcation diagram's points are the stored sections) and the start-dependence flag.

The archive's cases get made-up metrics (archive_fixtures.fake_metrics) extended here with
the settled-motion names of issue 23, functions of the parameters so that what a page must
show is known independently of the code under test."""

from __future__ import annotations

import archive_fixtures
import numpy as np
import pytest
from archive_fixtures import component_ids, find, page, texts
from gapsweep.web import ids
from gapsweep.web.figures.labels import metric_label

AXES = ("clearance_mm", "stiffness_scale")
SHAPE = {"design": "grid"}
PERIOD_S = 0.012  # 5000 rpm


def settled_metrics(params):
    """The fixture's metrics plus the settled-motion ones: the settled peak a third of the
    whole-run peak, the start-up peak the whole-run peak; c >= 0.08 mm chaotic and not
    settled, c = 0.05 mm depending on the start."""
    out = dict(base_metrics(params))
    c = 0.0 if params.get("ideal") else float(params.get("clearance_mm", 0.05))
    chaotic = c >= 0.08
    out.update({
        "peak_slider_accel_settled": out["peak_slider_accel"] / 3,
        "peak_slider_accel_startup": out["peak_slider_accel"],
        "settled": 0 if chaotic else 1,
        "revolutions": 80 if chaotic else 20,
        "settled_after_revolutions": 14,
        "section_drift": 0.04 if chaotic else 1e-7,
        "motion": "chaotic" if chaotic else "periodic-1",
        "chaos_indicator": 0.95 if chaotic else 0.01,
        "start_spread": 0.27 if c == 0.05 else 0.001,
        "start_dependent": 1 if c == 0.05 else 0,
        "motion.wall": "periodic-2" if c == 0.05 else ("chaotic" if chaotic else "periodic-1"),
    })
    return out


def section_radius(params) -> np.ndarray:
    """|e|/c of a case's sections k = 0 .. revolutions: 0.3 before it settles at
    revolution 14, then a fixed point 0.9; for a chaotic case the logistic map at r = 4."""
    c = float(params.get("clearance_mm", 0.05))
    if c < 0.08:
        return np.where(np.arange(21) < 14, 0.3, 0.9)
    x, out = 0.3, []
    for _ in range(81):
        x = 4.0 * x * (1 - x)
        out.append(x)
    return np.array(out)


def window_of(params) -> slice:
    """The settled window of :func:`section_radius` (core/settled.py: from where it settled,
    else the second half)."""
    return slice(14, None) if float(params.get("clearance_mm", 0.05)) < 0.08 else slice(40,
                                                                                         None)


def settled_series(params):
    out = dict(base_series(params))
    if params.get("ideal"):
        return out
    c = float(params.get("clearance_mm", 0.05)) * 1e-3
    r = section_radius(params)
    out["poincare_time"] = PERIOD_S * np.arange(r.size)
    out["poincare_eccentricity_x"] = r * c * 0.6
    out["poincare_eccentricity_y"] = -r * c * 0.8
    return out


base_metrics = archive_fixtures.fake_metrics
base_series = archive_fixtures.fake_series


@pytest.fixture
def settled_study(archive, monkeypatch):
    monkeypatch.setattr(archive_fixtures, "fake_metrics", settled_metrics)
    monkeypatch.setattr(archive_fixtures, "fake_series", settled_series)
    with archive.request():
        study_id = archive.create()
        archive.run(archive.case_ids(study_id))
        yield archive, study_id


def test_trends_default_to_the_settled_metric_and_name_it(settled_study):
    archive, study_id = settled_study
    module = page("study")
    layout = module.layout(study_id=str(study_id))
    window = find(layout, ids.TRENDS_WINDOW).value
    metric = find(layout, ids.TRENDS_METRIC).value
    fig = module.trends("trends", None, metric, window, [], *AXES, None, SHAPE, study_id)
    assert "settled" in fig.layout.title.text
    assert fig.layout.yaxis.title.text == metric_label("peak_slider_accel_settled")
    assert "settled" in fig.layout.yaxis.title.text
    line = fig.data[0]
    want = [settled_metrics({"clearance_mm": c, "stiffness_scale": 0.7})[
        "peak_slider_accel_settled"] for c in line.x]
    assert list(line.y) == pytest.approx(want)
    startup = module.trends("trends", None, metric, "startup", [], *AXES, None, SHAPE,
                            study_id)
    assert "start-up" in startup.layout.yaxis.title.text
    assert list(startup.data[0].y) == pytest.approx([3 * w for w in want])


def test_trends_of_a_study_run_before_settled_metrics_say_what_they_show(archive, monkeypatch):
    import archive_fixtures

    plain = archive_fixtures.fake_metrics  # the stand-in cases without the settled metrics

    def before_settled(params):
        return {k: v for k, v in plain(params).items()
                if not k.endswith(("_settled", "_startup"))}

    monkeypatch.setattr(archive_fixtures, "fake_metrics", before_settled)
    with archive.request():
        study_id = archive.create()
        archive.run(archive.case_ids(study_id))
        fig = page("study").trends("trends", None, "peak_slider_accel", "settled", [], *AXES,
                                   None, SHAPE, study_id)
    assert "whole run shown" in fig.layout.title.text
    assert fig.layout.yaxis.title.text == "Peak slider acceleration [m/s²]"
    assert len(fig.data[0].y) == 5


def test_case_page_tells_the_motion_and_draws_its_section(settled_study):
    archive, study_id = settled_study
    case_ids = archive.case_ids(study_id, "case")
    layout = page("case").layout(case_id=str(case_ids[0]))  # c = 0.02 mm, stiffness x0.7
    words = find(layout, ids.CASE_MOTION_WORDS).children
    assert words == "settled after 14 revolutions, periodic-1 (0-1 test K = 0.01)"
    assert "start-up" in texts(layout) and "settled" in texts(layout)
    found = component_ids(layout)
    for name in ("poincare", "phase", "orbit_time", "spectrum"):
        assert f"{ids.CASE_MOTION_GRAPH}-{name}" in found
    poincare = find(layout, f"{ids.CASE_MOTION_GRAPH}-poincare").figure
    np.testing.assert_allclose(poincare.data[0].x, 0.9 * 0.6, rtol=1e-6)
    np.testing.assert_allclose(poincare.data[0].y, -0.9 * 0.8, rtol=1e-6)
    assert poincare.data[1].name == "before the settled window" and len(poincare.data[1].x) == 14
    assert "depends on how the machine starts" not in texts(layout)
    middle = page("case").layout(case_id=str(case_ids[6]))  # c = 0.05 mm
    assert "The settled motion depends on how the machine starts." in texts(middle)
    assert "from the wall start: periodic-2" in texts(middle)
    chaotic = page("case").layout(case_id=str(case_ids[-1]))  # c = 0.1 mm
    assert find(chaotic, ids.CASE_MOTION_WORDS).children.startswith(
        "did not settle within 80 revolutions: drift 0.04 c per revolution, chaotic")


def test_motion_tab_bifurcation_points_are_the_stored_sections(settled_study):
    from gapsweep.web.components import study_motion

    archive, study_id = settled_study
    module = page("study")
    detail = module.load_detail(study_id)
    fig, joints, note = study_motion.bifurcation_view(detail, "clearance_mm", None, None)
    assert note is None and joints == [{"label": "the clearance joint", "value": ""}]
    assert [t.name for t in fig.data] == ["periodic-1", "chaotic"]
    by_id = {c["id"]: c for c in detail["cases"]}
    for trace in fig.data:
        ids_ = np.asarray(trace.customdata)[:, 0].astype(int)
        for case_id in set(ids_):
            params = by_id[case_id]["params"]
            np.testing.assert_allclose(np.asarray(trace.y)[ids_ == case_id],
                                       section_radius(params)[window_of(params)],
                                       rtol=1e-6)  # stored float32
            assert set(np.asarray(trace.x)[ids_ == case_id]) == {params["clearance_mm"]}
    assert len(fig.data[1].x) == 2 * 3 * 41  # 0.08 and 0.1 mm x 3 stiffnesses
    assert set(np.round(fig.data[0].y, 6)) == {0.9}  # the transient's 0.3 left out


def test_start_dependence_flag_names_the_cases(settled_study):
    from gapsweep.web.components import study_motion

    archive, study_id = settled_study
    detail = page("study").load_detail(study_id)
    flag = texts(study_motion.start_flag(detail))
    flagged = [c["id"] for c in detail["cases"] if c["params"]["clearance_mm"] == 0.05]
    assert "the settled motion depends on how the machine starts" in flag.lower()
    assert ", ".join(map(str, flagged)) in flag and "27 %" in flag


def test_compare_studies_shows_the_settled_peak_and_names_it(settled_study):
    archive, study_id = settled_study
    other = archive.create()
    archive.run(archive.case_ids(other))
    layout = page("compare").layout(studies=f"{study_id},{other}")
    fig = find(layout, ids.COMPARE_STUDIES_GRAPH).figure
    assert fig.layout.yaxis.title.text == metric_label("peak_slider_accel_settled")
    first = fig.data[0]
    want = {k: settled_metrics({"clearance_mm": c, "stiffness_scale": k})[
        "peak_slider_accel_settled"] for c in (0.02,) for k in (0.7, 1.0, 1.3)}
    got = sorted(y for x, y in zip(first.x, first.y, strict=True) if x == 0.02)
    assert got == pytest.approx(sorted(want.values()))
