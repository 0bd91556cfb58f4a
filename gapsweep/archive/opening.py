"""``gapsweep.open()``: an archive from where it is - a data folder, a database URL, or a
server's address (with an API token)."""

from __future__ import annotations

import os
from pathlib import Path

from .protocol import Archive

SERVER_SCHEMES = ("http://", "https://")


def open_archive(where: str | os.PathLike[str] | None = None, *,
                 token: str | None = None) -> Archive:
    """The archive at ``where``:

    - ``None``: what the command line would use (``GAPSWEEP_URL`` and ``GAPSWEEP_TOKEN``
      when set, else ``GAPSWEEP_DATABASE_URL`` / ``GAPSWEEP_DATA``, else the default data folder);
    - ``"http://host:8050"`` or ``https://...``: a ``gapsweep serve`` (``token``: an API
      token, ``gapsweep user token NAME``; default ``GAPSWEEP_TOKEN``);
    - a SQLAlchemy URL (``postgresql+psycopg://...``, ``sqlite:///...``): that database,
      with the environment's broker (``GAPSWEEP_BROKER_URL``, else the data folder's);
    - a folder: its ``gapsweep.db`` and embedded broker, as ``GAPSWEEP_DATA=folder`` alone.

    A local archive acts as the machine's admin (as the command line does)."""
    from gapsweep.settings import get_settings

    if where is None:
        from .endpoint import URL_VARIABLE, configured

        if configured():
            return _server(os.environ[URL_VARIABLE], token)
        return _local(get_settings())
    text = os.fspath(where)
    if text.startswith(SERVER_SCHEMES):
        return _server(text, token)
    env = dict(os.environ)
    if "://" in text:
        env["GAPSWEEP_DATABASE_URL"] = text
    else:  # the folder's own database and broker, whatever the environment names
        env.pop("GAPSWEEP_DATABASE_URL", None)
        env.pop("GAPSWEEP_BROKER_URL", None)
        env["GAPSWEEP_DATA"] = str(Path(text).expanduser().resolve())
    return _local(get_settings(env))


def _server(url: str, token: str | None) -> Archive:
    from .endpoint import TOKEN_VARIABLE
    from .remote import ApiClient, RemoteArchive

    token = token if token is not None else os.environ.get(TOKEN_VARIABLE, "").strip() or None
    return RemoteArchive(ApiClient(url, token))


def _local(settings) -> Archive:
    from .local import LocalArchive

    return LocalArchive.open(settings)
