"""The dashboard in a real browser (Debian's chromium through Playwright) against
``gapsweep serve`` with its local worker, on a free port and its own data folder.

Creates the user's preset study from the form and watches it reach done, reads the trends
figure's data (3 lines of 5 points + the ideal twin's line), opens a case and its journal
orbit, types a bad clearance and sees the message with nothing submitted, cancels a running
study, and allows no console error on any page. Screenshots go to ``tests/artifacts/``.

Skipped when chromium is missing, except with ``CI=true`` (then it fails): the test command
installs it (``apt-get install -y chromium``).
"""

from __future__ import annotations

import re
import time
from pathlib import Path

import browsers
import pytest
from browsers import launch_browser, open_page
from support.api import api_request

ROOT = Path(__file__).resolve().parents[2]
# tests/web/conftest.py's server, also under this module's name for the browser modules that
# borrow its fixtures (``tb.server``)
server = browsers.server
ARTIFACTS = ROOT / "tests" / "artifacts"
STUDY_S = 420  # the preset study done, a first-start kernel compile (2.5 min) included
UI_MS = 20_000  # one page or figure to appear

pytestmark = pytest.mark.timeout(1200)


@pytest.fixture(scope="module")
def browser(server):
    yield from launch_browser(server["chromium"])


@pytest.fixture
def page(browser):
    yield from open_page(browser, UI_MS)


