"""A described mechanism's study through every tab in Chromium (issue 35.2): the four-bar
crank-rocker of the examples, its rocker-pin clearance swept, run by the server's own worker.
Each tab must show the mechanism's own measure, and what it draws must be the API's numbers:
the case table's dotted clearance column and measure column, the trends' points (the rocker's
settled peak, nothing skipped), the sensitivity and spectra drawn, the Motion tab's x choice,
the convergence certificates read on the measure, the response surface over the done cases,
and the case page's measure figure in rad/s²."""

from __future__ import annotations

from pathlib import Path

import pytest
import test_browser as tb
import tomllib
from support.api import api_request, wait_done
from test_browser import STUDY_S, shot
from test_browser_certificates import certified, plot, submit

server, browser, page = tb.server, tb.browser, tb.page
pytestmark = pytest.mark.timeout(900)

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "mechanism_four_bar_crank_rocker.toml"
AXIS = "joints.rocker_pin.clearance_mm"
CLEARANCES = [0.05, 0.1, 0.15]


def _cells(page, column: str) -> list[str]:
    """The texts of the case grid's cells of ``column`` (the rows drawn)."""
    return page.eval_on_selector_all(
        f'#study-case-grid .ag-center-cols-container .ag-cell[col-id="{column}"]',
        "els => els.map(e => e.innerText.trim())")


def test_a_mechanism_study_through_every_tab(server, page):
    with open(EXAMPLE, "rb") as f:
        spec = tomllib.load(f)
    first = next(iter(spec["mechanism"]["measures"]))  # rocker_alpha, an angle's acceleration
    settled = f"peak_{first}_settled"
    spec.update(name="four-bar through every tab", ideal_twin=True, series="preview",
                axes={AXIS: {"values": CLEARANCES}})
    study_id = submit(server, spec)
    detail = wait_done(server["base"], study_id, until=certified, timeout_s=STUDY_S)
    cases = detail["cases"]
    assert sorted(c["params"][AXIS] for c in cases) == CLEARANCES
    assert all(c["status"] == "done" and settled in c["metrics"] for c in cases)

    page.goto(f"{server['base']}/studies/{study_id}")
    # Cases: the dotted clearance and the measure's settled peak, as the API has them
    cells = f'#study-case-grid .ag-center-cols-container .ag-cell[col-id="{AXIS}"]'
    page.wait_for_function(f"() => document.querySelectorAll('{cells}').length >= "
                           f"{len(CLEARANCES)}")
    shown = sorted(float(x) for x in _cells(page, AXIS) if x)
    assert shown == CLEARANCES
    peaks = sorted(float(x) for x in _cells(page, settled) if x)
    assert peaks == pytest.approx(sorted(c["metrics"][settled] for c in cases), rel=1e-5)
    header = page.inner_text(f'#study-case-grid .ag-header-cell[col-id="{settled}"]')
    assert "rad/s²" in header and "slider" not in page.inner_text("#study-case-grid").lower()
    shot(page, "mechanism-cases")

    # Trends: the measure offered and chosen, every case drawn at the API's value
    page.get_by_role("tab", name="Trends").click()
    assert f"Peak {first.replace('_', ' ')}" in page.inner_text("#trends-metric")
    fig = plot(page, "#trends-graph")
    points = [(x, y) for t in fig["data"] if t["customdata"] for x, y in zip(t["x"], t["y"],
                                                                              strict=True)]
    want = sorted((c["params"][AXIS], c["metrics"][settled]) for c in cases)
    assert [x for x, _ in sorted(points)] == [x for x, _ in want]
    assert [y for _, y in sorted(points)] == pytest.approx([y for _, y in want], rel=1e-9)
    assert "skipped" not in fig.get("title", "")
    shot(page, "mechanism-trends")

    # Sensitivity and Spectra: drawn (a grid's main effects; the stored spectra)
    page.get_by_role("tab", name="Sensitivity").click()
    plot(page, "#sensitivity-content")
    page.get_by_role("tab", name="Spectra").click()
    spectra = plot(page, "#spectra-graph")
    assert len([t for t in spectra["data"] if t["x"]]) >= len(CLEARANCES)

    # Motion: the x choice is the clearance (it was blank)
    page.get_by_role("tab", name="Motion").click()
    page.wait_for_function("() => document.querySelector('#motion-axis').innerText.trim()")
    assert "clearance" in page.inner_text("#motion-axis").lower()

    # Convergence: the certificates, read on the study's one judged metric (the measure's
    # settled peak where every refined run settles to its source's motion, else its whole-run
    # peak: issue 35), the API's values, and the tab says which
    from gapsweep.study.case_inputs import case_inputs
    from gapsweep.study.certificates import certificate_report

    # the cases as they ran: a case stores what varies, the study holds the table (issue 34.4)
    ran = [{**c, "params": case_inputs(c["params"], detail["spec"])} for c in cases]
    judged = certificate_report("mechanism", ran, detail["certificates"])["metric"]
    assert judged in (settled, f"peak_{first}")
    page.get_by_role("tab", name="Convergence").click()
    certs = plot(page, "#certificate-graph")
    by_id = {c["id"]: c for c in detail["certificates"]}
    for trace in certs["data"]:
        refined = [row[0] for row in trace["customdata"]][1:]
        assert trace["y"][1:] == pytest.approx([by_id[k]["metrics"][judged]
                                                for k in refined], rel=1e-12)
    stated = page.inner_text("#certificate-metric")
    assert stated.split(" [")[0] == "Judged metric: Peak rocker alpha" + (
        ", settled" if judged == settled else "")
    shot(page, "mechanism-convergence")

    # Response surface: actual against predicted over the done cases (the API's values)
    page.get_by_role("tab", name="Response surface").click()
    surface = plot(page, "#surface-content")
    (runs,) = [t for t in surface["data"] if t["name"] == "run cases"]
    actual = sorted(runs["y"])
    assert actual == pytest.approx(sorted(c["metrics"][settled] for c in cases), rel=1e-9)
    shot(page, "mechanism-surface")

    # the case page: the measure in its own unit, the stored series drawn
    case_id = cases[0]["id"]
    stored = api_request(f"{server['base']}/api/cases/{case_id}/series?names={first}")[1][first]
    page.goto(f"{server['base']}/cases/{case_id}")
    graph = f"#case-graph-measure_{first}"
    measure = plot(page, graph)
    # the line breaks once (a NaN) across the stretch a run until settled does not store
    drawn = [v for v in measure["data"][0]["y"] if v is not None and v == v]
    assert len(measure["data"][0]["y"]) - len(drawn) <= 1
    assert drawn == pytest.approx(stored, rel=1e-12)
    title = page.evaluate(f"""() => document.querySelector('{graph} .js-plotly-plot')
                                ._fullLayout.yaxis.title.text""")
    assert title.endswith("[rad/s²]")
    assert "Slider acceleration" not in page.inner_text("body")
    shot(page, "mechanism-case")
