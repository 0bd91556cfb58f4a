"""Every figure of the dashboard read back from the browser and checked against the archive.

One ``gapsweep serve`` (with its local worker) for the module, three small studies made
through the API by module fixtures (so no test depends on another's order):

- a grid, clearance 0.02 / 0.05 / 0.1 mm x stiffness x0.7 / x1.3 (+ its one ideal twin),
  ten crank revolutions so that a spectrum bin (8.3 Hz) is a tenth of the crank frequency;
- a one-at-a-time study (clearance and stiffness about 0.05 mm, x1.0): the tornado;
- a convergence study (rtol 1e-5, 1e-6, 1e-7, metric max penetration).

Each test opens a page in chromium, reads what Plotly drew (``_fullData``/``_fullLayout``
via ``page.evaluate``) and compares it with ``GET /api/studies/<id>`` or
``GET /api/cases/<id>/series`` to 1e-9: the trends lines and the ideal twin's line, the
tornado bars, the spectra and their harmonic markers, the convergence line and verdict, a
case's journal orbit (radius = c) and energy balance (legend clear of the second y axis), the
compare page's traces. Every numeric axis title names its unit, and no tick label or axis
title is clipped by its figure's edge or lies over its axis' labels (boxes as drawn).
Screenshots of each page go to ``$GAPSWEEP_SHOTS`` (default ``tests/artifacts/figures``).

Skipped when chromium is missing, except with ``CI=true`` (then it fails).
"""

from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path

import numpy as np
import pytest
from browsers import inside, launch_browser, open_page, overlap, plotly_figure
from support.api import get_json, post_json, wait_done
from support.serving import server_fixture

ROOT = Path(__file__).resolve().parents[2]
SHOTS = Path(os.environ.get("GAPSWEEP_SHOTS") or ROOT / "tests" / "artifacts" / "figures")
STUDIES_S = 420  # the three studies done, a first-start kernel compile (2.5 min) included
UI_MS = 30_000  # one page or figure to appear (a loaded 2-core machine)
REL = 1e-9

pytestmark = pytest.mark.timeout(900)

SPEED_RPM = 5000.0
REVOLUTIONS = 10
T_END = REVOLUTIONS * 60.0 / SPEED_RPM  # 0.12 s
CLEARANCES_MM = [0.02, 0.05, 0.1]
STIFFNESS = [0.7, 1.3]

GRID = {
    "name": "Figures: clearance x stiffness",
    "design": "grid",
    "ideal_twin": True,
    "series": "preview",
    "base": {"speed_rpm": SPEED_RPM, "t_end": T_END},
    "axes": {"clearance_mm": {"values": CLEARANCES_MM},
             "stiffness_scale": {"values": STIFFNESS}},
}
ONE_AT_A_TIME = {
    "name": "Figures: one at a time",
    "design": "one-at-a-time",
    "ideal_twin": False,
    "series": "none",
    "axes": {"clearance_mm": {"values": CLEARANCES_MM, "nominal": 0.05},
             "stiffness_scale": {"nominal": 1.0, "relative_percent": 30, "levels": 3}},
}
CONVERGENCE = {
    "name": "Figures: convergence in rtol",
    "design": "convergence",
    "metric": "max_penetration",
    "ideal_twin": False,
    "series": "none",
    "base": {"clearance_mm": 0.05},
    "axes": {"rtol": {"values": [1e-5, 1e-6, 1e-7]}},
}


# --- the server, the studies, the browser ---------------------------------------------------


#: ``gapsweep serve`` with one local worker, its own data folder and port; stopped by pid at
#: the end, with a check that its workers went with it
server = server_fixture("gapsweep-figures", workers=True, chromium=True, start_s=120)


def _analysed(detail: dict) -> bool:
    return detail["status"] in ("done", "cancelled") and detail.get("analysis") is not None


@pytest.fixture(scope="module")
def studies(server):
    """The three studies, submitted at once and each followed to done (with its stored
    analysis): {"grid", "oat", "convergence"} -> the API's detail."""
    base = server["base"]
    made = {key: post_json(base + "/api/studies", spec)["id"]
            for key, spec in (("grid", GRID), ("oat", ONE_AT_A_TIME),
                              ("convergence", CONVERGENCE))}
    deadline = time.monotonic() + STUDIES_S  # for the three together
    out = {key: wait_done(base, study_id, until=_analysed,
                          timeout_s=max(deadline - time.monotonic(), 0.0))
           for key, study_id in made.items()}
    for key, detail in out.items():
        assert detail["status"] == "done", (key, detail["status"])
        assert {c["status"] for c in detail["cases"] + detail["twins"]} == {"done"}, key
    return out