def shot(page, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def wait_status(page, wanted: set[str], timeout_s: float) -> str:
    """Wait until the study page's status (polled from the database) is one of ``wanted``."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        text = page.inner_text("#study-status").strip()
        if text in wanted:
            return text
        page.wait_for_timeout(500)
    pytest.fail(f"study status still {text!r} after {timeout_s} s (wanted {wanted})")


def figure(page, graph_id: str, min_traces: int = 1) -> dict:
    """A dcc.Graph's figure as Plotly holds it in the page, once it has ``min_traces``
    traces (the graph first draws empty, then the callback's figure): {"data", "title"}."""
    page.wait_for_function(
        """([id, n]) => { const el = document.querySelector('#' + id + ' .js-plotly-plot');
                          return el && el.data && el.data.length >= n; }""",
        arg=[graph_id, min_traces])
    return page.evaluate(
        """id => { const el = document.querySelector('#' + id + ' .js-plotly-plot');
                   // _fullData: the arrays as Plotly decoded them (plotly.py sends numpy arrays
                   // base64-encoded, which el.data keeps as {dtype, bdata})
                   return {data: el._fullData.map(t => ({name: t.name,
                                                         x: Array.from(t.x || []),
                                                         y: Array.from(t.y || [])})),
                           title: (el.layout.title || {}).text || ''}; }""",
        graph_id,
    )


def test_bad_clearance_shows_the_message_and_submits_nothing(server, page):
    page.goto(server["base"] + "/studies/new")
    page.wait_for_selector("#new-case-count:has-text('15 cases + 1 ideal twin')")
    before = api_request(server["base"] + "/api/studies")[1]["total"]
    page.locator('#new-axes-table td[data-dash-column="values"][data-dash-row="0"]').click()
    page.keyboard.type("0.02, 0.035, -0.05, 0.08, 0.1")
    page.keyboard.press("Enter")
    page.wait_for_selector("#new-errors:has-text('axes.clearance_mm.values[2]')")
    message = page.inner_text("#new-errors")
    assert "axes.clearance_mm.values[2]: -0.05 — > 0 and < bearing radius 10 mm" in message
    assert page.is_disabled("#new-submit")
    page.click("#new-submit", force=True)  # a disabled button: nothing may happen
    page.wait_for_timeout(1000)
    assert page.url.endswith("/studies/new")
    assert api_request(server["base"] + "/api/studies")[1]["total"] == before
    shot(page, "new-study-bad-clearance")
    assert page.errors == []


def test_preset_study_from_the_form_to_trends_and_a_case_orbit(server, page):
    page.goto(server["base"] + "/studies/new")
    page.wait_for_selector("#new-case-count:has-text('15 cases + 1 ideal twin')")
    shot(page, "new-study")
    page.click("#new-submit")
    page.wait_for_url(re.compile(r"/studies/\d+$"), timeout=60_000)
    study_id = int(page.url.rstrip("/").rsplit("/", 1)[1])
    page.wait_for_selector("#study-status")
    shot(page, "study-running")
    assert wait_status(page, {"done", "cancelled"}, STUDY_S) == "done"
    page.wait_for_selector("#study-counts:has-text('15 done')")
    shot(page, "study-done")
    detail = api_request(f"{server['base']}/api/studies/{study_id}")[1]
    assert [c["status"] for c in detail["cases"]] == ["done"] * 15
    assert len(detail["twins"]) == 1 and detail["twins"][0]["status"] == "done"

    page.get_by_role("tab", name="Trends").click()
    fig = figure(page, "trends-graph", min_traces=4)
    lines = [t for t in fig["data"] if t["name"] != "ideal joint"]
    twin_line = [t for t in fig["data"] if t["name"] == "ideal joint"]
    assert [len(t["x"]) for t in lines] == [5, 5, 5]
    assert sum(len(t["x"]) for t in lines) == 15
    assert len(twin_line) == 1
    assert lines[0]["x"] == [0.02, 0.035, 0.05, 0.08, 0.1]
    # the figure shows the archive's numbers: the settled metric by default (issue 23)
    by_params = {
        (c["params"]["clearance_mm"], c["params"]["stiffness_scale"]): c["metrics"][
            "peak_slider_accel_settled"
        ]
        for c in detail["cases"]
    }
    assert lines[0]["y"] == pytest.approx([by_params[(c, 0.7)] for c in lines[0]["x"]])
    twin_peak = detail["twins"][0]["metrics"]["peak_slider_accel_settled"]
    assert twin_line[0]["y"] == pytest.approx([twin_peak, twin_peak])
    shot(page, "study-trends")
    for tab in ("Sensitivity", "Spectra", "Convergence"):
        page.get_by_role("tab", name=tab).click()
        page.wait_for_timeout(1500)
        shot(page, f"study-{tab.lower()}")

    case_id = detail["cases"][2]["id"]
    page.goto(f"{server['base']}/cases/{case_id}")
    page.wait_for_selector(f"h3:has-text('Case {case_id}')")
    page.wait_for_function(
        """() => Array.from(document.querySelectorAll('#case-graphs .js-plotly-plot'))
                 .some(el => /orbit/i.test((el.layout.title || {}).text || ''))""")
    orbits = page.evaluate(
        """() => Array.from(document.querySelectorAll('#case-graphs .js-plotly-plot'))
                 .filter(el => /orbit/i.test((el.layout.title || {}).text || ''))
                 .map(el => el._fullData.map(t => (t.x || []).length))"""
    )
    assert orbits, "no journal-orbit figure on the case page"
    assert max(orbits[0]) > 10  # the orbit has points (the clearance circle is a trace too)
    shot(page, "case")

    other = detail["cases"][5]["id"]
    page.goto(f"{server['base']}/compare?cases={case_id},{other}")
    page.wait_for_selector("#compare-params")
    shot(page, "compare")
    page.goto(server["base"] + "/")
    page.wait_for_selector(f"#archive-table a[href='/studies/{study_id}']")
    shot(page, "archive")
    assert page.errors == []


def test_cancel_a_running_study(server, page):
    spec = {
        "name": "Long sweep to cancel",
        "ideal_twin": False,
        "series": "none",
        "axes": {
            "clearance_mm": {"start": 0.02, "stop": 0.1, "count": 40},
            "friction": {"start": 0.0, "stop": 0.1, "count": 50},
        },
    }
    status, body = api_request(server["base"] + "/api/studies", body=spec)
    assert status == 201, body
    study_id = body["id"]
    page.goto(f"{server['base']}/studies/{study_id}")
    wait_status(page, {"running"}, STUDY_S)
    asked = []
    page.once("dialog", lambda d: (asked.append(d.message), d.dismiss()))
    page.click("#study-cancel")  # dismissed: nothing cancelled
    deadline = time.monotonic() + 10
    while not asked and time.monotonic() < deadline:  # the dialog answered, not a pause
        page.wait_for_timeout(50)
    assert asked and "queued cases will not run" in asked[0], asked
    # the server says so, not a pause: the study still runs and no case was cancelled
    status, progress = api_request(f"{server['base']}/api/studies/{study_id}/progress")
    assert status == 200 and progress["status"] == "running", progress
    assert progress["counts"]["cancelled"] == 0, progress
    assert page.inner_text("#study-action-message").strip() == ""
    page.once("dialog", lambda d: d.accept())
    page.click("#study-cancel")
    page.wait_for_selector("#study-action-message:has-text('Cancelled')")
    assert wait_status(page, {"cancelled"}, 60) == "cancelled"
    page.wait_for_selector("#study-cancel:has-text('Cancelled')")  # no longer a red action
    assert "btn-outline-secondary" in page.get_attribute("#study-cancel", "class")
    shot(page, "study-cancelled")
    deadline = time.monotonic() + 60
    while True:  # running cases finish their chunk, then nothing is left
        counts = api_request(f"{server['base']}/api/studies/{study_id}")[1]["counts"]
        if counts["queued"] == 0 and counts["running"] == 0:
            break
        assert time.monotonic() < deadline, counts
        time.sleep(1)
    assert counts["cancelled"] > 0 and counts["done"] < 2000
    # one cancel was made, the accepted one: the dismissed dialog's, whenever its callback
    # would have run, is in the audit log by now
    status, audit = api_request(f"{server['base']}/api/audit?limit=100")
    assert status == 200, audit
    cancels = [e for e in audit["items"]
               if e["action"] == "study.cancel" and e["target"] == f"study:{study_id}"]
    assert len(cancels) == 1, cancels
    assert counts["done"] + counts["failed"] + counts["cancelled"] == 2000
    assert page.errors == []


def test_every_page_without_console_errors(server, page):
    items = api_request(server["base"] + "/api/studies")[1]["items"]
    paths = ["/", "/studies/new", "/compare", "/studies/999999", "/cases/999999"]
    if items:
        detail = api_request(f"{server['base']}/api/studies/{items[-1]['id']}")[1]
        paths += [f"/studies/{detail['id']}", f"/cases/{detail['cases'][0]['id']}"]
    too_wide = {}
    for path in paths:
        page.goto(server["base"] + path)
        page.wait_for_selector("#_pages_content > *")
        page.wait_for_timeout(1500)  # the first callbacks run
        # readable at 1280 x 800: nothing wider than the window
        width = page.evaluate("() => document.documentElement.scrollWidth")
        if width > 1280:
            too_wide[path] = width
    assert page.errors == []
    assert too_wide == {}
    assert api_request(server["base"] + "/api/health")[1]["database"] == "ok"
