"""What the pages and the API do to the archive beyond reading it: create a study from a
spec, cancel it, retry its failed cases, soft-delete it, edit its notes and tags; manage the
users (admins). Each is the application layer's (:class:`gapsweep.archive.local.LocalArchive`)
operation for the request's principal - the command line and ``gapsweep.open()`` use the same
one - so the role check (:func:`gapsweep.accounts.roles.may`) and the audit record sit in the
one place every change goes through. Each takes ``who`` (:func:`.auth.principal` of the
request) explicitly.

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

__all__ = ["ForbiddenError", "UnknownIdError", "add_measurement", "add_user", "archive", "cancel",
           "create_token", "delete", "exists", "list_tokens", "list_users", "retry",
           "revoke_token", "set_disabled", "set_notes", "set_role", "submit"]


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


def cancel(study_id: int, *, who: Principal) -> dict[str, Any]:
    """Cancel the study: queued cases at once, running ones finish their chunk."""
    return archive(who).cancel(study_id)


def retry(study_id: int, *, who: Principal) -> dict[str, Any]:
    """Queue the study's failed cases again and send them after the commit."""
    return archive(who).retry(study_id)


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


def set_notes(study_id: int, *, description: str, tags: list[str], who: Principal
              ) -> dict[str, Any]:
    """Replace the study's notes (description) and tags: its owner (an editor) or an admin.

    Raises ValueError (field, value, allowed) over the spec's limits, nothing written."""
    return archive(who).set_notes(study_id, description=description, tags=tags)


def add_measurement(study_id: int, csv: str | bytes, *, name: str, who: Principal
                    ) -> dict[str, Any]:
    """Attach a rig's CSV record to the study (its owner or an admin); its entry. Raises
    :class:`SpecError` naming the file's column or row when the record is refused."""
    return archive(who).add_measurement(study_id, csv, name=name)


# --- users (admins only; the same rules as ``gapsweep user``) ------------------------------

def list_users(*, who: Principal) -> list[dict[str, Any]]:
    """Every user (name, role, disabled, created, live tokens), by name."""
    return archive(who).users()


def add_user(name: str, role: str, password: str, *, who: Principal) -> None:
    """A new user. ValueError (field, value, allowed) for a bad name, role or password, or a
    name that exists; nothing written."""
    archive(who).add_user(name, role, password)


def set_role(name: str, role: str, *, who: Principal) -> str:
    """Give ``name`` the role (the last enabled admin keeps theirs); the old role."""
    return archive(who).set_role(name, role)


def set_disabled(name: str, disabled: bool, *, who: Principal) -> None:
    """Disable (their sign-ins end, their tokens are refused) or enable a user; the last
    enabled admin cannot be disabled."""
    archive(who).set_disabled(name, disabled)


def list_tokens(name: str, *, who: Principal) -> list[dict[str, Any]]:
    return archive(who).tokens(name)


def create_token(name: str, label: str, *, who: Principal) -> tuple[int, str]:
    """A new API token of ``name``: (its id, the token) - shown once, only its digest kept."""
    return archive(who).create_token(name, label)


def revoke_token(name: str, token_id: int, *, who: Principal) -> None:
    archive(who).revoke_token(name, token_id)
