"""The JSON API (design.md 4.4) through Flask's test client, over a temporary SQLite
archive: every route, 201 with rows written, 422 with field errors and nothing written, 404
for unknown ids, the CSV's columns and the series as JSON arrays."""

from __future__ import annotations

import csv
import io
import json

import numpy as np
from archive_fixtures import N_SERIES, fake_metrics, fake_series, preset

CLEARANCES = [0.02, 0.035, 0.05, 0.08, 0.1]
STIFFNESS = [0.7, 1.0, 1.3]


def test_health_reports_database_and_no_workers(archive):
    r = archive.client().get("/api/health")
    assert r.status_code == 200
    body = r.get_json()
    assert body["database"] == "ok"
    assert body["broker"]  # embedded or a probe's answer
    assert body["workers"] == []
    assert body["kernels_ready"] is False  # no local worker wrote its ready mark


def test_post_creates_the_study_and_its_rows(archive):
    r = archive.client().post("/api/studies", json=preset())
    assert r.status_code == 201, r.get_data(as_text=True)
    study_id = r.get_json()["id"]
    assert isinstance(study_id, int)
    assert r.headers["Location"] == f"/api/studies/{study_id}"
    assert archive.count("studies") == 1
    # 15 design cases + 1 ideal twin (design.md 4.5), all enqueued once
    assert archive.count("cases") == 16
    assert sorted(archive.sent[0]) == archive.case_ids(study_id)


def test_bad_spec_is_422_with_field_errors_and_nothing_written(archive):
    bad = preset()
    bad["axes"]["clearance_mm"]["values"][2] = -0.01
    bad["axes"]["stiffness_scale"]["levels"] = 0
    bad["colour"] = "red"
    r = archive.client().post("/api/studies", json=bad)
    assert r.status_code == 422
    errors = r.get_json()["errors"]
    fields = {e["field"]: e for e in errors}
    assert fields["axes.clearance_mm.values[2]"]["value"] == -0.01
    assert "bearing radius" in fields["axes.clearance_mm.values[2]"]["allowed"]
    assert fields["axes.stiffness_scale.levels"]["value"] == 0
    assert "colour" in fields
    assert all(set(e) == {"field", "value", "allowed"} for e in errors)
    assert archive.count("studies") == 0
    assert archive.count("cases") == 0
    assert archive.sent == []


def test_malformed_json_non_object_and_oversized_bodies(archive):
    client = archive.client()
    r = client.post("/api/studies", data="{name: ", content_type="application/json")
    assert r.status_code == 400
    assert "not JSON" in r.get_json()["error"]
    r = client.post("/api/studies", json=[1, 2])
    assert r.status_code == 422
    assert r.get_json()["errors"][0]["field"] == "file"
    big = preset()
    big["description"] = "x" * (1 << 20)
    r = client.post("/api/studies", json=big)
    assert r.status_code == 413
    assert "error" in r.get_json()
    assert archive.count("studies") == 0


def test_list_studies_pages_filters_and_shapes(archive):
    ids = []
    for k in range(3):
        spec = preset()
        spec["name"] = f"study {k}"
        spec["tags"] = ["even"] if k % 2 == 0 else ["odd"]
        ids.append(archive.create(spec))
    client = archive.client()
    body = client.get("/api/studies").get_json()
    assert body["total"] == 3
    assert [i["id"] for i in body["items"]] == ids[::-1]  # newest first
    item = body["items"][0]
    assert set(item) == {"id", "name", "model", "status", "tags", "created", "cases", "done",
                         "failed"}
    assert (item["cases"], item["done"], item["failed"], item["status"]) == (15, 0, 0, "queued")
    page = client.get("/api/studies?limit=1&offset=1").get_json()
    assert page["total"] == 3 and [i["id"] for i in page["items"]] == [ids[1]]
    tagged = client.get("/api/studies?tag=even").get_json()
    assert sorted(i["id"] for i in tagged["items"]) == [ids[0], ids[2]]
    found = client.get("/api/studies?search=STUDY 1").get_json()
    assert [i["id"] for i in found["items"]] == [ids[1]]
    assert client.get("/api/studies?limit=zero").status_code == 422
    assert client.get("/api/studies?limit=0").status_code == 422


def test_show_study_as_show_json(archive):
    study_id = archive.create()
    twin = archive.case_ids(study_id, "twin")
    cases = archive.case_ids(study_id, "case")
    archive.run(twin + cases[:4], fail={cases[3]})
    body = archive.client().get(f"/api/studies/{study_id}").get_json()
    assert {"id", "name", "model", "status", "spec", "provenance", "cases", "twins"} <= set(body)
    assert body["id"] == study_id and body["status"] == "running"
    assert len(body["cases"]) == 15 and len(body["twins"]) == 1
    first = body["cases"][0]
    assert set(first) >= {"id", "params", "status", "attempts", "reason", "metrics"}
    # grid order: the first axis outermost
    assert first["params"] == {"speed_rpm": 5000.0, "clearance_mm": 0.02, "stiffness_scale": 0.7}
    expected = fake_metrics(first["params"])["peak_slider_accel"]
    assert first["metrics"]["peak_slider_accel"] == expected
    twin_peak = fake_metrics({"ideal": True})["peak_slider_accel"]
    assert np.isclose(first["metrics"]["deviation_peak_slider_accel"], expected / twin_peak - 1)
    assert body["cases"][3]["status"] == "failed" and body["cases"][3]["reason"] == "diverged"


