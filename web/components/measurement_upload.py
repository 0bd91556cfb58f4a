"""A study page's upload of a measured record (design.md 4.9): the same parser and store as
``gapsweep measured add`` and ``POST /api/studies/<id>/measurements`` (a bad file is refused
with its field errors, nothing stored); for a viewer who may edit the study."""

from __future__ import annotations

from typing import Any

import dash_bootstrap_components as dbc
from dash import Input, Output, State, callback, dcc, html, no_update
from gapsweep.study.errors import SpecError

from .. import actions, ids
from ..auth import principal
from .study_notes import may_edit


def uploader(owner: str | None) -> html.Div:
    """The upload box and its message (nothing for a viewer who may not edit)."""
    if not may_edit(owner):
        return html.Div()
    return html.Div([
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


@callback(
    Output(ids.MEASUREMENT_MESSAGE, "children"),
    Input(ids.MEASUREMENT_UPLOAD, "contents"),
    State(ids.MEASUREMENT_UPLOAD, "filename"),
    State(ids.STUDY_ID_STORE, "data"),
    prevent_initial_call=True,
)
def upload(contents: Any, filename: Any, study_id: Any):
    if not contents or study_id is None:
        return no_update
    text, colour = store(int(study_id), str(contents), str(filename or ""))
    return dbc.Alert(text, color=colour, className="py-1 small")
