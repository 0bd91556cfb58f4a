"""What the pages read from the archive: one function per question, each in its own
session, each answering with plain data (dicts, lists, numpy arrays) - never an ORM row, so
no page holds a row past its session or builds a query of its own. Ids come from the
browser (anything): one out of the databases' range is an unknown one here.

The changes go through :mod:`.actions` (the application layer); the JSON API reads here too
(:mod:`.api`), or through the archive where the read has a role or an id to check (the
export rows, the audit log, the measured records).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gapsweep.db.models import MAX_ID

from . import context


def _known(key: int | None) -> bool:
    return key is not None and 0 <= key <= MAX_ID


# --- studies -----------------------------------------------------------------------------------

def study_detail(study_id: int | None) -> dict[str, Any] | None:
    """The study as ``gapsweep show --json`` (its cases included); None if unknown."""
    from gapsweep.db.studies import study_detail as read

    if not _known(study_id):
        return None
    with context.session() as s:
        return read(s, study_id)


def study_details(study_ids: list[int]) -> list[dict[str, Any] | None]:
    """:func:`study_detail` of each id, in one session."""
    from gapsweep.db.studies import study_detail as read

    with context.session() as s:
        return [read(s, i) if _known(i) and i > 0 else None for i in study_ids]


def study_summary(study_id: int | None) -> dict[str, Any] | None:
    """The study without its cases (the page's frame): fast whatever its size."""
    from gapsweep.db.study_summary import study_summary as read

    if not _known(study_id):
        return None
    with context.session() as s:
        return read(s, study_id)


def study_state(study_id: int | None) -> dict[str, Any] | None:
    """What a progress poll needs, cheaply: ``{"status", "counts", "started", "analysed",
    "certificate_counts", "design", "finished", "retryable"}``; None for an unknown or
    deleted study."""
    from gapsweep.db.certificates import certificate_progress
    from gapsweep.db.lifecycle import StudyNotFoundError, live_study, retryable_count
    from gapsweep.db.studies import study_progress

    if not _known(study_id):
        return None
    with context.session() as s:
        try:
            study = live_study(s, study_id)
        except StudyNotFoundError:
            return None
        return {"status": study.status, "counts": study_progress(s, study_id),
                "started": study.started, "analysed": study.analysis is not None,
                "certificate_counts": certificate_progress(s, study_id),
                "design": study.design, "finished": study.finished,
                "retryable": retryable_count(s, study_id)}


def study_spec(study_id: int | None) -> dict[str, Any] | None:
    """``{"name", "spec"}`` of a live study, its spec carrying the study's current notes and
    tags (what a clone starts from); None if unknown."""
    from gapsweep.db.lifecycle import StudyNotFoundError, live_study

    if not _known(study_id):
        return None
    with context.session() as s:
        try:
            study = live_study(s, study_id)
        except StudyNotFoundError:
            return None
        return {"name": study.name,
                "spec": {**dict(study.spec), "description": study.description or "",
                         "tags": list(study.tags or [])}}


def list_studies(**filters: Any) -> tuple[int, list[dict[str, Any]]]:
    """One page of the archive: (total, items); ``filters`` as
    :func:`gapsweep.db.studies.list_studies` takes them."""
    from gapsweep.db.studies import list_studies as read

    with context.session() as s:
        return read(s, **filters)


def study_mechanisms(limit: int = 50) -> list[dict[str, Any]]:
    """The archive's mechanisms to pick from on the new-study form, newest first, one per
    distinct table: ``[{"study_id", "study_name", "name", "mechanism"}]``
    (:func:`gapsweep.db.studies.study_mechanisms`)."""
    from gapsweep.db.studies import study_mechanisms as read

    with context.session() as s:
        return read(s, limit=limit)


def case_page(study_id: int, **request: Any) -> tuple[list[dict[str, Any]], int]:
    """One block of a study's case grid: (rows, the count passing the filter); ``request``
    as :func:`gapsweep.db.case_table.case_page` takes it."""
    from gapsweep.db.case_table import case_page as read

    with context.session() as s:
        return read(s, study_id=study_id, **request)


def twin_rows(study_id: int, axes: dict[str, str], **metrics: Any) -> list[dict[str, Any]]:
    """The study's ideal twins as case-grid rows (:func:`gapsweep.db.case_table.twin_rows`;
    ``metrics=``: its metric columns)."""
    from gapsweep.db.case_table import twin_rows as read

    with context.session() as s:
        return read(s, study_id=study_id, axes=axes, **metrics)


# --- cases -------------------------------------------------------------------------------------

def case_detail(case_id: int | None) -> dict[str, Any] | None:
    """The case (params, status, metrics, provenance ...); None if unknown."""
    from gapsweep.db.studies import case_detail as read

    if not _known(case_id):
        return None
    with context.session() as s:
        return read(s, case_id)


def case_details(case_ids: list[int]) -> list[dict[str, Any] | None]:
    """:func:`case_detail` of each id, in one session."""
    from gapsweep.db.studies import case_detail as read

    with context.session() as s:
        return [read(s, i) if _known(i) else None for i in case_ids]


def case_with_series(case_id: int) -> dict[str, Any] | None:
    """``{"detail", "series", "twin_series", "provenance"}`` of a case (its study's
    provenance), None if unknown."""
    from gapsweep.db.lifecycle import StudyNotFoundError, live_study
    from gapsweep.db.studies import case_detail as read
    from gapsweep.db.studies import case_series

    if not _known(case_id):
        return None
    with context.session() as s:
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


def first_case_id(study_id: int) -> int | None:
    """The id of the study's first design case (a one-case study's only one)."""
    from gapsweep.db.case_reads import design_case_ids

    with context.session() as s:
        ids = design_case_ids(s, study_id)
    return ids[0] if ids else None


def spectra(case_ids: list[int], signal: str) -> dict[int, dict[str, np.ndarray]]:
    """{case id: {"freq_hz", "amplitude"}} of the stored spectra of ``signal``; cases
    without are left out."""
    from gapsweep.db.studies import case_series

    out = {}
    with context.session() as s:
        for case_id in case_ids:
            try:
                series = case_series(s, case_id, ["spectrum_freq_hz", f"spectrum_{signal}"])
            except KeyError:
                continue
            out[case_id] = {"freq_hz": series["spectrum_freq_hz"],
                            "amplitude": series[f"spectrum_{signal}"]}
    return out


def sections(case_ids: list[int]) -> dict[int, dict[str, np.ndarray]]:
    """{case id: its stored Poincaré section series (``poincare_*``)}; cases without one are
    left out (the bifurcation diagram, design.md 4.10)."""
    from gapsweep.db.studies import case_series

    out = {}
    with context.session() as s:
        for case_id in case_ids:
            stored = case_series(s, case_id)
            section = {k: v for k, v in stored.items() if k.startswith("poincare_")}
            if section:
                out[case_id] = section
    return out


def case_series(case_id: int, names: list[str] | None = None) -> dict[str, np.ndarray]:
    """The case's stored series by name ({} when it has none, or no such case); only
    ``names`` if given, an unknown one raising KeyError naming it."""
    from gapsweep.db.studies import case_series as read

    if not _known(case_id):
        return {}
    with context.session() as s:
        return read(s, case_id, names or None)


def study_progress_report(study_id: int) -> dict[str, Any] | None:
    """``{"id", "status", "counts", "started", "finished"}`` of a live study: a few bytes
    whatever its size (what ``wait`` polls); None if unknown."""
    from gapsweep.db.studies import study_progress_report as read

    if not _known(study_id):
        return None
    with context.session() as s:
        return read(s, study_id)


# --- measured records (design.md 4.9) ----------------------------------------------------------

def measured_records(study_id: int, case_id: int | None = None) -> list[dict[str, Any]]:
    """The study's measured records with their samples (``"data"``), oldest first; with
    ``case_id``, those of the whole study and of that case only. [] for an unknown study."""
    from gapsweep.db.lifecycle import StudyNotFoundError
    from gapsweep.db.measurements import get_measurement, study_measurements

    if not _known(study_id):
        return []
    with context.session() as s:
        try:
            items = study_measurements(s, study_id)
        except StudyNotFoundError:
            return []
        return [get_measurement(s, m["id"]) for m in items
                if case_id is None or m["case_id"] in (None, case_id)]
