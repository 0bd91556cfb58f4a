"""Turning case ids into queue messages, after the rows that name them are committed.

A message is a JSON list of case ids (a chunk). Chunks keep the per-message overhead of the
queue and the claim small against cases that cost milliseconds, while staying small enough
that progress on the page moves case by case. A retried case goes out alone, so one case
that kills its worker cannot take the rest of a chunk down with it.

How many cases a message holds (:func:`chunking`) follows what a case costs. Each message
costs a pool process a fixed ~10-40 ms (broker, claim, store, status refresh: more with two
processes taking SQLite's write lock in turn), so 1,000 two-revolution cases (~9 ms each in
one process) ran at 1.67-1.83x the bare solver in messages of 8 and at 1.47-1.59x in
messages of 16-32 (benchmarks/system_throughput.py, issue 28). A case run until its motion
settles costs 10-40x more: there the fixed cost is small and small messages spread a
study's slow (chaotic) cases over the processes instead of leaving one process the tail.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Protocol

from gapsweep.db import leases
from sqlalchemy.orm import Session, sessionmaker

from gapsweep.settings import Settings

#: an automatic message holds about this much estimated solver time [s]
#: (:func:`gapsweep.study.designs.estimate_seconds`, the batch estimate on 2 threads: about
#: twice that in one pool process)
MESSAGE_SOLVER_S = 0.15
#: at most this many cases in an automatic message
MAX_CHUNK = 32
#: a study of two or more cases goes out as at least this many messages (two processes)
MIN_MESSAGES = 2
#: and as at most this many: the embedded broker lists its whole folder for each message
#: it takes, and a 100,000-case study must not leave 100,000 files there
MAX_MESSAGES = 2500


def chunks(case_ids: Sequence[int], size: int, *, at_least: int = 1) -> list[list[int]]:
    """``case_ids`` in order, cut into ``max(ceil(n / size), min(n, at_least))`` lists of
    near-equal length (lengths differ by one at most; none longer than ``size`` >= 1)."""
    n, size = len(case_ids), max(1, int(size))
    count = max(math.ceil(n / size), min(n, at_least))
    out, start = [], 0
    for k in range(count):  # the first n % count lists one longer
        length = n // count + (k < n % count)
        out.append(list(case_ids[start : start + length]))
        start += length
    return out


def chunking(settings: Settings, per_case_s: float, n: int) -> tuple[int, int]:
    """``(size, at_least)`` for :func:`chunks` of ``n`` cases that are estimated to cost
    ``per_case_s`` seconds each: ``GAPSWEEP_CHUNK_SIZE`` when set (exactly that size), else
    about :data:`MESSAGE_SOLVER_S` of work a message, 1 to :data:`MAX_CHUNK` cases, in at
    least :data:`MIN_MESSAGES` and at most :data:`MAX_MESSAGES` messages."""
    if settings.chunk_size is not None:
        return settings.chunk_size, 1
    size = round(MESSAGE_SOLVER_S / per_case_s) if per_case_s > 0.0 else MAX_CHUNK
    size = max(min(MAX_CHUNK, max(1, size)), math.ceil(n / MAX_MESSAGES))
    return size, MIN_MESSAGES


class Dispatcher(Protocol):
    """Somewhere a chunk of case ids can be sent to be run."""

    def send(self, chunk: list[int]) -> None: ...

    def pending_messages(self) -> int | None:
        """Messages waiting in the queue (None when it cannot be known)."""
        ...


class CeleryDispatcher:
    """Sends each chunk as a task message through the configured broker."""

    def __init__(self, celery_app) -> None:
        self._app = celery_app

    def send(self, chunk: list[int]) -> None:
        from .celery_app import TASK_NAME

        self._app.send_task(TASK_NAME, args=[chunk])

    def pending_messages(self) -> int | None:
        from kombu.exceptions import ChannelError

        try:
            with self._app.connection_for_read() as conn:
                queue = self._app.conf.task_default_queue
                return int(conn.default_channel.queue_declare(queue, passive=True).message_count)
        except ChannelError:
            # NOT_FOUND: no queue of that name holds anything. Redis deletes a list when
            # its last item goes, so an empty queue - and every queue after a restart
            # without persistence - is "not found"; reading that as unknown kept the
            # reconciler from re-sending the lost messages (Redis-restart fault test)
            return 0
        except Exception:  # a broker down or unreachable: unknown
            return None


def enqueue(
    case_ids: Iterable[int],
    *,
    sessions: sessionmaker[Session],
    dispatcher: Dispatcher,
    chunk_size: int,
    at_least: int = 1,
) -> int:
    """Stamp the (committed, queued) cases enqueued, then send them as chunks; returns the
    number of messages (:func:`chunks` of ``chunk_size``, ``at_least``). Call only after the
    transaction that created the cases committed.

    The stamp is committed before the first message goes out: while its UPDATE holds the
    rows' locks, a worker that already took the first chunk would claim nothing (PostgreSQL's
    ``SKIP LOCKED`` skips locked rows) and drop the message - measured: the first chunk of a
    100-case study on Redis + PostgreSQL left queued. A send that fails after the stamp is
    a lost message like any other: the reconciler sends it again."""
    ids = list(case_ids)
    messages = chunks(ids, chunk_size, at_least=at_least)
    if ids:
        with sessions.begin() as session:
            leases.mark_enqueued(session, case_ids=ids)
    for chunk in messages:
        dispatcher.send(chunk)
    return len(messages)

