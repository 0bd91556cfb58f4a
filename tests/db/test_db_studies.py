"""The archive side on SQLite and PostgreSQL: create_study, list_studies, study_detail,
study_progress, export_rows."""

from __future__ import annotations

import pytest
from archive_helpers import (
    CLEARANCES,
    STIFFNESS,
    FakePlan,
    FakeSpec,
    fake_result,
    make_study,
    row_counts,
    user_plan,
)
from gapsweep.db.leases import claim_cases, complete_case, fail_case
from gapsweep.db.lifecycle import soft_delete
from gapsweep.db.models import Case, Study
from gapsweep.db.studies import (
    export_rows,
    list_studies,
    queued_case_ids,
    study_detail,
    study_progress,
)
from sqlalchemy import select
from sqlalchemy.exc import StatementError


def _run_all(session, study_id: int, fail_index: int | None = None) -> dict[int, float]:
    """Claim and complete every case of a study; returns case id -> metric seed used."""
    ids = queued_case_ids(session, study_id=study_id)
    claimed = claim_cases(session, case_ids=ids, holder="w1", lease_s=60)
    seeds = {}
    for c in claimed:
        if c.kind == "case" and c.index == fail_index:
            assert fail_case(session, case_id=c.id, holder="w1", reason="diverged", final=True)
            continue
        seed = 50.0 if c.kind == "twin" else float(c.index)
        seeds[c.id] = seed
        assert complete_case(session, case_id=c.id, holder="w1", result=fake_result(c.params, seed))
    return seeds


def test_create_study_writes_cases_and_linked_twins(session_factory):
    with session_factory.begin() as s:
        study_id = make_study(s).id
    with session_factory() as s:
        study = s.get(Study, study_id)
        assert (study.status, study.design, study.series_policy) == ("queued", "grid", "preview")
        assert study.tags == ["flores", "baseline"]
        assert study.spec["base"] == {"speed_rpm": 5000}
        cases = s.scalars(select(Case).where(Case.study_id == study_id).order_by(Case.id)).all()
        twins = [c for c in cases if c.kind == "twin"]
        design = sorted((c for c in cases if c.kind == "case"), key=lambda c: c.index)
        assert len(twins) == 1 and len(design) == 15
        assert twins[0].params == {"speed_rpm": 5000, "ideal": True}
        assert all(c.twin_id == twins[0].id for c in design)
        assert [c.index for c in design] == list(range(15))
        assert [(c.params["clearance_mm"], c.params["stiffness_scale"]) for c in design] == [
            (c, k) for c in CLEARANCES for k in STIFFNESS
        ]
        assert {c.status for c in cases} == {"queued"} and {c.attempts for c in cases} == {0}
        assert queued_case_ids(s, study_id=study_id) == [c.id for c in cases]


def test_create_study_failing_insert_writes_nothing(session_factory):
    with session_factory.begin() as s:
        make_study(s)
    with session_factory() as s:
        before = row_counts(s)
    plan = user_plan()
    plan.cases[7] = {"clearance_mm": object()}  # not JSON-serialisable: the insert fails
    with pytest.raises((TypeError, StatementError)), session_factory.begin() as s:
        make_study(s, plan=plan)
    with session_factory() as s:
        assert row_counts(s) == before
        assert before["studies"] == 1 and before["cases"] == 16


def test_create_study_refuses_inconsistent_plan(session_factory):
    plan = FakePlan(cases=[{"clearance_mm": 0.1}], twins=[], twin_of=[0])
    with session_factory.begin() as s, pytest.raises(ValueError, match="twin_of"):
        make_study(s, plan=plan)
    with session_factory() as s:
        assert row_counts(s)["studies"] == 0


