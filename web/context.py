"""What a request of the web app needs: the settings and the database's session factory.

Both live on the Flask server (``server.extensions["gapsweep"]``) that :func:`~.app.create_app`
builds, so the API, the page layouts and the callbacks share one engine per process and tests
can run several apps side by side. Everything here runs on the server; the browser only ever
sees JSON and rendered components.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import flask

if TYPE_CHECKING:
    from sqlalchemy.orm import Session, sessionmaker

EXTENSION = "gapsweep"


@dataclass(frozen=True)
class WebContext:
    settings: Any  # gapsweep.settings.Settings
    sessions: sessionmaker[Session]
    # per-app memo of expensive reads, keyed so that a change in the archive misses it
    # (see pages/study.py); one per app, so tests over different archives never share it
    memo: dict = field(default_factory=dict)


def install(server: flask.Flask, settings: Any, sessions: sessionmaker[Session]) -> None:
    """Attach the settings and the session factory to ``server``."""
    server.extensions[EXTENSION] = WebContext(settings=settings, sessions=sessions)


def current() -> WebContext:
    """The context of the app serving the current request (or app context in tests)."""
    return flask.current_app.extensions[EXTENSION]


@contextmanager
def session() -> Iterator[Session]:
    """One session for one request's work, committed on success, rolled back on error."""
    with current().sessions.begin() as s:
        yield s


def triggered_id() -> Any:
    """The id of the input that fired the running callback; None when called outside one
    (a test calling the callback as a plain function)."""
    import dash
    from dash.exceptions import MissingCallbackContextException

    try:
        return dash.ctx.triggered_id
    except MissingCallbackContextException:
        return None
