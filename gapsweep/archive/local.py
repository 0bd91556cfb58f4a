"""The archive in a database (``GAPSWEEP_DATABASE_URL``, a data folder's SQLite file): every
change checked against the principal's role (:func:`gapsweep.accounts.roles.may`) and
audited in its own transaction.

The web app builds one per request with the signed-in principal (:mod:`gapsweep.web.actions`);
the command line builds one with :func:`~.actor.cli_principal`, the machine's own admin;
``gapsweep.open()`` with the same. Imports of SQLAlchemy, the study layer and the workers
happen inside the methods: ``gapsweep --help`` and ``submit`` stay light
(tests/cli/test_imports.py).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gapsweep.accounts.roles import Action, Principal, may

from .accounts import AccountOperations
from .errors import ForbiddenError, RefusedError, UnknownIdError
from .following import Progress, follow_study
from .measured import MeasurementOperations
from .reads import ReadOperations

if TYPE_CHECKING:
    import pandas as pd

    from gapsweep.settings import Settings

POLL_S = 0.1  # how often `wait` reads the study's progress on the database
RETRY_CHUNK = 1  # a retried case goes out alone (workers/dispatch.py says why)

class LocalArchive(AccountOperations, MeasurementOperations, ReadOperations):
    """The archive behind ``sessions`` (a SQLAlchemy session factory), acting for ``who``."""

    def __init__(self, sessions: Any, settings: Settings, who: Principal) -> None:
        self.sessions = sessions
        self.settings = settings
        self.who = who
        self._dispatcher: Any = None  # made on first use, by dispatcher()

    def dispatcher(self) -> Any:
        """Celery on the broker of these settings (the process's app when they are the
        environment's: ``gapsweep.open(folder)`` may name another data folder)."""
        if self._dispatcher is None:
            from gapsweep.workers.submit import default_dispatcher

            from gapsweep.settings import get_settings

            if self.settings == get_settings():
                self._dispatcher = default_dispatcher()
            else:
                from gapsweep.workers.celery_app import make_celery
                from gapsweep.workers.dispatch import CeleryDispatcher

                self._dispatcher = CeleryDispatcher(make_celery(self.settings))
        return self._dispatcher

    @classmethod
    def open(cls, settings: Settings, who: Principal | None = None) -> LocalArchive:
        """The database ``settings`` name (migrated on first use), for ``who`` (default:
        the command line's admin)."""
        from gapsweep.db.engine import open_database

        from .actor import cli_principal

        return cls(open_database(settings.database_url), settings, who or cli_principal())

    # --- who may, and the record of what they did -----------------------------------------

    def _audit(self, session: Any, action: str, target: str, **detail: Any) -> None:
        from gapsweep.db import audit

        # the command line's actor names the machine's login itself (cli:LOGIN@HOST); a web
        # principal says how it signed in
        if self.who.via != "cli":
            detail["via"] = self.who.via
        audit.record(session, actor=self.who.name, action=action, target=target, **detail)

    def require(self, action: Action) -> None:
        """ForbiddenError unless the principal may take ``action`` (not on a study)."""
        if not may(self.who, action):
            self._refuse(action, None, None)

    def _refuse(self, action: Action, study_id: int | None, owner: str | None) -> None:
        who = self.who
        what = (f"{action.value} study {study_id}" if study_id is not None
                else f"{action.value} studies")
        whose = "" if study_id is None else f" (owned by {owner or 'nobody'})"
        raise ForbiddenError(f"{who.role} {who.name!r} may not {what}{whose}")

    def _owned_study(self, session: Any, action: Action, study_id: int) -> Any:
        study = self._live(session, study_id)
        if not may(self.who, action, study.owner):
            self._refuse(action, study_id, study.owner)
        return study

    @staticmethod
    def _live(session: Any, study_id: int) -> Any:
        from gapsweep.db.lifecycle import StudyNotFoundError, live_study

        try:
            return live_study(session, study_id)
        except StudyNotFoundError:
            raise UnknownIdError(study_id) from None

    def _owner(self) -> str | None:
        # accounts off, or the command line: the study is nobody's (only an admin changes it)
        return None if self.who.via in ("local", "cli") else self.who.name

    # --- reading ---------------------------------------------------------------------------

    def exists(self, study_id: int) -> bool:
        """Whether the study is live (not missing, not soft-deleted)."""
        with self.sessions() as session:
            try:
                self._live(session, study_id)
            except UnknownIdError:
                return False
        return True

    def listing(self, *, search: str | None = None, tag: str | None = None,
                limit: int = 50) -> dict[str, Any]:
        """``{"total", "items"}``, newest first (``gapsweep studies --json``)."""
        from gapsweep.db import studies

        with self.sessions() as session:
            total, items = studies.list_studies(session, search=search, tag=tag, limit=limit,
                                                offset=0)
        return {"total": total, "items": items}

    def studies(self, *, search: str | None = None, tag: str | None = None,
                limit: int = 50) -> list[dict[str, Any]]:
        """The studies, newest first: id, name, model, status, cases, done ..."""
        return self.listing(search=search, tag=tag, limit=limit)["items"]

    def study(self, study_id: int) -> dict[str, Any]:
        """The study as ``gapsweep show --json`` prints it (design.md 4.5)."""
        from gapsweep.db import studies

        with self.sessions() as session:
            detail = studies.study_detail(session, study_id)
        if detail is None:
            raise UnknownIdError(study_id)
        return detail

    def progress(self, study_id: int) -> dict[str, int]:
        """The case counts by status (and ``total``)."""
        from gapsweep.db import studies

        with self.sessions() as session:
            self._live(session, study_id)
            return studies.study_progress(session, study_id)

    def progress_report(self, study_id: int) -> dict[str, Any]:
        """What ``GET /api/studies/<id>/progress`` answers: ``{"id", "status", "counts",
        "started", "finished"}``, and ``generation``, ``generations``, ``search`` for an
        adaptive study."""
        from gapsweep.db import studies

        with self.sessions() as session:
            report = studies.study_progress_report(session, study_id)
        if report is None:
            raise UnknownIdError(study_id)
        return report

    def export_rows(self, study_id: int) -> tuple[list[str], list[dict[str, Any]]]:
        """``(columns, rows)`` of ``gapsweep export`` (design.md 4.5)."""
        from gapsweep.db import studies

        with self.sessions() as session:
            self._live(session, study_id)
            return studies.export_rows(session, study_id)

    def export_pages(self, study_id: int) -> tuple[list[str], Iterator[list[dict[str, Any]]]]:
        """``(columns, pages of rows)`` of ``gapsweep export``, the rows read a page at a
        time as the pages are consumed (:mod:`gapsweep.db.case_export`)."""
        from gapsweep.db import case_export

        with self.sessions() as session:
            self._live(session, study_id)
            columns = case_export.export_columns(session, study_id)
        return columns, case_export.iter_export_rows(self.sessions, study_id, columns)

    def summary(self, study_id: int) -> dict[str, Any]:
        """The study without its cases (id, name, model, status, counts, spec ...)."""
        from gapsweep.db.study_summary import study_summary

        with self.sessions() as session:
            summary = study_summary(session, study_id)
        if summary is None:
            raise UnknownIdError(study_id)
        return summary

    def case_series(self, case_ids: list[int]) -> dict[int, dict[str, Any]]:
        """{case id: {series name: array}} of those of ``case_ids`` with stored series
        (policy ``preview`` or ``full``, done); the others are left out."""
        from gapsweep.db.studies import case_series

        out = {}
        with self.sessions() as session:
            for case_id in case_ids:
                stored = case_series(session, case_id)
                if stored:
                    out[case_id] = stored
        return out

    def cases(self, study_id: int, columns: list[str] | None = None, *,
              parquet: str | Path | None = None, chunk: int | None = None) -> pd.DataFrame:
        """One row per design case, indexed by ``case_id``: parameters, status, metrics
        (the columns of ``gapsweep export``, or only ``columns`` of them; SI units), read a
        page of ``chunk`` cases at a time (default 1,000), so the reading holds one page
        beside the table. ``parquet``: also write the table there (pyarrow)."""
        from gapsweep.db import case_export, case_pages

        from .frames import cases_frame, frame_columns

        with self.sessions() as session:
            self._live(session, study_id)
            every = case_export.export_columns(session, study_id)
        wanted = frame_columns(every, columns)
        frames = [cases_frame(wanted, rows, numeric=False) for rows in
                  case_export.iter_export_rows(self.sessions, study_id, wanted,
                                               page=chunk or case_pages.PAGE)]
        frame = cases_frame(wanted, [], frames=frames)
        if parquet is not None:
            frame.to_parquet(parquet)
        return frame

    def study_head(self, study_id: int, page: int | None = None) -> dict[str, Any]:
        """The study with the first page of its cases and twins (at most ``page``, default
        1,000), their totals and the next pages' cursors (``GET /api/studies/<id>``)."""
        from gapsweep.db import case_pages, studies

        with self.sessions() as session:
            head = studies.study_head(session, study_id, page=page or case_pages.PAGE)
        if head is None:
            raise UnknownIdError(study_id)
        return head

    def case_page(self, study_id: int, *, kind: str = "case", limit: int | None = None,
                  cursor: str | None = None, sort: str | None = None,
                  status: str | None = None) -> dict[str, Any]:
        """``{"items", "total", "cursor"}``: one page of the study's cases (or twins) after
        ``cursor`` by a keyset (:func:`gapsweep.db.case_pages.case_page`), how many pass the
        status filter, and the next page's cursor (None on the last). ValueError naming the
        argument for a bad one."""
        from gapsweep.db import case_pages

        with self.sessions() as session:
            self._live(session, study_id)
            items, after = case_pages.case_page(
                session, study_id=study_id, kind=kind, limit=limit or case_pages.PAGE,
                cursor=cursor, sort=sort, status=status)
            total = case_pages.count(session, study_id=study_id, kind=kind, status=status)
        return {"items": items, "total": total, "cursor": after}

    def study_json(self, study_id: int) -> Iterator[str]:
        """``gapsweep show --json``'s text in pieces: the whole study, its cases and twins
        read a page at a time (memory bounded by a page, not by the study)."""
        from gapsweep.db import case_pages

        from .streaming import study_json_chunks

        head = self.study_head(study_id)

        def rest(kind: str, cursor: str | None) -> Iterator[list[dict[str, Any]]]:
            while cursor is not None:  # a short session per page; no count, no study check
                with self.sessions() as session:
                    items, cursor = case_pages.case_page(
                        session, study_id=study_id, kind=kind, cursor=cursor,
                        limit=case_pages.PAGE)
                yield items

        return study_json_chunks(head, {
            "cases": lambda: rest("case", head["cases_cursor"]),
            "twins": lambda: rest("twin", head["twins_cursor"])})

    # --- creating and following ------------------------------------------------------------

    def submit(self, spec: Any, *, plan: Any = None) -> int:
        """Create the study (owned by the principal) and enqueue its cases after the commit;
        its id. ``spec``: a :class:`~gapsweep.study.spec.StudySpec`, a mapping, or a study
        file's path; ``plan``: the spec's plan when the caller made it already (the web form
        validates and plans as it is filled in: it is not planned again).

        Raises :class:`ForbiddenError` for a viewer, :class:`~gapsweep.study.errors.SpecError`
        (nothing written) when the spec, or its plan, is refused."""
        from gapsweep.workers.submit import submit_study

        self.require(Action.CREATE)
        return int(submit_study(as_spec(spec), sessions=self.sessions, settings=self.settings,
                                dispatcher=self.dispatcher(), owner=self._owner(), plan=plan))

    @property
    def starts_workers(self) -> bool:
        """Embedded (no broker URL): following a study starts local worker processes."""
        return not self.settings.broker_url

    def run(self, spec: Any, *, concurrency: int | None = None,
            progress: Progress | None = None,
            announce: Callable[[str], None] | None = None) -> int:
        """Create the study and follow it to its end; its id. Embedded, local workers start
        first (they load the kernels while the study is written) and stop after."""
        spec = as_spec(spec)  # refused before any worker starts
        with self.local_workers(concurrency):
            study_id = self.submit(spec)
            if announce is not None:
                announce(f"study {study_id}: {spec.name}")
            self.follow(study_id, None, progress)
        return study_id

    @contextlib.contextmanager
    def local_workers(self, concurrency: int | None = None) -> Iterator[None]:
        """The embedded default's own worker processes while the block runs (design.md 4.5);
        with a broker URL, ``gapsweep worker`` processes elsewhere do the work: nothing."""
        if self.settings.broker_url:
            yield
            return
        from gapsweep.workers.local_workers import LocalWorkers

        with LocalWorkers(self.settings, concurrency):
            yield

    def follow(self, study_id: int, timeout_s: float | None = None,
               progress: Progress | None = None) -> bool:
        """Poll the study until it has ended (:func:`~.following.has_ended`: an adaptive
        study when its search has); False on timeout. The reconciler runs here too, so a
        case whose worker died is sent again, and a search whose driver stopped between two
        generations goes on, meanwhile."""
        from gapsweep.workers.reconciler import start_reconciler

        stop = start_reconciler(self.settings, self.sessions, self.dispatcher())
        try:
            return follow_study(lambda: self.progress_report(study_id), poll_s=POLL_S,
                                timeout_s=timeout_s, progress=progress)
        finally:
            stop.set()

    def wait(self, study_id: int, timeout_s: float | None = None,
             progress: Progress | None = None) -> bool:
        """Follow the study until it has ended (True) or ``timeout_s`` passed (False).
        Embedded, with no worker alive, local workers run it meanwhile."""
        from gapsweep.workers.readiness import live_workers

        self.progress(study_id)  # an unknown id fails before anything starts
        own = not self.settings.broker_url and not live_workers(self.settings)
        with self.local_workers() if own else contextlib.nullcontext():
            return self.follow(study_id, timeout_s, progress)

    # --- changing --------------------------------------------------------------------------

    def cancel(self, study_id: int) -> dict[str, Any]:
        """Cancel the study: queued cases at once, running ones finish their piece.
        ``{"id", "cancelled"}`` (the queued cases cancelled)."""
        from gapsweep.db.studies import cancel_study
        from gapsweep.workers.purge import purge_dead_messages

        with self.sessions.begin() as session:
            self._owned_study(session, Action.CANCEL, study_id)
            n = int(cancel_study(session, study_id=study_id))
            self._audit(session, "study.cancel", f"study:{study_id}", cancelled=n)
        # after the commit its messages are dead: dropped from the broker (issue 28)
        purge_dead_messages(self.settings, self.sessions)
        return {"id": study_id, "cancelled": n}

    def retry(self, study_id: int) -> dict[str, Any]:
        """Queue the study's failed cases again and send them after the commit.
        ``{"id", "retried", "case_ids"}``."""
        from gapsweep.db.studies import retry_failed
        from gapsweep.workers.dispatch import enqueue

        with self.sessions.begin() as session:
            self._owned_study(session, Action.RETRY, study_id)
            ids = retry_failed(session, study_id=study_id)
            self._audit(session, "study.retry", f"study:{study_id}", retried=len(ids))
        if ids:  # after the commit (design.md 3)
            enqueue(ids, sessions=self.sessions, dispatcher=self.dispatcher(),
                    chunk_size=RETRY_CHUNK)
        return {"id": study_id, "retried": len(ids), "case_ids": ids}

    def delete(self, study_id: int) -> None:
        """Soft-delete the study (:meth:`purge` removes it for good)."""
        from gapsweep.db.studies import soft_delete

        with self.sessions.begin() as session:
            self._owned_study(session, Action.DELETE, study_id)
            soft_delete(session, study_id=study_id)
            self._audit(session, "study.delete", f"study:{study_id}")

    def purge(self) -> dict[str, int]:
        """Remove the soft-deleted studies for good; what was removed, by kind."""
        from gapsweep.db.studies import purge_deleted

        self.require(Action.PURGE)
        with self.sessions.begin() as session:
            counts = purge_deleted(session)
            self._audit(session, "study.purge", "deleted studies", **counts)
        return counts

    def set_notes(self, study_id: int, *, description: str, tags: list[str]
                  ) -> dict[str, Any]:
        """Replace the study's notes (description) and tags; ``{"id", "description",
        "tags"}`` as stored. RefusedError (field, value, allowed) over the spec's limits."""
        from gapsweep.db import study_notes

        with self.sessions.begin() as session:
            self._owned_study(session, Action.TAG, study_id)
            try:
                change = study_notes.set_notes(session, study_id=study_id,
                                               description=description, tags=tags)
            except ValueError as exc:
                raise RefusedError(str(exc)) from None
            if change["old"] != change["new"]:
                self._audit(session, "study.tag", f"study:{study_id}", **change)
        return {"id": study_id, **change["new"]}


def as_spec(spec: Any) -> Any:
    """A :class:`~gapsweep.study.spec.StudySpec` from a spec, a mapping or a file path
    (each validated once here; SpecError names every problem)."""
    from gapsweep.study.errors import FieldError, SpecError
    from gapsweep.study.spec import StudySpec, load_spec_file, parse_spec

    if isinstance(spec, StudySpec):
        return spec
    if isinstance(spec, (str, Path)):
        return load_spec_file(spec)
    if not isinstance(spec, Mapping):
        raise SpecError([FieldError("file", type(spec).__name__, "a JSON object")])
    return parse_spec(dict(spec))
