"""What the pages and the API do to the archive beyond reading it: create a study from a
spec, cancel it, retry its failed cases, soft-delete it, edit its notes and tags; manage the
users (admins). One function each, shared by both,
so the form and ``POST /api/studies`` cannot drift apart - and so the role check
(:func:`gapsweep.accounts.roles.may`) and the audit record sit in the one place every change
goes through. Each takes ``who`` (:func:`.auth.principal` of the request) explicitly.

An unknown (or deleted) study raises :class:`gapsweep.db.lifecycle.StudyNotFoundError`; a
principal whose role does not allow the change raises :class:`ForbiddenError` with nothing written.
"""

from __future__ import annotations

from typing import Any

from gapsweep.accounts.roles import Action, Principal, may
from gapsweep.db.lifecycle import StudyNotFoundError, live_study
from gapsweep.study.errors import FieldError, SpecError

from . import context

__all__ = ["ForbiddenError", "StudyNotFoundError", "add_user", "cancel", "create_token",
           "delete", "exists", "list_tokens", "list_users", "retry", "revoke_token",
           "set_disabled", "set_notes", "set_role", "submit"]

RETRY_CHUNK = 1  # a retried case goes out alone (workers/dispatch.py says why)
MAX_TOKEN_LABEL = 100  # as `gapsweep user token --label`


class ForbiddenError(PermissionError):
    """The principal's role does not allow the change (the message says who, what, whose)."""


def _refuse(who: Principal, action: Action, study_id: int | None, owner: str | None) -> None:
    what = f"{action.value} study {study_id}" if study_id is not None else f"{action.value} studies"
    whose = "" if study_id is None else f" (owned by {owner or 'nobody'})"
    raise ForbiddenError(f"{who.role} {who.name!r} may not {what}{whose}")


def _owned_study(session: Any, who: Principal, action: Action, study_id: int):
    study = live_study(session, study_id)
    if not may(who, action, study.owner):
        _refuse(who, action, study_id, study.owner)
    return study


def _owner(who: Principal) -> str | None:
    return None if who.via == "local" else who.name


def submit(data: Any, *, who: Principal) -> int:
    """Validate ``data`` (a spec as a mapping), create its study (owned by ``who``) and
    enqueue its cases after the commit (:func:`gapsweep.workers.submit.submit_study`).

    Raises :class:`ForbiddenError` for a viewer, :class:`SpecError` (nothing written) when the
    spec, or its plan, is refused."""
    from gapsweep.study.spec import parse_spec
    from gapsweep.workers.submit import submit_study

    if not may(who, Action.CREATE):
        _refuse(who, Action.CREATE, None, None)
    if not isinstance(data, dict):
        raise SpecError([FieldError("file", type(data).__name__, "a JSON object")])
    spec = parse_spec(data)
    ctx = context.current()
    return int(submit_study(spec, sessions=ctx.sessions, settings=ctx.settings,
                            owner=_owner(who)))


def exists(study_id: int) -> bool:
    """Whether the study is live (not missing, not soft-deleted)."""
    with context.session() as s:
        try:
            live_study(s, study_id)
        except StudyNotFoundError:
            return False
    return True


def cancel(study_id: int, *, who: Principal) -> dict[str, Any]:
    """Cancel the study: queued cases at once, running ones finish their chunk."""
    from gapsweep.db import audit
    from gapsweep.db.studies import cancel_study

    with context.session() as s:
        _owned_study(s, who, Action.CANCEL, study_id)
        n = cancel_study(s, study_id=study_id)
        audit.record(s, actor=who.name, action="study.cancel", target=f"study:{study_id}",
                     cancelled=int(n), via=who.via)
    from gapsweep.workers.purge import purge_dead_messages

    ctx = context.current()
    purge_dead_messages(ctx.settings, ctx.sessions)  # after the commit: its messages are dead
    return {"id": study_id, "cancelled": int(n)}


def retry(study_id: int, *, who: Principal) -> dict[str, Any]:
    """Queue the study's failed cases again and send them after the commit."""
    from gapsweep.db import audit
    from gapsweep.db.studies import retry_failed
    from gapsweep.workers.dispatch import enqueue
    from gapsweep.workers.submit import default_dispatcher

    with context.session() as s:
        _owned_study(s, who, Action.RETRY, study_id)
        ids = retry_failed(s, study_id=study_id)
        audit.record(s, actor=who.name, action="study.retry", target=f"study:{study_id}",
                     retried=len(ids), via=who.via)
    if ids:
        ctx = context.current()
        enqueue(ids, sessions=ctx.sessions, dispatcher=default_dispatcher(),
                chunk_size=RETRY_CHUNK)
    return {"id": study_id, "retried": len(ids), "case_ids": ids}


