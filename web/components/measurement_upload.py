"""A study page's upload of a measured record (design.md 4.9): the same parser and store as
``gapsweep measured add`` and ``POST /api/studies/<id>/measurements`` (a bad file is refused
with its field errors, nothing stored); for a viewer who may edit the study."""

from __future__ import annotations

from typing import Any

import dash_bootstrap_components as dbc
from dash import Input, Output, State, dcc, html, no_update
from gapsweep.study.errors import SpecError

from .. import actions, data, ids
from ..auth import principal
from ..page_callbacks import PageCallbacks
from .study_notes import may_edit


def listing(study_id: int | None) -> html.Div:
    """The study's stored measured records, one line each (what an upload added stays listed
    after a reload); nothing when it has none."""
    records = data.measured_records(int(study_id)) if study_id is not None else []
    items = [html.Li(
        f"Measurement {r['id']}: {r.get('name') or 'unnamed'} — {r['n_samples']} samples of "
        f"{', '.join(r.get('series') or sorted((r.get('data') or {}).get('series', {})))} "
        f"on {r['time_base']}"
        + (f" (case {r['case_id']})" if r.get("case_id") else " (the whole study)"))
        for r in records]
    return html.Div([html.Span("Measured records", className="fw-semibold"), html.Ul(items)]
                    if items else [], id=ids.MEASUREMENT_LIST, className="small mb-2")


def uploader(owner: str | None, study_id: int | None = None) -> html.Div:
    """The study's measured records, the upload box and its message (no box for a viewer
    who may not edit)."""
    if not may_edit(owner):
        return listing(study_id)
    return html.Div([
        listing(study_id),
        dcc.Upload(id=ids.MEASUREMENT_UPLOAD, multiple=False, children=html.Div(
            ["Drop a measured record (CSV: time_s or crank_deg, then series columns) or ",
             html.A("choose a file")]),
            className="border rounded p-2 text-muted small mb-2", style={"cursor": "pointer"}),
        html.Div(id=ids.MEASUREMENT_MESSAGE),
    ])


def store(study_id: int, contents: str, filename: str) -> tuple[str, str]:
    """(message, Bootstrap colour) after parsing and storing an uploaded file."""
    from gapsweep.study.measurements import MAX_BYTES
    from gapsweep.study.upload import decode_data_url

    name = (filename or "")[:200]
    try:
        raw = decode_data_url(contents, name or "upload", max_bytes=MAX_BYTES,
                              what="CSV file", readable="a UTF-8 CSV file")
        entry = actions.archive(principal()).add_measurement(study_id, raw, name=name)
    except SpecError as exc:
        return "Not stored: " + "; ".join(str(e) for e in exc.errors), "danger"
    except (actions.ForbiddenError, actions.UnknownIdError) as exc:
        return str(exc), "danger"
    return (f"Measurement {entry['id']} stored: {entry['n_samples']} samples of "
            f"{', '.join(entry['series'])} on {entry['time_base']}"), "success"


callbacks = PageCallbacks()  # wired by the page: register_callbacks()
register_callbacks = callbacks.register


@callbacks(
    Output(ids.MEASUREMENT_MESSAGE, "children"),
    Output(ids.MEASUREMENT_LIST, "children"),
    Input(ids.MEASUREMENT_UPLOAD, "contents"),
    State(ids.MEASUREMENT_UPLOAD, "filename"),
    State(ids.STUDY_ID_STORE, "data"),
    prevent_initial_call=True,
)
def upload(contents: Any, filename: Any, study_id: Any):
    if not contents or study_id is None:
        return no_update, no_update
    text, colour = store(int(study_id), str(contents), str(filename or ""))
    return (dbc.Alert(text, color=colour, className="py-1 small"),
            listing(int(study_id)).children)
