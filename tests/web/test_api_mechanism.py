"""``POST /api/studies`` takes a mechanism study (design.md 4.7): the [mechanism] table is
stored with the study and its cases, and a broken table is a 422 naming its field, with
nothing written."""

from __future__ import annotations

import copy
from pathlib import Path

import tomllib

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "mechanism_four_bar_crank_rocker.toml"


def _spec() -> dict:
    with open(EXAMPLE, "rb") as f:
        return tomllib.load(f)


def test_post_stores_the_mechanism_with_the_study(archive):
    spec = _spec()
    client = archive.client()
    r = client.post("/api/studies", json=spec)
    assert r.status_code == 201, r.get_data(as_text=True)
    study_id = r.get_json()["id"]
    assert archive.count("cases") == 4 + 2  # 2 clearances x 2 speeds, a twin per speed
    shown = client.get(f"/api/studies/{study_id}").get_json()
    assert shown["model"] == "mechanism"
    assert shown["spec"]["mechanism"] == spec["mechanism"]
    # a case stores what varies; the study holds the table (issue 34.4, design.md 4.5)
    assert all("mechanism" not in c["params"] for c in shown["cases"])


def test_post_refuses_a_broken_table_naming_its_field(archive):
    spec = copy.deepcopy(_spec())
    spec["mechanism"]["joints"]["rocker_pin"]["bodies"] = ["coupler", "slider"]
    r = archive.client().post("/api/studies", json=spec)
    assert r.status_code == 422
    (err,) = r.get_json()["errors"]
    assert err["field"] == "mechanism.joints.rocker_pin.bodies[1]"
    assert err["value"] == "slider"
    assert err["allowed"] == "one of ground, coupler, crank, rocker"
    assert archive.count("studies") == 0 and archive.count("cases") == 0
    assert archive.sent == []
