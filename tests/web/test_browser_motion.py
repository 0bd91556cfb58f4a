"""The settled motion as a person sees it in chromium (issue 23), checked against the API.

One ``gapsweep serve`` with its local worker and one small study submitted with the
defaults (no ``t_end``: each case runs until its once-per-revolution section settles, up to
``max_revolutions``): clearance 0.02 / 0.05 / 0.1 mm at the default speed, with its ideal
twin. Two checks:

- the default trends figure plots the settled metric and its title and y axis say so: its
  points equal the API's ``peak_slider_accel_settled`` of each case;
- the Motion tab's bifurcation diagram: each case's points (x its clearance) equal |e|/c of
  the API's section values (``GET /api/cases/<id>/series?names=poincare_...``) over the
  settled window (from ``settled_after_revolutions``, or the second half of a run that did
  not settle: core/settled.py), and each trace is named by the cases' ``motion``.

Skipped when chromium is missing, except with ``CI=true`` (then it fails).
"""

from __future__ import annotations

import numpy as np
import pytest
from browsers import launch_browser, open_page, plotly_figure
from support.api import get_json, post_json, wait_done
from support.serving import server_fixture

STUDY_S = 420  # the study done, a first-start kernel compile (2.5 min) included
UI_MS = 30_000
REL = 1e-9
CLEARANCES_MM = [0.02, 0.05, 0.1]
SECTION = ("poincare_time", "poincare_eccentricity_x", "poincare_eccentricity_y")

pytestmark = pytest.mark.timeout(900)

# what a new user submits: a clearance axis, everything else the defaults (no t_end)
DEFAULTS = {"name": "Settled motion with the defaults",
            "axes": {"clearance_mm": {"values": CLEARANCES_MM}}}


server = server_fixture("gapsweep-motion", workers=True, chromium=True, start_s=120)


@pytest.fixture(scope="module")
def study(server):
    """The study submitted with the defaults, followed to done: the API's detail."""
    base = server["base"]
    detail = wait_done(base, post_json(base + "/api/studies", DEFAULTS)["id"],
                       timeout_s=STUDY_S)
    assert detail["status"] == "done"
    assert {c["status"] for c in detail["cases"]} == {"done"}
    return detail


@pytest.fixture(scope="module")
def browser(server):
    yield from launch_browser(server["chromium"])


@pytest.fixture
def page(browser):
    yield from open_page(browser, UI_MS, no_errors_after=True)


def open_tab(page, base: str, study_id: int, tab: str) -> None:
    page.goto(f"{base}/studies/{study_id}")
    page.wait_for_selector("#study-status")
    page.get_by_role("tab", name=tab).click()


def close(actual, expected, rel: float = REL) -> None:
    a, e = np.asarray(actual, dtype=float), np.asarray(expected, dtype=float)
    assert a.shape == e.shape, (a.shape, e.shape)
    np.testing.assert_allclose(a, e, rtol=rel, atol=0.0)


def test_default_trends_plot_the_settled_metric_and_say_so(server, study, page):
    from gapsweep.web import ids
    from gapsweep.web.figures.labels import metric_label

    open_tab(page, server["base"], study["id"], "Trends")
    fig = plotly_figure(page, f"#{ids.TRENDS_GRAPH}", "fig.data.length >= 1")
    y_title = fig["layout"]["axes"]["yaxis"]["title"]
    assert y_title == metric_label("peak_slider_accel_settled")
    assert "settled" in y_title and "settled" in fig["layout"]["title"]
    (line,) = [t for t in fig["data"] if t["name"] != "ideal joint"]
    by_c = {c["params"]["clearance_mm"]: c for c in study["cases"]}
    assert line["x"] == CLEARANCES_MM
    close(line["y"], [by_c[c]["metrics"]["peak_slider_accel_settled"] for c in CLEARANCES_MM])
    # the start-up peak is its own, labelled choice: the figure says it changed
    page.locator(f"#{ids.TRENDS_WINDOW} label", has_text="start-up").click()
    fig = plotly_figure(page, f"#{ids.TRENDS_GRAPH}",
                        "fig.layout.axes.yaxis.title.includes('start-up')")
    (line,) = [t for t in fig["data"] if t["name"] != "ideal joint"]
    close(line["y"], [by_c[c]["metrics"]["peak_slider_accel_startup"] for c in CLEARANCES_MM])


def window_start(metrics: dict) -> int:
    """The settled window's first section (core/settled.py: where it settled, else half)."""
    if metrics.get("settled") == 1:
        return int(metrics["settled_after_revolutions"])
    return int(metrics["revolutions"]) // 2


def test_bifurcation_points_equal_the_api_sections(server, study, page):
    from gapsweep.web import ids

    base = server["base"]
    open_tab(page, base, study["id"], "Motion")
    fig = plotly_figure(page, f"#{ids.BIFURCATION_GRAPH}", "fig.data.length >= 1")
    drawn: dict[float, list[float]] = {}
    names: dict[float, set[str]] = {}
    for trace in fig["data"]:
        for x, y in zip(trace["x"], trace["y"], strict=True):
            drawn.setdefault(x, []).append(y)
            names.setdefault(x, set()).add(trace["name"])
    assert sorted(drawn) == CLEARANCES_MM
    for case in study["cases"]:
        c_mm = case["params"]["clearance_mm"]
        got = get_json(f"{base}/api/cases/{case['id']}/series?names={','.join(SECTION)}")
        t, ex, ey = (np.asarray(got[n], dtype=float) for n in SECTION)
        period = float(np.median(np.diff(t)))
        keep = np.rint(t / period) >= window_start(case["metrics"])
        want = np.hypot(ex[keep], ey[keep]) / (c_mm * 1e-3)
        assert want.size >= 1
        close(sorted(drawn[c_mm]), sorted(want))
        assert names[c_mm] == {case["metrics"]["motion"]}