def test_cases_csv_columns_and_rows(archive):
    study_id = archive.create()
    cases = archive.case_ids(study_id, "case")
    archive.run(archive.case_ids(study_id, "twin") + cases[:2])
    r = archive.client().get(f"/api/studies/{study_id}/cases.csv")
    assert r.status_code == 200 and r.mimetype == "text/csv"
    rows = list(csv.DictReader(io.StringIO(r.get_data(as_text=True))))
    header = list(rows[0])
    # params in spec order, then status, then the metrics (design.md 4.5)
    assert header[:4] == ["speed_rpm", "clearance_mm", "stiffness_scale", "status"]
    assert header[4] == "peak_slider_accel"
    assert header[-1] == "case_id"  # after 4.5's columns, so positions before it hold
    assert [int(r["case_id"]) for r in rows] == cases
    assert len(rows) == 15  # the twin is not an export row
    got = [(float(r["clearance_mm"]), float(r["stiffness_scale"])) for r in rows]
    assert got == [(c, k) for c in CLEARANCES for k in STIFFNESS]
    assert [r["status"] for r in rows[:3]] == ["done", "done", "queued"]
    assert float(rows[1]["peak_slider_accel"]) == fake_metrics(
        {"clearance_mm": 0.02, "stiffness_scale": 1.0})["peak_slider_accel"]
    # the units of those columns, one row each, in the same order
    r = archive.client().get(f"/api/studies/{study_id}/cases.units.csv")
    assert r.status_code == 200 and r.mimetype == "text/csv"
    units = list(csv.DictReader(io.StringIO(r.get_data(as_text=True))))
    assert [u["column"] for u in units] == header
    unit = {u["column"]: u["unit"] for u in units}
    assert (unit["speed_rpm"], unit["clearance_mm"], unit["stiffness_scale"]) == ("rpm", "mm", "")
    assert (unit["peak_slider_accel"], unit["max_penetration"], unit["status"]) == (
        "m/s²", "m", "")  # the export is SI, as --json
    assert archive.client().get("/api/studies/999/cases.units.csv").status_code == 404


def test_cancel_and_retry(archive):
    study_id = archive.create()
    cases = archive.case_ids(study_id, "case")
    twin = archive.case_ids(study_id, "twin")
    archive.run(twin + cases[:3], fail={cases[1]})
    client = archive.client()
    sent = []

    class Recorder:
        def send(self, chunk):
            sent.append(chunk)

        def pending_messages(self):
            return 0

    import gapsweep.workers.submit as submit_module

    original = submit_module.default_dispatcher
    submit_module.default_dispatcher = Recorder
    try:
        r = client.post(f"/api/studies/{study_id}/retry")
    finally:
        submit_module.default_dispatcher = original
    assert r.status_code == 200
    assert r.get_json()["retried"] == 1 and sent == [[cases[1]]]
    r = client.post(f"/api/studies/{study_id}/cancel")
    assert r.status_code == 200
    assert r.get_json()["cancelled"] == 13  # 12 never run + the retried one
    detail = client.get(f"/api/studies/{study_id}").get_json()
    assert detail["status"] == "cancelled"
    statuses = [c["status"] for c in detail["cases"]]
    assert statuses.count("done") == 2 and statuses.count("cancelled") == 13


def test_case_and_series(archive):
    study_id = archive.create()
    case_id = archive.case_ids(study_id, "case")[4]
    archive.run([case_id])
    client = archive.client()
    case = client.get(f"/api/cases/{case_id}").get_json()
    assert case["id"] == case_id and case["study_id"] == study_id
    assert case["params"]["clearance_mm"] == 0.035 and case["params"]["stiffness_scale"] == 1.0
    r = client.get(f"/api/cases/{case_id}/series?names=t,slider_acceleration")
    assert r.status_code == 200
    body = r.get_json()
    assert set(body) == {"t", "slider_acceleration"}
    want = fake_series(case["params"])
    assert len(body["t"]) == N_SERIES
    np.testing.assert_allclose(body["t"], want["t"], rtol=1e-6, atol=1e-12)
    np.testing.assert_allclose(body["slider_acceleration"], want["slider_acceleration"],
                               rtol=1e-5, atol=1e-6 * np.abs(want["slider_acceleration"]).max())
    everything = client.get(f"/api/cases/{case_id}/series").get_json()
    assert set(everything) == set(want)
    r = client.get(f"/api/cases/{case_id}/series?names=nonsense")
    assert r.status_code == 404 and "nonsense" in r.get_json()["error"]
    assert sorted(r.get_json()["available"]) == sorted(want)


def test_unknown_ids_and_paths_are_json_404(archive):
    client = archive.client()
    for method, path in [
        ("get", "/api/studies/999"),
        ("get", "/api/studies/999/cases.csv"),
        ("post", "/api/studies/999/cancel"),
        ("post", "/api/studies/999/retry"),
        ("get", "/api/cases/999"),
        ("get", "/api/cases/999/series?names=t"),
        ("get", "/api/studies/abc"),
        ("get", "/api/nothing-here"),
    ]:
        r = getattr(client, method)(path)
        assert r.status_code == 404, path
        assert "error" in json.loads(r.get_data(as_text=True)), path


def test_deleted_study_is_gone_from_the_api(archive):
    study_id = archive.create()
    from gapsweep.accounts.roles import LOCAL
    from gapsweep.web import actions

    with archive.app.server.app_context():
        assert actions.delete([study_id, 12345], who=LOCAL) == (1, [])
    client = archive.client()
    assert client.get(f"/api/studies/{study_id}").status_code == 404
    assert client.get("/api/studies").get_json()["total"] == 0
