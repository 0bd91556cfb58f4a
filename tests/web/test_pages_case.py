"""The case and compare pages: layouts, parameters, counters, figures when they exist."""

from __future__ import annotations

import pytest
from archive_fixtures import component_ids, fake_metrics, find, page, texts
from gapsweep.web import ids


@pytest.fixture
def done_study(archive):
    with archive.request():
        study_id = archive.create()
        archive.run(archive.case_ids(study_id))
        yield archive, study_id


def test_case_page(done_study):
    archive, study_id = done_study
    case_id = archive.case_ids(study_id, "case")[4]
    layout = page("case").layout(case_id=str(case_id))
    found = component_ids(layout)
    assert {ids.CASE_GRAPHS, ids.CASE_PARAMS, ids.CASE_COUNTERS, ids.CASE_PROVENANCE} <= found
    rows = find(layout, ids.CASE_PARAMS).data
    params = {r["parameter"]: r["value"] for r in rows if r["source"] == "set"}
    assert params == {"speed_rpm [rpm]": "5000", "clearance_mm [mm]": "0.035",
                      "stiffness_scale": "1"}
    # every parameter that made the run: the ones left at the model's default, marked so
    from gapsweep.core.api import get_model

    defaults = {r["parameter"]: r["value"] for r in rows if r["source"] == "default"}
    assert len(rows) == len(get_model("slider-crank").defaults())
    assert defaults["friction"] == "0.01" and defaults["restitution"] == "0.9"
    assert "ideal twin: " in texts(find(layout, ids.CASE_HEADER))
    counters = {r["quantity"] for r in find(layout, ids.CASE_COUNTERS).data}
    assert counters == {"Wall time [s]"}
    assert f"Case {case_id}" in texts(layout)
    assert "There is no case" in texts(page("case").layout(case_id="424242"))


def test_an_ideal_twins_page_says_whose_twin_it_is(done_study):
    archive, study_id = done_study
    (twin,) = archive.case_ids(study_id, "twin")
    cases = archive.case_ids(study_id, "case")
    header = find(page("case").layout(case_id=str(twin)), ids.CASE_HEADER)
    words = texts(header)
    assert "this is the ideal twin" in words and f"of {len(cases)} cases" in words
    assert "none" not in words
    links = [c.href for c in header._traverse() if getattr(c, "href", None)]
    assert links[1:] == [f"/cases/{c}" for c in cases]  # after the study's link


def test_compare_page(done_study):
    archive, study_id = done_study
    a, b = archive.case_ids(study_id, "case")[:2]
    layout = page("compare").layout(cases=f"{a},{b}")
    table = find(layout, ids.COMPARE_PARAMS)
    assert [c["name"] for c in table.columns] == [
        "", f"Case {a}", f"Case {b}", f"difference (case {b} − case {a})"]
    row = next(r for r in table.data if r["name"] == "stiffness_scale")
    assert (row[str(a)], row[str(b)]) == ("0.7", "1")
    assert row["difference"] == "+0.3 (+42.9 %)"
    links = table.data[0]
    assert (links[str(a)], links[str(b)]) == (f"[case {a}](/cases/{a})", f"[case {b}](/cases/{b})")
    speed = next(r for r in table.data if r["name"].startswith("speed_rpm"))
    assert speed["difference"] == "same"
    # the headline rows are the settled motion's (issue 23)
    peak = next(r for r in table.data if r["name"].startswith("Peak slider acceleration"))
    assert peak["name"] == "Peak slider acceleration, settled [m/s²]"
    want = [fake_metrics({"clearance_mm": 0.02, "stiffness_scale": k, "speed_rpm": 5000})[
        "peak_slider_accel_settled"] for k in (0.7, 1.0)]
    diff = float(peak["difference"].split(" (")[0])
    assert diff == pytest.approx(want[1] - want[0], rel=1e-3)
    assert "e+" not in peak["difference"]  # plain digits, not 7.461e+04
    # max penetration: the difference in the µm its row shows, not in metres
    pen = next(r for r in table.data if r["name"].startswith("Max penetration"))
    assert pen["name"].endswith("[µm]")
    got = [fake_metrics({"clearance_mm": 0.02, "stiffness_scale": k, "speed_rpm": 5000})[
        "max_penetration_settled"] * 1e6 for k in (0.7, 1.0)]
    assert float(pen["difference"].split(" (")[0]) == pytest.approx(got[1] - got[0], rel=1e-3)
    assert "2 to 6 case ids" in texts(page("compare").layout(cases=str(a)))
    assert "no case with id 999999" in texts(page("compare").layout(cases=f"{a},999999"))
    assert page("compare").go(1, None, "3, 5,7") == "?cases=3,5,7"


def test_case_figures_with_the_twin_and_the_orbit(done_study):
    archive, study_id = done_study
    case_id = archive.case_ids(study_id, "case")[4]
    layout = page("case").layout(case_id=str(case_id))
    graphs = {g.id: g.figure for g in layout._traverse() if str(getattr(g, "id", "")).startswith(
        "case-graph-")}
    assert {"case-graph-acceleration", "case-graph-orbit", "case-graph-penetration"} <= set(
        graphs)
    accel = graphs["case-graph-acceleration"]
    assert [t.name for t in accel.data][1] == "ideal joint"  # the twin's series, dashed
    orbit = graphs["case-graph-orbit"]
    assert max(len(t.x) for t in orbit.data) == 50  # every stored eccentricity sample


def test_compare_figures_overlay_both_cases(done_study):
    archive, study_id = done_study
    a, b, c = archive.case_ids(study_id, "case")[:3]
    layout = page("compare").layout(cases=f"{a},{b},{c}")
    graphs = [g for g in layout._traverse() if str(getattr(g, "id", "")).startswith(
        "compare-graph-")]
    accel = next(g for g in graphs if g.id == "compare-graph-slider_acceleration")
    # the three cases, then their one shared ideal twin dashed
    assert [t.name.split(":")[0] for t in accel.figure.data] == [
        f"case {a}", f"case {b}", f"case {c}", "ideal joint"]
    assert accel.figure.data[-1].line.dash == "dash"
    assert [t.line.width for t in accel.figure.data[:3]] == [3.0, 2.5, 2.0]
    assert {t.opacity for t in accel.figure.data[:3]} == {0.8}
    assert accel.figure.layout.legend.orientation == "h"
