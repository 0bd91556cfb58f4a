"""Accounts in the archive: users, API tokens, web sessions and failed sign-ins.

Secrets never reach this module: callers pass the digests (:mod:`gapsweep.accounts.tokens`)
and the password hash (:mod:`gapsweep.accounts.passwords`). Like every repository module,
nothing here commits; the caller owns the transaction. A disabled user, a revoked token and
an expired session all authenticate as nobody (None).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import delete, func, select, update
from sqlalchemy.orm import Session

from .models import ApiToken, LoginFailure, User, WebSession, utcnow

NAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$"


class AccountError(ValueError):
    """A user name that exists already, or names nobody; a token that is not the user's."""


@dataclass(frozen=True)
class Account:
    """What the web app needs of a user, detached from the session."""

    id: int
    name: str
    role: str


def accounts_exist(session: Session) -> bool:
    """Whether any user exists: from then on every page and API route needs a sign-in."""
    return session.scalar(select(func.count()).select_from(User)) > 0


def add_user(session: Session, *, name: str, role: str, password_hash: str) -> Account:
    if session.scalar(select(User.id).where(User.name == name)) is not None:
        raise AccountError(f"name: {name!r} — a user of that name exists")
    user = User(name=name, role=role, password_hash=password_hash, disabled=False)
    session.add(user)
    session.flush()
    return Account(user.id, user.name, user.role)


def _user(session: Session, name: str) -> User:
    user = session.scalar(select(User).where(User.name == name))
    if user is None:
        raise AccountError(f"name: {name!r} — no user of that name")
    return user


def list_users(session: Session) -> list[dict[str, Any]]:
    """Every user with the number of live (unrevoked) tokens, by name."""
    live = (
        select(ApiToken.user_id, func.count().label("n"))
        .where(ApiToken.revoked_at.is_(None))
        .group_by(ApiToken.user_id)
        .subquery()
    )
    rows = session.execute(
        select(User, func.coalesce(live.c.n, 0))
        .outerjoin(live, live.c.user_id == User.id)
        .order_by(User.name)
    )
    return [
        {"name": u.name, "role": u.role, "disabled": bool(u.disabled),
         "created": u.created.isoformat(), "tokens": int(n)}
        for u, n in rows
    ]


def _keep_an_admin(session: Session, user: User, change: str) -> None:
    """Refuse to demote or disable the last enabled admin: nobody could manage users or
    purge from the web app after it."""
    if user.role != "admin" or user.disabled:
        return
    admins = session.scalar(select(func.count()).select_from(User)
                            .where(User.role == "admin", User.disabled.is_(False)))
    if admins <= 1:
        raise AccountError(f"name: {user.name!r} — the last enabled admin cannot be {change}; "
                           "make another admin first")


def set_role(session: Session, *, name: str, role: str) -> str:
    """Give ``name`` the role; returns the role it had."""
    user = _user(session, name)
    if role != "admin":
        _keep_an_admin(session, user, "demoted")
    old, user.role = user.role, role
    return old


def set_disabled(session: Session, *, name: str, disabled: bool) -> None:
    """Disable (or enable) a user; disabling also ends their web sessions at once."""
    user = _user(session, name)
    if disabled:
        _keep_an_admin(session, user, "disabled")
    user.disabled = disabled
    if disabled:
        session.execute(delete(WebSession).where(WebSession.user_id == user.id))


def set_password(session: Session, *, name: str, password_hash: str) -> None:
    """A new password; every web session of the user ends (tokens stay)."""
    user = _user(session, name)
    user.password_hash = password_hash
    session.execute(delete(WebSession).where(WebSession.user_id == user.id))


def credentials(session: Session, name: str) -> tuple[Account, str] | None:
    """The enabled user called ``name`` and their password hash (None: no such user, or
    disabled)."""
    user = session.scalar(select(User).where(User.name == name, User.disabled.is_(False)))
    return None if user is None else (Account(user.id, user.name, user.role), user.password_hash)


