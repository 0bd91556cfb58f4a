"""SIGTERM as a clean stop for the commands that own child processes (``run``, ``wait``,
``serve``): Python's default SIGTERM ends the process at once, skipping the ``finally``
that stops the local workers, which would then outlive it."""

from __future__ import annotations

import signal
import sys

_received: list[int] = []


def _exit(signum: int, frame: object) -> None:
    _received.append(signum)
    sys.exit(128 + signum)


def received_signal() -> int | None:
    """The SIGTERM that stopped this process, if one did (None otherwise). A server loop
    that swallows SystemExit (waitress's does, to shut its threads down) returns normally;
    this tells the caller which exit status to give."""
    return _received[-1] if _received else None


def stop_cleanly_on_sigterm() -> None:
    """From now on SIGTERM raises SystemExit, so context managers and finally blocks run."""
    signal.signal(signal.SIGTERM, _exit)
