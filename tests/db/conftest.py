"""Fixtures of the archive's tests: the databases (``database_fixtures``) and small
stand-ins for the study layer's spec and plan."""

from support.database_fixtures import database_url, session_factory  # noqa: F401
