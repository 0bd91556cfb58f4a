"""``GET /api/health/live``: the web process answers (container healthchecks, load balancers).

No credentials and no data: it says nothing but that this process serves requests, so it can
stay public while ``GET /api/health`` (database, broker, workers) stays behind a sign-in. It
touches neither the database nor the broker: a healthcheck must not fail a web container
because PostgreSQL is restarting (its own healthcheck covers that)."""

from __future__ import annotations

import flask

LIVE_PATH = "/api/health/live"


def _live() -> flask.Response:
    return flask.jsonify({"status": "live"})


def install_liveness(server: flask.Flask) -> None:
    """Add the liveness route to ``server`` (web/auth.py lets it through unauthenticated)."""
    server.add_url_rule(LIVE_PATH, "health_live", _live, methods=["GET"])
