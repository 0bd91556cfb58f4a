"""Where the archive is: the environment variables that point the commands at a server.

Apart from :mod:`remote` so that deciding local or remote imports no HTTP client (~20 ms of
every local command, issue 28).
"""

from __future__ import annotations

import os
from collections.abc import Mapping

URL_VARIABLE, TOKEN_VARIABLE = "GAPSWEEP_URL", "GAPSWEEP_TOKEN"


def configured(env: Mapping[str, str] | None = None) -> bool:
    """Whether ``GAPSWEEP_URL`` is set (to anything but blanks)."""
    env = os.environ if env is None else env
    return bool(env.get(URL_VARIABLE, "").strip())
