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
    """Write this worker's ready mark (``host:pid``, start time)."""
    folder = ready_folder(settings)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{holder.replace(':', '_')}.json"
    path.write_text(json.dumps({"holder": holder, "pid": os.getpid(), "ready_at": time.time()}))
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
