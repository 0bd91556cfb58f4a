"""What happens once a study's last case is stored: its analysis (design.md 2, 4.2), then its
convergence certificates (:mod:`.certificates`).

The analysis (sensitivity coefficients, Sobol / Morris indices, convergence order ...) is
computed once from the stored metrics and kept on the study row, so pages only read it. The
study's detail is read once for both.
"""

from __future__ import annotations

import logging

from gapsweep.db import studies
from gapsweep.study.analysis import analyse_study
from gapsweep.study.schema import ADAPTIVE_DESIGNS
from sqlalchemy.orm import Session, sessionmaker

from gapsweep.settings import Settings

from .certificates import start_certificates
from .dispatch import Dispatcher

log = logging.getLogger(__name__)


def finish_study(
    sessions: sessionmaker[Session],
    study_id: int,
    *,
    settings: Settings,
    dispatcher: Dispatcher | None,
) -> None:
    """Analyse a finished study, store the analysis on it, and start its certificates
    (both idempotent). ``dispatcher``: as for :func:`.certificates.start_certificates`."""
    with sessions() as session:
        detail = studies.study_detail(session, study_id)
    if detail is None:
        return
    if (detail.get("spec") or {}).get("design") in ADAPTIVE_DESIGNS:
        return  # its result is its search (studies.search)
    analysis = analyse_study(detail)
    if "error" in analysis:  # an analysis that cannot run must not lose the results
        log.error("analysis of study %d failed: %s", study_id, analysis["error"])
    with sessions.begin() as session:
        studies.set_analysis(session, study_id=study_id, analysis=analysis)
    start_certificates(sessions, study_id, settings=settings, dispatcher=dispatcher,
                       detail=detail)
