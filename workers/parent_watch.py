"""Local workers die with the process that started them (``serve``, ``run``).

A parent that stops cleanly stops its workers (:class:`~.local_workers.LocalWorkers`). One that
dies hard - SIGKILL, the OOM killer, a closed terminal - runs no ``finally``, and its worker
group lived on (issue 28: a killed serve's workers kept taking cases, and the restarted serve
ran a second group on the same folder). Two guards, both in the worker's main process:

- on Linux, a parent-death signal (``prctl(PR_SET_PDEATHSIG, SIGTERM)``): the kernel sends
  SIGTERM, Celery's warm shutdown, the moment the parent dies;
- everywhere, a watch thread that looks at the parent every second: a worker whose parent
  pid changed (it was re-parented: its parent is gone) asks itself for the warm shutdown
  where no signal did, and :data:`GRACE_S` later kills its whole process group, so a chunk
  that will not finish cannot keep the group alive.

The pool children need neither: Celery gives them a parent-death SIGKILL of their own, and
they are in the worker's group.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import logging
import os
import signal
import sys
import threading
import time

log = logging.getLogger(__name__)

#: the starting process's pid, handed to the worker in its environment
PARENT_VARIABLE = "GAPSWEEP_PARENT_PID"
#: seconds between two looks at the parent
INTERVAL_S = 1.0
#: seconds a worker whose parent died has to finish its chunk before its group is killed
GRACE_S = 15.0

_PR_SET_PDEATHSIG = 1


def parent_death_signal(sig: int) -> bool:
    """Ask the kernel for ``sig`` when this process's parent dies (Linux); False elsewhere
    or when the call fails."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        return libc.prctl(_PR_SET_PDEATHSIG, ctypes.c_ulong(sig), 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def watch_parent(parent: int | None = None) -> threading.Thread | None:
    """Stop this process (and its group) when ``parent`` - by default the pid in
    :data:`PARENT_VARIABLE` - is no longer its parent. No parent given: nothing (a worker
    started by hand or by a service manager lives on its own)."""
    if parent is None:
        try:
            parent = int(os.environ[PARENT_VARIABLE])
        except (KeyError, ValueError):
            return None
    # the signal comes when the thread that started this process ends: LocalWorkers starts
    # it from the parent's main thread, so that is the parent's death. A parent gone before
    # the call sent none.
    signalled = parent_death_signal(signal.SIGTERM) and os.getppid() == parent
    thread = threading.Thread(
        target=_watch, args=(parent, signalled), name="parent-watch", daemon=True
    )
    thread.start()
    return thread


def _watch(parent: int, signalled: bool) -> None:
    while os.getppid() == parent:
        time.sleep(INTERVAL_S)
    log.warning("gapsweep worker: the process that started it (pid %d) is gone; stopping",
                parent)
    print(f"gapsweep worker: its parent (pid {parent}) is gone; stopping", flush=True)
    if not signalled:  # the kernel sent no SIGTERM: the warm shutdown from here
        os.kill(os.getpid(), signal.SIGTERM)
    time.sleep(GRACE_S)
    group = os.getpgrp()
    if group == os.getpid():  # the group is the worker's own (LocalWorkers starts a session)
        os.killpg(group, signal.SIGKILL)
    else:
        os.kill(os.getpid(), signal.SIGKILL)
