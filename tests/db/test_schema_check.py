"""The schema check of :func:`gapsweep.db.engine.open_database` (issue 16): the head read from
the revision files is Alembic's, a database at head costs one query, an older one is still
upgraded, a newer one still refused (tests/db/test_db_migrations.py), on SQLite and
PostgreSQL."""

from __future__ import annotations

from alembic.script import ScriptDirectory
from gapsweep.db.engine import (
    alembic_config,
    current_revision,
    downgrade,
    head_revision,
    open_database,
    shipped_revisions,
    upgrade,
)
from sqlalchemy import Engine, event, text


def test_the_revision_files_give_alembics_head_and_history():
    scripts = ScriptDirectory.from_config(alembic_config())
    head, known = shipped_revisions()
    assert head == scripts.get_current_head() == head_revision()
    assert known == {s.revision for s in scripts.walk_revisions()}


def test_a_database_at_head_is_opened_with_one_query(database_url):
    upgrade(database_url)
    statements: list[str] = []

    def record(conn, cursor, statement, *args) -> None:
        statements.append(statement)

    event.listen(Engine, "before_cursor_execute", record)
    try:
        factory = open_database(database_url)
    finally:
        event.remove(Engine, "before_cursor_execute", record)
    try:
        assert [s.strip() for s in statements] == ["SELECT version_num FROM alembic_version"]
        with factory() as s:  # the factory's engine is the one that checked
            assert s.execute(text("SELECT count(*) FROM studies")).scalar() == 0
    finally:
        factory.kw["bind"].dispose()


def test_an_older_database_is_upgraded_on_open(database_url):
    scripts = ScriptDirectory.from_config(alembic_config())
    previous = scripts.get_revision(scripts.get_current_head()).down_revision
    assert previous is not None
    upgrade(database_url, previous)
    assert current_revision(database_url) == previous
    open_database(database_url).kw["bind"].dispose()
    assert current_revision(database_url) == head_revision()
    downgrade(database_url, "base")
    assert current_revision(database_url) is None
