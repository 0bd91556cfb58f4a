"""The JSON API (design.md 4.4), a Flask blueprint on the Dash app's server.

    GET  /api/health                         {"database", "broker", "workers", "kernels_ready"}
    GET  /api/studies?search=&tag=&status=&model=&limit=&offset=   {"total", "items"}
    POST /api/studies        (a spec as JSON) 201 {"id"} | 422 {"errors": [...]} (nothing written)
    GET  /api/studies/<id>                   as ``gapsweep show --json``, at most 1,000 cases:
                                             "cases_total", "next" (design.md 4.16)
    GET  /api/studies/<id>/cases?limit=&cursor=&sort=&status=&kind=   {"total", "items", "next"}
    GET  /api/studies/<id>/progress          {"id", "status", "counts", "started", "finished",
                                             "running": [{"id", "step", "steps"}]}
                                             (+ "generation", "generations", "search": adaptive)
    GET  /api/studies/<id>/cases.csv         one row per case (export columns, design.md 4.5)
    GET  /api/studies/<id>/cases.units.csv   the unit of each of those columns
    POST /api/studies/<id>/cancel, /retry
    GET  /api/me                             {"name", "role", "via"}: who the credentials are
    GET  /api/audit?limit=                   the audit log, newest first (admin)
    GET  /api/cases/<id>                     the case (params, status, metrics, provenance)
    GET  /api/cases/<id>/series?names=a,b    {"name": [numbers ...]}
    GET  /api/studies/<id>/variation, /predict   (design.md 4.8: :mod:`.tolerances`)

Ids are integers; an unknown id, or any unknown path under ``/api``, is a JSON 404. Bodies are
limited to :data:`MAX_BODY_BYTES` (413). With accounts on, a request without a session or a
token is a 401 (:mod:`.auth`) and one whose role does not allow it a 403, nothing changed.
"""

from __future__ import annotations

import json
import math
from typing import Any
from urllib.parse import urlencode

import flask
from flask import Response, jsonify, request
from gapsweep.db.models import MAX_ID
from gapsweep.study.errors import SpecError
from werkzeug.exceptions import HTTPException
from werkzeug.routing import IntegerConverter

from .. import actions, context, data
from ..auth import principal
from .blueprint import api, error, not_found
from .kernels import local_workers, workers_ready

MAX_BODY_BYTES = 1 << 20  # a study spec is a few KB; a Sobol spec with many axes stays far below
MAX_LIMIT = 1000

class IdConverter(IntegerConverter):
    """``<id:...>``: a non-negative integer the databases can hold; a larger one matches no
    route (a 404), instead of overflowing the database driver (a 500)."""

    def __init__(self, url_map: Any) -> None:
        super().__init__(url_map, max=MAX_ID)


def install_api(server: flask.Flask) -> None:
    """Register the blueprint and the JSON error pages for ``/api/...`` on ``server``."""
    from .tolerances import tolerances_api

    server.url_map.converters["id"] = IdConverter
    from . import measurements  # noqa: F401 - its routes join this blueprint

    server.register_blueprint(api)
    server.register_blueprint(tolerances_api)


@api.before_request
def _limit_body() -> None:
    # per request (Flask >= 3.1): the Dash callbacks on the same server keep their own limit
    request.max_content_length = MAX_BODY_BYTES


@api.app_errorhandler(HTTPException)
def _http_error(exc: HTTPException) -> Any:
    if not request.path.startswith("/api/"):
        return exc  # the Dash pages keep Flask's own pages
    return error(exc.code or 500, exc.description or exc.name)


@api.app_errorhandler(500)
def _server_error(exc: Exception) -> Any:
    if not request.path.startswith("/api/"):
        return exc
    return error(500, "internal error (see the server log)")


