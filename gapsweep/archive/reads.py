"""What the pages read from the archive: one method per question, each in its own session,
each answering with plain data (dicts, lists, numpy arrays) - never an ORM row, so no page
holds a row past its session or builds a query of its own. Ids come from the browser
(anything): one out of the databases' range, or unknown, reads as None (or {} / []).

:class:`~.local.LocalArchive` has these reads beside its changes: the pages, the JSON API,
the command line and ``gapsweep.open()`` read through the same object (issue 34, part 3).
"""

from __future__ import annotations

from typing import Any

import numpy as np


def _known(key: int | None) -> bool:
    from gapsweep.db.models import MAX_ID

    return key is not None and 0 <= key <= MAX_ID


#: the reads of :meth:`ReadOperations.case_samples`
SAMPLE_READS = ("axis_levels", "spread_cases", "cases_by_id", "whole_cases", "motion_cells",
                "start_dependent_cases")


class ReadOperations:
    """The archive's page reads; ``self.sessions`` is a SQLAlchemy session factory."""

    sessions: Any

    # --- studies ---------------------------------------------------------------------------

    def study_detail(self, study_id: int | None) -> dict[str, Any] | None:
        """The study as ``gapsweep show --json`` (its cases included); None if unknown."""
        return self.study_details([study_id])[0]

    def study_details(self, study_ids: list[int | None]) -> list[dict[str, Any] | None]:
        """:func:`study_detail` of each id, in one session (none for unknown ids alone)."""
        from gapsweep.db.studies import study_detail as read

        return self._each(read, study_ids)

    def study_table(self, study_id: int | None, metrics: list[str] | None = None
                    ) -> dict[str, Any] | None:
        """The study by columns for a large study's tabs: the metric columns and
        ``metrics`` (:func:`gapsweep.db.case_pages.study_table`); None if unknown."""
        from gapsweep.db.case_pages import study_table as read

        if not _known(study_id):
            return None
        with self.sessions() as s:
            return read(s, study_id, metrics=metrics or ())

    def trend_columns(self, study_id: int, axes: list[str], metric: str, kind: str = "case",
                      ids: bool = True) -> dict[str, list[Any]]:
        """One metric and the axes of the study's done cases (or twins), as columns
        (:func:`gapsweep.db.case_pages.trend_columns`): what a large study's Trends draws."""
        from gapsweep.db.case_pages import trend_columns as read

        if not _known(study_id):
            return {}
        with self.sessions() as s:
            return read(s, study_id=study_id, axes=axes, metric=metric, kind=kind, ids=ids)

    def case_samples(self, study_id: int, question: str, **kwargs: Any) -> Any:
        """One of :mod:`gapsweep.db.case_samples`'s reads of a large study's few drawn cases
        (``question``: ``axis_levels``, ``spread_cases``, ``cases_by_id``, ``whole_cases``,
        ``motion_cells``, ``start_dependent_cases``; ``kwargs`` its own): what its Spectra,
        Motion and Convergence tabs draw, never every case. None for an unknown study id."""
        from gapsweep.db import case_samples as reads

        if question not in SAMPLE_READS:
            raise ValueError(f"question: {question!r} — one of {', '.join(SAMPLE_READS)}")
        if not _known(study_id):
            return None
        with self.sessions() as s:
            return getattr(reads, question)(s, study_id=study_id, **kwargs)

    def study_summary(self, study_id: int | None) -> dict[str, Any] | None:
        """The study without its cases (the page's frame): fast whatever its size."""
        from gapsweep.db.study_summary import study_summary as read

        if not _known(study_id):
            return None
        with self.sessions() as s:
            return read(s, study_id)

    def study_state(self, study_id: int | None) -> dict[str, Any] | None:
        """What a progress poll needs, cheaply: ``{"status", "counts", "started", "analysed",
        "certificate_counts", "design", "finished", "retryable", "running"}`` (``running``: the
        running cases' own steps, a wear life's); None for an unknown or deleted study."""
        from gapsweep.db.certificates import certificate_progress
        from gapsweep.db.lifecycle import StudyNotFoundError, live_study, retryable_count
        from gapsweep.db.studies import running_steps, study_progress

        if not _known(study_id):
            return None
        with self.sessions() as s:
            try:
                study = live_study(s, study_id)
            except StudyNotFoundError:
                return None
            return {"status": study.status, "counts": study_progress(s, study_id),
                    "started": study.started, "analysed": study.analysis is not None,
                    "certificate_counts": certificate_progress(s, study_id),
                    "design": study.design, "finished": study.finished,
                    "retryable": retryable_count(s, study_id),
                    "running": running_steps(s, study_id)}

    def study_spec(self, study_id: int | None) -> dict[str, Any] | None:
        """``{"name", "spec"}`` of a live study, its spec carrying the study's current notes and
        tags (what a clone starts from); None if unknown."""
        from gapsweep.db.lifecycle import StudyNotFoundError, live_study

        if not _known(study_id):
            return None
        with self.sessions() as s:
            try:
                study = live_study(s, study_id)
            except StudyNotFoundError:
                return None
            return {"name": study.name,
                    "spec": {**dict(study.spec), "description": study.description or "",
                             "tags": list(study.tags or [])}}

    def list_studies(self, **filters: Any) -> tuple[int, list[dict[str, Any]]]:
        """One page of the archive: (total, items); ``filters`` as
        :func:`gapsweep.db.studies.list_studies` takes them."""
        from gapsweep.db.studies import list_studies as read

        with self.sessions() as s:
            return read(s, **filters)

    def study_mechanisms(self, limit: int = 50) -> list[dict[str, Any]]:
        """The archive's mechanisms to pick from on the new-study form, newest first, one per
        distinct table: ``[{"study_id", "study_name", "name", "mechanism"}]``
        (:func:`gapsweep.db.studies.study_mechanisms`)."""
        from gapsweep.db.studies import study_mechanisms as read

        with self.sessions() as s:
            return read(s, limit=limit)

    def grid_page(self, study_id: int, **request: Any) -> tuple[list[dict[str, Any]], int]:
        """One block of a study's case grid: (rows, the count passing the filter); ``request``
        as :func:`gapsweep.db.case_table.case_page` takes it."""
        from gapsweep.db.case_table import case_page as read

        with self.sessions() as s:
            return read(s, study_id=study_id, **request)

    def twin_rows(self, study_id: int, axes: dict[str, str], **metrics: Any
                  ) -> list[dict[str, Any]]:
        """The study's ideal twins as case-grid rows (:func:`gapsweep.db.case_table.twin_rows`;
        ``metrics=``: its metric columns)."""
        from gapsweep.db.case_table import twin_rows as read

        with self.sessions() as s:
            return read(s, study_id=study_id, axes=axes, **metrics)

    # --- cases -----------------------------------------------------------------------------

    def case_detail(self, case_id: int | None) -> dict[str, Any] | None:
        """The case (params, status, metrics, provenance ...); None if unknown."""
        return self.case_details([case_id])[0]

    def case_details(self, case_ids: list[int | None]) -> list[dict[str, Any] | None]:
        """:func:`case_detail` of each id, in one session (none for unknown ids alone)."""
        from gapsweep.db.studies import case_detail as read

        return self._each(read, case_ids)

    def _each(self, read: Any, keys: list[int | None]) -> list[Any]:
        """``read(session, key)`` of each key the databases can hold, None for the others;
        one session, opened only when a key can be read."""
        if not any(_known(k) for k in keys):
            return [None] * len(keys)
        with self.sessions() as s:
            return [read(s, k) if _known(k) else None for k in keys]

    def case_with_series(self, case_id: int) -> dict[str, Any] | None:
        """``{"detail", "series", "twin_series", "provenance"}`` of a case (its study's
        provenance), None if unknown."""
        from gapsweep.db.lifecycle import StudyNotFoundError, live_study
        from gapsweep.db.studies import case_detail as read
        from gapsweep.db.studies import case_series

        if not _known(case_id):
            return None
        with self.sessions() as s:
            detail = read(s, case_id)
            if detail is None:
                return None
            series = case_series(s, case_id) if detail["series"] else {}
            twin_series: dict[str, np.ndarray] = {}
            if detail.get("twin_id") is not None:
                twin_series = case_series(s, detail["twin_id"])
            try:
                provenance = dict(live_study(s, detail["study_id"]).provenance or {})
            except StudyNotFoundError:
                provenance = {}
        return {"detail": detail, "series": series, "twin_series": twin_series,
                "provenance": provenance}

    def first_case_id(self, study_id: int) -> int | None:
        """The id of the study's first design case (a one-case study's only one)."""
        from gapsweep.db.case_reads import design_case_ids

        with self.sessions() as s:
            ids = design_case_ids(s, study_id)
        return ids[0] if ids else None

    def spectra(self, case_ids: list[int], signal: str) -> dict[int, dict[str, np.ndarray]]:
        """{case id: {"freq_hz", "amplitude"}} of the stored spectra of ``signal``; cases
        without are left out."""
        from gapsweep.db.studies import case_series

        out = {}
        with self.sessions() as s:
            for case_id in case_ids:
                try:
                    series = case_series(s, case_id, ["spectrum_freq_hz", f"spectrum_{signal}"])
                except KeyError:
                    continue
                out[case_id] = {"freq_hz": series["spectrum_freq_hz"],
                                "amplitude": series[f"spectrum_{signal}"]}
        return out

    def sections(self, case_ids: list[int]) -> dict[int, dict[str, np.ndarray]]:
        """{case id: its stored Poincaré section series (``poincare_*``)}; cases without one are
        left out (the bifurcation diagram, design.md 4.10)."""
        from gapsweep.db.studies import case_series

        out = {}
        with self.sessions() as s:
            for case_id in case_ids:
                stored = case_series(s, case_id)
                section = {k: v for k, v in stored.items() if k.startswith("poincare_")}
                if section:
                    out[case_id] = section
        return out

    def series_of(self, case_id: int, names: list[str] | None = None) -> dict[str, np.ndarray]:
        """The case's stored series by name ({} when it has none, or no such case); only
        ``names`` if given, an unknown one raising KeyError naming it."""
        from gapsweep.db.studies import case_series as read

        if not _known(case_id):
            return {}
        with self.sessions() as s:
            return read(s, case_id, names or None)

    def study_progress_report(self, study_id: int) -> dict[str, Any] | None:
        """``{"id", "status", "counts", "started", "finished"}`` of a live study: a few bytes
        whatever its size (what ``wait`` polls); None if unknown."""
        from gapsweep.db.studies import study_progress_report as read

        if not _known(study_id):
            return None
        with self.sessions() as s:
            return read(s, study_id)

    # --- measured records (design.md 4.9) --------------------------------------------------

    def measured_records(self, study_id: int, case_id: int | None = None) -> list[dict[str, Any]]:
        """The study's measured records with their samples (``"data"``), oldest first; with
        ``case_id``, those of the whole study and of that case only. [] for an unknown study."""
        from gapsweep.db.lifecycle import StudyNotFoundError
        from gapsweep.db.measurements import get_measurement, study_measurements

        if not _known(study_id):
            return []
        with self.sessions() as s:
            try:
                items = study_measurements(s, study_id)
            except StudyNotFoundError:
                return []
            return [get_measurement(s, m["id"]) for m in items
                    if case_id is None or m["case_id"] in (None, case_id)]

    # --- the database itself -------------------------------------------------------------

    def database_state(self) -> str:
        """``"ok"`` when the database answers, else ``"error: <exception class>"`` (the
        health check reports, it never fails)."""
        from sqlalchemy import text

        try:
            with self.sessions() as s:
                s.execute(text("SELECT 1"))
        except Exception as exc:
            return f"error: {type(exc).__name__}"
        return "ok"
