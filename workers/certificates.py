"""Starting a finished study's convergence certificates (``gapsweep.study.certificates``).

When the last of a study's cases ends (the study is ``done``), the certificate runs are
written as extra cases (status queued) in one transaction and sent after its commit, through
the same queue and task as every other case - so the embedded default and Redis + PostgreSQL
both run them, leases and reconciler included. The study stays ``done`` meanwhile: its
status, counts and exit codes are the design cases' (design.md 4.5), the certificates have
their own progress. Writing them is idempotent (:func:`gapsweep.db.certificates.add_certificates`
writes nothing when a study has them already), so the finish of every later chunk may call
this again.
"""

from __future__ import annotations

import logging
from typing import Any

from gapsweep.db import certificates as certificate_rows
from gapsweep.db import studies
from gapsweep.study.case_inputs import case_inputs
from gapsweep.study.certificates import plan_certificates
from gapsweep.study.design_registry import DEFAULT_DESIGN
from sqlalchemy.orm import Session, sessionmaker

from gapsweep.settings import Settings

from .dispatch import Dispatcher, enqueue

log = logging.getLogger(__name__)


def start_certificates(
    sessions: sessionmaker[Session],
    study_id: int,
    *,
    settings: Settings,
    dispatcher: Dispatcher | None,
    detail: dict[str, Any] | None = None,
) -> list[int]:
    """Write the certificate cases of the finished study ``study_id`` (once) and enqueue
    them through ``dispatcher`` after the commit (None: the reconciler sends them, as it
    sends any queued case without a message). Returns the ids written (none the second time).
    ``detail``: the study's detail when the caller read it already (not read again)."""
    if detail is None:
        with sessions() as session:
            detail = studies.study_detail(session, study_id)
    if detail is None or detail["status"] != "done" or detail.get("certificates"):
        return []
    spec = detail.get("spec") or {}
    design = spec.get("design", DEFAULT_DESIGN)
    # the cases as they ran (a mechanism study's table joined in: a certificate reads it)
    cases = [{**c, "params": case_inputs(c["params"], spec)} for c in detail["cases"]]
    try:
        plan = plan_certificates(detail["model"], design, cases)
    except Exception:  # a certificate that cannot be planned must not touch the results
        log.exception("planning the certificates of study %d failed", study_id)
        return []
    if not plan:
        return []
    with sessions.begin() as session:
        ids = certificate_rows.add_certificates(
            session,
            study_id=study_id,
            certificates=[(c.source_index, c.slot, c.params) for c in plan],
        )
    if ids and dispatcher is not None:
        # a certificate re-runs a case at rtol/10 or K x4 (several times the case's cost):
        # each its own message, so the processes share them
        enqueue(ids, sessions=sessions, dispatcher=dispatcher,
                chunk_size=settings.chunk_size or 1)
    if ids:
        log.info("study %d: %d convergence certificate case(s) queued", study_id, len(ids))
    return ids
