"""The database engine in one place, and the schema kept at Alembic's head.

- :func:`make_engine` - SQLite: the data folder created, WAL (readers never block the
  writer), ``foreign_keys=ON`` (cascades and the twin link hold), ``busy_timeout`` 30 s (a
  second process waits for the write lock instead of failing). PostgreSQL: ``pool_pre_ping``
  (a connection the server terminated is replaced, not handed out). ``postgresql://`` URLs
  use psycopg 3, the driver gapsweep installs.
- :func:`open_database` - a session factory on a database upgraded to head on first use.
- :func:`upgrade`, :func:`downgrade`, :func:`current_revision`, :func:`head_revision` -
  programmatic Alembic (no alembic.ini; the scripts are found next to this file).

Opening a database that is already at head costs one query (``SELECT version_num FROM
alembic_version``) compared with the head read from the revision files themselves
(:func:`shipped_revisions`); Alembic (~0.5 s of imports) is loaded only when an upgrade is
needed, so a command on an up-to-date archive starts at once (issue 16).

Two processes upgrading at once take turns: the whole upgrade runs in one transaction that
first takes a lock - ``BEGIN IMMEDIATE`` on SQLite (the database write lock), a
transaction-scoped advisory lock on PostgreSQL - and Alembic reads the current revision only
after it, so the second process finds the schema at head and does nothing.
"""

from __future__ import annotations

import ast
import functools
import sqlite3
import time
import zlib
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import Engine, create_engine, event, func, select, text
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session, sessionmaker

from gapsweep.settings import get_settings

if TYPE_CHECKING:
    from alembic.config import Config

MIGRATIONS_DIR = Path(__file__).parent / "migrations"
VERSIONS_DIR = MIGRATIONS_DIR / "versions"
SQLITE_BUSY_TIMEOUT_S = 30.0
#: advisory lock key of the schema upgrade on PostgreSQL (any fixed 64-bit number)
_PG_MIGRATION_LOCK = zlib.crc32(b"gapsweep.db.migrations")


class SchemaTooNewError(RuntimeError):
    """The database was migrated by a newer gapsweep than this one."""


def _url(url: str | URL) -> URL:
    u = make_url(url)
    if u.drivername in ("postgresql", "postgres"):
        u = u.set(drivername="postgresql+psycopg")
    return u


def _sqlite_file(u: URL) -> Path | None:
    if u.get_backend_name() != "sqlite" or u.database in (None, "", ":memory:"):
        return None
    if u.database.startswith("file:"):
        return None
    return Path(u.database).expanduser()


def _use_wal(cur: Any) -> None:
    """Switch the file to WAL (persistent: later connections find it so). The switch needs
    an exclusive lock and SQLite reports "database is locked" at once, without the busy
    handler, when another connection is opening the same new file - so retry a while."""
    deadline = time.monotonic() + SQLITE_BUSY_TIMEOUT_S
    while True:
        try:
            if cur.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal":
                cur.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.02)


def _engine(url: str | URL, *, migrating: bool) -> Engine:
    u = _url(url)
    if u.get_backend_name() != "sqlite":
        return create_engine(u, pool_pre_ping=True)
    path = _sqlite_file(u)
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
    engine = create_engine(u, connect_args={"timeout": SQLITE_BUSY_TIMEOUT_S})

    @event.listens_for(engine, "connect")
    def _pragmas(dbapi_conn: Any, _record: Any) -> None:
        cur = dbapi_conn.cursor()
        cur.execute(f"PRAGMA busy_timeout={int(SQLITE_BUSY_TIMEOUT_S * 1000)}")
        _use_wal(cur)
        # In WAL mode NORMAL syncs at checkpoints, not at every commit: a worker's three
        # commits a chunk (claim, store, status) cost ~4 ms of fsync each here, held under
        # SQLite's one write lock while the other worker waits (issue 28). The file stays
        # consistent on a crash or power loss; the last commits may roll back, and a case
        # whose result rolled back is running with an expired lease, which the reconciler
        # queues again.
        cur.execute("PRAGMA synchronous=NORMAL")
        # Batch migrations rebuild tables (drop + rename), which foreign keys would block;
        # Alembic's advice is to run them with enforcement off.
        cur.execute("PRAGMA foreign_keys=" + ("OFF" if migrating else "ON"))
        cur.close()
        if migrating:
            dbapi_conn.isolation_level = None  # we emit BEGIN ourselves (below)

    if migrating:

        @event.listens_for(engine, "begin")
        def _begin_immediate(conn: Any) -> None:
            # take the write lock before Alembic reads the version table, so a second
            # process waits here and then sees the schema at head
            conn.exec_driver_sql("BEGIN IMMEDIATE")

    return engine


