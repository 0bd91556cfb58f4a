"""What the browser tests share (not a test module): Debian's chromium, its flags, a port
(``free_port`` of tests/workers/processes.py).

Skipped when chromium is missing, except with ``CI=true`` (then the test fails): the test
command installs it (``apt-get install -y chromium``).
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "workers"))

from processes import free_port  # noqa: E402, F401  (the workers' helper, for the servers)

CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def need_chromium() -> str:
    """The chromium executable (Playwright drives it with ``executable_path``)."""
    path = shutil.which("chromium")
    if path:
        return path
    if os.environ.get("CI") == "true":
        pytest.fail("chromium is not installed (apt-get install -y chromium)")
    pytest.skip("chromium is not installed (apt-get install -y chromium)")

