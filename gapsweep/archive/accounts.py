"""The accounts side of the local archive: users, their API tokens, the audit log, and the
first admin a server creates from ``GAPSWEEP_ADMIN_PASSWORD``. Admins only (the command line
is one); the same rules for ``gapsweep user ...`` and the web's ``/admin/users``.

Bad input raises :class:`~.errors.RefusedError` with ``field: value — allowed``, nothing
written; a duplicate or unknown user :class:`gapsweep.db.accounts.AccountError` (a
ValueError) from the database layer.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import Any

from gapsweep.accounts.roles import Action, may

from .errors import ForbiddenError, RefusedError

ADMIN_PASSWORD_VARIABLE, ADMIN_USER_VARIABLE = "GAPSWEEP_ADMIN_PASSWORD", "GAPSWEEP_ADMIN_USER"
NAME_ALLOWED = "1 to 64 letters, digits and . _ @ -, starting with a letter or digit"
MAX_TOKEN_LABEL = 100
MAX_AUDIT_LIMIT = 10_000


def check_name(name: str, field: str = "name") -> str:
    from gapsweep.db.accounts import NAME_PATTERN

    if re.fullmatch(NAME_PATTERN, name or "") is None:
        raise RefusedError(f"{field}: {name!r} — allowed {NAME_ALLOWED}")
    return name


def check_role(role: str) -> str:
    from gapsweep.accounts.roles import check_role as valid

    try:
        return valid(role)
    except ValueError as exc:
        raise RefusedError(str(exc)) from None


def check_password(password: str, field: str = "password") -> None:
    from gapsweep.accounts.passwords import PasswordError
    from gapsweep.accounts.passwords import check_password as valid

    try:
        valid(password or "")
    except PasswordError as exc:
        raise RefusedError(str(exc).replace("password:", f"{field}:", 1)) from None


class AccountOperations:
    """Mixed into :class:`~.local.LocalArchive` (``self.sessions``, ``self.who``,
    ``self._audit``)."""

    sessions: Any

    def _admin(self, what: str) -> None:
        if not may(self.who, Action.MANAGE_USERS):
            raise ForbiddenError(f"{self.who.role} {self.who.name!r} may not {what}")

    def accounts_exist(self) -> bool:
        """Whether any user exists (the first one turns accounts on)."""
        from gapsweep.db.accounts import accounts_exist

        with self.sessions() as session:
            return accounts_exist(session)

    def users(self) -> list[dict[str, Any]]:
        """Every user (name, role, disabled, created, live tokens), by name."""
        from gapsweep.db.accounts import list_users

        self._admin("list users")
        with self.sessions() as session:
            return list_users(session)

    def user_exists(self, name: str) -> bool:
        return any(u["name"] == name for u in self.users())

    def add_user(self, name: str, role: str, password: str) -> None:
        """A new user; nothing written on a bad name, role or password, or a taken name."""
        from gapsweep.accounts.passwords import hash_password
        from gapsweep.db import accounts

        self._admin("add users")
        check_name(name)
        check_role(role)
        check_password(password)
        password_hash = hash_password(password)
        with self.sessions.begin() as session:
            accounts.add_user(session, name=name, role=role, password_hash=password_hash)
            self._audit(session, "user.add", f"user:{name}", role=role)

    def set_role(self, name: str, role: str) -> str:
        """Give ``name`` the role (the last enabled admin keeps theirs); the old role."""
        from gapsweep.db import accounts

        self._admin("change roles")
        check_role(role)
        with self.sessions.begin() as session:
            old = accounts.set_role(session, name=name, role=role)
            self._audit(session, "user.role", f"user:{name}", old=old, new=role)
        return old

    def set_disabled(self, name: str, disabled: bool) -> None:
        """Disable (their sign-ins end, their tokens are refused) or enable a user; the last
        enabled admin cannot be disabled."""
        from gapsweep.db import accounts

        self._admin("disable or enable users")
        with self.sessions.begin() as session:
            accounts.set_disabled(session, name=name, disabled=disabled)
            self._audit(session, "user.disable" if disabled else "user.enable",
                        f"user:{name}")

    def set_password(self, name: str, password: str) -> None:
        """A new password; the user's web sign-ins end (their tokens stay)."""
        from gapsweep.accounts.passwords import hash_password
        from gapsweep.db import accounts

        self._admin("change passwords")
        check_password(password)
        password_hash = hash_password(password)
        with self.sessions.begin() as session:
            accounts.set_password(session, name=name, password_hash=password_hash)
            self._audit(session, "user.password", f"user:{name}")

    def tokens(self, name: str) -> list[dict[str, Any]]:
        """A user's tokens (never the secrets)."""
        from gapsweep.db.accounts import list_tokens

        self._admin("list tokens")
        with self.sessions() as session:
            return list_tokens(session, name=name)

    def create_token(self, name: str, label: str = "") -> tuple[int, str]:
        """A new API token of ``name``: (its id, the token) - shown once, only its digest
        is kept."""
        from gapsweep.accounts.tokens import digest, new_api_token
        from gapsweep.db import accounts

        self._admin("create tokens")
        if len(label) > MAX_TOKEN_LABEL:
            raise RefusedError(f"label: {len(label)} characters — allowed up to "
                               f"{MAX_TOKEN_LABEL}")
        token = new_api_token()
        with self.sessions.begin() as session:
            token_id = accounts.add_token(session, name=name, token_hash=digest(token),
                                          label=label)
            self._audit(session, "token.create", f"user:{name}", token_id=token_id,
                        label=label)
        return token_id, token

    def revoke_token(self, name: str, token_id: int) -> None:
        from gapsweep.db import accounts

        self._admin("revoke tokens")
        with self.sessions.begin() as session:
            accounts.revoke_token(session, name=name, token_id=token_id)
            self._audit(session, "token.revoke", f"user:{name}", token_id=token_id)

    def audit_log(self, limit: int = 100) -> list[dict[str, Any]]:
        """The audit log, newest first."""
        from gapsweep.db.audit import recent

        self._admin("read the audit log")
        if not 1 <= limit <= MAX_AUDIT_LIMIT:
            raise RefusedError(f"limit: {limit} — allowed 1 to {MAX_AUDIT_LIMIT}")
        with self.sessions() as session:
            return recent(session, limit=limit)

    def bootstrap_admin(self, env: Mapping[str, str] | None = None) -> str | None:
        """With ``GAPSWEEP_ADMIN_PASSWORD`` set and no user yet, create the admin named by
        ``GAPSWEEP_ADMIN_USER`` (default ``admin``), audited ``user.add``; its name, or None
        when nothing was created (the variable unset, or accounts exist already). One rule
        for ``gapsweep serve`` and the WSGI entry (several processes may race: one wins)."""
        from gapsweep.accounts.passwords import hash_password
        from gapsweep.db import accounts
        from sqlalchemy.exc import IntegrityError

        self._admin("create the first admin")
        env = os.environ if env is None else env
        password = env.get(ADMIN_PASSWORD_VARIABLE, "")
        if not password or self.accounts_exist():
            return None
        name = check_name(env.get(ADMIN_USER_VARIABLE, "").strip() or "admin",
                          ADMIN_USER_VARIABLE)
        check_password(password, ADMIN_PASSWORD_VARIABLE)
        password_hash = hash_password(password)
        try:
            with self.sessions.begin() as session:
                if accounts.accounts_exist(session):  # another process was first
                    return None
                accounts.add_user(session, name=name, role="admin", password_hash=password_hash)
                self._audit(session, "user.add", f"user:{name}", role="admin",
                            source=ADMIN_PASSWORD_VARIABLE)
        except (IntegrityError, accounts.AccountError):
            # ... at the same moment: the other's row is unique-violated at commit, or (read
            # committed) already visible to add_user's own name check
            return None
        return name
