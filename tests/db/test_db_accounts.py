"""Accounts in the archive (db/accounts.py, db/audit.py) on SQLite and PostgreSQL: what
authenticates and what does not (disabled users, revoked tokens, expired sessions), what is
stored (digests only), the limiter's memory, and audit rows joining the caller's transaction."""

from __future__ import annotations

from datetime import timedelta

import pytest
from gapsweep.accounts.tokens import digest, new_api_token, new_secret
from gapsweep.db import accounts, audit
from gapsweep.db.models import ApiToken, AuditEvent, LoginFailure, WebSession, utcnow
from sqlalchemy import func, select, update


def _user(s, name="eve", role="editor"):
    return accounts.add_user(s, name=name, role=role, password_hash="scrypt$x")


def test_users_roles_and_duplicates(session_factory):
    with session_factory.begin() as s:
        assert not accounts.accounts_exist(s)
        _user(s, "eve")
        _user(s, "ada", "admin")
    with session_factory.begin() as s:
        assert accounts.accounts_exist(s)
        with pytest.raises(accounts.AccountError, match="exists"):
            _user(s, "eve")
    with session_factory.begin() as s:
        assert accounts.set_role(s, name="eve", role="viewer") == "editor"
        with pytest.raises(accounts.AccountError, match="no user"):
            accounts.set_role(s, name="nobody", role="admin")
    with session_factory() as s:
        assert [(u["name"], u["role"], u["tokens"]) for u in accounts.list_users(s)] == [
            ("ada", "admin", 0), ("eve", "viewer", 0)]


def test_a_role_outside_the_three_is_refused_by_the_database(session_factory):
    from sqlalchemy.exc import IntegrityError

    with pytest.raises(IntegrityError), session_factory.begin() as s:
        _user(s, "mallory", "root")


def test_tokens_authenticate_until_revoked_or_the_user_is_disabled(session_factory):
    live, other = new_api_token(), new_api_token()
    with session_factory.begin() as s:
        _user(s)
        token_id = accounts.add_token(s, name="eve", token_hash=digest(live), label="ci")
        accounts.add_token(s, name="eve", token_hash=digest(other))
    with session_factory.begin() as s:
        assert accounts.token_account(s, digest(live)).name == "eve"
        assert accounts.token_account(s, digest("gsw_guess")) is None
        # only the digest is stored
        stored = set(s.scalars(select(ApiToken.token_hash)))
        assert live not in stored and digest(live) in stored
    with session_factory.begin() as s:
        accounts.revoke_token(s, name="eve", token_id=token_id)
    with session_factory.begin() as s:
        assert accounts.token_account(s, digest(live)) is None
        assert accounts.token_account(s, digest(other)).name == "eve"
        with pytest.raises(accounts.AccountError, match="not a live token"):
            accounts.revoke_token(s, name="eve", token_id=token_id)
        assert [t["revoked"] for t in accounts.list_tokens(s, name="eve")] == [True, False]
        assert [u["tokens"] for u in accounts.list_users(s)] == [1]
    with session_factory.begin() as s:
        accounts.set_disabled(s, name="eve", disabled=True)
    with session_factory.begin() as s:
        assert accounts.token_account(s, digest(other)) is None
        assert accounts.credentials(s, "eve") is None


def test_sessions_expire_and_end_with_a_disable_or_a_new_password(session_factory):
    secret = new_secret()
    with session_factory.begin() as s:
        user = _user(s)
        accounts.add_web_session(s, user_id=user.id, id_hash=digest(secret), csrf_token="c",
                                 lifetime_s=60)
    with session_factory.begin() as s:
        account, csrf = accounts.web_session_account(s, digest(secret))
        assert (account.name, csrf) == ("eve", "c")
        s.execute(update(WebSession).values(expires=utcnow() - timedelta(seconds=1)))
    with session_factory.begin() as s:
        assert accounts.web_session_account(s, digest(secret)) is None
        # the next sign-in sweeps the expired one
        accounts.add_web_session(s, user_id=user.id, id_hash=digest("b"), csrf_token="c",
                                 lifetime_s=60)
    with session_factory.begin() as s:
        assert s.scalar(select(func.count()).select_from(WebSession)) == 1
        accounts.set_password(s, name="eve", password_hash="scrypt$y")
    with session_factory() as s:
        assert s.scalar(select(func.count()).select_from(WebSession)) == 0


def test_login_failures_within_the_window_only(session_factory):
    with session_factory.begin() as s:
        accounts.add_login_failure(s, keys=["account:eve", "address:1.2.3.4"])
        accounts.add_login_failure(s, keys=["account:eve"])
        s.add(LoginFailure(key="account:eve", at=utcnow() - timedelta(seconds=100)))
    with session_factory.begin() as s:
        assert len(accounts.login_failures(s, key="account:eve", window_s=50)) == 2
        assert len(accounts.login_failures(s, key="address:1.2.3.4", window_s=50)) == 1
    with session_factory.begin() as s:  # the old one was deleted on the way
        assert s.scalar(select(func.count()).select_from(LoginFailure)) == 3
        accounts.clear_login_failures(s, key="account:eve")
    with session_factory() as s:
        assert s.scalar(select(func.count()).select_from(LoginFailure)) == 1


def test_audit_rows_commit_and_roll_back_with_the_change(session_factory):
    with session_factory.begin() as s:
        audit.record(s, actor="ada", action="study.delete", target="study:1", via="token")
    with pytest.raises(RuntimeError), session_factory.begin() as s:
        audit.record(s, actor="ada", action="study.purge", target="archive")
        raise RuntimeError("the change failed")
    with session_factory() as s:
        assert s.scalar(select(func.count()).select_from(AuditEvent)) == 1
        [event] = audit.recent(s)
        assert (event["actor"], event["action"], event["detail"]) == (
            "ada", "study.delete", {"via": "token"})


def test_the_last_enabled_admin_is_kept(session_factory):
    with session_factory.begin() as s:
        _user(s, "ada", "admin")
        _user(s, "eve")
    for change in (lambda s: accounts.set_role(s, name="ada", role="editor"),
                   lambda s: accounts.set_disabled(s, name="ada", disabled=True)):
        with pytest.raises(accounts.AccountError, match="last enabled admin"), \
                session_factory.begin() as s:
            change(s)
    with session_factory.begin() as s:
        accounts.set_role(s, name="eve", role="admin")
    with session_factory.begin() as s:  # with a second admin, the first may go
        accounts.set_disabled(s, name="ada", disabled=True)
    with pytest.raises(accounts.AccountError, match="last enabled admin"), \
            session_factory.begin() as s:
        accounts.set_role(s, name="eve", role="viewer")