def delete(study_ids: list[int], *, who: Principal) -> tuple[int, list[str]]:
    """Soft-delete the studies ``who`` may delete (``gapsweep purge`` removes them for good);
    how many were, and why each other one was not."""
    from gapsweep.db import audit
    from gapsweep.db.studies import soft_delete

    n, refused = 0, []
    for study_id in study_ids:
        try:
            with context.session() as s:
                _owned_study(s, who, Action.DELETE, study_id)
                soft_delete(s, study_id=study_id)
                audit.record(s, actor=who.name, action="study.delete",
                             target=f"study:{study_id}", via=who.via)
            n += 1
        except StudyNotFoundError:
            continue
        except ForbiddenError as exc:
            refused.append(str(exc))
    return n, refused


def set_notes(study_id: int, *, description: str, tags: list[str], who: Principal
              ) -> dict[str, Any]:
    """Replace the study's notes (description) and tags: its owner (an editor) or an admin.

    Raises ValueError (field, value, allowed) over the spec's limits, nothing written."""
    from gapsweep.db import audit, study_notes

    with context.session() as s:
        _owned_study(s, who, Action.TAG, study_id)
        change = study_notes.set_notes(s, study_id=study_id, description=description,
                                       tags=tags)
        if change["old"] != change["new"]:
            audit.record(s, actor=who.name, action="study.tag", target=f"study:{study_id}",
                         via=who.via, **change)
    return {"id": study_id, **change["new"]}


# --- users (admins only; the same rules as ``gapsweep user``) ------------------------------

def _admin(who: Principal, what: str) -> None:
    if not may(who, Action.MANAGE_USERS):
        raise ForbiddenError(f"{who.role} {who.name!r} may not {what}")


def list_users(*, who: Principal) -> list[dict[str, Any]]:
    """Every user (name, role, disabled, created, live tokens), by name."""
    from gapsweep.db.accounts import list_users as rows

    _admin(who, "list users")
    with context.session() as s:
        return rows(s)


def add_user(name: str, role: str, password: str, *, who: Principal) -> None:
    """A new user. ValueError (field, value, allowed) for a bad name, role or password, or a
    name that exists; nothing written."""
    import re

    from gapsweep.accounts.passwords import PasswordError, check_password, hash_password
    from gapsweep.accounts.roles import check_role
    from gapsweep.db import accounts, audit

    _admin(who, "add users")
    if re.fullmatch(accounts.NAME_PATTERN, name or "") is None:
        raise ValueError(f"name: {name!r} — allowed 1 to 64 letters, digits and . _ @ -, "
                         "starting with a letter or digit")
    check_role(role)
    try:
        check_password(password or "")
    except PasswordError as exc:
        raise ValueError(str(exc)) from None
    password_hash = hash_password(password)
    with context.session() as s:
        accounts.add_user(s, name=name, role=role, password_hash=password_hash)
        audit.record(s, actor=who.name, action="user.add", target=f"user:{name}", role=role,
                     via=who.via)


def set_role(name: str, role: str, *, who: Principal) -> str:
    """Give ``name`` the role (the last enabled admin keeps theirs); the old role."""
    from gapsweep.accounts.roles import check_role
    from gapsweep.db import accounts, audit

    _admin(who, "change roles")
    check_role(role)
    with context.session() as s:
        old = accounts.set_role(s, name=name, role=role)
        audit.record(s, actor=who.name, action="user.role", target=f"user:{name}", old=old,
                     new=role, via=who.via)
    return old


def set_disabled(name: str, disabled: bool, *, who: Principal) -> None:
    """Disable (their sign-ins end, their tokens are refused) or enable a user; the last
    enabled admin cannot be disabled."""
    from gapsweep.db import accounts, audit

    _admin(who, "disable or enable users")
    with context.session() as s:
        accounts.set_disabled(s, name=name, disabled=disabled)
        audit.record(s, actor=who.name, action="user.disable" if disabled else "user.enable",
                     target=f"user:{name}", via=who.via)


def list_tokens(name: str, *, who: Principal) -> list[dict[str, Any]]:
    from gapsweep.db.accounts import list_tokens as rows

    _admin(who, "list tokens")
    with context.session() as s:
        return rows(s, name=name)


def create_token(name: str, label: str, *, who: Principal) -> tuple[int, str]:
    """A new API token of ``name``: (its id, the token) - shown once, only its digest kept."""
    from gapsweep.accounts.tokens import digest, new_api_token
    from gapsweep.db import accounts, audit

    _admin(who, "create tokens")
    if len(label) > MAX_TOKEN_LABEL:
        raise ValueError(f"label: {len(label)} characters — allowed up to {MAX_TOKEN_LABEL}")
    token = new_api_token()
    with context.session() as s:
        token_id = accounts.add_token(s, name=name, token_hash=digest(token), label=label)
        audit.record(s, actor=who.name, action="token.create", target=f"user:{name}",
                     token_id=token_id, label=label, via=who.via)
    return token_id, token


def revoke_token(name: str, token_id: int, *, who: Principal) -> None:
    from gapsweep.db import accounts, audit

    _admin(who, "revoke tokens")
    with context.session() as s:
        accounts.revoke_token(s, name=name, token_id=token_id)
        audit.record(s, actor=who.name, action="token.revoke", target=f"user:{name}",
                     token_id=token_id, via=who.via)
