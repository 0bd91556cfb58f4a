"""Database fixtures, a pytest plugin any test folder can load.

``database_url`` is parametrised over ``sqlite`` (a file in the test's temp data folder) and
``postgresql`` (a fresh ``gapsweep_test_<random>`` database on the machine's server,
``GAPSWEEP_TEST_POSTGRES`` or postgres@127.0.0.1:5432, dropped afterwards). When PostgreSQL
is unreachable its tests skip - or FAIL when ``CI=true``, so CI cannot pass without it.
``session_factory`` is ``open_database(database_url)`` (schema at head).

A test folder's conftest imports the fixtures it uses (``from support.database_fixtures
import database_url, session_factory``; tests/ is on ``sys.path`` through pytest's
``pythonpath``).
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator

import pytest
from gapsweep.db.engine import open_database
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import Session, sessionmaker

ADMIN_URL = os.environ.get(
    "GAPSWEEP_TEST_POSTGRES", "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"
)
_reachable: dict[str, str | None] = {}


def _postgres_problem() -> str | None:
    """None when the server answers, else why not (checked once per session)."""
    if "pg" not in _reachable:
        engine = create_engine(ADMIN_URL, connect_args={"connect_timeout": 3})
        try:
            with engine.connect() as conn:
                conn.execute(text("SELECT 1"))
            _reachable["pg"] = None
        except OperationalError as exc:
            _reachable["pg"] = f"PostgreSQL at {ADMIN_URL} unreachable: {exc.orig}"
        finally:
            engine.dispose()
    return _reachable["pg"]


def require_postgres() -> None:
    """Skip (or fail under CI=true) when the PostgreSQL server is unreachable."""
    problem = _postgres_problem()
    if problem is None:
        return
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(problem)
    pytest.skip(problem)


def _admin():
    return create_engine(ADMIN_URL, isolation_level="AUTOCOMMIT")


def create_postgres_database() -> str:
    """A new empty database; returns its URL."""
    require_postgres()
    name = f"gapsweep_test_{uuid.uuid4().hex[:12]}"
    admin = _admin()
    try:
        with admin.connect() as conn:
            conn.execute(text(f'CREATE DATABASE "{name}"'))  # name from hex digits only
    finally:
        admin.dispose()
    return make_url(ADMIN_URL).set(database=name).render_as_string(hide_password=False)


def drop_postgres_database(url: str) -> None:
    """Drop the database of ``url`` (terminating any connection left to it)."""
    name = make_url(url).database
    assert name and name.startswith("gapsweep_test_")
    admin = _admin()
    try:
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    finally:
        admin.dispose()


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest, tmp_path) -> Iterator[str]:
    """An empty database of each kind (nothing migrated yet)."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'data' / 'gapsweep.db'}"
        return
    url = create_postgres_database()
    try:
        yield url
    finally:
        drop_postgres_database(url)


@pytest.fixture
def session_factory(database_url: str) -> Iterator[sessionmaker[Session]]:
    """``open_database(database_url)``: sessions on a database at head."""
    factory = open_database(database_url)
    try:
        yield factory
    finally:
        factory.kw["bind"].dispose()
