"""The store at a night's scale (issue 41.4): the pages' queries use the cases' indexes on
SQLite and PostgreSQL (EXPLAIN), and migration ``0005_case_pages`` adds the status index to
an archive made before it, its rows intact."""

from __future__ import annotations

from gapsweep.db import case_pages
from gapsweep.db.engine import current_revision, make_engine, upgrade
from sqlalchemy import func, inspect, select, text
from sqlalchemy.orm import sessionmaker
from support.big_archive import fill_study

STATUS_INDEX = "ix_cases_study_id_kind_status_index"
ORDER_INDEX = "uq_cases_study_id_kind_index"


def _plan(session, query) -> str:
    dialect = session.get_bind().dialect
    sql = str(query.compile(dialect=dialect, compile_kwargs={"literal_binds": True}))
    if dialect.name == "sqlite":
        rows = session.execute(text("EXPLAIN QUERY PLAN " + sql)).all()
        return "\n".join(str(r[-1]) for r in rows)
    # a test-sized table is scanned whole by a planner that counts pages; forbidding the
    # sequential scan asks whether an index serves the query at all
    session.execute(text("SET LOCAL enable_seqscan = off"))
    session.execute(text("ANALYZE cases"))
    return "\n".join(r[0] for r in session.execute(text("EXPLAIN " + sql)).all())


def test_the_pages_read_through_the_cases_indexes(session_factory):
    with session_factory.begin() as s:
        study_id = fill_study(s)
    with session_factory.begin() as s:
        by_status = _plan(s, case_pages.page_query(study_id=study_id, status="done"))
        assert STATUS_INDEX in by_status, by_status
        # the index gives the design order: no sort step (SQLite's temp b-tree, a Sort node)
        assert "TEMP B-TREE" not in by_status and "Sort" not in by_status, by_status
        entries, cursor = case_pages.case_page(s, study_id=study_id, limit=5)
        after = _plan(s, case_pages.page_query(study_id=study_id, cursor=cursor))
        # SQLite names the unique (study, kind, index) constraint's index itself
        assert ORDER_INDEX in after or "(study_id=? AND kind=? AND index>?)" in after, after
        assert "TEMP B-TREE" not in after and "Sort" not in after, after


def test_the_migration_adds_the_index_to_an_older_archive(database_url):
    upgrade(database_url, "0004_measurements")
    engine = make_engine(database_url)
    try:
        names = {ix["name"] for ix in inspect(engine).get_indexes("cases")}
        assert STATUS_INDEX not in names
        sessions = sessionmaker(engine, expire_on_commit=False)
        with sessions.begin() as s:
            study_id = fill_study(s)
        upgrade(database_url, "0005_case_pages")
        assert current_revision(database_url) == "0005_case_pages"
        names = {ix["name"] for ix in inspect(engine).get_indexes("cases")}
        assert STATUS_INDEX in names
        with sessions() as s:
            from gapsweep.db.models import Case

            assert s.scalar(select(func.count()).select_from(Case)) == 65
            entries, _ = case_pages.case_page(s, study_id=study_id, status="failed")
            assert len(entries) == 9  # every 7th of 60 from the fourth
    finally:
        engine.dispose()
