"""Fixtures of the web tests: ``archive`` (an app over a temporary SQLite archive) and
``accounts`` (users of every role, their tokens, signed-in clients)."""

from account_fixtures import accounts  # noqa: F401
from archive_fixtures import archive  # noqa: F401
from browsers import server  # noqa: F401  (the browser modules' gapsweep serve)
