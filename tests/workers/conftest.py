"""Fixtures of the worker fault tests: processes cleaned up, a database backend of each
kind (``backend``, see :mod:`backends`), the Redis + PostgreSQL one alone (``redis_pg``)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.backends import Backend, make_backend
from support.processes import Procs


@pytest.fixture(scope="session", autouse=True)
def warm_kernel_cache() -> None:
    """Compile (cold cache: ~2.5 min on 2 cores) or load the solver kernels once, before
    any worker starts: a worker's readiness wait is bounded well below a cold compile."""
    t0 = time.monotonic()
    subprocess.run(
        [sys.executable, "-c",
         "from gapsweep.workers.readiness import warm_kernels; warm_kernels()"],
        check=True, timeout=480, env={**os.environ, "NUMBA_NUM_THREADS": "1"},
    )
    print(f"\nsolver kernels ready in {time.monotonic() - t0:.1f} s")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    """Keep each phase's report on the test item: ``procs`` reads whether the test failed."""
    report = yield
    setattr(item, f"report_{report.when}", report)
    return report


@pytest.fixture
def procs(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Procs]:
    """Start processes through this; every group is SIGKILLed at the end (verified). When
    the test failed, each process's log tail is printed: a CI run keeps nothing else of a
    worker that stopped consuming or a server that did not answer."""
    folder = tmp_path / "logs"
    folder.mkdir()
    p = Procs(folder)
    try:
        yield p
    finally:
        report = getattr(request.node, "report_call", None)
        if report is not None and report.failed:
            for proc in p.started:
                print(f"\n----- {proc.name} (pid {proc.pid}), last lines of {proc.log.name} -----"
                      f"\n{proc.tail(60)}")
        p.close()


@pytest.fixture(params=["embedded", "redis-pg"])
def backend(request: pytest.FixtureRequest, tmp_path: Path, procs: Procs) -> Iterator[Backend]:
    yield from make_backend(request.param, tmp_path, procs)


@pytest.fixture
def redis_pg(tmp_path: Path, procs: Procs) -> Iterator[Backend]:
    yield from make_backend("redis-pg", tmp_path, procs)
