"""An adaptive study in a real browser (chromium through Playwright) against ``gapsweep
serve`` with its local worker: a calibration run to its end, then its Search tab read as a
person sees it - the overlay's measured trace is the stored measurement (GET
/api/measurements/<id>), the best-so-far curve is the API's history (GET /api/studies/<id>)."""

from __future__ import annotations

import math

import pytest
import test_browser as tb
from gapsweep.study.measurements import Measurement, to_csv
from support.api import api_request, wait_done
from test_browser import STUDY_S, wait_status
from test_browser_certificates import plot

server, browser, page = tb.server, tb.browser, tb.page

pytestmark = pytest.mark.timeout(600)


def record() -> str:
    import numpy as np

    t = np.linspace(0.0, 0.006, 31)
    a = 2.0e4 * np.sin(2 * np.pi * 250.0 * t) + 300.0 * np.cos(2 * np.pi * 1.7e3 * t)
    return to_csv(Measurement("time_s", t, {"slider_acceleration": a}))


def test_calibration_overlay_and_history(server, page):
    base = server["base"]
    status, body = api_request(base + "/api/studies", body={
        "name": "calibration in the browser", "design": "calibrate",
        "base": {"clearance_mm": 0.05, "t_end": 0.006, "n_output": 61},
        "axes": {"stiffness_scale": {"start": 0.7, "stop": 1.3},
                 "restitution": {"start": 0.6, "stop": 0.95}},
        "series": "slider_acceleration", "measurement": {"file": "rig.csv", "csv": record()},
        "budget": 20, "seed": 3,
    })
    assert status == 201, body
    study_id = body["id"]
    detail = wait_done(base, study_id, until=lambda d: d["status"] == "done",
                       timeout_s=STUDY_S)
    assert detail["search"]["finished"] and detail["best"] is not None
    history = [h["best_cost"] for h in detail["search"]["history"]]
    measurements = api_request(f"{base}/api/studies/{study_id}/measurements")[1]["items"]
    stored = api_request(f"{base}/api/measurements/{measurements[0]['id']}")[1]["data"]

    page.goto(f"{base}/studies/{study_id}")
    assert wait_status(page, {"done"}, 30) == "done"
    fig = plot(page, "#search-history")
    assert [y for t in fig["data"] for y in t["y"]] == pytest.approx(history, rel=1e-12)
    overlay = plot(page, "#search-overlay", "el.data && el.data.length == 2")
    measured = next(t for t in overlay["data"] if t["name"] == "measured")
    assert measured["x"] == pytest.approx([1e3 * t for t in stored["time"]], rel=1e-12)
    assert measured["y"] == pytest.approx(stored["series"]["slider_acceleration"], rel=1e-12)
    # the best case's trace is its stored series, and the correlation shown is that of the
    # stored series on the measurement's time base
    from gapsweep.study.signal_match import align, match_errors

    name = "slider_acceleration"
    status, series = api_request(f"{base}/api/cases/{detail['best']['id']}/series")
    assert status == 200, series
    t_sim, y_sim = series.get(f"t:{name}", series.get("t")), series[name]
    best = next(t for t in overlay["data"] if t["name"] == "best case")
    # (the stored series are float32: the page scales the times in float32)
    assert best["x"] == pytest.approx([1e3 * t for t in t_sim], rel=1e-6)
    assert best["y"] == pytest.approx(y_sim, rel=1e-6)
    aligned = align(t_sim, y_sim, stored["time"], stored["series"][name])
    correlation = match_errors(aligned.measured, aligned.simulated)["correlation"]
    assert math.isfinite(correlation)
    assert f"correlation {correlation:.3f}" in overlay["title"]
    summary = page.inner_text("#search-summary")
    assert f"{detail['search']['cases']} of 20 cases" in summary and "finished" in summary
