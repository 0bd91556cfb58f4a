"""The Celery task: a chunk of case ids in, results in the database (design.md 3).

The task body is :func:`~.case_runner.run_chunk`, the same function ``gapsweep run`` calls
in-process; this module only gives it a database, a lease holder name and a worker-ready
hook that loads the solver kernels before the first message is taken.
"""

from __future__ import annotations

import logging
import os
import socket
import time

from celery import signals
from gapsweep.db.engine import open_database
from sqlalchemy.orm import Session, sessionmaker

from gapsweep.settings import get_settings

from .case_runner import run_chunk
from .celery_app import TASK_NAME, app
from .dispatch import CeleryDispatcher
from .readiness import mark_ready, warm_kernels

log = logging.getLogger(__name__)


_SESSIONS: dict[str, sessionmaker[Session]] = {}


def _sessions(url: str) -> sessionmaker[Session]:
    """This process's sessions on ``url`` (one engine per process and URL)."""
    if url not in _SESSIONS:
        _SESSIONS[url] = open_database(url)
    return _SESSIONS[url]


def _forget_parent_connections() -> None:
    """In a forked child: drop the pooled connections inherited from the parent, unclosed
    (closing would end the parent's sessions). The pool forks replacement children after
    the main process's reconciler has opened connections (a child killed, a broker
    connection lost, max tasks per child); a child that used the inherited sockets shared
    them with the parent, and both got each other's replies - the Redis-restart fault test
    saw ResourceClosedError / "connection in transaction status INTRANS" and a reconciler
    thread blocked for good."""
    for sessions in _SESSIONS.values():
        sessions.kw["bind"].dispose(close=False)


os.register_at_fork(after_in_child=_forget_parent_connections)


def holder_name() -> str:
    """This process in a lease: ``host:pid``."""
    return f"{socket.gethostname()}:{os.getpid()}"


@app.task(name=TASK_NAME, ignore_result=True)
def run_chunk_task(case_ids: list[int]) -> dict[str, int]:
    """Run the cases ``case_ids`` (JSON ints); returns the chunk's counts (for the log)."""
    settings = get_settings()
    report = run_chunk(
        [int(i) for i in case_ids],
        sessions=_sessions(settings.database_url),
        holder=holder_name(),
        settings=settings,
        threads=1,  # one process per core: numba threads on top would oversubscribe
        dispatcher=CeleryDispatcher(app),
    )
    return vars(report)


@signals.worker_init.connect
def _load_kernels(**_: object) -> None:
    """Compile (first run on a machine) or load the kernels in the main process, before
    the pool forks: every child inherits them, and no case waits for a compile."""
    import numba

    # the pool forks after this: GNU OpenMP's threads do not survive a fork (the children
    # die with "fork() called from a process already using GNU OpenMP"); workqueue does
    numba.config.THREADING_LAYER = "workqueue"
    t0 = time.perf_counter()
    print("gapsweep worker: loading the solver kernels (the first run on a machine compiles "
          "them, about 2.5 min on 2 cores)...", flush=True)
    warm_kernels()
    print(f"gapsweep worker: kernels ready in {time.perf_counter() - t0:.1f} s", flush=True)


@signals.worker_ready.connect
def _ready(sender: object = None, **_: object) -> None:
    settings = get_settings()
    mark_ready(settings, holder_name())
    from .reconciler import start_reconciler  # the reconciler enqueues through this app

    start_reconciler(settings, _sessions(settings.database_url))
