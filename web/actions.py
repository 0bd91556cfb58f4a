"""What the pages and the API do to the archive beyond reading it: create a study from a
spec, cancel it, retry its failed cases, soft-delete it. One function each, shared by both,
so the form and ``POST /api/studies`` cannot drift apart."""

from __future__ import annotations

from typing import Any

from gapsweep.study.errors import SpecError

from . import context


def submit(data: Any) -> int:
    """Validate ``data`` (a spec as a mapping) and create and enqueue its study; the id.

    Raises :class:`SpecError` (nothing written) when the spec, or the plan it makes, is
    refused."""
    from gapsweep.study.designs import plan_study
    from gapsweep.study.spec import parse_spec
    from gapsweep.workers.submit import submit_study

    if not isinstance(data, dict):
        from gapsweep.study.errors import FieldError

        raise SpecError([FieldError("spec", type(data).__name__, "a JSON object")])
    spec = parse_spec(data)
    plan_study(spec)  # over the case limit: SpecError before anything is written
    ctx = context.current()
    return int(submit_study(spec, sessions=ctx.sessions, settings=ctx.settings))


def cancel(study_id: int) -> dict[str, Any] | None:
    """Cancel the study's queued and running cases; None for an unknown study."""
    from gapsweep.db.studies import cancel_study, study_progress

    with context.session() as s:
        if study_progress(s, study_id) is None:
            return None
        result = cancel_study(s, study_id)
    return {"id": study_id, "cancelled": _count(result)}


def retry(study_id: int) -> dict[str, Any] | None:
    """Put the study's failed cases back in the queue; None for an unknown study."""
    try:  # the workers' version also enqueues the cases again
        from gapsweep.workers.submit import retry_study
    except ImportError:
        retry_study = None
    from gapsweep.db.studies import retry_failed, study_progress

    with context.session() as s:
        if study_progress(s, study_id) is None:
            return None
    if retry_study is not None:
        ctx = context.current()
        result = retry_study(study_id, sessions=ctx.sessions, settings=ctx.settings)
    else:  # the reconciler re-enqueues cases left queued without a message
        with context.session() as s:
            result = retry_failed(s, study_id)
    return {"id": study_id, "retried": _count(result)}


def delete(study_ids: list[int]) -> int:
    """Soft-delete the studies (``gapsweep purge`` removes them for good); how many."""
    from gapsweep.db.studies import soft_delete

    n = 0
    with context.session() as s:
        for study_id in study_ids:
            n += 1 if soft_delete(s, study_id) else 0
    return n


def _count(result: Any) -> int:
    if isinstance(result, bool):
        return int(result)
    if isinstance(result, int):
        return result
    if isinstance(result, (list, tuple, set)):
        return len(result)
    return 0
