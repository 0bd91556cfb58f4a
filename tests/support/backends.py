"""Where a fault test's processes keep their state: ``embedded`` (SQLite in the test's data
folder + the filesystem broker) or ``redis-pg`` (a private redis-server on a free port + a
fresh PostgreSQL database, dropped afterwards). Without PostgreSQL or ``redis-server`` the
``redis-pg`` tests skip - and FAIL when ``CI=true``."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from gapsweep.db.engine import open_database
from sqlalchemy.orm import Session, sessionmaker

from support.database_fixtures import create_postgres_database, drop_postgres_database  # noqa: E402
from support.processes import Procs, RedisServer, gapsweep_env  # noqa: E402


class Recorder:
    """A dispatcher that keeps what it is sent (an empty queue otherwise)."""

    def __init__(self) -> None:
        self.sent: list[list[int]] = []

    def send(self, chunk: list[int]) -> None:
        self.sent.append(chunk)

    def pending_messages(self) -> int:
        return 0


def require_redis_server() -> None:
    if shutil.which("redis-server"):
        return
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail("redis-server is not installed (CI=true: the Redis fault tests must run)")
    pytest.skip("redis-server is not installed")


@dataclass
class Backend:
    """Where a test's processes keep their state, and how to reach it."""

    kind: str  # "embedded" | "redis-pg"
    data_dir: Path
    database_url: str
    redis: RedisServer | None
    sessions: sessionmaker[Session]

    def env(self, **extra: str) -> dict[str, str]:
        return gapsweep_env(
            self.data_dir, self.database_url, self.redis.url if self.redis else None, **extra
        )


def make_backend(kind: str, tmp_path: Path, procs: Procs, appendonly: bool = True) -> Iterator:
    data = tmp_path / "data"
    data.mkdir()
    if kind == "embedded":
        url = f"sqlite:///{data / 'gapsweep.db'}"
        sessions = open_database(url)
        try:
            yield Backend(kind, data, url, None, sessions)
        finally:
            sessions.kw["bind"].dispose()
        return
    require_redis_server()
    url = create_postgres_database()
    sessions = None
    try:
        redis = RedisServer(procs, tmp_path / "redis", appendonly=appendonly).start()
        sessions = open_database(url)
        yield Backend(kind, data, url, redis, sessions)
    finally:
        if sessions is not None:
            sessions.kw["bind"].dispose()
        procs.close()  # workers hold connections: stop them before the drop
        drop_postgres_database(url)