def test_list_studies_filters_pages_and_counts(session_factory):
    ids = []
    with session_factory.begin() as s:
        for i in range(7):
            spec = FakeSpec(
                name=f"sweep {i}" if i != 3 else "100% stiff_ness",
                description="rigid" if i % 2 else "flexible rod",
                tags=["even"] if i % 2 == 0 else ["odd", "x"],
                model="slider-crank" if i < 5 else "cantilever",
            )
            ids.append(make_study(s, spec=spec).id)
    with session_factory.begin() as s:
        _run_all(s, ids[2], fail_index=4)  # 14 done, 1 failed; the twin is not counted
        soft_delete(s, study_id=ids[6])
    with session_factory() as s:
        total, items = list_studies(s)
        assert total == 6
        assert [it["id"] for it in items] == ids[5::-1]  # newest first, deleted left out
        by_id = {it["id"]: it for it in items}
        assert {k: by_id[ids[2]][k] for k in ("cases", "done", "failed", "status")} == {
            "cases": 15, "done": 14, "failed": 1, "status": "done"
        }
        assert (by_id[ids[0]]["cases"], by_id[ids[0]]["done"], by_id[ids[0]]["failed"]) == (
            15, 0, 0
        )
        assert set(items[0]) == {
            "id", "name", "model", "status", "tags", "created", "cases", "done", "failed"
        }
        total, page = list_studies(s, limit=2, offset=2)
        assert total == 6 and [it["id"] for it in page] == [ids[3], ids[2]]
        assert list_studies(s, tag="odd")[0] == 3  # 1, 3, 5
        assert [it["id"] for it in list_studies(s, tag="even")[1]] == [ids[4], ids[2], ids[0]]
        assert [it["id"] for it in list_studies(s, search="FLEXIBLE")[1]] == [
            ids[4], ids[2], ids[0]
        ]
        # % and _ are text, not wildcards
        assert [it["id"] for it in list_studies(s, search="100% stiff_")[1]] == [ids[3]]
        assert list_studies(s, search="0%")[0] == 1
        assert list_studies(s, search="_ness")[0] == 1
        assert [it["id"] for it in list_studies(s, model="cantilever")[1]] == [ids[5]]
        assert [it["id"] for it in list_studies(s, status="done")[1]] == [ids[2]]
        asc = list_studies(s, sort="name", descending=False)[1]
        assert [it["name"] for it in asc] == sorted(it["name"] for it in items)
        with pytest.raises(ValueError, match="sort"):
            list_studies(s, sort="created; DROP TABLE studies")


def test_progress_excludes_twins(session_factory):
    with session_factory.begin() as s:
        sid = make_study(s).id
    with session_factory.begin() as s:
        ids = queued_case_ids(s, study_id=sid)
        claimed = claim_cases(s, case_ids=ids[:4], holder="w", lease_s=60)  # the twin + 3
        assert [c.kind for c in claimed] == ["twin", "case", "case", "case"]
        complete_case(s, case_id=claimed[1].id, holder="w", result=fake_result({}, 1))
        fail_case(s, case_id=claimed[2].id, holder="w", reason="boom", final=True)
    with session_factory() as s:
        assert study_progress(s, sid) == {
            "queued": 12, "running": 1, "done": 1, "failed": 1, "cancelled": 0, "total": 15
        }


def test_study_detail_is_the_show_json_shape_with_deviations(session_factory):
    with session_factory.begin() as s:
        sid = make_study(s).id
    with session_factory.begin() as s:
        _run_all(s, sid, fail_index=14)
    with session_factory() as s:
        d = study_detail(s, sid)
    assert {"id", "name", "model", "status", "spec", "provenance", "cases", "twins",
            "description", "tags", "created", "started", "finished", "counts",
            "analysis"} <= set(d)
    assert d["status"] == "done" and d["counts"]["done"] == 14 and d["counts"]["failed"] == 1
    assert d["provenance"]["gapsweep"] == "0.1.0" and d["spec"]["name"] == d["name"]
    assert d["created"].endswith("+00:00") and d["finished"] is not None
    assert len(d["cases"]) == 15 and len(d["twins"]) == 1
    twin = d["twins"][0]
    assert twin["metrics"]["peak_slider_accel"] == 1050.0
    for i, case in enumerate(d["cases"]):
        assert {"id", "params", "status", "attempts", "reason", "metrics"} <= set(case)
        assert case["attempts"] == 1 and case["twin_id"] == twin["id"]
        if i == 14:
            assert (case["status"], case["reason"], case["metrics"]) == ("failed", "diverged", {})
            continue
        m = case["metrics"]
        assert (case["status"], case["reason"]) == ("done", None)
        assert m["peak_slider_accel"] == 1000.0 + i and m["impacts"] == i % 7
        assert m["rhs_evaluations"] == 16011 and m["energy_balance_error"] == 2.5e-6
        assert m["deviation_peak_slider_accel"] == pytest.approx((1000.0 + i) / 1050.0 - 1)
        assert m["deviation_rms_slider_accel"] == pytest.approx((100.0 + i / 10) / 105.0 - 1)
        assert m["deviation_peak_driving_torque"] == pytest.approx((300.0 + i) / 350.0 - 1)
    with session_factory() as s:
        assert study_detail(s, sid + 1000) is None