def _json_ready(value: Any) -> Any:
    """NaN and inf as null (JSON has neither), numpy scalars and arrays as plain numbers."""
    if isinstance(value, dict):
        return {k: _json_ready(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_ready(v) for v in value]
    if hasattr(value, "tolist"):
        return _json_ready(value.tolist())
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _int_arg(name: str, default: int, lo: int, hi: int) -> int:
    raw = request.args.get(name, "")
    if raw == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        flask.abort(422, f"{name}: {raw!r} — an integer from {lo} to {hi}")
    if not lo <= value <= hi:
        flask.abort(422, f"{name}: {value} — an integer from {lo} to {hi}")
    return value


@api.get("/health")
def health() -> Any:
    ctx = context.current()
    database = data.database_state()
    body = {
        "database": database,
        "broker": _broker_state(ctx.settings),
        "workers": local_workers(ctx.settings),
        "kernels_ready": workers_ready(ctx.settings),
    }
    return jsonify(body), 200 if database == "ok" else 503


def _broker_state(settings: Any) -> str:
    from gapsweep.workers.health import broker_state

    return broker_state(settings)


@api.get("/studies")
def list_studies() -> Any:
    limit = _int_arg("limit", 50, 1, MAX_LIMIT)
    offset = _int_arg("offset", 0, 0, 10**12)
    filters = {k: request.args.get(k) or None for k in ("search", "tag", "status", "model")}
    total, items = data.list_studies(limit=limit, offset=offset, **filters)
    return jsonify(_json_ready({"total": total, "items": items}))


@api.post("/studies")
def create_study() -> Any:
    raw = request.get_data(cache=False)  # over MAX_BODY_BYTES: 413 from here
    try:
        data = json.loads(raw)
    except (ValueError, UnicodeDecodeError) as exc:
        return error(400, f"the body is not JSON: {exc}")
    except RecursionError:
        return error(400, "the body is not JSON this server reads: it nests too deeply")
    try:
        study_id = actions.submit(data, who=principal())
    except actions.ForbiddenError as exc:
        return error(403, str(exc))
    except SpecError as exc:
        return jsonify(exc.to_dict()), 422
    except RecursionError:  # parsed, but values in lists in lists ... beyond any spec
        return error(400, "the spec nests too deeply: values are numbers, text or flat lists")
    response = jsonify({"id": study_id})
    response.headers["Location"] = f"/api/studies/{study_id}"
    return response, 201


def _cases_link(study_id: int, cursor: str | None, limit: int = MAX_LIMIT,
                **query: Any) -> str | None:
    """The path of the page after ``cursor`` (None: there is none)."""
    if cursor is None:
        return None
    args = {"limit": limit, **{k: v for k, v in query.items() if v}, "cursor": cursor}
    return f"/api/studies/{study_id}/cases?{urlencode(args)}"


@api.get("/studies/<id:study_id>")
def show_study(study_id: int) -> Any:
    """The study with at most its first 1,000 cases and twins (design.md 4.16): the rest
    through ``next`` (and ``twins_next``); a smaller study reads whole."""
    try:
        head = actions.archive(principal()).study_head(study_id)
    except actions.UnknownIdError:
        return not_found("study", study_id)
    head["next"] = _cases_link(study_id, head.pop("cases_cursor"))
    head["twins_next"] = _cases_link(study_id, head.pop("twins_cursor"), kind="twin")
    return jsonify(_json_ready(head))


@api.get("/studies/<id:study_id>/cases")
def study_cases(study_id: int) -> Any:
    """``{"total", "items", "next"}``: a page of the study's cases (``kind=twin``: its
    twins) after ``cursor``, at most ``limit``, in ``sort`` order (``index``, ``id`` or a
    metric column, ``-`` for descending), only ``status`` when given."""
    limit = _int_arg("limit", MAX_LIMIT, 1, MAX_LIMIT)
    query = {k: request.args.get(k) or None for k in ("cursor", "sort", "status")}
    kind = request.args.get("kind") or "case"
    if kind not in ("case", "twin"):
        return error(422, f"kind: {kind!r} — case or twin")
    try:
        page = actions.archive(principal()).case_page(study_id, kind=kind, limit=limit,
                                                      **query)
    except actions.UnknownIdError:
        return not_found("study", study_id)
    except ValueError as exc:
        return error(422, str(exc))
    link = _cases_link(study_id, page["cursor"], limit, sort=query["sort"],
                       status=query["status"],
                       kind=None if kind == "case" else kind)
    return jsonify(_json_ready({"total": page["total"], "items": page["items"],
                                "next": link}))


@api.get("/studies/<id:study_id>/progress")
def study_progress(study_id: int) -> Any:
    report = data.study_progress_report(study_id)
    if report is None:
        return not_found("study", study_id)
    return jsonify(report)


@api.get("/studies/<id:study_id>/cases.units.csv")
def study_csv_units(study_id: int) -> Any:
    """The unit of each column of ``cases.csv`` (parameters in their own unit, metrics SI)."""
    from gapsweep.study.export_units import units_csv

    try:
        columns, _ = actions.archive(principal()).export_pages(study_id)
    except actions.UnknownIdError:
        return not_found("study", study_id)
    return Response(units_csv(columns), mimetype="text/csv", headers={
        "Content-Disposition": f'attachment; filename="study-{study_id}-cases.units.csv"'})


@api.get("/studies/<id:study_id>/cases.csv")
def study_csv(study_id: int) -> Any:
    """The export rows as CSV, written a page of cases at a time (memory bounded by a page;
    issue 41)."""
    try:
        columns, pages = actions.archive(principal()).export_pages(study_id)
    except actions.UnknownIdError:
        return not_found("study", study_id)

    from gapsweep.archive.streaming import csv_chunks

    return Response(
        flask.stream_with_context(csv_chunks(columns, pages)),
        mimetype="text/csv",
        headers={"Content-Disposition": f'attachment; filename="study-{study_id}-cases.csv"'},
    )


@api.post("/studies/<id:study_id>/<any(cancel, retry):verb>")
def change_study(study_id: int, verb: str) -> Any:
    arch = actions.archive(principal())
    change = arch.cancel if verb == "cancel" else arch.retry
    try:
        return jsonify(change(study_id))
    except actions.UnknownIdError:
        return not_found("study", study_id)
    except actions.ForbiddenError as exc:
        return error(403, str(exc))


@api.get("/me")
def me() -> Any:
    who = principal()
    return jsonify({"name": who.name, "role": who.role, "via": who.via})


@api.get("/audit")
def audit_log() -> Any:
    limit = _int_arg("limit", 100, 1, MAX_LIMIT)
    try:
        return jsonify({"items": actions.archive(principal()).audit_log(limit)})
    except actions.ForbiddenError as exc:
        return error(403, str(exc))


@api.get("/cases/<id:case_id>")
def show_case(case_id: int) -> Any:
    detail = data.case_detail(case_id)
    if detail is None:
        return not_found("case", case_id)
    return jsonify(_json_ready(detail))


@api.get("/cases/<id:case_id>/series")
def case_series(case_id: int) -> Any:
    names = [n.strip() for n in request.args.get("names", "").split(",") if n.strip()]
    detail = data.case_detail(case_id)
    if detail is None:
        return not_found("case", case_id)
    try:
        series = data.series_of(case_id, names)
    except KeyError as exc:
        return error(404, f"case {case_id} has no series {exc.args[0]!r}",
                      available=detail["series"])
    return jsonify(_json_ready(series))


@api.route("/<path:rest>", methods=["GET", "POST", "PUT", "PATCH", "DELETE"])
def unknown(rest: str) -> Any:
    # without this, Dash's catch-all page route would answer /api/... with the app's HTML
    return error(404, f"no such API path: /api/{rest}")
