"""What an archive offers, wherever it is: :class:`~.local.LocalArchive` (a database) and
:class:`~.remote.RemoteArchive` (a server's API) both provide it; the web's actions, the
command line and ``gapsweep.open()`` are written against it.

A remote archive refuses what the server's API does not offer (delete, purge, export rows,
users, tokens, the audit log) with :class:`~.errors.RefusedError`; every implementation raises
:class:`~.errors.UnknownIdError` for an id that names no study and
:class:`~.errors.ForbiddenError` for a change the principal's role does not allow.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    import pandas as pd


@runtime_checkable
class Archive(Protocol):
    def exists(self, study_id: int) -> bool:
        """Whether the study is live."""

    def listing(self, *, search: str | None = None, tag: str | None = None,
                limit: int = 50) -> dict[str, Any]:
        """``{"total", "items"}``, newest first (``gapsweep studies --json``)."""

    def studies(self, *, search: str | None = None, tag: str | None = None,
                limit: int = 50) -> list[dict[str, Any]]:
        """The listing's items."""

    def study(self, study_id: int) -> dict[str, Any]:
        """The study as ``gapsweep show --json`` (design.md 4.5)."""

    def progress(self, study_id: int) -> dict[str, int]:
        """Case counts by status, and ``total``."""

    def study_json(self, study_id: int) -> Iterator[str]:
        """``show --json``'s text in pieces, read a page of cases at a time."""

    def cases(self, study_id: int, columns: list[str] | None = None, *,
              parquet: str | Path | None = None, chunk: int | None = None) -> pd.DataFrame:
        """One row per design case, indexed by ``case_id``: the export's columns (or only
        ``columns``), read in chunks; also written to ``parquet`` when given."""

    def export_rows(self, study_id: int) -> tuple[list[str], list[dict[str, Any]]]:
        """``gapsweep export``'s columns and rows."""

    def export_pages(self, study_id: int) -> tuple[list[str], Iterator[list[dict[str, Any]]]]:
        """``gapsweep export``'s columns and its rows a page at a time."""

    def submit(self, spec: Any, *, plan: Any = None) -> int:
        """Create a study from a spec, a mapping or a file; its id."""

    def wait(self, study_id: int, timeout_s: float | None = None,
             progress: Callable[[dict[str, int]], None] | None = None) -> bool:
        """Until nothing is queued or running (True) or the timeout (False)."""

    def cancel(self, study_id: int) -> dict[str, Any]:
        """``{"id", "cancelled"}``."""

    def retry(self, study_id: int) -> dict[str, Any]:
        """``{"id", "retried", "case_ids"}``."""

    def delete(self, study_id: int) -> None:
        """Soft-delete (kept until purge)."""

    def purge(self) -> dict[str, int]:
        """Remove the soft-deleted studies for good."""

    @property
    def starts_workers(self) -> bool:
        """Whether following a study here starts worker processes on this machine (the
        embedded default, design.md 4.5): the caller then stops them cleanly on SIGTERM."""

    def run(self, spec: Any, *, concurrency: int | None = None,
            progress: Callable[[dict[str, int]], None] | None = None,
            announce: Callable[[str], None] | None = None) -> int:
        """Create the study and follow it to its end, wherever this archive's workers are;
        its id. ``announce`` hears a line about what happens (the id, a setting ignored)."""

    def set_notes(self, study_id: int, *, description: str, tags: list[str]
                  ) -> dict[str, Any]:
        """Replace the study's description and tags; ``{"id", "description", "tags"}``."""

    def users(self) -> list[dict[str, Any]]:
        """Every user (name, role, disabled, created, live tokens), by name (admins)."""

    def add_user(self, name: str, role: str, password: str) -> None:
        """A new user (admins)."""

    def set_role(self, name: str, role: str) -> str:
        """Give ``name`` the role; the old one (admins)."""

    def set_disabled(self, name: str, disabled: bool) -> None:
        """Disable or enable a user (admins)."""

    def set_password(self, name: str, password: str) -> None:
        """A new password for ``name`` (admins)."""

    def tokens(self, name: str) -> list[dict[str, Any]]:
        """``name``'s API tokens (admins)."""

    def create_token(self, name: str, label: str = "") -> tuple[int, str]:
        """A new API token of ``name``: its id and the token, shown once (admins)."""

    def revoke_token(self, name: str, token_id: int) -> None:
        """Revoke one of ``name``'s tokens (admins)."""

    def audit_log(self, limit: int = 100) -> list[dict[str, Any]]:
        """The audit log, newest first (admins)."""

    def add_measurement(self, study_id: int, csv: str | bytes, *, name: str = "",
                        case_id: int | None = None, where: str = "file") -> dict[str, Any]:
        """Attach a rig's CSV record to the study (or its case); its entry without samples."""

    def measurements(self, study_id: int) -> list[dict[str, Any]]:
        """The study's measured records, oldest first, without their samples."""

    def measurement(self, measurement_id: int) -> dict[str, Any]:
        """One measured record with its samples (``"data"``)."""
