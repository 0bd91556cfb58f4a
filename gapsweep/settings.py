"""One settings object, read from the environment (design.md 4.3, 4.5).

Every process (CLI, worker, web) calls :func:`get_settings`, which reads ``os.environ`` each
call, so tests can set variables with ``monkeypatch.setenv`` and get fresh values. An empty
variable means "use the default". A malformed value raises :class:`SettingsError` naming the
variable, the value and what is allowed, before anything is opened.

| variable | field | default |
|---|---|---|
| ``GAPSWEEP_DATA`` | ``data_dir`` | ``$XDG_DATA_HOME/gapsweep``, else ``~/.local/share/gapsweep`` |
| ``GAPSWEEP_DATABASE_URL`` | ``database_url`` | ``sqlite:///<data_dir>/gapsweep.db`` |
| ``GAPSWEEP_BROKER_URL`` | ``broker_url`` | ``None`` = embedded broker in ``data_dir`` |
| ``GAPSWEEP_MAX_ATTEMPTS`` | ``max_attempts`` | 3 claims before a crashing case is failed |
| ``GAPSWEEP_LEASE_S`` | ``lease_s`` | 60 s a claimed case stays leased without renewal |
| ``GAPSWEEP_RECONCILE_S`` | ``reconcile_interval_s`` | 15 s between reconciler passes |
| ``GAPSWEEP_MAX_CASES`` | ``max_cases`` | 100 000 cases per study |
| ``GAPSWEEP_REQUEUE_AFTER_S`` | ``requeue_after_s`` | 60 s: queued, queue empty = lost |
| ``GAPSWEEP_CHUNK_SIZE`` | ``chunk_size`` | ``None`` = by the cases' cost, 1-32 ids a message |
| ``GAPSWEEP_CONCURRENCY`` | ``concurrency`` | usable cores: worker processes |
| ``GAPSWEEP_POLLING_INTERVAL_S`` | ``polling_interval_s`` | 0.05 s, the embedded broker's poll |
| ``GAPSWEEP_VISIBILITY_TIMEOUT_S`` | ``visibility_timeout_s`` | 3600 s (> the hard time limit) |
| ``GAPSWEEP_RESTORE_INTERVAL_S`` | ``restore_interval_s`` | 10 s: a dead worker's messages return |
| ``GAPSWEEP_SOFT_TIME_LIMIT_S`` | ``soft_time_limit_s`` | 1500 s per chunk, then stopped |
| ``GAPSWEEP_HARD_TIME_LIMIT_S`` | ``hard_time_limit_s`` | 1800 s per chunk, then killed |
| ``GAPSWEEP_SESSION_S`` | ``session_s`` | 28 800 s (8 h) a web sign-in lasts |
| ``GAPSWEEP_PROXY_HOPS`` | ``proxy_hops`` | 0: trusted proxies' ``X-Forwarded-*`` headers |
| ``GAPSWEEP_LOGIN_WINDOW_S`` | ``login_window_s`` | 900 s: the sign-in limiter's window |

The data folder is not created here (reading settings has no side effects); the database
engine creates it on first use (:meth:`Settings.ensure_data_dir`).
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

T = TypeVar("T")


class SettingsError(ValueError):
    """An environment variable has a value gapsweep cannot use."""

    def __init__(self, variable: str, value: str, allowed: str) -> None:
        self.variable, self.value, self.allowed = variable, value, allowed
        super().__init__(f"{variable}={value!r} is not allowed: {allowed}")


@dataclass(frozen=True)
class Settings:
    """Process-wide configuration (see the module docstring for variables and defaults)."""

    data_dir: Path
    database_url: str
    broker_url: str | None
    max_attempts: int
    lease_s: float
    reconcile_interval_s: float
    max_cases: int
    requeue_after_s: float = 60.0
    chunk_size: int | None = None  # case ids per message; None: workers/dispatch.chunking
    concurrency: int = 1
    polling_interval_s: float = 0.05
    visibility_timeout_s: float = 3600.0
    restore_interval_s: float = 10.0
    soft_time_limit_s: float = 1500.0
    hard_time_limit_s: float = 1800.0
    session_s: float = 28800.0
    proxy_hops: int = 0
    login_window_s: float = 900.0

    def ensure_data_dir(self) -> Path:
        """Create the data folder (and parents) if missing; return it."""
        self.data_dir.mkdir(parents=True, exist_ok=True)
        return self.data_dir


def default_data_dir(env: Mapping[str, str]) -> Path:
    """``$XDG_DATA_HOME/gapsweep`` when set, else ``~/.local/share/gapsweep``."""
    xdg = env.get("XDG_DATA_HOME", "").strip()
    base = Path(xdg) if xdg else Path.home() / ".local" / "share"
    return base / "gapsweep"


def _read(
    env: Mapping[str, str], name: str, parse: Callable[[str], T], default: T, allowed: str
) -> T:
    """``parse(env[name])``, the default when unset or empty; any parse error -> SettingsError."""
    raw = env.get(name, "").strip()
    if not raw:
        return default
    try:
        return parse(raw)
    except (TypeError, ValueError):
        raise SettingsError(name, raw, allowed) from None


def _positive_int(raw: str) -> int:
    value = int(raw)
    if value < 1:
        raise ValueError(raw)
    return value


def _non_negative_int(raw: str) -> int:
    value = int(raw)
    if value < 0:
        raise ValueError(raw)
    return value


def _positive_seconds(raw: str) -> float:
    value = float(raw)
    if not math.isfinite(value) or value <= 0:
        raise ValueError(raw)
    return value


def get_settings(env: Mapping[str, str] | None = None) -> Settings:
    """The settings from ``env`` (default ``os.environ``, read now)."""
    env = os.environ if env is None else env
    data_dir = _read(
        env, "GAPSWEEP_DATA", lambda s: Path(s).expanduser(), default_data_dir(env), "a folder"
    )
    return Settings(
        data_dir=data_dir,
        database_url=_read(
            env, "GAPSWEEP_DATABASE_URL", str, f"sqlite:///{data_dir / 'gapsweep.db'}", "a URL"
        ),
        broker_url=_read(env, "GAPSWEEP_BROKER_URL", str, None, "a URL"),
        max_attempts=_read(
            env, "GAPSWEEP_MAX_ATTEMPTS", _positive_int, 3, "an integer >= 1 (claims per case)"
        ),
        lease_s=_read(env, "GAPSWEEP_LEASE_S", _positive_seconds, 60.0, "seconds > 0"),
        reconcile_interval_s=_read(
            env, "GAPSWEEP_RECONCILE_S", _positive_seconds, 15.0, "seconds > 0"
        ),
        max_cases=_read(
            env, "GAPSWEEP_MAX_CASES", _positive_int, 100_000, "an integer >= 1 (cases per study)"
        ),
        requeue_after_s=_seconds(env, "GAPSWEEP_REQUEUE_AFTER_S", 60.0),
        chunk_size=_read(env, "GAPSWEEP_CHUNK_SIZE", _positive_int, None, "an integer >= 1"),
        concurrency=_read(
            env, "GAPSWEEP_CONCURRENCY", _positive_int, _usable_cores(), "an integer >= 1"
        ),
        polling_interval_s=_seconds(env, "GAPSWEEP_POLLING_INTERVAL_S", 0.05),
        visibility_timeout_s=_seconds(env, "GAPSWEEP_VISIBILITY_TIMEOUT_S", 3600.0),
        restore_interval_s=_seconds(env, "GAPSWEEP_RESTORE_INTERVAL_S", 10.0),
        soft_time_limit_s=_seconds(env, "GAPSWEEP_SOFT_TIME_LIMIT_S", 1500.0),
        hard_time_limit_s=_seconds(env, "GAPSWEEP_HARD_TIME_LIMIT_S", 1800.0),
        session_s=_seconds(env, "GAPSWEEP_SESSION_S", 28800.0),
        proxy_hops=_read(env, "GAPSWEEP_PROXY_HOPS", _non_negative_int, 0,
                         "an integer >= 0 (reverse proxies in front of the web app)"),
        login_window_s=_seconds(env, "GAPSWEEP_LOGIN_WINDOW_S", 900.0),
    )


def _seconds(env: Mapping[str, str], name: str, default: float) -> float:
    return _read(env, name, _positive_seconds, default, "seconds > 0")


def _usable_cores() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return max(1, os.cpu_count() or 1)
