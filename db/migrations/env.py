"""Alembic environment: runs the migrations on the connection :mod:`gapsweep.db.engine` passes.

:func:`gapsweep.db.engine.upgrade` opens the connection, takes the migration lock (SQLite:
``BEGIN IMMEDIATE``; PostgreSQL: a transaction-scoped advisory lock) and hands the connection
in ``config.attributes["connection"]``, so the whole upgrade is one transaction and two
processes starting at once run it one after the other. Without one (the ``alembic`` command
with an ini file) it connects to ``sqlalchemy.url`` itself. SQLite gets batch mode: its ALTER
TABLE cannot drop or alter columns, so Alembic rebuilds the table.
"""

from __future__ import annotations

from alembic import context
from gapsweep.db.models import Base
from sqlalchemy import create_engine

config = context.config


def _run(connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=Base.metadata,
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        _run(connection)
        return
    engine = create_engine(config.get_main_option("sqlalchemy.url"))
    try:
        with engine.connect() as conn:
            _run(conn)
    finally:
        engine.dispose()


if context.is_offline_mode():
    raise RuntimeError("offline (--sql) migrations are not supported; run them on a database")
run_migrations_online()
