"""Is a worker able to take cases? Kernels loaded, and a mark other processes can read.

The web page shows "kernels compiling" until a local worker has written its ready mark;
``GET /api/health`` lists the marks of workers that are alive.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from gapsweep.settings import Settings


def warm_kernels() -> None:
    """Run a tiny case of each rigid model so its kernels are compiled or loaded."""
    from gapsweep.core.api import run_case

    run_case("slider-crank", {"t_end": 0.001})


def ready_folder(settings: Settings) -> Path:
    return settings.data_dir / "workers"


def mark_ready(settings: Settings, holder: str) -> Path:
    """Write this worker's ready mark (``host:pid``, start time; the pid of the process that
    started it, when one did, and its process group: :func:`orphaned_groups`)."""
    from .parent_watch import PARENT_VARIABLE

    folder = ready_folder(settings)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{holder.replace(':', '_')}.json"
    mark = {"holder": holder, "pid": os.getpid(), "ready_at": time.time(),
            "group": os.getpgrp()}
    if os.environ.get(PARENT_VARIABLE, "").isdigit():
        mark["parent"] = int(os.environ[PARENT_VARIABLE])
    path.write_text(json.dumps(mark))
    return path


def live_workers(settings: Settings) -> list[dict]:
    """Ready marks of workers on this machine whose process is still alive (stale marks of
    stopped workers are removed)."""
    folder = ready_folder(settings)
    alive = []
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        try:
            mark = json.loads(path.read_text())
            os.kill(int(mark["pid"]), 0)
        except (OSError, ValueError, KeyError):
            path.unlink(missing_ok=True)
            continue
        alive.append(mark)
    return alive


def orphaned_groups(settings: Settings) -> list[int]:
    """Process groups of live local workers on this folder whose starting process is gone
    (a serve or run that died hard, within the workers' own grace to stop): a new one must
    not run a second group beside them. Workers started by hand have no parent in their mark
    and are never listed."""
    groups = []
    for mark in live_workers(settings):
        parent, group = mark.get("parent"), mark.get("group")
        if parent is None or group != mark["pid"]:
            continue
        try:
            os.kill(int(parent), 0)
        except ProcessLookupError:
            groups.append(int(group))
        except OSError:  # alive, someone else's
            continue
    return groups
