"""Convergence-certificate rows: a finished study's refined re-runs, stored as extra cases.

How they are stored, and why: migration ``0001_initial`` allows only ``kind`` "case" and
"twin" (``ck_cases_kind``) and this change adds no migration, so a certificate is a
non-design row of kind "twin" with a **negative** ``index`` (twins count 0, 1, ...). Being a
non-design kind keeps it out of the case counts, the "cases" list and the export rows exactly
like a twin; the sign tells the two apart everywhere twins are read (:func:`is_certificate`).
The index encodes what the row is: ``-(1 + source_index * SLOTS + slot)``, ``source_index``
being the design index of the case it refines and ``slot`` the refinement
(``gapsweep.study.certificates.REFINEMENTS``). So ``uq_cases_study_id_kind_index`` makes a
second certificate of the same source and refinement impossible, whoever tries. ``twin_id``
is the source's twin, so a certificate's deviations read like its source's.

A migration that widens ``ck_cases_kind`` to a "certificate" kind would make this explicit;
only the encoding here would change.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from sqlalchemy import and_, func, insert, select
from sqlalchemy.orm import Session

from .lifecycle import live_study
from .metrics import case_entry
from .models import CASE_STATUSES, Case, Result, Study, utcnow

#: refinement slots per source case (the study layer uses 0..3; room for more)
SLOTS = 8
CERTIFICATE_KIND = "twin"


def certificate_index(source_index: int, slot: int) -> int:
    """The stored ``index`` of the certificate refining design case ``source_index`` with
    refinement ``slot`` (0 <= slot < :data:`SLOTS`): always < 0."""
    if not 0 <= slot < SLOTS or source_index < 0:
        raise ValueError(f"slot {slot} must be 0..{SLOTS - 1}, source_index {source_index} >= 0")
    return -(1 + source_index * SLOTS + slot)


def decode_index(index: int) -> tuple[int, int]:
    """``(source_index, slot)`` of a certificate's stored ``index`` (< 0)."""
    if index >= 0:
        raise ValueError(f"index {index} is not a certificate's (< 0)")
    return divmod(-index - 1, SLOTS)


def is_certificate(kind: str, index: int) -> bool:
    """Whether a case row (its ``kind`` and ``index``) is a certificate."""
    return kind == CERTIFICATE_KIND and index < 0


def certificate_rows():
    """The SQL condition selecting certificate rows."""
    return and_(Case.kind == CERTIFICATE_KIND, Case.index < 0)


def add_certificates(
    session: Session,
    *,
    study_id: int,
    certificates: Iterable[tuple[int, int, Mapping[str, Any]]],
) -> list[int]:
    """Write the study's certificate cases, status queued, once: ``certificates`` is
    ``(source_index, slot, params)`` per run. Returns the new ids (to enqueue after the
    commit), or [] when the study already has certificates or is not done. The study row is
    locked first (PostgreSQL), so two workers finishing the study's last chunks at once
    cannot both write them; the unique (study, kind, index) would refuse the second anyway."""
    row = session.execute(
        select(Study.status, Study.deleted_at).where(Study.id == study_id).with_for_update()
    ).first()
    if row is None or row.deleted_at is not None or row.status != "done":
        return []
    if session.scalar(
        select(func.count()).select_from(Case).where(Case.study_id == study_id,
                                                     certificate_rows())
    ):
        return []
    sources = {
        r.index: r
        for r in session.execute(
            select(Case.index, Case.twin_id).where(Case.study_id == study_id, Case.kind == "case")
        )
    }
    now = utcnow()
    rows = [
        {
            "study_id": study_id,
            "kind": CERTIFICATE_KIND,
            "index": certificate_index(source_index, slot),
            "twin_id": sources[source_index].twin_id,
            "params": dict(params),
            "status": "queued",
            "attempts": 0,
            "queued_at": now,
        }
        for source_index, slot, params in certificates
        if source_index in sources
    ]
    if not rows:
        return []
    return list(
        session.scalars(insert(Case).returning(Case.id, sort_by_parameter_order=True), rows)
    )


def study_certificates(session: Session, study_id: int) -> list[dict[str, Any]]:
    """The study's certificates, by source then slot: ``{"id","source_id","slot","params",
    "status","attempts","reason","metrics","twin_id"}`` (``source_id``: the design case
    refined, ``slot``: the refinement; metrics as the cases' - SI, no deviations)."""
    source_ids = dict(
        session.execute(
            select(Case.index, Case.id).where(Case.study_id == study_id, Case.kind == "case")
        ).all()
    )
    rows = session.execute(
        select(Case, Result)
        .outerjoin(Result, Result.case_id == Case.id)
        .where(Case.study_id == study_id, certificate_rows())
        .order_by(Case.index.desc())
    ).all()
    return [certificate_entry(case, result, source_ids) for case, result in rows]


def certificate_entry(case: Case, result: Result | None, source_ids: Mapping[int, int]) -> dict:
    """One certificate row as the API lists it (see :func:`study_certificates`)."""
    source_index, slot = decode_index(case.index)
    return {**case_entry(case, result), "source_id": source_ids.get(source_index), "slot": slot}


def certificate_progress(session: Session, study_id: int) -> dict[str, int]:
    """Certificate counts per status and their total: ``{"queued","running","done",
    "failed","cancelled","total"}`` (all 0 before the study finished)."""
    live_study(session, study_id)
    out = dict.fromkeys(CASE_STATUSES, 0)
    for status, n in session.execute(
        select(Case.status, func.count())
        .where(Case.study_id == study_id, certificate_rows())
        .group_by(Case.status)
    ):
        out[status] = int(n)
    out["total"] = sum(out[s] for s in CASE_STATUSES)
    return out
