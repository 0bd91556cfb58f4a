"""The study archive: SQLAlchemy models, Alembic migrations and repository functions.

- :mod:`.engine` - ``make_engine``, ``open_database`` (upgrades to head on first use),
  ``upgrade``, ``downgrade``, ``current_revision``.
- :mod:`.models` - Study, StudyTag, Case, Result, Series.
- :mod:`.studies` - the archive side (create, list, detail, progress, export, cancel, retry,
  delete, purge); :mod:`.leases` - the worker side (claim, renew, complete - per case or
  per chunk with ``complete_cases``, 3x faster -, fail, reconcile).

Repository functions take the session first and keyword-only arguments after, and never
commit: the caller owns the transaction (``with Session.begin() as session: ...``).
"""

from .engine import current_revision, downgrade, make_engine, open_database, upgrade
from .leases import (
    ClaimedCase,
    claim_cases,
    complete_case,
    complete_cases,
    fail_case,
    mark_enqueued,
    renew_leases,
    requeue_expired,
    stale_queued,
)
from .lifecycle import StudyNotFoundError
from .models import Case, Result, Series, Study, StudyTag
from .studies import (
    cancel_study,
    case_detail,
    case_series,
    create_study,
    export_rows,
    list_studies,
    purge_deleted,
    queued_case_ids,
    refresh_study_status,
    retry_failed,
    set_analysis,
    soft_delete,
    study_detail,
    study_progress,
)

__all__ = [
    "Case",
    "ClaimedCase",
    "Result",
    "Series",
    "Study",
    "StudyNotFoundError",
    "StudyTag",
    "cancel_study",
    "case_detail",
    "case_series",
    "claim_cases",
    "complete_case",
    "complete_cases",
    "create_study",
    "current_revision",
    "downgrade",
    "export_rows",
    "fail_case",
    "list_studies",
    "make_engine",
    "mark_enqueued",
    "open_database",
    "purge_deleted",
    "queued_case_ids",
    "refresh_study_status",
    "renew_leases",
    "requeue_expired",
    "retry_failed",
    "set_analysis",
    "soft_delete",
    "stale_queued",
    "study_detail",
    "study_progress",
    "upgrade",
]