def make_engine(url: str | URL) -> Engine:
    """The application's engine for ``url`` (see the module docstring for the settings)."""
    return _engine(url, migrating=False)


def alembic_config() -> Config:
    """Alembic's configuration, built in code (no ini file at run time)."""
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS_DIR))
    return cfg


def _assigned(tree: ast.Module, name: str) -> Any:
    """The literal a revision file assigns to ``name`` at module level (``x = ...`` or
    ``x: T = ...``); KeyError when it assigns none."""
    for node in tree.body:
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets, value = [node.target], node.value
        else:
            continue
        if any(isinstance(t, ast.Name) and t.id == name for t in targets):
            return ast.literal_eval(value)
    raise KeyError(name)


@functools.lru_cache(maxsize=1)
def shipped_revisions() -> tuple[str, frozenset[str]]:
    """``(head, every revision)`` this gapsweep ships, read from the revision files'
    ``revision`` / ``down_revision`` assignments without importing Alembic (the same graph
    Alembic walks: tests/db/test_schema_check.py compares the two). A history with more than
    one head is refused here, as Alembic's ``upgrade head`` would refuse it."""
    parents: dict[str, tuple[str, ...]] = {}
    for path in sorted(VERSIONS_DIR.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        try:
            revision = _assigned(tree, "revision")
        except KeyError:  # __init__.py, a helper module: not a revision
            continue
        down = _assigned(tree, "down_revision")
        parents[revision] = tuple(down) if isinstance(down, (tuple, list)) else (
            () if down is None else (down,))
    referenced = {p for ps in parents.values() for p in ps}
    heads = sorted(set(parents) - referenced)
    if len(heads) != 1:
        raise RuntimeError(f"the migrations in {VERSIONS_DIR} have heads {heads}: one expected")
    return heads[0], frozenset(parents)


def head_revision() -> str:
    """The newest revision this gapsweep ships."""
    return shipped_revisions()[0]


def _stored_revision(engine: Engine) -> str | None:
    """The revision in the database's ``alembic_version`` (None: never migrated, no table).
    One query. A database at several heads (not gapsweep's linear history) reads as their
    joined names, which match no shipped revision: refused as too new."""
    with engine.connect() as conn:
        try:
            rows = conn.execute(text("SELECT version_num FROM alembic_version")).scalars().all()
        except DBAPIError:  # no such table: an empty database
            return None
    if not rows:
        return None
    return rows[0] if len(rows) == 1 else ",".join(sorted(rows))


def current_revision(url: str | URL) -> str | None:
    """The database's revision (None when it has never been migrated)."""
    engine = make_engine(url)
    try:
        return _stored_revision(engine)
    finally:
        engine.dispose()


def _migrate(url: str | URL, run: Any) -> None:
    engine = _engine(url, migrating=True)
    try:
        with engine.begin() as conn:
            if conn.dialect.name == "postgresql":
                conn.execute(select(func.pg_advisory_xact_lock(_PG_MIGRATION_LOCK)))
            cfg = alembic_config()
            cfg.attributes["connection"] = conn
            run(cfg)
    finally:
        engine.dispose()


def upgrade(url: str | URL, revision: str = "head") -> None:
    """Migrate the database at ``url`` up to ``revision`` (default: head)."""
    from alembic import command

    _migrate(url, lambda cfg: command.upgrade(cfg, revision))


def downgrade(url: str | URL, revision: str) -> None:
    """Migrate the database at ``url`` down to ``revision`` ("base" removes every table)."""
    from alembic import command

    _migrate(url, lambda cfg: command.downgrade(cfg, revision))


def open_database(url: str | URL | None = None) -> sessionmaker[Session]:
    """A session factory for ``url`` (default: the settings' database), upgrading an empty
    or older database to head first. A database newer than this gapsweep raises
    :class:`SchemaTooNewError` rather than being touched. At head: one query, no Alembic."""
    url = get_settings().database_url if url is None else url
    head, known = shipped_revisions()
    engine = make_engine(url)
    try:
        current = _stored_revision(engine)
        if current != head:
            if current is not None and current not in known:
                raise SchemaTooNewError(
                    f"database revision {current!r} is unknown to this gapsweep (head "
                    f"{head!r}); upgrade gapsweep"
                )
            upgrade(url)  # under the migration lock, Alembic reads the revision again
    except BaseException:
        engine.dispose()
        raise
    return sessionmaker(engine, expire_on_commit=False)
