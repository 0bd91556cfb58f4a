"""A study's summary: what its page's frame shows (name, spec, notes, owner, status, counts,
times) without its cases - two small queries whatever the study's size, where the full
detail (:func:`.studies.study_detail`) reads every case and result (~3-4 s for 10,000)."""

from __future__ import annotations

from typing import Any

from sqlalchemy.orm import Session

from .lifecycle import retryable_count
from .metrics import iso
from .models import Study
from .studies import study_progress


def study_summary(session: Session, study_id: int) -> dict[str, Any] | None:
    """``study_detail`` without ``cases``, ``twins`` and ``analysis``, plus ``retryable``
    (the failed cases and twins a Retry would queue again); None for a missing or deleted
    study."""
    study = session.get(Study, study_id)
    if study is None or study.deleted_at is not None:
        return None
    return {
        "id": study.id, "name": study.name, "model": study.model, "status": study.status,
        "description": study.description, "tags": list(study.tags or []),
        "created": iso(study.created), "owner": study.owner, "started": iso(study.started),
        "finished": iso(study.finished), "spec": study.spec, "provenance": study.provenance,
        "counts": study_progress(session, study_id),
        "retryable": retryable_count(session, study_id),
    }
