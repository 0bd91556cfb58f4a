"""The JSON API's measured records (design.md 4.9), on the :mod:`.api` blueprint.

    POST /api/studies/<id>/measurements   a CSV (text/csv body, ``?name=&case=``) or JSON
                                          {"csv", "name", "case_id"} -> 201 {"id", ...}
                                          | 422 {"errors": [...]} (nothing stored)
    GET  /api/studies/<id>/measurements   {"items": [{"id", "name", "time_base", ...}]}
    GET  /api/measurements/<id>           the record with its samples ("data")

Attaching a record edits the study (the role of editing its notes and tags, Action.TAG).
The body may be up to the parser's :data:`~gapsweep.study.measurements.MAX_BYTES`.
"""

from __future__ import annotations

import json
from typing import Any

from flask import jsonify, request
from gapsweep.study.errors import FieldError, SpecError

from .. import actions
from ..auth import principal
from .blueprint import api, error, not_found


def _payload() -> tuple[bytes | str, str, int | None]:
    """(CSV, name, case id) from a text/csv or a JSON body."""
    from gapsweep.study.measurements import MAX_BYTES

    request.max_content_length = MAX_BYTES + 4096  # the parser names the limit itself
    raw = request.get_data(cache=False)
    case = request.args.get("case") or None
    if request.mimetype == "application/json":
        try:
            data = json.loads(raw)
        except (ValueError, UnicodeDecodeError) as exc:
            raise SpecError([FieldError("body", "not JSON", f"a JSON object ({exc})")]) from None
        if not isinstance(data, dict) or not isinstance(data.get("csv"), str):
            raise SpecError([FieldError("csv", None, "the CSV text, a string")])
        case = data.get("case_id", case)
        return data["csv"], str(data.get("name") or ""), _case_id(case)
    return raw, request.args.get("name", ""), _case_id(case)


def _case_id(value: Any) -> int | None:
    if value is None:
        return None
    try:
        return int(value)
    except (TypeError, ValueError):
        raise SpecError([FieldError("case_id", value, "a case id of the study")]) from None


@api.post("/studies/<id:study_id>/measurements")
def add_measurement(study_id: int) -> Any:
    archive = actions.archive(principal())
    try:
        text, name, case_id = _payload()
        entry = archive.add_measurement(study_id, text, name=name, case_id=case_id,
                                        where="measurement")
    except actions.UnknownIdError:
        return not_found("study", study_id)
    except actions.ForbiddenError as exc:
        return error(403, str(exc))
    except SpecError as exc:
        return jsonify(exc.to_dict()), 422
    response = jsonify(entry)
    response.headers["Location"] = f"/api/measurements/{entry['id']}"
    return response, 201


@api.get("/studies/<id:study_id>/measurements")
def list_measurements(study_id: int) -> Any:
    try:
        return jsonify({"items": actions.archive(principal()).measurements(study_id)})
    except actions.UnknownIdError:
        return not_found("study", study_id)


@api.get("/measurements/<id:measurement_id>")
def show_measurement(measurement_id: int) -> Any:
    try:
        return jsonify(actions.archive(principal()).measurement(measurement_id))
    except actions.UnknownIdError:
        return not_found("measurement", measurement_id)
