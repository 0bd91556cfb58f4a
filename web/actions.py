"""What the pages and the API do to the archive beyond reading it: :func:`archive` is the
application layer (:class:`gapsweep.archive.local.LocalArchive`) acting for the request's
principal - ``archive(principal()).cancel(id)``, ``.retry``, ``.set_notes``, the users and
tokens - the one the command line and ``gapsweep.open()`` use, so the role check
(:func:`gapsweep.accounts.roles.may`) and the audit record sit in the one place every change
goes through. Here only what adds to it: a submit that never reads a file name from a
request, a delete of several studies at once.

An unknown (or deleted) study raises :class:`UnknownIdError`; a principal whose role does not
allow the change raises :class:`ForbiddenError` with nothing written.
"""

from __future__ import annotations

from typing import Any

from gapsweep.accounts.roles import Principal
from gapsweep.study.errors import FieldError, SpecError

from gapsweep.archive.errors import ForbiddenError, UnknownIdError
from gapsweep.archive.local import LocalArchive

from . import context

__all__ = ["ForbiddenError", "UnknownIdError", "archive", "delete", "exists", "submit"]


def archive(who: Principal) -> LocalArchive:
    """The app's archive acting for ``who``."""
    ctx = context.current()
    return LocalArchive(ctx.sessions, ctx.settings, who)


def submit(data: Any, *, who: Principal, plan: Any = None) -> int:
    """Create the study of ``data`` (a spec as a mapping, or a
    :class:`~gapsweep.study.spec.StudySpec` the form validated) owned by ``who`` and enqueue
    its cases after the commit. ``plan``: the spec's plan, when the caller made it.

    Raises :class:`ForbiddenError` for a viewer, :class:`SpecError` (nothing written) when the
    spec, or its plan, is refused."""
    from gapsweep.accounts.roles import Action
    from gapsweep.study.spec import StudySpec

    arch = archive(who)
    arch.require(Action.CREATE)
    # a request's body is a mapping: never a file name to open on the server
    if not isinstance(data, (dict, StudySpec)):
        raise SpecError([FieldError("file", type(data).__name__, "a JSON object")])
    return arch.submit(data, plan=plan)


def exists(study_id: int) -> bool:
    """Whether the study is live (not missing, not soft-deleted)."""
    from gapsweep.accounts.roles import LOCAL

    return archive(LOCAL).exists(study_id)


def delete(study_ids: list[int], *, who: Principal) -> tuple[int, list[str]]:
    """Soft-delete the studies ``who`` may delete (``gapsweep purge`` removes them for good);
    how many were, and why each other one was not."""
    arch = archive(who)
    n, refused = 0, []
    for study_id in study_ids:
        try:
            arch.delete(study_id)
            n += 1
        except UnknownIdError:
            continue
        except ForbiddenError as exc:
            refused.append(str(exc))
    return n, refused
