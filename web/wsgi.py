"""The web app for a production WSGI server (gunicorn, in the ``server`` extra):

    gunicorn 'gapsweep.web.wsgi:app' --bind 0.0.0.0:8050 --workers 2 --threads 8 \
        --worker-class gthread

``app`` is the Flask server of :func:`gapsweep.web.app.create_app`, built when gunicorn first
asks for it (once per worker process; no ``--preload``, so no database connection is shared
across a fork). It reads the same environment as ``gapsweep serve``
(``GAPSWEEP_DATABASE_URL``, ``GAPSWEEP_BROKER_URL``, ``GAPSWEEP_PROXY_HOPS`` ...) and starts
no workers: ``gapsweep worker`` processes run the cases.

A server started this way is meant to be reached from other machines, so sign-in is required
from the start (``serve --auth``); with ``GAPSWEEP_ADMIN_PASSWORD`` set and no user yet, the
first admin (``GAPSWEEP_ADMIN_USER``, default ``admin``) is created as ``serve`` does - by
whichever worker process comes first, the others find it there.
"""

from __future__ import annotations

import sys

import flask

from gapsweep.archive.accounts import ADMIN_PASSWORD_VARIABLE
from gapsweep.archive.local import LocalArchive
from gapsweep.settings import Settings, get_settings

from .app import create_app


def production_server(settings: Settings | None = None) -> flask.Flask:
    """The web app's Flask server with accounts required, after the first admin is made
    (when ``GAPSWEEP_ADMIN_PASSWORD`` asks for one)."""
    settings = settings if settings is not None else get_settings()
    # the first admin: the archive's one rule, shared with `gapsweep serve`
    archive = LocalArchive.open(settings)
    try:
        created = archive.bootstrap_admin()
    finally:
        archive.sessions.kw["bind"].dispose()
    if created:
        print(f"gapsweep web: created the first admin {created!r} from "
              f"{ADMIN_PASSWORD_VARIABLE}", file=sys.stderr, flush=True)
    return create_app(settings, require_accounts=True).server


def __getattr__(name: str) -> flask.Flask:
    """``app``, built on first access (PEP 562) and kept: what gunicorn asks for. Importing
    the module alone (a test, a tool) opens no database."""
    if name != "app":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    server = globals()["app"] = production_server()
    return server
