"""Driving an adaptive study (design.md 4.9) on the workers: the next generation after the
last, through the same queue, leases and reconciler as every case.

Who drives: whichever process stores a study's cases (:func:`~.case_runner.run_chunk` calls
:func:`advance_search` for each study it touched) and the reconciler (each pass calls
:func:`advance_stalled` for the running adaptive studies with nothing queued or running: the
driver was killed between storing a generation's last case and writing the next). There is
no driver process to lose: :func:`advance_search` replays the optimizer from the stored cases
(:func:`gapsweep.study.adaptive.advance`), so any process, any number of times, reaches the
same next generation; writing it is idempotent (:func:`gapsweep.db.search.add_generation`).

The calibration costs of a case are computed by the worker that solved it, while its series
are in memory (:func:`add_search_metrics`), and stored with its metrics - the replay reads
numbers only.
"""

from __future__ import annotations

import logging
from typing import Any

from gapsweep.db import search as search_rows
from gapsweep.db.lifecycle import refresh_study_status
from gapsweep.db.models import Study
from gapsweep.study.designs import estimate_seconds
from gapsweep.study.schema import ADAPTIVE_DESIGNS
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from gapsweep.settings import Settings

from .dispatch import Dispatcher, chunking, enqueue

log = logging.getLogger(__name__)


def _adaptive_spec(sessions: sessionmaker[Session], study_id: int):
    """The study's parsed spec if it is a live, uncancelled adaptive study, else None."""
    from gapsweep.study.spec import parse_spec

    with sessions() as session:
        row = session.execute(
            select(Study.design, Study.status, Study.deleted_at, Study.spec)
            .where(Study.id == study_id)).first()
    if row is None or row.design not in ADAPTIVE_DESIGNS or row.deleted_at is not None \
            or row.status == "cancelled":
        return None
    return parse_spec(row.spec)


def advance_search(
    sessions: sessionmaker[Session],
    study_id: int,
    *,
    settings: Settings,
    dispatcher: Dispatcher | None,
) -> list[int]:
    """Write (and enqueue after the commit) the study's next generation if its current one
    has ended; store the search summary. Returns the new case ids ([] when there is nothing
    to do, another process wrote them first, or the search finished)."""
    from gapsweep.study.adaptive import advance

    spec = _adaptive_spec(sessions, study_id)
    if spec is None:
        return []
    # read, replay and write under the study's lock: two processes that store cases of one
    # generation at once each replay; unserialised, the one that read before the last case
    # was stored could write its summary ("waiting", a generation short) after the one that
    # read after it ("finished") - a done study whose summary never finishes
    # the status again under the lock: a cancel that committed since the read above wins
    with sessions.begin() as session:
        if search_rows.lock_study(session, study_id) in (None, "cancelled"):
            return []
        cases = search_rows.design_cases(session, study_id)
        step = advance(spec, cases)
        ids = []
        if step.new_cases:
            ids = search_rows.add_generation(session, study_id=study_id, first_index=len(cases),
                                             params=step.new_cases, state=step.state)
        else:
            blocked = step.waiting and not any(c["status"] in ("queued", "running")
                                               for c in cases)
            search_rows.set_search_state(session, study_id=study_id,
                                         state={**step.state, "blocked": blocked})
        # the summary decides whether the study is done (a settled search): its status
        # follows in the same transaction (the worker reads it, refreshes it no more)
        refresh_study_status(session, study_id)
    if step.new_cases:
        if ids:
            log.info("study %d: generation %d, %d case(s) queued", study_id,
                     step.state.get("generation", 0), len(ids))
            if dispatcher is not None:
                size, at_least = chunking(settings, estimate_seconds(spec, 1), len(ids))
                enqueue(ids, sessions=sessions, dispatcher=dispatcher, chunk_size=size,
                        at_least=at_least)
        return ids
    return []


def advance_stalled(
    sessions: sessionmaker[Session], *, settings: Settings, dispatcher: Dispatcher | None
) -> list[int]:
    """:func:`advance_search` for every running adaptive study with no queued or running
    case (the reconciler's part); returns the case ids written."""
    with sessions() as session:
        stalled = search_rows.stalled_searches(session, designs=ADAPTIVE_DESIGNS)
    ids: list[int] = []
    for study_id in stalled:
        try:
            ids += advance_search(sessions, study_id, settings=settings, dispatcher=dispatcher)
        except Exception:  # one study's bad spec must not stop the others
            log.exception("advancing the search of study %d failed", study_id)
    return ids


class SearchMetrics:
    """Adds the calibration metrics to the solved cases of calibration studies (one read of
    the study's spec and measurement per study and chunk)."""

    def __init__(self, sessions: sessionmaker[Session]) -> None:
        self._sessions = sessions
        self._targets: dict[int, Any] = {}

    def _target(self, study_id: int) -> Any:
        if study_id not in self._targets:
            self._targets[study_id] = self._load(study_id)
        return self._targets[study_id]

    def _load(self, study_id: int) -> Any:
        from gapsweep.db.measurements import get_measurement
        from gapsweep.study.calibration import target_record

        spec = _adaptive_spec(self._sessions, study_id)
        if spec is None or spec.design != "calibrate":
            return None
        stored = None
        if spec.measurement.csv is None:
            with self._sessions() as session:
                stored = get_measurement(session, spec.measurement.id)["data"]
        return spec, target_record(spec, stored)

    def add(self, study_id: int, result: Any) -> None:
        """Put the calibration metrics into ``result.metrics`` (a solved case of
        ``study_id``); nothing for other studies or a failed case."""
        if not result.ok:
            return
        target = self._target(study_id)
        if target is None:
            return
        from gapsweep.study.calibration import case_calibration_metrics

        spec, record = target
        result.metrics.update(case_calibration_metrics(spec, record, result))


def start_search(session: Session, spec: Any, study: Study) -> None:
    """In the transaction that creates an adaptive study: its first search summary (so the
    study is not done when its first generation is) and, for a calibration, its measurement
    as a stored record of the study (the overlay reads it)."""
    from gapsweep.db.measurements import add_measurement, get_measurement
    from gapsweep.study.adaptive import advance
    from gapsweep.study.calibration import target_record
    from gapsweep.study.errors import FieldError, SpecError

    study.search = {**advance(spec, []).state, "blocked": False}
    if spec.design != "calibrate":
        return
    stored = None
    if spec.measurement.csv is None:
        try:
            stored = get_measurement(session, spec.measurement.id)["data"]
        except LookupError:
            raise SpecError([FieldError("measurement.id", spec.measurement.id,
                                        "the id of a stored measurement")]) from None
    record = target_record(spec, stored)
    name = (spec.measurement.file or f"measurement {spec.measurement.id}")[:200]
    add_measurement(session, study_id=study.id, measurement=type(record)(
        record.time_base, record.time, record.series, name))
    session.flush()
