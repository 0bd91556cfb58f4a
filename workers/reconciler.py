"""The reconciler: no case is lost to a dead worker or a lost message (design.md 3).

Runs at worker start and then every ``reconcile_interval_s`` as a daemon thread in each
worker's main process (and in ``gapsweep run``'s own process while it waits), rather than as
Celery beat: beat would be one more process to deploy and keep single, while a reconciler
per worker is harmless twice over — claims are conditional, so a duplicate message costs
one failed claim.

Each pass (1) returns cases whose lease expired (a worker SIGKILLed mid-case, a machine
lost) to the queue, or fails them once ``max_attempts`` claims are used up, and (2)
re-sends cases that stayed queued for a while although the queue is empty (their messages
were lost: a broker restarted without persistence, a filesystem-broker worker killed).
Both go out one case per message. A study whose last case a pass fails is analysed by that
pass, as a worker analyses the study whose last case it stores.
"""

from __future__ import annotations

import logging
import threading

from gapsweep.db import leases
from sqlalchemy.orm import Session, sessionmaker

from gapsweep.settings import Settings

from .dispatch import CeleryDispatcher, Dispatcher, enqueue
from .search import advance_stalled
from .study_finish import finish_study

log = logging.getLogger(__name__)


def reconcile_once(
    sessions: sessionmaker[Session], settings: Settings, dispatcher: Dispatcher
) -> int:
    """One pass; returns the number of cases sent again. A study whose last case this pass
    failed (its attempts used up) is analysed and its certificates started here, as the
    worker that stores a study's last case does (:func:`.study_finish.finish_study`)."""
    with sessions.begin() as session:
        outcome = leases.expire_leases(session, max_attempts=settings.max_attempts)
    expired = outcome.requeued
    for study_id in outcome.finished_studies:
        finish_study(sessions, study_id, settings=settings, dispatcher=dispatcher)
    stale: list[int] = []
    # queued cases only lack a message if the queue is empty: while it holds messages, the
    # workers are still working through it (a long queue is not a lost one)
    if dispatcher.pending_messages() == 0:
        with sessions.begin() as session:
            stale = leases.stale_queued(session, older_than_s=settings.requeue_after_s)
    # adaptive studies whose driver stopped between two generations (workers/search.py):
    # their next generation is written and sent here
    advance_stalled(sessions, settings=settings, dispatcher=dispatcher)
    again = sorted(set(expired) | set(stale))
    if again:
        log.warning(
            "reconciler: %d expired lease(s), %d queued case(s) without a message: re-sent",
            len(expired),
            len(stale),
        )
        enqueue(again, sessions=sessions, dispatcher=dispatcher, chunk_size=1)
    return len(again)


def _loop(sessions, settings, dispatcher, stop: threading.Event) -> None:
    while True:
        try:
            reconcile_once(sessions, settings, dispatcher)
        except Exception:  # the database or broker is down: try again next interval
            log.exception("reconciler pass failed")
        if stop.wait(settings.reconcile_interval_s):
            return


def start_reconciler(
    settings: Settings,
    sessions: sessionmaker[Session],
    dispatcher: Dispatcher | None = None,
) -> threading.Event:
    """Start the loop in a daemon thread (first pass at once); set the event to stop it."""
    if dispatcher is None:
        from .celery_app import app

        dispatcher = CeleryDispatcher(app)
    stop = threading.Event()
    thread = threading.Thread(
        target=_loop, args=(sessions, settings, dispatcher, stop), name="reconciler", daemon=True
    )
    thread.start()
    return stop
