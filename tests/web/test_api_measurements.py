"""``POST /api/studies/<id>/measurements`` (design.md 4.9): stored with its study and read
back exactly; a bad file is a 422 naming the field, and nothing is stored."""

from __future__ import annotations

import numpy as np
from archive_fixtures import preset
from gapsweep.study.measurements import Measurement, to_csv


def _study(archive) -> int:
    r = archive.client().post("/api/studies", json=preset())
    assert r.status_code == 201
    return r.get_json()["id"]


def test_a_csv_is_stored_and_read_back(archive):
    study_id = _study(archive)
    t = np.linspace(0.0, 0.012, 601)
    a = 3e4 * np.cos(2 * np.pi * 83.3 * t)
    text = to_csv(Measurement("time_s", t, {"slider_acceleration": a}))
    client = archive.client()
    r = client.post(f"/api/studies/{study_id}/measurements?name=rig.csv", data=text,
                    content_type="text/csv")
    assert r.status_code == 201, r.get_data(as_text=True)
    body = r.get_json()
    assert body["n_samples"] == 601 and body["series"] == ["slider_acceleration"]
    listing = client.get(f"/api/studies/{study_id}/measurements").get_json()["items"]
    assert [m["id"] for m in listing] == [body["id"]] and listing[0]["name"] == "rig.csv"
    data = client.get(f"/api/measurements/{body['id']}").get_json()["data"]
    assert data["time"] == t.tolist()
    assert data["series"]["slider_acceleration"] == a.tolist()
    # the JSON form, attached to a case of the study
    case_id = archive.case_ids(study_id)[0]
    r = client.post(f"/api/studies/{study_id}/measurements",
                    json={"csv": text, "name": "case rig", "case_id": case_id})
    assert r.status_code == 201 and r.get_json()["case_id"] == case_id


def test_bad_files_are_422_and_nothing_is_stored(archive):
    study_id = _study(archive)
    client = archive.client()
    for text, field in (
        ("slider_acceleration\n1\n2\n", "measurement.columns"),
        ("time_s,slider_acceleration\n0,1\n0,2\n", "measurement.time_s[2]"),
        ("time_s,slider_acceleration\n0,1\n1,NaN\n", "measurement.slider_acceleration[2]"),
        ("time_s,nonsense\n0,1\n1,2\n", "measurement.columns"),
    ):
        r = client.post(f"/api/studies/{study_id}/measurements", data=text,
                        content_type="text/csv")
        assert r.status_code == 422, text
        assert field in [e["field"] for e in r.get_json()["errors"]]
    big = "time_s,slider_acceleration\n" + "0,1\n" * 1_300_000
    r = client.post(f"/api/studies/{study_id}/measurements", data=big, content_type="text/csv")
    assert r.status_code in (413, 422)
    assert archive.count("measurements") == 0
    assert client.post("/api/studies/987654/measurements", data="x").status_code == 404
