"""The ``/api`` blueprint and its JSON error answers, shared by the modules whose routes
join it (:mod:`.routes`, :mod:`.measurements`); :func:`.routes.install_api` mounts it. Kept
apart so the route modules import this one and not each other."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, jsonify

api = Blueprint("api", __name__, url_prefix="/api")


def error(status: int, message: str, **extra: Any) -> tuple[Response, int]:
    """``{"error": message, **extra}`` with HTTP status ``status``."""
    return jsonify({"error": message, **extra}), status


def not_found(kind: str, key: int) -> tuple[Response, int]:
    """The 404 of a ``kind`` (``study``, ``case`` ...) with no row of id ``key``."""
    return error(404, f"no {kind} with id {key}")
