"""Fixtures of the worker fault tests: processes cleaned up, a database backend of each
kind (``backend``, see :mod:`backends`), the Redis + PostgreSQL one alone (``redis_pg``)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from backends import Backend, make_backend
from processes import Procs


@pytest.fixture
def procs(tmp_path: Path) -> Iterator[Procs]:
    """Start processes through this; every group is SIGKILLed at the end (verified)."""
    folder = tmp_path / "logs"
    folder.mkdir()
    p = Procs(folder)
    try:
        yield p
    finally:
        p.close()


@pytest.fixture(params=["embedded", "redis-pg"])
def backend(request: pytest.FixtureRequest, tmp_path: Path, procs: Procs) -> Iterator[Backend]:
    yield from make_backend(request.param, tmp_path, procs)


@pytest.fixture
def redis_pg(tmp_path: Path, procs: Procs) -> Iterator[Backend]:
    yield from make_backend("redis-pg", tmp_path, procs)
