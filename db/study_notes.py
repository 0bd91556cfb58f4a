"""A study's notes (its description) and tags, edited after it was submitted.

The spec as submitted (``studies.spec``) is provenance and stays as it was; the description
and tags columns, and the tag index rows behind the archive's tag filter
(:class:`~.models.StudyTag`), are what change. Like every repository function this one does
not commit: the caller's transaction also holds the audit row.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import delete
from sqlalchemy.orm import Session

from .lifecycle import live_study
from .models import StudyTag

#: the spec's own limits (study/spec.py), so an edited study could be submitted again as is
MAX_DESCRIPTION = 10_000
MAX_TAG = 40
MAX_TAGS = 50


def clean_tags(tags: Sequence[str]) -> list[str]:
    """Tags stripped, empty ones dropped, duplicates removed (first kept), in the given order."""
    return list(dict.fromkeys(t.strip() for t in tags if t.strip()))


def set_notes(
    session: Session, *, study_id: int, description: str, tags: Sequence[str]
) -> dict[str, Any]:
    """Replace the live study's description and tags (and its tag index rows).

    Returns ``{"old": {"description", "tags"}, "new": {...}}`` for the audit row. Raises
    :class:`~.lifecycle.StudyNotFoundError` for a missing or deleted study and ValueError
    (field, value, allowed range) for a description or a tag over the spec's limits."""
    tags = clean_tags(tags)
    if len(description) > MAX_DESCRIPTION:
        raise ValueError(f"description: {len(description)} characters — allowed at most "
                         f"{MAX_DESCRIPTION}")
    if len(tags) > MAX_TAGS:
        raise ValueError(f"tags: {len(tags)} tags — allowed at most {MAX_TAGS}")
    for i, tag in enumerate(tags):
        if len(tag) > MAX_TAG:
            raise ValueError(f"tags[{i}]: {tag[:50]!r}… ({len(tag)} characters) — allowed "
                             f"1 to {MAX_TAG} characters")
    study = live_study(session, study_id)
    old = {"description": study.description or "", "tags": list(study.tags or [])}
    study.description = description
    study.tags = tags
    session.execute(delete(StudyTag).where(StudyTag.study_id == study_id))
    session.add_all(StudyTag(study_id=study_id, tag=t) for t in tags)
    session.flush()
    return {"old": old, "new": {"description": description, "tags": tags}}
