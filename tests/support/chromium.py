"""Debian's chromium for the browser tests (Playwright drives it with ``executable_path``).

Skipped when it is missing, except with ``CI=true`` (then the test fails): the test command
installs it (``apt-get install -y chromium``)."""

from __future__ import annotations

import os
import shutil

import pytest


def need_chromium() -> str:
    """The chromium executable; else a skip (a failure on CI)."""
    path = shutil.which("chromium")
    if path:
        return path
    if os.environ.get("CI", "").lower() == "true":  # CI=true or CI=True, as the others
        pytest.fail("chromium is not installed (apt-get install -y chromium)")
    pytest.skip("chromium is not installed (apt-get install -y chromium)")
