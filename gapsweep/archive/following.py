"""Following a study to its end, wherever it runs: one polling loop for the local archive
(the database) and the remote one (the server's progress route).

A study has ended when its status says so (done or cancelled) and no case of it is queued or
running - not when its case counts are idle: an adaptive study (optimize, calibrate) is idle
between two generations, after its last stored case and before its next generation is
written (design.md 4.14)."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any

Progress = Callable[[dict[str, int]], None]

#: the statuses of a study that has ended (design.md 4.5)
ENDED = ("done", "cancelled")


def progress_line_data(report: Mapping[str, Any]) -> dict[str, int]:
    """What a progress callback gets from a progress report (``GET
    /api/studies/<id>/progress``): the case counts, plus ``generation`` and ``generations``
    for an adaptive study and ``steps_done`` of ``steps`` over the running cases that report
    their steps (a wear life's settled runs)."""
    out = dict(report["counts"])
    running = report.get("running") or []
    if running:  # long cases' own steps (a wear life's settled runs), summed
        out["steps_done"] = sum(int(r["step"]) for r in running)
        out["steps"] = sum(int(r["steps"]) for r in running)
    if report.get("generations") is not None:
        out["generation"] = int(report.get("generation") or 0)
        out["generations"] = int(report["generations"])
        out["search_finished"] = int(bool((report.get("search") or {}).get("finished")))
    return out


def has_ended(report: Mapping[str, Any]) -> bool:
    """Whether the study of ``report`` has ended: its status is final and nothing of it is
    queued or running."""
    counts = report["counts"]
    return report["status"] in ENDED and counts["queued"] == 0 and counts["running"] == 0


def follow_study(report: Callable[[], Mapping[str, Any]], *, poll_s: float,
                 timeout_s: float | None = None, progress: Progress | None = None) -> bool:
    """Read ``report()`` (the study's progress report: ``status``, ``counts``, for an
    adaptive study ``generation`` and ``generations``) every ``poll_s`` seconds, handing
    each to ``progress`` (:func:`progress_line_data`), until the study has ended (True,
    :func:`has_ended`) or ``timeout_s`` has passed (False; None: no limit)."""
    deadline = None if timeout_s is None else time.monotonic() + timeout_s
    while True:
        now = report()
        if progress is not None:
            progress(progress_line_data(now))
        if has_ended(now):
            return True
        if deadline is not None and time.monotonic() > deadline:
            return False
        time.sleep(poll_s)
