"""Migration 0003_case_kinds on SQLite and PostgreSQL: an archive made at 0002, whose
convergence certificates are "twin" rows with a negative index (``-(1 + source * 8 +
slot)``), comes out with kind "certificate" rows naming their source case and slot, every
other row, result and series unchanged, and reads as before; the downgrade writes the old
encoding back. The database itself refuses a second certificate of one (source, slot) and a
certificate without its source."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest
from gapsweep.db import certificates, studies
from gapsweep.db.engine import current_revision, downgrade, make_engine, open_database, upgrade
from gapsweep.db.models import Case, Study
from sqlalchemy import insert, select, text
from sqlalchemy.exc import IntegrityError

NOW = datetime(2026, 12, 2, 12, 0, tzinfo=timezone.utc)
# (source design index, slot) of the certificates stored at 0002, deliberately not in order
OLD_CERTIFICATES = ((2, 1), (0, 3), (0, 0), (2, 0))


def _old_index(source: int, slot: int) -> int:
    return -(1 + source * 8 + slot)


def _archive_at_0002(url: str) -> dict[str, int]:
    """A done study with 3 design cases, one twin and four certificates in the 0002 encoding,
    each done with a result; returns {"study", "twin", "case0".., "cert(s,k)"..: id}."""
    upgrade(url, "0002_accounts")
    engine = make_engine(url)
    ids: dict[str, int] = {}
    try:
        with engine.begin() as conn:
            ids["study"] = conn.execute(text(
                "INSERT INTO studies (name, model, description, tags, spec, design, "
                "series_policy, status, created, notes, provenance) VALUES ('old', "
                "'slider-crank', '', '[]', '{}', 'grid', 'none', 'done', :t, '', '{}') "
                "RETURNING id"), {"t": NOW}).scalar_one()

            def row(kind: str, index: int, params: str, twin: int | None = None) -> int:
                return conn.execute(text(
                    'INSERT INTO cases (study_id, kind, "index", twin_id, params, status, '
                    "attempts, queued_at) VALUES (:s, :k, :i, :tw, :p, 'done', 1, :t) "
                    "RETURNING id"),
                    {"s": ids["study"], "k": kind, "i": index, "tw": twin, "p": params,
                     "t": NOW}).scalar_one()

            ids["twin"] = row("twin", 0, '{"ideal": true}')
            for i in range(3):
                ids[f"case{i}"] = row("case", i, f'{{"clearance_mm": {0.01 * (i + 1)}}}',
                                      ids["twin"])
            for source, slot in OLD_CERTIFICATES:
                ids[f"cert{source},{slot}"] = row("twin", _old_index(source, slot),
                                                  f'{{"slot": {slot}}}', ids["twin"])
            for name, case_id in ids.items():
                if name != "study":
                    conn.execute(text(
                        "INSERT INTO results (case_id, peak_slider_accel, impacts, extra) "
                        "VALUES (:c, :a, :n, '{}')"), {"c": case_id, "a": 1000.0 + case_id,
                                                      "n": case_id})
    finally:
        engine.dispose()
    return ids


def _rows(url: str) -> dict[int, tuple]:
    engine = make_engine(url)
    try:
        with engine.connect() as conn:
            cols = [c for c in ("source_case_id", "slot")
                    if current_revision(url) != "0002_accounts"]
            extra = "".join(f", {c}" for c in cols)
            return {r[0]: tuple(r[1:]) for r in conn.execute(text(
                f'SELECT cases.id, kind, "index", twin_id, status, params, '
                f"results.peak_slider_accel, results.impacts{extra} FROM cases "
                "JOIN results ON results.case_id = cases.id"))}
    finally:
        engine.dispose()


def test_an_archive_of_0002_upgrades_its_certificates_and_back(database_url):
    ids = _archive_at_0002(database_url)
    before = _rows(database_url)
    assert current_revision(database_url) == "0002_accounts"

    upgrade(database_url, "0003_case_kinds")  # this migration (later ones follow it)
    assert current_revision(database_url) == "0003_case_kinds"
    after = _rows(database_url)
    assert set(after) == set(before)
    by_source_slot = sorted(OLD_CERTIFICATES)
    for name, case_id in ids.items():
        if name == "study":
            continue
        kind, index, twin, status, params, accel, impacts, source, slot = after[case_id]
        # the row's run, result and twin are untouched
        assert (twin, status, params, accel, impacts) == before[case_id][2:], name
        if name.startswith("cert"):
            s, k = map(int, name.removeprefix("cert").split(","))
            assert (kind, source, slot) == ("certificate", ids[f"case{s}"], k), name
            assert index == by_source_slot.index((s, k)), name  # 0, 1, ... by source, slot
        else:
            assert (kind, index, source, slot) == (before[case_id][0], before[case_id][1],
                                                   None, None), name

    sessions = open_database(database_url)
    try:
        with sessions() as s:
            detail = studies.study_detail(s, ids["study"])
            listed = certificates.study_certificates(s, ids["study"])
            progress = certificates.certificate_progress(s, ids["study"])
        assert [c["id"] for c in detail["cases"]] == [ids[f"case{i}"] for i in range(3)]
        assert [t["id"] for t in detail["twins"]] == [ids["twin"]]
        expected = [(ids[f"cert{s},{k}"], ids[f"case{s}"], k) for s, k in by_source_slot]
        assert [(c["id"], c["source_id"], c["slot"]) for c in detail["certificates"]] == expected
        assert [(c["id"], c["source_id"], c["slot"]) for c in listed] == expected
        assert progress["done"] == progress["total"] == 4
        assert detail["counts"]["total"] == 3  # certificates are not design cases
    finally:
        sessions.kw["bind"].dispose()

    downgrade(database_url, "0002_accounts")
    assert _rows(database_url) == before


def test_the_database_refuses_a_second_certificate_and_one_without_a_source(session_factory):
    with session_factory.begin() as s:
        study = Study(name="s", model="slider-crank", description="", tags=[], spec={},
                              design="grid", series_policy="none", status="done", created=NOW,
                              provenance={})
        s.add(study)
        s.flush()
        source = Case(study_id=study.id, kind="case", index=0, params={}, status="done",
                      queued_at=NOW)
        s.add(source)
        s.flush()
        study_id, source_id = study.id, source.id
    with session_factory.begin() as s:
        ids = certificates.add_certificates(
            s, study_id=study_id, certificates=[(0, 1, {"rtol": 1e-7}), (0, 0, {"rtol": 1e-8})])
    assert len(ids) == 2
    with session_factory() as s:
        rows = s.execute(select(Case.kind, Case.index, Case.source_case_id, Case.slot)
                         .where(Case.id.in_(ids)).order_by(Case.index)).all()
    assert [tuple(r) for r in rows] == [("certificate", 0, source_id, 0),
                                        ("certificate", 1, source_id, 1)]
    row = {"study_id": study_id, "index": 9, "params": {}, "status": "queued", "attempts": 0,
           "queued_at": NOW}
    bad = {"same source and slot": {**row, "kind": "certificate", "source_case_id": source_id,
                                    "slot": 0},
           "no source": {**row, "kind": "certificate"},
           "a case with a slot": {**row, "kind": "case", "slot": 0},
           "an unknown kind": {**row, "kind": "baseline"}}
    for values in bad.values():
        with pytest.raises(IntegrityError), session_factory.begin() as s:
            s.execute(insert(Case), [values])
