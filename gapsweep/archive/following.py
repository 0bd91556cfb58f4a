"""Following a study to its end, wherever it runs: one polling loop for the local archive
(the database) and the remote one (the server's progress route)."""

from __future__ import annotations

import time
from collections.abc import Callable

Progress = Callable[[dict[str, int]], None]


def follow_counts(counts: Callable[[], dict[str, int]], *, poll_s: float,
                  timeout_s: float | None = None, progress: Progress | None = None) -> bool:
    """Read ``counts()`` (case counts by status) every ``poll_s`` seconds, handing each to
    ``progress``, until nothing is queued or running (True) or ``timeout_s`` has passed
    (False; None: no limit)."""
    deadline = None if timeout_s is None else time.monotonic() + timeout_s
    while True:
        now = counts()
        if progress is not None:
            progress(now)
        if now["queued"] == 0 and now["running"] == 0:
            return True
        if deadline is not None and time.monotonic() > deadline:
            return False
        time.sleep(poll_s)