# --- API tokens ---------------------------------------------------------------------------

def add_token(session: Session, *, name: str, token_hash: str, label: str = "") -> int:
    """Store a new token of user ``name`` (its digest); the token's id."""
    token = ApiToken(user_id=_user(session, name).id, token_hash=token_hash, label=label[:100])
    session.add(token)
    session.flush()
    return int(token.id)


def list_tokens(session: Session, *, name: str) -> list[dict[str, Any]]:
    user = _user(session, name)
    rows = session.scalars(select(ApiToken).where(ApiToken.user_id == user.id)
                           .order_by(ApiToken.id))
    return [
        {"id": t.id, "label": t.label, "created": t.created.isoformat(),
         "last_used": t.last_used.isoformat() if t.last_used else None,
         "revoked": t.revoked_at is not None}
        for t in rows
    ]


def revoke_token(session: Session, *, name: str, token_id: int) -> None:
    user = _user(session, name)
    n = session.execute(
        update(ApiToken)
        .where(ApiToken.id == token_id, ApiToken.user_id == user.id,
               ApiToken.revoked_at.is_(None))
        .values(revoked_at=utcnow())
    ).rowcount
    if n != 1:
        raise AccountError(f"token: {token_id} — not a live token of {name!r}")


def token_account(session: Session, token_hash: str) -> Account | None:
    """The enabled user a live token belongs to (and the token's use recorded), else None."""
    row = session.execute(
        select(ApiToken, User)
        .join(User, User.id == ApiToken.user_id)
        .where(ApiToken.token_hash == token_hash, ApiToken.revoked_at.is_(None),
               User.disabled.is_(False))
    ).first()
    if row is None:
        return None
    token, user = row
    token.last_used = utcnow()
    return Account(user.id, user.name, user.role)


# --- web sessions -------------------------------------------------------------------------

def add_web_session(
    session: Session, *, user_id: int, id_hash: str, csrf_token: str, lifetime_s: float
) -> datetime:
    """Start a web session; when it expires. Expired sessions are swept on the way."""
    now = utcnow()
    session.execute(delete(WebSession).where(WebSession.expires <= now))
    expires = now + timedelta(seconds=lifetime_s)
    session.add(WebSession(id_hash=id_hash, user_id=user_id, csrf_token=csrf_token,
                           created=now, expires=expires))
    return expires


def web_session_account(session: Session, id_hash: str) -> tuple[Account, str] | None:
    """The enabled user of a live web session and the session's CSRF token, else None."""
    row = session.execute(
        select(User, WebSession.csrf_token)
        .join(WebSession, WebSession.user_id == User.id)
        .where(WebSession.id_hash == id_hash, WebSession.expires > utcnow(),
               User.disabled.is_(False))
    ).first()
    if row is None:
        return None
    user, csrf = row
    return Account(user.id, user.name, user.role), csrf


def end_web_session(session: Session, id_hash: str) -> None:
    session.execute(delete(WebSession).where(WebSession.id_hash == id_hash))


# --- failed sign-ins ----------------------------------------------------------------------

def add_login_failure(session: Session, *, keys: list[str]) -> None:
    now = utcnow()
    session.add_all(LoginFailure(key=k, at=now) for k in keys)


def login_failures(session: Session, *, key: str, window_s: float) -> list[datetime]:
    """The failure times of ``key`` within the last ``window_s`` seconds (older ones of the
    key are deleted on the way: nothing reads them again)."""
    since = utcnow() - timedelta(seconds=window_s)
    session.execute(delete(LoginFailure).where(LoginFailure.key == key, LoginFailure.at < since))
    return list(session.scalars(select(LoginFailure.at).where(LoginFailure.key == key)))


def clear_login_failures(session: Session, *, key: str) -> None:
    session.execute(delete(LoginFailure).where(LoginFailure.key == key))
