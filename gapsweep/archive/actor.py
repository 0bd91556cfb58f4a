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


def cli_principal():
    """The command line working on the database: the machine's own admin (who can open the
    database has every right anyway), named :func:`cli_actor` in the audit log."""
    from gapsweep.accounts.roles import Principal

    return Principal(name=cli_actor(), role="admin", via="cli")
