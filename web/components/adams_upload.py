"""An ADAMS/Solver dataset (.adm) dropped on the new-study form (design.md 4.13): the
imported mechanism drawn before anything runs, with what was skipped, refused or reported
(a CONTACT's clearance axis), and the study file it makes.

A small self-contained component: :func:`uploader` is the drop box and its preview area;
:func:`preview` the preview of one upload (the same importer as ``gapsweep import-adams``);
the callback fills the preview and keeps the imported study text in a store the form can
read (``ADAMS_STUDY``).
"""

from __future__ import annotations

from typing import Any

import dash_bootstrap_components as dbc
from dash import Input, Output, State, dcc, html, no_update

from ..page_callbacks import PageCallbacks

ADAMS_UPLOAD = "adams-upload"
ADAMS_PREVIEW = "adams-preview"
ADAMS_STUDY = "adams-study"  # the imported study file's TOML text (None when refused)


def uploader() -> html.Div:
    """The drop box for an .adm file, its preview and the imported study's store."""
    return html.Div([
        dcc.Upload(id=ADAMS_UPLOAD, multiple=False, children=html.Div(
            ["Bring your ADAMS model: drop a dataset (.adm) or ", html.A("choose a file")]),
            className="border rounded p-2 text-muted small mb-2", style={"cursor": "pointer"}),
        html.Div(id=ADAMS_PREVIEW),
        dcc.Store(id=ADAMS_STUDY),
    ])


def _listing(title: str, items: list[str], colour: str) -> Any:
    if not items:
        return None
    return dbc.Alert([html.Strong(title), html.Ul([html.Li(i) for i in items],
                                                  className="mb-0")],
                     color=colour, className="py-1 small")


def preview(contents: str, filename: str) -> tuple[html.Div, str | None]:
    """(what the form shows, the study file's TOML or None) for one uploaded dataset."""
    from gapsweep.core.errors import InputError
    from gapsweep.core.mechanism.table import parse_table
    from gapsweep.study.adams import AdamsError, import_dataset
    from gapsweep.study.adams.study_file import study_toml
    from gapsweep.study.adams.tokenizer import MAX_BYTES
    from gapsweep.study.errors import SpecError
    from gapsweep.study.upload import decode_data_url

    name = (filename or "upload.adm")[:200]
    try:
        raw = decode_data_url(contents, name, max_bytes=MAX_BYTES, what="dataset",
                              readable="an ADAMS/Solver dataset (.adm)")
        result = import_dataset(raw, name)
    except SpecError as exc:
        return html.Div(_listing("Not imported", [str(e) for e in exc.errors], "danger")), None
    except AdamsError as exc:
        return html.Div(_listing("Not imported", [str(exc)], "danger")), None
    skipped = [str(s) for s in result.skipped]
    if result.refused:
        return html.Div([
            _listing("Not imported: what cannot be mapped", [str(r) for r in result.refused],
                     "danger"),
            _listing("Skipped (output only)", skipped, "secondary"),
        ]), None
    from ..figures.mechanism import mechanism_figure

    try:
        spec = parse_table(result.mechanism)
        figure = mechanism_figure(spec)
    except InputError as exc:
        return html.Div(_listing("Not imported", [str(exc)], "danger")), None
    contacts = [f"line {c.line}: {c.statement}: sweep joints.{c.joint}.clearance_mm (an axis "
                "commented out in the study)" if c.joint else
                f"line {c.line}: {c.statement}: no revolute joins its parts"
                for c in result.contacts]
    children = [
        html.Div(f"{result.title}: {len(spec.bodies)} bodies, {len(spec.joints)} joints, "
                 f"{len(result.supported)} statements imported", className="small mb-1"),
        dcc.Graph(figure=figure, config={"displayModeBar": False}, style={"height": "320px"}),
        _listing("Contacts (not imported)", contacts, "warning"),
        _listing("Skipped (output only)", skipped, "secondary"),
    ]
    return html.Div([c for c in children if c is not None]), study_toml(result, name)


callbacks = PageCallbacks()  # wired by the page: register_callbacks()
register_callbacks = callbacks.register


@callbacks(
    Output(ADAMS_PREVIEW, "children"),
    Output(ADAMS_STUDY, "data"),
    Input(ADAMS_UPLOAD, "contents"),
    State(ADAMS_UPLOAD, "filename"),
    prevent_initial_call=True,
)
def upload(contents: Any, filename: Any):
    if not contents:
        return no_update, no_update
    return preview(str(contents), str(filename or ""))
