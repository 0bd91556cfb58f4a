"""Fixtures of the web tests: ``archive`` (an app over a temporary SQLite archive)."""

from archive_fixtures import archive  # noqa: F401
