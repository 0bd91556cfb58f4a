"""Dropping the queue messages nobody needs: a cancelled study costs nothing afterwards.

Cancelling a study marks its queued cases ``cancelled`` in the database at once, but its
messages stayed in the broker: a 100,000-case study cancelled at 2 % left about 12,000, and
the workers took them one by one - each a poll of the queue, a claim that took nothing and an
ack - for almost 4 minutes before the next study's first case (issue 28). A message is dead
when none of its case ids is still ``queued`` (the claim would take nothing): this module
deletes such messages from the broker where the broker allows it - the embedded filesystem
broker (a file each) and Redis (a list) - right after a cancel, and whenever a worker is
handed a dead chunk (at most every :data:`SWEEP_INTERVAL_S` per process), so the rest of a
cancelled study's messages go in one sweep, not one round trip each. Other brokers keep
theirs; the claim still makes them harmless.
"""

from __future__ import annotations

import base64
import json
import logging
import time
from collections.abc import Iterable
from pathlib import Path

from gapsweep.db.models import Case
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from gapsweep.settings import Settings

log = logging.getLogger(__name__)

#: seconds between two sweeps a worker makes on its own (a cancel sweeps at once)
SWEEP_INTERVAL_S = 2.0
_QUEUE = "gapsweep"
_last_sweep = [0.0]


def case_ids_of(payload: bytes | str) -> list[int] | None:
    """The case ids a kombu message carries (JSON, body base64 or plain); None when it is
    not one of ours or cannot be read (such a message is kept)."""
    try:
        message = json.loads(payload)
        body = message["body"]
        if message.get("properties", {}).get("body_encoding") == "base64":
            body = base64.b64decode(body)
        args = json.loads(body)[0]
        return [int(i) for i in args[0]]
    except (ValueError, KeyError, IndexError, TypeError):
        return None


def _queued(sessions: sessionmaker[Session], ids: Iterable[int]) -> set[int]:
    wanted, alive = sorted(set(ids)), set()
    with sessions() as session:
        for k in range(0, len(wanted), 500):  # SQLite's bound on parameters
            part = wanted[k : k + 500]
            alive |= set(session.scalars(
                select(Case.id).where(Case.id.in_(part), Case.status == "queued")))
    return alive


def _dead(messages: dict, sessions: sessionmaker[Session]) -> list:
    """The keys of ``messages`` (key -> case ids) none of whose cases is queued."""
    readable = {k: ids for k, ids in messages.items() if ids is not None}
    alive = _queued(sessions, (i for ids in readable.values() for i in ids))
    return [k for k, ids in readable.items() if alive.isdisjoint(ids)]


def purge_dead_messages(settings: Settings, sessions: sessionmaker[Session]) -> int | None:
    """Delete the queue's dead messages; their number, or None where the broker is not one
    this can read (its messages stay, each a claim that takes nothing)."""
    _last_sweep[0] = time.monotonic()
    try:
        if not settings.broker_url:
            from .celery_app import broker_folders  # Celery only where a folder is purged

            return _purge_folder(broker_folders(settings.data_dir)["queue"], sessions)
        if settings.broker_url.startswith(("redis://", "rediss://")):
            return _purge_redis(settings.broker_url, sessions)
    except Exception:  # a broker or database unreachable now: the claim still copes
        log.exception("purging the dead queue messages failed")
    return None


def sweep_after_dead_chunk(settings: Settings, sessions: sessionmaker[Session]) -> int | None:
    """What a worker calls when a message claimed nothing: one sweep every so often."""
    if time.monotonic() - _last_sweep[0] < SWEEP_INTERVAL_S:
        return None
    return purge_dead_messages(settings, sessions)


def _purge_folder(folder: Path, sessions: sessionmaker[Session]) -> int:
    messages = {}
    for path in folder.glob(f"*.{_QUEUE}.msg"):
        try:
            messages[path] = case_ids_of(path.read_bytes())
        except OSError:  # taken by a worker meanwhile
            continue
    removed = 0
    for path in _dead(messages, sessions):
        try:
            path.unlink()
            removed += 1
        except OSError:
            continue
    return removed


def _purge_redis(url: str, sessions: sessionmaker[Session]) -> int:
    import redis

    client = redis.Redis.from_url(url)
    try:
        raw = client.lrange(_QUEUE, 0, -1)
        messages = {item: case_ids_of(item) for item in set(raw)}
        removed = 0
        for item in _dead(messages, sessions):
            removed += int(client.lrem(_QUEUE, 0, item))
        return removed
    finally:
        client.close()
