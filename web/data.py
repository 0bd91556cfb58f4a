"""The pages' one way to read the archive: the request's :class:`~gapsweep.archive.local.
LocalArchive` and its reads (:class:`gapsweep.archive.reads.ReadOperations`: one method per
question, plain data back, None for an unknown id). ``data.study_state(id)`` is
``archive().study_state(id)``: the reads live in the archive, once, for the pages, the JSON
API, the command line and ``gapsweep.open()`` alike (issue 34, part 3); nothing here opens a
session or forwards a call by hand.

The changes go through :mod:`.actions` (the role check and the audit record), so only the
reads are offered here (:data:`READS`).
"""

from __future__ import annotations

from typing import Any

from gapsweep.db.models import MAX_ID  # noqa: F401 - the pages' bound on an id from the browser

from gapsweep.archive.local import LocalArchive
from gapsweep.archive.reads import ReadOperations

from . import context

#: what a page may read: the archive's page reads, its study head and keyset pages
READS = frozenset(
    name for name in vars(ReadOperations) if not name.startswith("_")
) | {"study_head", "case_page", "export_pages"}


def archive() -> LocalArchive:
    """The app's archive, for reading (the roles check changes, not reads)."""
    from gapsweep.accounts.roles import LOCAL

    ctx = context.current()
    return LocalArchive(ctx.sessions, ctx.settings, LOCAL)


def __getattr__(name: str) -> Any:
    if name in READS:
        return getattr(archive(), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
