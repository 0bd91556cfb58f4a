"""Can the broker be reached? For ``GET /api/health`` and ``gapsweep workers``."""

from __future__ import annotations

from gapsweep.settings import Settings


def broker_state(settings: Settings, timeout_s: float = 2.0) -> str:
    """``"ok"`` when a connection to the broker opens within ``timeout_s``, ``"embedded"``
    for the filesystem broker (nothing to reach), else ``"error: <reason>"``."""
    if not settings.broker_url:
        return "embedded"
    from .celery_app import make_celery

    try:
        with make_celery(settings).connection_for_read() as conn:
            conn.ensure_connection(max_retries=1, timeout=timeout_s)
    except Exception as exc:  # a health probe reports, it never raises
        return f"error: {type(exc).__name__}"
    return "ok"
