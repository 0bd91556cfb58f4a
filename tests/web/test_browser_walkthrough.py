"""The walkthrough of issue 25 in a real browser (Debian's chromium through Playwright)
against ``gapsweep serve`` with its local worker, on a free port and its own data folder:
the empty archive's first step, the form's help following the design and a blank axis row
refused, a study's header (what was fixed, what varied), the trends of the ratio to the ideal
joint with a limit and each line's crossing of it checked against the API's numbers, an ideal
twin's page, and the studies' comparison listing what differs - each read as a person sees
it. Screenshots go to ``tests/artifacts/walkthrough-*.png``.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from browsers import (
    launch_browser,
    open_page,
    plotly_figure,
    wait_first_option,
)
from support.api import api_request, wait_done
from test_browser_designs import choose_design  # the form's design picker, opened reliably

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "tests" / "artifacts"
STUDY_S = 420  # a first-start kernel compile included
UI_MS = 20_000
CLEARANCES = [0.02, 0.05, 0.1]
STIFFNESS = [0.7, 1.3]

pytestmark = pytest.mark.timeout(1200)


def small_study(name: str, **base) -> dict:
    """3 clearances x 2 stiffness levels, one crank revolution each (short runs)."""
    return {"name": name, "ideal_twin": True,
            "base": {"speed_rpm": 5000, "t_end": 0.012, **base},
            "axes": {"clearance_mm": {"values": CLEARANCES},
                     "stiffness_scale": {"values": STIFFNESS}}}



@pytest.fixture(scope="module")
def browser(server):
    yield from launch_browser(server["chromium"])


@pytest.fixture
def page(browser):
    yield from open_page(browser, UI_MS, no_errors_after=True)


def shot(page, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"walkthrough-{name}.png"), full_page=True)


def done_with_twins(detail: dict) -> bool:
    return detail["status"] == "done" and all(t["status"] == "done" for t in detail["twins"])


@pytest.fixture(scope="module")
def studies(server):
    """The studies tests 3-5 share (test 3 makes them, after test 1 saw the empty archive)."""
    return {}


def test_1_an_empty_archive_offers_the_example_as_its_first_step(server, page):
    page.goto(server["base"] + "/")
    page.wait_for_selector("#archive-empty:has-text('The archive is empty')")
    assert page.is_visible("#archive-run-example")
    shot(page, "empty-archive")


def test_2_the_form_follows_the_design_and_refuses_a_blank_row(server, page):
    page.goto(server["base"] + "/studies/new")
    page.wait_for_selector("#new-design-help:has-text('every combination')")
    assert "outermost" in page.inner_text("#new-axes-header")
    choose_design(page, "latin-hypercube")
    page.wait_for_selector("#new-design-help:has-text('drawn within each axis')")
    assert "bounds" in page.inner_text("#new-axes-header")
    assert page.inner_text("#new-samples-help") == "the number of cases (one per sample)"
    choose_design(page, "grid")
    page.click("#new-add-axis")
    page.wait_for_selector("#new-errors:has-text('axes (row 3): no parameter')")
    assert page.is_disabled("#new-submit")
    shot(page, "form-blank-row")
    # "friction" + Enter picks friction, not friction_law (a name before its longer names)
    page.locator('#new-axes-table td[data-dash-column="parameter"][data-dash-row="2"]').click()
    page.keyboard.type("friction")
    wait_first_option(page, "friction")  # the list filtered: friction first
    shot(page, "form-parameter-list")
    page.keyboard.press("Enter")
    page.wait_for_selector("#new-errors:has-text('axes.friction')")
    cell = page.inner_text('#new-axes-table td[data-dash-column="parameter"][data-dash-row="2"]')
    assert cell.startswith("friction — Friction coefficient"), cell


def test_3_a_study_says_what_it_fixed_and_varied_and_its_ratio_crosses_a_limit(
        server, page, studies):
    base = server["base"]
    status, body = api_request(base + "/api/studies", body=small_study("walkthrough"))
    assert status == 201, body
    studies["plain"] = body["id"]
    status, body = api_request(base + "/api/studies",
                               body=small_study("walkthrough, friction 0.1", friction=0.1))
    assert status == 201, body
    studies["friction"] = body["id"]
    detail = wait_done(base, studies["plain"], until=done_with_twins,
                       timeout_s=STUDY_S, poll_s=1.0)
    wait_done(base, studies["friction"], until=done_with_twins, timeout_s=STUDY_S,
              poll_s=1.0)
    studies["detail"] = detail

    warnings = []
    page.on("console", lambda m: warnings.append(m.text) if m.type == "warning" else None)
    page.goto(f"{base}/studies/{studies['plain']}")
    page.wait_for_selector("#study-base")
    page.wait_for_selector("#study-case-grid .ag-row a[href^='/cases/']")
    assert not [w for w in warnings if "linkTarget" in w], warnings
    assert page.inner_text("#study-base") == "speed_rpm [rpm] = 5000 · t_end [s] = 0.012"
    assert page.inner_text("#study-axes") == (
        "clearance_mm [mm]: 0.02, 0.05, 0.1 · stiffness_scale: 0.7, 1.3")
    page.get_by_role("tab", name="Trends").click()
    plotly_figure(page, "#trends-graph", "fig.data.length >= 3")
    page.locator("#trends-metric").click()
    page.get_by_role("option", name="Peak slider acceleration / ideal joint [–]").click()
    fig = plotly_figure(page, "#trends-graph",
                        "fig.layout.axes.yaxis.title.includes('/ ideal joint')")
    # the ratio per case from the API: its peak over its twin's
    twins = {t["id"]: t["metrics"]["peak_slider_accel"] for t in detail["twins"]}
    ratio = {(c["params"]["clearance_mm"], c["params"]["stiffness_scale"]):
             c["metrics"]["peak_slider_accel"] / twins[c["twin_id"]] for c in detail["cases"]}
    lines = [t for t in fig["data"] if t["mode"] == "lines+markers"]
    assert len(lines) == 2
    for k, line in zip(STIFFNESS, lines, strict=True):
        assert line["y"] == pytest.approx([ratio[(c, k)] for c in CLEARANCES], rel=1e-9)
    # a limit between the first line's ends: the line crosses it where the API's numbers say
    first = [ratio[(c, STIFFNESS[0])] for c in CLEARANCES]
    limit = round((min(first) + max(first)) / 2, 3)
    page.fill("#trends-limit", str(limit))
    page.keyboard.press("Enter")
    fig = plotly_figure(page, "#trends-graph",
                        "fig.data.some(t => (t.name || '').includes('crosses at'))")
    mark = next(t for t in fig["data"] if t["name"].startswith("stiffness ×0.7: crosses at"))
    want = []
    for (x0, y0), (x1, y1) in itertools.pairwise(zip(CLEARANCES, first, strict=True)):
        if (y0 - limit) * (y1 - limit) < 0:
            want.append(x0 + (x1 - x0) * (y0 - limit) / (y0 - y1))
    assert mark["x"] == pytest.approx(want, rel=1e-9)
    assert any(s["y0"] == limit for s in fig["layout"]["shapes"])
    shot(page, "trends-ratio-limit")


def test_4_an_ideal_twin_says_whose_twin_it_is(server, page, studies):
    detail = studies["detail"]
    (twin,) = detail["twins"]
    page.goto(f"{server['base']}/cases/{twin['id']}")
    page.wait_for_selector("#case-header")
    words = page.inner_text("#case-header")
    assert f"this is the ideal twin (every clearance joint ideal) of {len(CLEARANCES) * 2} " \
           "cases" in words
    links = page.eval_on_selector_all("#case-header a", "els => els.map(e => e.pathname)")
    assert links[1:] == [f"/cases/{c['id']}" for c in detail["cases"]]
    shot(page, "ideal-twin")


def test_5_compare_studies_lists_what_differs(server, page, studies):
    page.goto(f"{server['base']}/compare?studies={studies['plain']},{studies['friction']}")
    page.wait_for_selector("#compare-studies-differ")
    cells = page.eval_on_selector_all(
        "#compare-studies-differ td", "els => els.map(e => e.innerText.trim())")
    assert cells == ["friction", "default", "0.1"]
    shot(page, "compare-studies")
