"""A validated spec becomes rows, then messages: the one way a study enters the system.

The CLI (``run``, ``submit``), the JSON API and the web form all call :func:`submit_study`.
The study and its cases are written in one transaction; the messages go out only after it
committed, so a worker never receives an id it cannot find.
"""

from __future__ import annotations

from gapsweep.db import leases, studies
from gapsweep.study.designs import StudyPlan, estimate_seconds, plan_study
from gapsweep.study.schema import ADAPTIVE_DESIGNS
from gapsweep.study.spec import StudySpec
from sqlalchemy.orm import Session, sessionmaker

from gapsweep.settings import Settings

from .dispatch import Dispatcher, chunking, enqueue
from .provenance import collect
from .search import start_search


def create_study_rows(
    spec: StudySpec,
    *,
    sessions: sessionmaker[Session],
    owner: str | None = None,
    plan: StudyPlan | None = None,
) -> int:
    """Write the study and its cases (status queued) in one transaction; returns its id.
    ``plan``: the spec's plan when the caller made it already (not made again).
    Raises :class:`~gapsweep.study.errors.SpecError` (nothing written) for a bad design."""
    return write_study(spec, sessions=sessions, owner=owner, plan=plan).id


def write_study(
    spec: StudySpec,
    *,
    sessions: sessionmaker[Session],
    owner: str | None = None,
    plan: StudyPlan | None = None,
) -> studies.CreatedStudy:
    """:func:`create_study_rows` returning what was written: the study and its case ids."""
    plan = plan if plan is not None else plan_study(spec)
    provenance = collect(spec)
    with sessions.begin() as session:
        created = studies.create_study(
            session, spec=spec, plan=plan, provenance=provenance, owner=owner
        )
        if spec.design in ADAPTIVE_DESIGNS:
            start_search(session, spec, created.study)
    return created


def enqueue_study(
    study_id: int,
    spec: StudySpec,
    *,
    sessions: sessionmaker[Session],
    settings: Settings,
    dispatcher: Dispatcher,
    ids: list[int] | None = None,
) -> int:
    """Send the study's queued cases (ideal twins first) in messages sized by what a case of
    ``spec`` costs (:func:`~.dispatch.chunking`); returns the number of messages. ``ids``:
    the queued ids when the caller holds them (those it just wrote: not read back)."""
    if ids is None:
        with sessions() as session:
            ids = leases.queued_case_ids(session, study_id=study_id)
    size, at_least = chunking(settings, estimate_seconds(spec, 1), len(ids))
    return enqueue(ids, sessions=sessions, dispatcher=dispatcher, chunk_size=size,
                   at_least=at_least)


def default_dispatcher() -> Dispatcher:
    """Celery on the configured broker (the embedded filesystem broker by default)."""
    from .celery_app import app
    from .dispatch import CeleryDispatcher

    return CeleryDispatcher(app)


def submit_study(
    spec: StudySpec,
    *,
    sessions: sessionmaker[Session],
    settings: Settings,
    dispatcher: Dispatcher | None = None,
    owner: str | None = None,
    plan: StudyPlan | None = None,
) -> int:
    """Create the study (owned by the user called ``owner``, None: nobody's) and enqueue its
    cases after the commit; returns the study id. ``plan``: as for :func:`create_study_rows`."""
    created = write_study(spec, sessions=sessions, owner=owner, plan=plan)
    enqueue_study(
        created.id,
        spec,
        sessions=sessions,
        settings=settings,
        dispatcher=dispatcher or default_dispatcher(),
        ids=created.queued_ids,
    )
    return created.id
