"""GET /api/studies/<id>/variation and /predict (design.md 4.8) over synthetic results.

The archive's fake metrics are functions of the parameters (archive_fixtures.fake_metrics):
peak_slider_accel = 1000 (1 + 100 c) k, peak_driving_torque = 20 k; so the expected answers
are computed here from the cases' parameters, independently of the analysis code.
"""

from __future__ import annotations

import numpy as np
import pytest
from archive_fixtures import fake_metrics, preset

MC = {
    "name": "H7/g6 x stiffness", "model": "slider-crank", "design": "monte-carlo",
    "samples": 60, "seed": 3, "series": "none",
    "axes": {"clearance_mm": {"fit": "H7/g6", "diameter_mm": 20},
             "stiffness_scale": {"distribution": "normal", "nominal": 1.0,
                                 "relative_percent": 30}},
}


def _done_study(archive, spec):
    study_id = archive.create(spec)
    archive.run(archive.case_ids(study_id))
    detail = archive.client().get(f"/api/studies/{study_id}").get_json()
    return study_id, detail


def test_variation_matches_the_cases(archive):
    study_id, detail = _done_study(archive, MC)
    params = [c["params"] for c in detail["cases"]]
    y = np.array([fake_metrics(p)["peak_slider_accel"] for p in params])
    limit = float(np.percentile(y, 80))
    r = archive.client().get(f"/api/studies/{study_id}/variation",
                             query_string={"metric": "peak_slider_accel", "limit": limit})
    assert r.status_code == 200, r.get_data(as_text=True)
    body = r.get_json()
    assert set(body) == {"metric", "n", "mean", "std", "p5", "p50", "p95", "exceedance",
                         "contributions"}
    assert body["n"] == 60 and body["metric"] == "peak_slider_accel"
    assert body["mean"] == pytest.approx(y.mean()) and body["std"] == pytest.approx(
        y.std(ddof=1))
    assert body["p95"] == pytest.approx(np.percentile(y, 95))
    k = int((y > limit).sum())
    assert body["exceedance"]["probability"] == pytest.approx(k / 60)
    lo, hi = body["exceedance"]["ci95"]
    assert lo < k / 60 < hi and body["exceedance"]["limit"] == limit
    assert set(body["contributions"]) == {"clearance_mm", "stiffness_scale"}
    assert sum(body["contributions"].values()) == pytest.approx(1.0)


def test_variation_of_a_response_of_one_factor_gives_it_the_whole_share(archive):
    study_id, _ = _done_study(archive, MC)
    body = archive.client().get(f"/api/studies/{study_id}/variation",
                                query_string={"metric": "peak_driving_torque"}).get_json()
    assert body["contributions"]["stiffness_scale"] == pytest.approx(1.0, abs=1e-12)
    assert body["contributions"]["clearance_mm"] == pytest.approx(0.0, abs=1e-12)
    assert body["exceedance"] is None


def test_predict_returns_the_exact_quadratic_on_the_grid_study(archive):
    study_id, _ = _done_study(archive, preset())  # 5 clearances x 3 stiffness levels
    c, k = 0.043, 1.17
    r = archive.client().get(f"/api/studies/{study_id}/predict", query_string={
        "metric": "peak_slider_accel", "clearance_mm": c, "stiffness_scale": k})
    assert r.status_code == 200, r.get_data(as_text=True)
    body = r.get_json()
    assert set(body) == {"metric", "prediction", "r2", "r2_adjusted", "r2_predicted"}
    assert body["prediction"] == pytest.approx(1000 * (1 + 100 * c) * k, rel=1e-9)
    assert body["r2"] == pytest.approx(1.0, abs=1e-12)


def test_bad_queries_are_refused_with_the_field(archive):
    study_id, _ = _done_study(archive, preset())
    client = archive.client()
    r = client.get(f"/api/studies/{study_id}/predict",
                   query_string={"metric": "peak_slider_accel", "clearance_mm": 0.05})
    assert r.status_code == 422 and r.get_json()["errors"][0]["field"] == "stiffness_scale"
    r = client.get(f"/api/studies/{study_id}/variation", query_string={"metric": "nope"})
    assert r.status_code == 422 and r.get_json()["errors"][0]["field"] == "metric"
    r = client.get(f"/api/studies/{study_id}/variation",
                   query_string={"metric": "impacts", "limit": "high"})
    assert r.status_code == 422 and r.get_json()["errors"][0]["field"] == "limit"
    assert client.get("/api/studies/999999/variation?metric=impacts").status_code == 404
