"""The storage-free rules of accounts: scrypt hashes, the role table, the limiter's window."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from gapsweep.accounts import login_limiter, passwords
from gapsweep.accounts.roles import LOCAL, Action, Principal, may


def test_password_hash_round_trip_salt_and_cost():
    h1, h2 = passwords.hash_password("correct horse"), passwords.hash_password("correct horse")
    assert h1 != h2  # salted
    scheme, log2_n, r, p, salt, digest = h1.split("$")
    assert (scheme, int(log2_n), int(r), int(p)) == ("scrypt", 15, 8, 1)
    assert 128 * (1 << int(log2_n)) * int(r) == 32 * 2**20  # 32 MiB per guess
    assert passwords.verify_password("correct horse", h1)
    assert not passwords.verify_password("correct horsf", h1)
    assert not passwords.verify_password("correct horse", "md5$abc")
    assert not passwords.verify_password("x" * 2000, h1)


@pytest.mark.parametrize("bad", ["short", "x" * 1025])
def test_password_length_is_checked(bad):
    with pytest.raises(passwords.PasswordError, match=f"password: {len(bad)} characters"):
        passwords.hash_password(bad)


def test_role_table():
    viewer, eve, ed = (Principal("vic", "viewer", "token"), Principal("eve", "editor", "token"),
                       Principal("ed", "editor", "session"))
    admin = Principal("ada", "admin", "session")
    assert [may(p, Action.READ) for p in (viewer, eve, admin)] == [True] * 3
    assert [may(p, Action.CREATE) for p in (viewer, eve, admin)] == [False, True, True]
    for action in (Action.CANCEL, Action.RETRY, Action.DELETE):
        assert [may(p, action, "eve") for p in (viewer, eve, ed, admin)] == [
            False, True, False, True]
        assert [may(p, action, None) for p in (eve, admin)] == [False, True]
    # a viewer named like the owner still may not change the study
    assert not may(Principal("eve", "viewer", "token"), Action.DELETE, "eve")
    assert [may(p, Action.PURGE) for p in (viewer, eve, admin)] == [False, False, True]
    assert may(LOCAL, Action.MANAGE_USERS)
    with pytest.raises(ValueError, match="allowed viewer, editor, admin"):
        Principal("x", "root", "token")


def test_limiter_window():
    t0 = datetime(2026, 1, 1, tzinfo=timezone.utc)
    fails = [t0 + timedelta(seconds=i) for i in range(5)]  # 5 failures at 0..4 s
    lock = login_limiter.locked_for
    assert lock(fails[:4], limit=5, window_s=60, now=t0 + timedelta(seconds=5)) == 0
    # 5 within the window: locked until the oldest ages out (0 s + 60 s)
    assert lock(fails, limit=5, window_s=60, now=t0 + timedelta(seconds=5)) == 55
    assert lock(fails, limit=5, window_s=60, now=t0 + timedelta(seconds=60)) == 0
    # 7 failures: the count must drop below 5, so the third-oldest (2 s) must age out
    seven = [t0 + timedelta(seconds=i) for i in range(7)]
    assert lock(seven, limit=5, window_s=60, now=t0 + timedelta(seconds=10)) == 52
    assert login_limiter.account_key("Eve") == login_limiter.account_key("eve")
