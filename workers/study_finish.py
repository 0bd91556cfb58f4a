"""What happens once a study's last case is stored: its analysis (design.md 2, 4.2).

The analysis (sensitivity coefficients, Sobol / Morris indices, convergence order ...) is
computed once from the stored metrics and kept on the study row, so pages only read it.
"""

from __future__ import annotations

import logging

from gapsweep.db import studies
from gapsweep.study.analysis import analyse
from gapsweep.study.designs import plan_study
from gapsweep.study.search_schema import ADAPTIVE_DESIGNS
from gapsweep.study.spec import parse_spec
from sqlalchemy.orm import Session, sessionmaker

log = logging.getLogger(__name__)


def finish_study(sessions: sessionmaker[Session], study_id: int) -> None:
    """Analyse a finished study and store the analysis on it (idempotent)."""
    with sessions() as session:
        detail = studies.study_detail(session, study_id)
    if detail is None:
        return
    spec = parse_spec(detail["spec"])
    if spec.design in ADAPTIVE_DESIGNS:  # its result is its search (studies.search)
        return
    plan = plan_study(spec)
    # cases come back in the plan's order, so the i-th metrics belong to plan.cases[i]
    metrics = [c["metrics"] if c["status"] == "done" else None for c in detail["cases"]]
    try:
        analysis = analyse(spec, plan, metrics)
    except Exception as exc:  # an analysis that cannot run must not lose the results
        log.exception("analysis of study %d failed", study_id)
        analysis = {"error": f"{type(exc).__name__}: {exc}"}
    with sessions.begin() as session:
        studies.set_analysis(session, study_id=study_id, analysis=analysis)
