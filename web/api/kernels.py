"""Are the solver kernels ready in a worker? One small function, so the rule can change in
one place (the page's "kernels compiling" banner and ``/api/health`` both read it)."""

from __future__ import annotations

from typing import Any


def local_workers(settings: Any) -> list[dict]:
    """Ready marks of the live local workers (``[]`` when there are none, or the workers
    package cannot tell)."""
    try:
        from gapsweep.workers.readiness import live_workers
    except ImportError:
        return []
    return live_workers(settings)


def workers_ready(settings: Any) -> bool:
    """True once a local worker has compiled (or loaded) the kernels and said so.

    With ``GAPSWEEP_BROKER_URL`` set the workers run elsewhere and write no local mark, so the
    page cannot know and does not claim they are compiling."""
    if getattr(settings, "broker_url", None):
        return True
    return bool(local_workers(settings))