@pytest.fixture(scope="module")
def browser(server):
    yield from launch_browser(server["chromium"])


@pytest.fixture
def page(browser):
    yield from open_page(browser, UI_MS, no_errors_after=True)


def shot(page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def open_tab(page, base: str, study_id: int, tab: str) -> None:
    page.goto(f"{base}/studies/{study_id}")
    page.wait_for_selector("#study-status")
    page.get_by_role("tab", name=tab).click()


def series(base: str, case_id: int, *names: str) -> dict[str, np.ndarray]:
    got = get_json(f"{base}/api/cases/{case_id}/series?names={','.join(names)}")
    return {k: np.asarray(v, dtype=float) for k, v in got.items()}


def close(actual, expected, rel: float = REL) -> None:
    """Arrays (or numbers) equal to ``rel`` relative to the largest magnitude of ``expected``
    (a zero crossing is compared at the series' scale, not its own)."""
    a, e = np.asarray(actual, dtype=float), np.asarray(expected, dtype=float)
    assert a.shape == e.shape, (a.shape, e.shape)
    scale = max(float(np.max(np.abs(e))) if e.size else 0.0, np.finfo(float).tiny)
    np.testing.assert_allclose(a, e, rtol=0.0, atol=rel * scale)


UNIT = re.compile(r"\[[^\]]+\]")


def assert_units(fig: dict) -> None:
    """Every numeric (linear, log) axis of the figure has a title naming a unit ``[...]``;
    no tick label or axis title is clipped by the figure's edge, and no axis title lies over
    its axis' tick labels (as the screen shows them)."""
    for name, axis in fig["layout"]["axes"].items():
        if axis["type"] in ("linear", "log"):
            assert UNIT.search(axis["title"]), f"{name} title {axis['title']!r} has no unit"
    screen = fig["screen"]
    for axis, ticks in screen["ticks"].items():
        for box in ticks + screen["titles"][axis]:
            assert inside(box, screen["paper"]), (axis, box, screen["paper"])
        for title in screen["titles"][axis]:
            assert not any(overlap(title, tick, margin_px=1) for tick in ticks), (axis, title)


def case_by(detail: dict, **params: float) -> dict:
    (case,) = [c for c in detail["cases"]
               if all(c["params"].get(k) == v for k, v in params.items())]
    return case


# --- the study page ----------------------------------------------------------------------


def test_trends_lines_and_the_ideal_twin_line_equal_the_api(server, studies, page):
    from gapsweep.web import ids
    from gapsweep.web.figures.labels import level_name, metric_label, parameter_label
    from gapsweep.web.figures.trends import TWIN_NAME

    grid = studies["grid"]
    open_tab(page, server["base"], grid["id"], "Trends")
    twin = grid["twins"][0]["metrics"]
    # the settled motion (the default), the whole run, the last revolution, then another
    # metric (last revolution)
    views = (("peak_slider_accel_settled", "[m/s²]"), ("peak_slider_accel", "[m/s²]"),
             ("peak_slider_accel_steady", "[m/s²]"), ("peak_contact_force_steady", "[N]"))
    for metric, unit in views:
        if metric == "peak_slider_accel":
            page.locator(f"#{ids.TRENDS_WINDOW} label", has_text="whole run").click()
        elif metric == "peak_slider_accel_steady":
            page.locator(f"#{ids.TRENDS_WINDOW} label", has_text="last revolution").click()
        elif metric == "peak_contact_force_steady":  # another metric from the dropdown
            page.locator(f"#{ids.TRENDS_METRIC}").click()
            page.get_by_role("option", name=metric_label("peak_contact_force")).click()
        fig = plotly_figure(page, f"#{ids.TRENDS_GRAPH}",
                            f"fig.data.length == {len(STIFFNESS) + 1} && "
                            f"fig.layout.axes.yaxis.title == {json.dumps(metric_label(metric))}")
        lines = [t for t in fig["data"] if t["name"] != TWIN_NAME]
        # one line per stiffness level, x = the clearances in mm, y = the archive's metric
        assert [t["name"] for t in lines] == [level_name("stiffness_scale", s) for s in STIFFNESS]
        for line, s in zip(lines, STIFFNESS, strict=True):
            assert line["x"] == CLEARANCES_MM
            close(line["y"], [case_by(grid, clearance_mm=c, stiffness_scale=s)["metrics"][metric]
                              for c in CLEARANCES_MM])
        (twin_line,) = [t for t in fig["data"] if t["name"] == TWIN_NAME]
        assert twin_line["x"] == [min(CLEARANCES_MM), max(CLEARANCES_MM)]
        close(twin_line["y"], [twin[metric]] * 2)
        assert twin_line["dash"] == "dash"
        assert fig["layout"]["axes"]["xaxis"]["title"] == parameter_label("clearance_mm")
        assert "[mm]" in fig["layout"]["axes"]["xaxis"]["title"]
        assert fig["layout"]["axes"]["yaxis"]["title"].endswith(unit)
        assert_units(fig)
        shot(page, f"study-trends-{metric}")


def test_tornado_bars_equal_the_stored_analysis(server, studies, page):
    from gapsweep.web import ids

    oat = studies["oat"]  # the page opens on the headline: the settled peak (issue 23)
    rows = oat["analysis"]["tornado"]["peak_slider_accel_settled"]
    assert [r["axis"] for r in rows] and {r["axis"] for r in rows} == {"clearance_mm",
                                                                       "stiffness_scale"}
    open_tab(page, server["base"], oat["id"], "Sensitivity")
    fig = plotly_figure(page, f"#{ids.SENSITIVITY_CONTENT}", "fig.data.length == 2")
    low, high = fig["data"]
    assert (low["name"], high["name"]) == ("low", "high")
    # bars ordered by swing, the largest on top; each from the nominal to the metric
    by_swing = sorted(rows, key=lambda r: -abs(r["high"] - r["low"]))
    for bar, side in ((low, "low"), (high, "high")):
        assert bar["type"] == "bar" and bar["orientation"] == "h"
        assert bar["y"] == [r["axis"] for r in by_swing]
        close(bar["base"], [r["nominal"] for r in by_swing])
        close(np.add(bar["base"], bar["x"]), [r[side] for r in by_swing])
    nominal = oat["cases"][0]["metrics"]["peak_slider_accel_settled"]  # case 0: the nominal case
    assert {r["nominal"] for r in rows} == {nominal}
    (marker,) = fig["layout"]["shapes"]
    assert marker["x0"] == marker["x1"] == pytest.approx(nominal, rel=REL)
    assert "[m/s²]" in fig["layout"]["axes"]["xaxis"]["title"]
    assert_units(fig)
    shot(page, "study-sensitivity-tornado")


def test_spectra_equal_the_stored_series_and_peak_at_crank_harmonics(server, studies, page):
    from gapsweep.web import ids
    from gapsweep.web.figures.labels import level_name

    grid = studies["grid"]
    open_tab(page, server["base"], grid["id"], "Spectra")
    fig = plotly_figure(page, f"#{ids.SPECTRA_GRAPH}", f"fig.data.length == {len(CLEARANCES_MM)}")
    # the overlay: along clearance at the middle stiffness level (of two, the upper), each
    # named by its clearance and the crank order of its strongest line in the default band
    # (up to the 40th harmonic)
    f1 = SPEED_RPM / 60.0  # 83.3 Hz
    for trace, c in zip(fig["data"], CLEARANCES_MM, strict=True):
        freq, amp = np.asarray(trace["x"]), np.asarray(trace["y"])
        band = (freq > 0) & (freq <= 40 * f1 * (1 + 1e-12))
        peak = float(freq[band][np.argmax(amp[band])])
        n = round(peak / f1)
        assert abs(peak - n * f1) <= (freq[1] - freq[0]) * (1 + 1e-9), (c, peak)  # a harmonic
        # named by every varied factor (issue 25): the clearance and the stiffness level
        assert trace["name"] == (f"{level_name('clearance_mm', c)}, "
                                 f"{level_name('stiffness_scale', STIFFNESS[-1])} · peak {n}×")
    for trace, c in zip(fig["data"], CLEARANCES_MM, strict=True):
        case = case_by(grid, clearance_mm=c, stiffness_scale=STIFFNESS[-1])
        stored = series(server["base"], case["id"], "spectrum_freq_hz",
                        "spectrum_slider_acceleration")
        close(trace["x"], stored["spectrum_freq_hz"])
        close(trace["y"], stored["spectrum_slider_acceleration"])
        freq, amp = np.asarray(trace["x"]), np.asarray(trace["y"])
        bin_hz = float(freq[1] - freq[0])
        # whole revolutions: of the settled window (issue 23), at most the run's
        revolutions = f1 / bin_hz
        assert revolutions == pytest.approx(round(revolutions), rel=1e-6)
        assert 1 <= round(revolutions) <= REVOLUTIONS
        # the three strongest lines (local maxima) between 0.5 and 6.5 x the crank frequency:
        # each within one bin of a harmonic, the first harmonic the strongest
        band = np.flatnonzero((freq > 0.5 * f1) & (freq < 6.5 * f1))
        band = band[(amp[band] > amp[band - 1]) & (amp[band] >= amp[band + 1])]
        for k in band[np.argsort(amp[band])[::-1][:3]]:
            n = max(1, round(freq[k] / f1))
            assert abs(freq[k] - n * f1) <= bin_hz * (1 + 1e-9), (c, freq[k], n * f1)
        assert abs(freq[band][np.argmax(amp[band])] - f1) <= bin_hz  # the first dominates
    # the harmonic markers: n x 83.3 Hz, vertical, within the x range
    xs = [s["x0"] for s in fig["layout"]["shapes"] if s["type"] == "line"]
    assert xs and all(s["x0"] == s["x1"] and s["yref"] == "paper"
                      for s in fig["layout"]["shapes"])
    close(xs, f1 * np.arange(1, len(xs) + 1))
    assert_units(fig)
    assert fig["layout"]["axes"]["xaxis"]["title"].endswith("[Hz]")
    shot(page, "study-spectra")
    # the waterfall: one row per clearance (y in mm), the same stored amplitudes
    page.locator(f"#{ids.SPECTRA_VIEW} label", has_text="waterfall").click()
    heat = plotly_figure(page, f"#{ids.SPECTRA_GRAPH}", "fig.data[0].type == 'heatmap'")
    (trace,) = heat["data"]
    assert trace["y"] == CLEARANCES_MM
    # its colour is the log10 of the amplitude (issue 25: one stripe on a linear scale)
    tiny = np.finfo(float).tiny
    for row, line in zip(trace["z"], fig["data"], strict=True):
        close(row, np.log10(np.maximum(np.asarray(line["y"], dtype=float), tiny)))
    close(trace["x"], fig["data"][0]["x"])
    assert heat["layout"]["axes"]["yaxis"]["title"].endswith("[mm]")
    assert_units(heat)
    shot(page, "study-spectra-waterfall")


def test_convergence_line_and_verdict_equal_the_stored_analysis(server, studies, page):
    from gapsweep.web import ids
    from gapsweep.web.figures.convergence import RICHARDSON_NAME
    from gapsweep.web.figures.labels import metric_scale

    conv = studies["convergence"]
    analysis = conv["analysis"]
    assert analysis["metric"] == "max_penetration" and analysis["levels"] == [1e-5, 1e-6, 1e-7]
    # the analysis is the cases' metric per level
    close(analysis["values"], [case_by(conv, rtol=r)["metrics"]["max_penetration"]
                               for r in analysis["levels"]])
    open_tab(page, server["base"], conv["id"], "Convergence")
    fig = plotly_figure(page, f"#{ids.CONVERGENCE_CONTENT}", "fig.data.length >= 1")
    line = fig["data"][0]
    close(line["x"], analysis["levels"])
    scale = metric_scale("max_penetration")  # stored in m, shown in µm
    assert scale == 1e6
    close(line["y"], [v * scale for v in analysis["values"]])
    assert fig["layout"]["axes"]["xaxis"]["type"] == "log"
    assert len(fig["screen"]["ticks"]["x"]) == len(analysis["levels"])  # a label per level
    estimate = analysis.get("richardson_estimate")
    richardson = [t for t in fig["data"] if t["name"] == RICHARDSON_NAME]
    if estimate is None:
        assert richardson == []
    else:
        close(richardson[0]["y"], [estimate * scale, estimate * scale])
    verdict = page.inner_text(f"#{ids.CONVERGENCE_CONTENT}")
    assert f"Verdict: {analysis['verdict']}" in verdict
    order = analysis.get("observed_order")
    assert ("undefined" if order is None else f"{order:.2f}") in fig["layout"]["title"]
    assert "[µm]" in fig["layout"]["axes"]["yaxis"]["title"]
    assert_units(fig)
    shot(page, "study-convergence")


# --- the case and compare pages ------------------------------------------------------------


def test_case_orbit_lies_in_the_clearance_circle(server, studies, page):
    grid = studies["grid"]
    c_mm = 0.05
    case = case_by(grid, clearance_mm=c_mm, stiffness_scale=STIFFNESS[0])
    page.goto(f"{server['base']}/cases/{case['id']}")
    fig = plotly_figure(page, "#case-graph-orbit", "fig.data.length >= 1")
    c = c_mm / 1000.0
    (circle,) = [s for s in fig["layout"]["shapes"] if s["type"] == "circle"]
    assert [circle["x0"], circle["x1"], circle["y0"], circle["y1"]] == pytest.approx(
        [-c, c, -c, c], rel=REL)  # radius = c, in metres like the axes
    stored = series(server["base"], case["id"], "eccentricity_x", "eccentricity_y",
                    "t:eccentricity_x", "t:eccentricity_y")
    orbit = fig["data"][0]
    # one point of the orbit = x and y at the same instant
    t = np.union1d(stored["t:eccentricity_x"], stored["t:eccentricity_y"])
    assert len(orbit["x"]) == len(orbit["y"]) == t.size
    exact_x = np.isin(t, stored["t:eccentricity_x"])
    exact_y = np.isin(t, stored["t:eccentricity_y"])
    close(np.asarray(orbit["x"])[exact_x], stored["eccentricity_x"])
    close(np.asarray(orbit["y"])[exact_y], stored["eccentricity_y"])
    radius = np.hypot(orbit["x"], orbit["y"])
    # the journal leaves the circle by the penetration only (the stored maximum)
    assert radius.max() <= c + case["metrics"]["max_penetration"] * 1.01 + 1e-12
    assert radius.max() >= 0.9 * c  # it does reach the wall (impacts)
    assert fig["layout"]["axes"]["yaxis"]["title"].endswith("[m]")
    assert_units(fig)
    shot(page, "case")


def test_case_energy_balance_in_panels_each_with_round_ticks(server, studies, page):
    """The energy balance: the large terms, the small ones (contact energy, dissipations:
    once flat on zero at a 0-160 J scale) and the residual each in a panel of its own, and
    every panel's ticks at round, evenly spaced values (an axis synchronised with another's
    grid once ticked at -40µ, -190µ, -339µ, -489µ)."""
    import itertools
    import math

    from gapsweep.web.figures.case_views import ENERGY_TERMS, SMALL_TERM_SHARE

    case = case_by(studies["grid"], clearance_mm=0.1, stiffness_scale=STIFFNESS[-1])
    page.goto(f"{server['base']}/cases/{case['id']}")
    fig = plotly_figure(page, "#case-graph-energy", "fig.data.length >= 2")
    names = [*ENERGY_TERMS, "energy_residual"]
    stored = series(server["base"], case["id"], *names, *[f"t:{n}" for n in names])
    by_label = {t["name"]: t for t in fig["data"]}
    assert len(fig["data"]) == len(names)
    top = max(max(abs(v) for v in stored[n]) for n in ENERGY_TERMS)
    for name in names:
        trace = by_label[series_title(name)]
        close(trace["x"], stored[f"t:{name}"])
        close(trace["y"], stored[name])
        small = max(abs(v) for v in stored[name]) < SMALL_TERM_SHARE * top
        want = "y3" if name == "energy_residual" else ("y2" if small else "y")
        assert trace["yaxis"] == want, (name, trace["yaxis"])
    axes = fig["layout"]["axes"]
    assert all(axes[a]["overlaying"] is None for a in ("yaxis", "yaxis2", "yaxis3"))
    assert [axes[a]["title"] for a in ("yaxis", "yaxis2", "yaxis3")] == [
        "Energy [J]", "Small terms [J]", "Energy residual [J]"]
    assert_units(fig)
    ticks = page.evaluate("""() => { const fl = document.querySelector(
        '#case-graph-energy .js-plotly-plot')._fullLayout;
        return ['yaxis', 'yaxis2', 'yaxis3'].map(a => (fl[a]._vals || []).map(v => v.x)); }""")
    for values in ticks:
        assert len(values) >= 2, ticks
        steps = [b - a for a, b in itertools.pairwise(values)]
        assert max(steps) == pytest.approx(min(steps), rel=1e-6)  # evenly spaced
        mantissa = steps[0] / 10 ** math.floor(math.log10(steps[0]))
        assert any(mantissa == pytest.approx(m, rel=1e-6) for m in (1, 2, 2.5, 5)), steps
    shot(page, "case-energy")


def series_title(name: str) -> str:
    from gapsweep.web.figures.labels import SERIES

    return SERIES[name][0]


def test_every_case_figure_names_its_units(server, studies, page):
    case = case_by(studies["grid"], clearance_mm=0.02, stiffness_scale=STIFFNESS[0])
    page.goto(f"{server['base']}/cases/{case['id']}")
    page.wait_for_selector("#case-graphs .js-plotly-plot")
    graph_ids = page.evaluate(
        "() => Array.from(document.querySelectorAll('#case-graphs .dash-graph'), g => g.id)")
    assert {"case-graph-acceleration", "case-graph-orbit", "case-graph-energy",
            "case-graph-penetration"} <= set(graph_ids)
    for graph_id in graph_ids:
        assert_units(plotly_figure(page, f"#{graph_id}", "fig.data.length >= 1"))
    accel = plotly_figure(page, "#case-graph-acceleration", "fig.data.length == 2")
    twin = series(server["base"], studies["grid"]["twins"][0]["id"], "slider_acceleration")
    close(accel["data"][1]["y"], twin["slider_acceleration"])  # the ideal joint, dashed
    assert accel["data"][1]["dash"] == "dash"
    shot(page, "case-units")


def test_compare_page_one_trace_per_case(server, studies, page):
    from gapsweep.web.figures.compare import COMPARE_SERIES, compare_labels

    grid = studies["grid"]
    cases = [case_by(grid, clearance_mm=c, stiffness_scale=STIFFNESS[0]) for c in CLEARANCES_MM]
    case_ids = [c["id"] for c in cases]
    page.goto(f"{server['base']}/compare?cases={','.join(map(str, case_ids))}")
    labels = compare_labels({c["id"]: c for c in cases})
    assert len(set(labels.values())) == len(cases)  # the legend tells them apart
    (twin_id,) = {c["twin_id"] for c in cases}  # the grid's cases share one ideal twin
    for name in COMPARE_SERIES:
        fig = plotly_figure(page, f"#compare-graph-{name}", f"fig.data.length >= {len(cases)}")
        drawn, twin_line = fig["data"][: len(cases)], fig["data"][len(cases):]
        assert [t["name"] for t in drawn] == [labels[i] for i in case_ids]
        for trace, case_id in zip(drawn, case_ids, strict=True):
            stored = series(server["base"], case_id, name, f"t:{name}")
            close(trace["x"], stored[f"t:{name}"])
            close(trace["y"], stored[name])
        # then the twin's own series, dashed, when the ideal joint has it (not contact force)
        twin = series(server["base"], twin_id, name, f"t:{name}")
        if twin.get(name) is not None and len(twin[name]):
            (trace,) = twin_line
            assert trace["name"] == "ideal joint" and trace["dash"] == "dash"
            close(trace["x"], twin[f"t:{name}"])
            close(trace["y"], twin[name])
        else:
            assert twin_line == []
        assert_units(fig)
    shot(page, "compare")


def test_grid_study_tabs_without_their_designs_say_so(server, studies, page):
    # (what the convergence tab offers a grid study is issue 19's: only that it says something)
    from gapsweep.web import ids

    grid = studies["grid"]
    open_tab(page, server["base"], grid["id"], "Sensitivity")
    # a grid's sensitivity: each factor's main effect and its share of the variance (issue
    # 25), the shares with the interaction summing to 1
    fig = plotly_figure(page, f"#{ids.SENSITIVITY_CONTENT}", "fig.data.length >= 3")
    shares = fig["data"][-1]
    assert shares["type"] == "bar" and shares["x"][-1] == "interactions"
    assert sum(shares["y"]) == pytest.approx(1.0, abs=1e-9)
    assert_units(fig)
    shot(page, "study-grid-sensitivity")
    page.get_by_role("tab", name="Convergence").click()
    page.wait_for_selector(f"#{ids.CONVERGENCE_CONTENT} > *")
    assert page.inner_text(f"#{ids.CONVERGENCE_CONTENT}").strip()
    shot(page, "study-grid-convergence")
