"""Database fixtures, a pytest plugin any test folder can load.

``database_url`` is parametrised over ``sqlite`` (a file in the test's temp data folder) and
``postgresql`` (a fresh ``gapsweep_test_<random>`` database on the machine's server,
``GAPSWEEP_TEST_POSTGRES`` or postgres@127.0.0.1:5432, dropped afterwards). When PostgreSQL
is unreachable its tests skip - or FAIL when ``CI=true``, so CI cannot pass without it.
``session_factory`` is ``open_database(database_url)`` (schema at head); on PostgreSQL its
database is a copy of a template migrated once per test session (``CREATE DATABASE ...
TEMPLATE``: ~1 s where creating and migrating took ~3 s a test on a loaded machine); on
SQLite its file is a copy of one migrated once per test session (:func:`copy_sqlite_at_head`,
which the web's ``archive`` fixture uses too: the migrations were half of making an app).

A test folder's conftest imports the fixtures it uses (``from support.database_fixtures
import database_url, session_factory``; tests/ is on ``sys.path`` through pytest's
``pythonpath``).
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

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


def create_postgres_database(template: str | None = None) -> str:
    """A new database, empty or a copy of the database of URL ``template`` (which nobody may
    be connected to); returns its URL."""
    require_postgres()
    name = f"gapsweep_test_{uuid.uuid4().hex[:12]}"
    copy = "" if template is None else f' TEMPLATE "{make_url(template).database}"'
    admin = _admin()
    try:
        with admin.connect() as conn:
            conn.execute(text(f'CREATE DATABASE "{name}"{copy}'))  # names of hex digits only
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


_at_head: dict[str, str] = {}


def copy_sqlite_at_head(path: Path) -> None:
    """Put at ``path`` a SQLite database already at head: a copy of one migrated once per
    process (removed when the process ends)."""
    if "sqlite" not in _at_head:
        folder = tempfile.mkdtemp(prefix="gapsweep_head_")
        atexit.register(shutil.rmtree, folder, True)
        template = os.path.join(folder, "gapsweep.db")
        open_database(f"sqlite:///{template}").kw["bind"].dispose()
        _at_head["sqlite"] = template
    path.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(_at_head["sqlite"], path)


def postgres_at_head(config: pytest.Config) -> str:
    """The URL of a PostgreSQL database migrated to head, made once per test session for
    ``session_factory``'s copies (no connection is left open to it) and dropped when the
    session ends."""
    if "url" not in _at_head:
        url = create_postgres_database()
        config.add_cleanup(lambda: drop_postgres_database(url))
        open_database(url).kw["bind"].dispose()
        _at_head["url"] = url
    return _at_head["url"]


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest, tmp_path) -> Iterator[str]:
    """An empty database of each kind (nothing migrated yet); for a test that also takes
    ``session_factory``, a PostgreSQL database already at head (:func:`postgres_at_head`)."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'data' / 'gapsweep.db'}"
        return
    template = None
    if "session_factory" in request.fixturenames:
        template = postgres_at_head(request.config)
    url = create_postgres_database(template)
    try:
        yield url
    finally:
        drop_postgres_database(url)


@pytest.fixture
def session_factory(database_url: str) -> Iterator[sessionmaker[Session]]:
    """``open_database(database_url)``: sessions on a database at head."""
    path = Path(database_url.removeprefix("sqlite:///"))
    if database_url.startswith("sqlite:///") and not path.exists():
        copy_sqlite_at_head(path)
    factory = open_database(database_url)
    try:
        yield factory
    finally:
        factory.kw["bind"].dispose()
