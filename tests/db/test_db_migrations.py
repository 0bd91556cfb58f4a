"""Alembic on SQLite and PostgreSQL: upgrade from empty, downgrade to base and back, no
difference between the migrated schema and the models, concurrent first use."""

from __future__ import annotations

import threading

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from gapsweep.db.engine import (
    SchemaTooNewError,
    current_revision,
    downgrade,
    head_revision,
    make_engine,
    open_database,
    upgrade,
)
from gapsweep.db.models import Base
from sqlalchemy import inspect, text

TABLES = {"studies", "study_tags", "cases", "results", "series", "users", "api_tokens",
          "web_sessions", "login_failures", "audit_events", "measurements"}


def _tables(url: str) -> set[str]:
    engine = make_engine(url)
    try:
        return set(inspect(engine).get_table_names()) - {"alembic_version"}
    finally:
        engine.dispose()


def _diff(url: str) -> list:
    engine = make_engine(url)
    try:
        with engine.connect() as conn:
            ctx = MigrationContext.configure(conn, opts={"compare_type": True})
            return compare_metadata(ctx, Base.metadata)
    finally:
        engine.dispose()


def test_upgrade_from_empty_matches_the_models(database_url):
    assert current_revision(database_url) is None
    assert _tables(database_url) == set()
    upgrade(database_url)
    assert current_revision(database_url) == head_revision() == "0007_case_progress"
    assert _tables(database_url) == TABLES
    assert _diff(database_url) == []


def test_downgrade_to_base_and_upgrade_again(database_url):
    upgrade(database_url)
    downgrade(database_url, "base")
    assert current_revision(database_url) is None
    assert _tables(database_url) == set()
    upgrade(database_url)
    assert current_revision(database_url) == head_revision()
    assert _diff(database_url) == []


def test_open_database_upgrades_on_first_use_and_is_idempotent(database_url):
    factory = open_database(database_url)
    try:
        assert current_revision(database_url) == head_revision()
        with factory() as s:
            assert s.execute(text("SELECT count(*) FROM studies")).scalar() == 0
    finally:
        factory.kw["bind"].dispose()
    open_database(database_url).kw["bind"].dispose()  # already at head: nothing to do
    assert current_revision(database_url) == head_revision()


def test_two_processes_upgrading_at_once(database_url):
    errors = []
    barrier = threading.Barrier(3)

    def first_use() -> None:
        try:
            barrier.wait()
            open_database(database_url).kw["bind"].dispose()
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=first_use) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert errors == []
    assert current_revision(database_url) == head_revision()
    assert _tables(database_url) == TABLES


def test_a_newer_database_is_refused(database_url):
    upgrade(database_url)
    engine = make_engine(database_url)
    with engine.begin() as conn:
        conn.execute(text("UPDATE alembic_version SET version_num = '9999_future'"))
    engine.dispose()
    with pytest.raises(SchemaTooNewError, match="9999_future"):
        open_database(database_url)


def test_sqlite_engine_settings(tmp_path):
    url = f"sqlite:///{tmp_path / 'new' / 'folder' / 'g.db'}"
    engine = make_engine(url)
    try:
        with engine.connect() as conn:
            assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
            assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
            assert conn.exec_driver_sql("PRAGMA busy_timeout").scalar() == 30000
            assert conn.exec_driver_sql("PRAGMA synchronous").scalar() == 1  # NORMAL
    finally:
        engine.dispose()
    assert (tmp_path / "new" / "folder" / "g.db").exists()


def test_plain_postgresql_urls_use_psycopg():
    engine = make_engine("postgresql://postgres@127.0.0.1:5432/postgres")
    try:
        assert engine.dialect.driver == "psycopg"
    finally:
        engine.dispose()
