"""Who makes a change from the command line, as the audit log records it."""

from __future__ import annotations

import getpass
import os
import socket


def cli_actor() -> str:
    """``cli:<login>@<host>``: the account that ran the command, on this machine."""
    try:
        login = getpass.getuser()
    except (KeyError, OSError):  # no login name (a container's uid without a passwd entry)
        login = f"uid{os.getuid()}"
    return f"cli:{login}@{socket.gethostname()}"
