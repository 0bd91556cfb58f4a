"""A mechanism with two clearance joints: each joint's Poincaré section reaches the API, the
case page (Poincaré map, phase portrait, orbit in time) and the study's Motion tab under the
joint's own name (design.md 4.7, 4.10; one naming rule: core.metrics.per_joint).

The cases run for real (the two-clearance example, two driver revolutions) and are stored
through the workers' own path (claim, complete under the lease, the study's series policy),
so that every name on the way is the one the solver wrote."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import tomllib
from archive_fixtures import find, page, run_as_worker
from gapsweep.db.studies import study_detail
from gapsweep.study.spec import parse_spec
from gapsweep.web import ids
from gapsweep.workers.submit import create_study_rows

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

JOINTS = ("crank_pin", "piston_pin")


@pytest.fixture
def stored(archive):
    """The two-clearance example with its crank-pin clearance swept (0.05, 0.1 mm), every
    case (and twin) run and stored; returns (archive, study id, {case id: its params})."""
    with open(EXAMPLES / "mechanism_two_clearance_slider_crank.toml", "rb") as f:
        spec = tomllib.load(f)
    spec["axes"] = {"joints.crank_pin.clearance_mm": {"values": [0.05, 0.1]}}
    spec["base"] = {"t_end": 0.04}  # two driver revolutions (without t_end: until settled)
    study_id = create_study_rows(parse_spec(spec), sessions=archive.sessions)
    ids_ = archive.case_ids(study_id)

    cases = run_as_worker(archive, study_id, ids_)
    return archive, study_id, cases


def test_each_joint_section_reaches_the_api_and_the_pages(stored):
    archive, study_id, cases = stored
    client = archive.client()
    case_id, params = next(iter(cases.items()))
    names = [f"poincare_eccentricity_{a}.{j}" for j in JOINTS for a in "xy"] + ["poincare_time"]
    r = client.get(f"/api/cases/{case_id}/series?names=" + ",".join(names))
    assert r.status_code == 200, r.get_data(as_text=True)
    api = r.get_json()
    assert set(names) <= set(api)
    # two revolutions: the section at t = 0, T, 2T; each joint's own, starting centred
    for j in JOINTS:
        x = np.asarray(api[f"poincare_eccentricity_x.{j}"])
        assert x.shape == (3,) and x[0] == 0.0
    for a in "xy":
        assert api[f"poincare_eccentricity_{a}.crank_pin"] != \
            api[f"poincare_eccentricity_{a}.piston_pin"]

    # the case page: a Poincaré trace per joint, each scaled by that joint's clearance
    # (crank pin: the case's axis value; piston pin: the table's 0.05 mm), and each joint's
    # phase portrait and orbit in time
    with archive.request():
        layout = page("case").layout(case_id=str(case_id))
    poincare = find(layout, f"{ids.CASE_MOTION_GRAPH}-poincare").figure
    traces = {t.meta: t for t in poincare.data if t.meta}
    assert set(traces) == set(JOINTS)
    c = {"crank_pin": params["joints.crank_pin.clearance_mm"] * 1e-3, "piston_pin": 0.05e-3}
    for j in JOINTS:
        # each drawn point is the joint's own stored section point at its time (hover data),
        # both coordinates over the joint's own clearance
        t = np.asarray(api["poincare_time"])  # one run: the joints' sections share it
        shown_t = np.asarray(traces[j].customdata, dtype=float)
        assert shown_t.size
        at = np.searchsorted(t, shown_t)
        assert np.array_equal(t[np.minimum(at, t.size - 1)], shown_t)
        for a, drawn in (("x", traces[j].x), ("y", traces[j].y)):
            stored_a = np.asarray(api[f"poincare_eccentricity_{a}.{j}"]) / c[j]
            np.testing.assert_allclose(np.asarray(drawn, dtype=float), stored_a[at],
                                       rtol=1e-12, atol=0.0, err_msg=f"{j} {a}")
        assert np.all(np.hypot(traces[j].x, traces[j].y) <= 1.2)  # in the clearance (+ δ)
        for fig in ("phase", "orbit_time"):
            title = find(layout, f"{ids.CASE_MOTION_GRAPH}-{fig}-{j}").figure.layout.title.text
            assert j.replace("_", " ") in title

    # the study's Motion tab: both joints offered, and each one's diagram drawn from its own
    # section over the swept clearance
    from gapsweep.web.components import study_motion

    with archive.request():
        detail = archive_detail(archive, study_id)
        for j in JOINTS:
            fig, options, note = study_motion.bifurcation_view(
                detail, "joints.crank_pin.clearance_mm", "eccentricity_ratio", j)
            assert [o["value"] for o in options] == list(JOINTS)
            assert note is None
            xs = np.concatenate([np.asarray(t.x) for t in fig.data if t.x is not None])
            assert set(xs) == {0.05, 0.1}


def archive_detail(archive, study_id):
    with archive.sessions() as s:
        return study_detail(s, study_id)
