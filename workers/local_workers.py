"""The embedded default: local Celery worker processes for ``gapsweep run`` and ``serve``.

With ``GAPSWEEP_BROKER_URL`` unset there is no broker server: the workers share the
filesystem broker and the SQLite database in the data folder. They run as one child process
group (``celery worker`` and its pool), so stopping them — Ctrl-C, the end of a run — stops
every process they started; a case they were running is left with a lease that expires and
the reconciler sends it again, so nothing is stuck in ``running``.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from gapsweep.settings import Settings

from .parent_watch import GRACE_S, PARENT_VARIABLE
from .readiness import orphaned_groups


class LocalWorkers:
    """``celery worker`` for this data folder, as a context manager."""

    def __init__(self, settings: Settings, concurrency: int | None = None) -> None:
        self.settings = settings
        self.concurrency = concurrency or settings.concurrency
        self.process: subprocess.Popen | None = None
        self.log_path: Path | None = None

    def start(self) -> LocalWorkers:
        stop_orphaned_groups(self.settings)
        logs = self.settings.data_dir / "logs"
        logs.mkdir(parents=True, exist_ok=True)
        self.log_path = logs / f"worker-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}.log"
        env = dict(os.environ)
        env["GAPSWEEP_DATA"] = str(self.settings.data_dir)
        env["GAPSWEEP_DATABASE_URL"] = self.settings.database_url
        env["NUMBA_NUM_THREADS"] = "1"  # one process per core, one thread each
        env[PARENT_VARIABLE] = str(os.getpid())  # it stops when this process is gone
        with open(self.log_path, "ab") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "gapsweep", "worker", "--concurrency",
                 str(self.concurrency), "--name", f"local-{os.getpid()}@%h"],
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,  # its own group: one signal reaches the whole pool
            )
        return self

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def stop(self, timeout_s: float = 20.0) -> None:
        """Warm shutdown (TERM: finish the chunk in hand), then KILL the group if it hangs.

        TERM goes to the main process only: sent to the whole group it also reached the
        pool children, which died mid-chunk (their cases came back only when the lease
        expired) and the main process outlived the 20 s wait (fault test: the warm shutdown
        took 3.8 s with TERM to the main process; with TERM to the group, 4 cases were
        retried and the stop took the whole wait)."""
        if self.process is None:
            return
        pgid = self.process.pid
        for sig, wait_s in ((signal.SIGTERM, timeout_s), (signal.SIGKILL, 5.0)):
            try:
                if sig == signal.SIGTERM:
                    os.kill(pgid, sig)
                else:
                    os.killpg(pgid, sig)
            except ProcessLookupError:  # the main process is gone: KILL what it left
                if sig == signal.SIGKILL:
                    break
                continue
            try:
                self.process.wait(wait_s)
                # the pool children may outlive the main process by a moment
                if not _group_alive(pgid):
                    break
            except subprocess.TimeoutExpired:
                continue
        self.process = None

    def __enter__(self) -> LocalWorkers:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def stop_orphaned_groups(settings: Settings) -> list[int]:
    """TERM (the warm shutdown), then after their grace KILL, the worker groups on this
    folder left by a parent that died hard; returns the groups. Normally they are gone by
    themselves (:mod:`.parent_watch`); a parent restarted within their grace must still not
    run a second group beside them."""
    groups = orphaned_groups(settings)
    for group in groups:
        with contextlib.suppress(ProcessLookupError):
            os.kill(group, signal.SIGTERM)  # the group's leader is the worker's main process
    deadline = time.monotonic() + GRACE_S
    while any(_group_alive(g) for g in groups) and time.monotonic() < deadline:
        time.sleep(0.1)
    for group in groups:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(group, signal.SIGKILL)
    return groups


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True
