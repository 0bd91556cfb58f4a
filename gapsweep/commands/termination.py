"""SIGTERM as a clean stop for the commands that own child processes (``run``, ``wait``,
``serve``): Python's default SIGTERM ends the process at once, skipping the ``finally``
that stops the local workers, which would then outlive it."""

from __future__ import annotations

import signal
import sys


def _exit(signum: int, frame: object) -> None:
    sys.exit(128 + signum)


def stop_cleanly_on_sigterm() -> None:
    """From now on SIGTERM raises SystemExit, so context managers and finally blocks run."""
    signal.signal(signal.SIGTERM, _exit)