def test_export_rows_columns_and_order(session_factory):
    plan = user_plan()
    plan.cases[1] = {**plan.cases[1], "friction": 0.1}  # a key only one case has
    with session_factory.begin() as s:
        sid = make_study(s, plan=plan).id
    with session_factory.begin() as s:
        _run_all(s, sid, fail_index=2)
    with session_factory() as s:
        columns, rows = export_rows(s, sid)
    assert columns[:5] == ["speed_rpm", "clearance_mm", "stiffness_scale", "friction", "status"]
    assert columns[5:17] == [
        "peak_slider_accel", "rms_slider_accel", "peak_contact_force", "max_penetration",
        "impacts", "peak_slider_accel_steady", "rms_slider_accel_steady",
        "peak_contact_force_steady", "max_penetration_steady", "impacts_steady",
        "peak_driving_torque", "wall_time_s",
    ]
    assert columns[17:] == [
        "contact_time_fraction", "rhs_evaluations", "energy_balance_error",
        "deviation_peak_slider_accel", "deviation_rms_slider_accel",
        "deviation_peak_driving_torque", "deviation_peak_slider_accel_settled",
        "case_id",  # the id last: 4.5's order stands before it
    ]
    assert len(rows) == 15  # the twin is not a row
    with session_factory() as s:
        detail = study_detail(s, sid)
    assert [r["case_id"] for r in rows] == [c["id"] for c in detail["cases"]]
    assert all(list(r) == columns for r in rows)
    assert [(r["clearance_mm"], r["stiffness_scale"]) for r in rows] == [
        (c, k) for c in CLEARANCES for k in STIFFNESS
    ]
    assert rows[0]["friction"] is None and rows[1]["friction"] == 0.1
    assert rows[2]["status"] == "failed" and rows[2]["peak_slider_accel"] is None
    assert rows[3]["peak_slider_accel"] == 1003.0
    assert rows[3]["deviation_peak_slider_accel"] == pytest.approx(1003.0 / 1050.0 - 1)


def test_create_study_from_the_real_spec_and_plan(session_factory):
    """The study layer's own StudySpec and StudyPlan for the user's file (design.md 4.2)."""
    from gapsweep.study.designs import plan_study
    from gapsweep.study.spec import parse_spec

    spec = parse_spec(
        {
            "name": "Clearance x stiffness",
            "tags": ["flores"],
            "base": {"speed_rpm": 5000},
            "axes": {
                "clearance_mm": {"values": [0.02, 0.035, 0.05, 0.08, 0.1]},
                "stiffness_scale": {"nominal": 1.0, "relative_percent": 30, "levels": 3},
            },
        }
    )
    plan = plan_study(spec)
    with session_factory.begin() as s:
        sid = make_study(s, spec=spec, plan=plan).id
    with session_factory() as s:
        d = study_detail(s, sid)
        columns, _ = export_rows(s, sid)
    assert len(d["cases"]) == 15 and len(d["twins"]) == 1
    assert d["spec"] == spec.to_dict() and d["tags"] == ["flores"]
    assert [c["params"] for c in d["cases"]] == plan.cases
    assert d["twins"][0]["params"] == plan.twins[0]
    assert columns[:4] == ["speed_rpm", "clearance_mm", "stiffness_scale", "status"]
