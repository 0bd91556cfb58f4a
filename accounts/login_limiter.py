"""When failed sign-ins lock the door: a sliding window per account and per address.

Within any window of ``window_s`` seconds (``GAPSWEEP_LOGIN_WINDOW_S``, default 900), an
account that has failed :data:`ACCOUNT_LIMIT` times, or an address that has failed
:data:`ADDRESS_LIMIT` times (one address guessing many accounts), is refused without its
password being checked, until its oldest failure in the window ages out. The right password
then gets in. The failures live in the database, so every web process shares them.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

ACCOUNT_LIMIT = 5
ADDRESS_LIMIT = 20


def account_key(name: str) -> str:
    return "account:" + name.casefold()[:150]


def address_key(address: str) -> str:
    return "address:" + address[:150]


def locked_for(
    failures: Sequence[datetime], *, limit: int, window_s: float, now: datetime
) -> float:
    """Seconds until a sign-in is allowed again (0: allowed), given the failure times of one
    key within the last window (any order)."""
    recent = sorted(t for t in failures if now - t < timedelta(seconds=window_s))
    if len(recent) < limit:
        return 0.0
    # the (len - limit + 1)-th oldest must age out to bring the count below the limit
    unlock = recent[len(recent) - limit] + timedelta(seconds=window_s)
    return max(0.0, (unlock - now).total_seconds())
