"""A clearance case's deviations from its ideal twin are computed once, when the later of
the two is stored, and read as stored everywhere (issue 34.3); an archive from before gets
them from migration 0006, on SQLite and PostgreSQL."""

from __future__ import annotations

import pytest
from archive_helpers import fake_result, make_study
from gapsweep.db import case_pages
from gapsweep.db.case_export import export_columns, iter_export_rows
from gapsweep.db.engine import make_engine, upgrade
from gapsweep.db.leases import claim_cases, complete_case
from gapsweep.db.models import Case, Result
from gapsweep.db.studies import case_detail, export_rows, queued_case_ids, study_detail
from sqlalchemy import select, update
from sqlalchemy.orm import sessionmaker
from support.big_archive import fill_study

DEVIATION = "deviation_peak_slider_accel"


def _claim_all(session_factory, study_id):
    with session_factory.begin() as s:
        ids = queued_case_ids(s, study_id=study_id)
        return claim_cases(s, case_ids=ids, holder="w", lease_s=60)


def test_a_case_stored_before_its_twin_gets_its_deviations_when_the_twin_is(session_factory):
    with session_factory.begin() as s:
        study_id = make_study(s).id
    claimed = _claim_all(session_factory, study_id)
    cases = [c for c in claimed if c.kind == "case"]
    twin = next(c for c in claimed if c.kind == "twin")
    with session_factory.begin() as s:  # the first two clearance cases before their twin
        for c in cases[:2]:
            assert complete_case(s, case_id=c.id, holder="w", result=fake_result(c.params, c.index))
    with session_factory() as s:
        early = case_detail(s, cases[0].id)["metrics"]
    assert DEVIATION in early and early[DEVIATION] is None  # the twin has no result yet
    with session_factory.begin() as s:
        assert complete_case(s, case_id=twin.id, holder="w", result=fake_result(twin.params, 50))
        for c in cases[2:]:
            assert complete_case(s, case_id=c.id, holder="w", result=fake_result(c.params, c.index))
    with session_factory() as s:
        detail = study_detail(s, study_id)
    for case in detail["cases"]:
        index = [c.id for c in cases].index(case["id"])
        # fake_result: peak = 1000 + seed; the twin's seed is 50
        assert case["metrics"][DEVIATION] == pytest.approx((1000.0 + index) / 1050.0 - 1)
    assert all(not any(k.startswith("deviation_") for k in t["metrics"])
               for t in detail["twins"])


def test_every_read_takes_the_stored_deviations(session_factory):
    with session_factory.begin() as s:
        study_id = fill_study(s, n_clearance=3, n_stiffness=2)
    with session_factory() as s:
        before = study_detail(s, study_id)
    # the twins' stored metric changes under the reads: a read that computed the deviation
    # again would see it; one that takes the stored value does not
    with session_factory.begin() as s:
        twin_ids = select(Case.id).where(Case.study_id == study_id, Case.kind == "twin")
        s.execute(update(Result).where(Result.case_id.in_(twin_ids))
                  .values(peak_slider_accel=Result.peak_slider_accel * 3))
    stored = {c["id"]: c["metrics"][DEVIATION] for c in before["cases"] if c["metrics"]}
    assert stored and all(v is not None for v in stored.values())
    with session_factory() as s:
        after = study_detail(s, study_id)
        page, _ = case_pages.case_page(s, study_id=study_id)
        one = case_detail(s, next(iter(stored)))
        _, rows = export_rows(s, study_id)
        table = case_pages.study_table(s, study_id, metrics=[DEVIATION])
        columns = export_columns(s, study_id)
    streamed = [r for p in iter_export_rows(session_factory, study_id, columns) for r in p]
    assert {c["id"]: c["metrics"][DEVIATION] for c in after["cases"] if c["metrics"]} == stored
    assert {c["id"]: c["metrics"][DEVIATION] for c in page if c["metrics"]} == stored
    assert one["metrics"][DEVIATION] == stored[one["id"]]
    assert {r["case_id"]: r[DEVIATION] for r in rows if r["status"] == "done"} == stored
    assert {r["case_id"]: r[DEVIATION] for r in streamed if r["status"] == "done"} == stored
    assert {c["id"]: c["metrics"][DEVIATION] for c in table["cases"]
            if c["status"] == "done"} == pytest.approx(stored)


def test_the_migration_fills_an_archive_from_before(database_url):
    upgrade(database_url, "0005_case_pages")
    engine = make_engine(database_url)
    try:
        sessions = sessionmaker(engine, expire_on_commit=False)
        with sessions.begin() as s:
            old = fill_study(s, n_clearance=4, n_stiffness=2, stored_deviations=False)
        with sessions.begin() as s:
            expected = fill_study(s, n_clearance=4, n_stiffness=2)  # the same seed's values
        with sessions() as s:  # read raw: the ORM's Case has the columns of later revisions
            extras = list(s.scalars(select(Result.extra).join(Case, Case.id == Result.case_id)
                                    .where(Case.study_id == old)))
        assert extras and not any(k.startswith("deviation_") for e in extras for k in (e or {}))
        upgrade(database_url)
        with sessions() as s:
            got, want = study_detail(s, old), study_detail(s, expected)
        assert [c["metrics"] for c in got["cases"]] == [c["metrics"] for c in want["cases"]]
        assert sum(DEVIATION in c["metrics"] for c in got["cases"]) > 0
    finally:
        engine.dispose()
