"""What the pages and the API do to the archive beyond reading it: create a study from a
spec, cancel it, retry its failed cases, soft-delete it. One function each, shared by both,
so the form and ``POST /api/studies`` cannot drift apart. An unknown (or deleted) study
raises :class:`gapsweep.db.lifecycle.StudyNotFoundError`."""

from __future__ import annotations

from typing import Any

from gapsweep.db.lifecycle import StudyNotFoundError, live_study
from gapsweep.study.errors import FieldError, SpecError

from . import context

__all__ = ["StudyNotFoundError", "cancel", "delete", "exists", "retry", "submit"]

RETRY_CHUNK = 1  # a retried case goes out alone (workers/dispatch.py says why)


def submit(data: Any) -> int:
    """Validate ``data`` (a spec as a mapping), create its study and enqueue its cases after
    the commit (:func:`gapsweep.workers.submit.submit_study`); the study id.

    Raises :class:`SpecError` (nothing written) when the spec, or its plan, is refused."""
    from gapsweep.study.spec import parse_spec
    from gapsweep.workers.submit import submit_study

    if not isinstance(data, dict):
        raise SpecError([FieldError("file", type(data).__name__, "a JSON object")])
    spec = parse_spec(data)
    ctx = context.current()
    return int(submit_study(spec, sessions=ctx.sessions, settings=ctx.settings))


def exists(study_id: int) -> bool:
    """Whether the study is live (not missing, not soft-deleted)."""
    with context.session() as s:
        try:
            live_study(s, study_id)
        except StudyNotFoundError:
            return False
    return True


def cancel(study_id: int) -> dict[str, Any]:
    """Cancel the study: queued cases at once, running ones finish their chunk."""
    from gapsweep.db.studies import cancel_study

    with context.session() as s:
        n = cancel_study(s, study_id=study_id)
    return {"id": study_id, "cancelled": int(n)}


def retry(study_id: int) -> dict[str, Any]:
    """Queue the study's failed cases again and send them after the commit."""
    from gapsweep.db.studies import retry_failed
    from gapsweep.workers.dispatch import enqueue
    from gapsweep.workers.submit import default_dispatcher

    with context.session() as s:
        ids = retry_failed(s, study_id=study_id)
    if ids:
        ctx = context.current()
        enqueue(ids, sessions=ctx.sessions, dispatcher=default_dispatcher(),
                chunk_size=RETRY_CHUNK)
    return {"id": study_id, "retried": len(ids), "case_ids": ids}


def delete(study_ids: list[int]) -> int:
    """Soft-delete the studies (``gapsweep purge`` removes them for good); how many were."""
    from gapsweep.db.studies import soft_delete

    n = 0
    for study_id in study_ids:
        try:
            with context.session() as s:
                soft_delete(s, study_id=study_id)
            n += 1
        except StudyNotFoundError:
            continue
    return n
