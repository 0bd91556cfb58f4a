"""The new-study form's mechanism card (``/studies/new``, model = "mechanism", design.md
4.7): a pick of the shipped and archived mechanisms, the design variables, the drawing with
the parser's verdict, the .adm upload (design.md 4.13) and the body and joint editor; its
callbacks keep the study's ``[mechanism]`` table (the ``NEW_MECHANISM`` store), its drawing
and the axes' sweepable names in step."""

from __future__ import annotations

from typing import Any

import dash_bootstrap_components as dbc
from dash import Input, Output, State, dash_table, dcc, html, no_update
from gapsweep.core.api import DESCRIBED, can
from gapsweep.study.mechanism_library import example_mechanisms, imported_study

from .. import data, ids
from ..components import adams_upload, mechanism_editor
from ..page_callbacks import PageCallbacks
from .new_study_axes import axis_dropdowns
from .new_study_general import _field, _shown


def mechanism_library() -> dict[str, dict]:
    """The mechanisms to pick from, label -> table: the shipped examples'
    (``"<name> (example)"``), then the archive's - the tables of its mechanism studies,
    newest first, one per distinct table (``"<name> (study <id>: <study name>)"``), read
    through :mod:`gapsweep.web.data`."""
    out = example_mechanisms()
    for entry in data.study_mechanisms():
        out[f"{entry['name']} (study {entry['study_id']}: {entry['study_name']})"[:200]] = (
            entry["mechanism"])
    return out


def variable_rows(table: dict | None) -> list[dict[str, Any]]:
    """The design variables of ``table`` as the variables table's rows (the editor's)."""
    return mechanism_editor.variable_rows(table)


def with_variables(table: dict | None, rows: list[dict[str, Any]] | None) -> dict | None:
    """``table`` with its variables the table's rows (:func:`mechanism_editor.variables_of`:
    numbers where they parse, else the text as an expression of the other variables, read
    by the core's whitelisted evaluator in dependency order; its checks name what is wrong,
    an unknown name, a cycle). The rows are the whole list: one deleted is gone."""
    if not table:
        return table
    return {**table, "variables": mechanism_editor.variables_of(rows)}


def mechanism_drawing(table: dict | None) -> Any:
    """The drawing of ``table`` at driver angle 0, or an empty figure with why not."""
    import plotly.graph_objects as go
    from gapsweep.core.errors import InputError
    from gapsweep.core.mechanism.case import MechanismCase
    from gapsweep.web.figures.mechanism import mechanism_figure

    if not table:
        return go.Figure(layout={"title": {"text": "No mechanism: pick one or upload a file"}})
    try:
        return mechanism_figure(MechanismCase.from_mapping({"mechanism": table}).spec)
    except InputError as exc:  # the field, and why (an expression's cycle, an unknown name)
        why = exc.detail or exc.allowed
        return go.Figure(layout={"title": {"text": f"Not drawn: {exc.field}: {why}"[:160]}})


def mechanism_section(form: dict[str, Any]) -> dbc.Card:
    """The card of ``form``, shown for a described model only."""
    library = mechanism_library()
    return dbc.Card(dbc.CardBody([
        html.H5("Mechanism"),
        _field("Pick", dcc.Dropdown(id=ids.NEW_MECHANISM_LIBRARY, options=list(library),
                                    placeholder="a shipped mechanism or one of the archive's "
                                                "studies (or upload a study file)")),
        dash_table.DataTable(
            id=ids.NEW_MECHANISM_VARIABLES, data=variable_rows(form["mechanism"]),
            columns=[{"id": "variable", "name": "Variable", "editable": True},
                     {"id": "value", "name": "Value", "editable": True},
                     {"id": "unit", "name": "Unit", "editable": False}],
            editable=True, row_deletable=True,
            style_cell={"textAlign": "left", "fontSize": "0.85rem"}),
        dbc.Button("Add variable", id=ids.NEW_MECHANISM_ADD_VARIABLE, size="sm",
                   color="secondary", outline=True, className="mt-1"),
        dbc.FormText(" a name (letters, digits and _; its suffix gives the unit: _mm, _deg, "
                     "_kg ...) and a number or an expression of the other variables"),
        html.Div(id=ids.NEW_MECHANISM_VARIABLE_ERRORS, className="mt-1"),
        dbc.Row([
            dbc.Col(dcc.Graph(id=ids.NEW_MECHANISM_DRAWING,
                              figure=mechanism_drawing(form["mechanism"]),
                              style={"height": "380px"}), md=8),
            # the parser's verdict on the table as it stands, beside its drawing
            dbc.Col(html.Div(id=mechanism_editor.EDITOR_ERRORS), md=4),
        ]),
        # or a mechanism of the engineer's own: typed in the tables, or imported from ADAMS
        adams_upload.uploader(),
        mechanism_editor.editor(form["mechanism"]),
    ]), id=ids.NEW_MECHANISM_CARD, className="mb-3",
        style=_shown(can(form["model"], DESCRIBED)))


callbacks = PageCallbacks()  # wired by the page: register_callbacks()
register_callbacks = callbacks.register


@callbacks(
    Output(ids.NEW_MECHANISM, "data", allow_duplicate=True),
    Output(ids.NEW_MECHANISM_VARIABLES, "data", allow_duplicate=True),
    *mechanism_editor.outputs(),
    Input(ids.NEW_MECHANISM_LIBRARY, "value"),
    prevent_initial_call=True,
)
def pick_mechanism(name):
    """A mechanism picked (shipped or the archive's): it becomes the study's table, its
    variables and sections the rows."""
    table = mechanism_library().get(name) if name else None
    if table is None:
        return no_update, no_update, *[no_update] * len(mechanism_editor.outputs())
    return table, variable_rows(table), *mechanism_editor.fill(table)


@callbacks(
    Output(ids.NEW_MECHANISM, "data", allow_duplicate=True),
    Output(ids.NEW_MECHANISM_VARIABLES, "data", allow_duplicate=True),
    *mechanism_editor.outputs(),
    Output(ids.NEW_NAME, "value", allow_duplicate=True),
    Output(ids.NEW_BASE_TABLE, "data", allow_duplicate=True),
    Input(adams_upload.ADAMS_STUDY, "data"),
    State(ids.NEW_BASE_TABLE, "data"),
    prevent_initial_call=True,
)
def import_adams(text, base_rows=None):
    """An ADAMS dataset imported (design.md 4.13): its mechanism becomes the study's table
    and fills the editor, where a joint is made a clearance joint (its clearance cell) and
    then offered on the axes as ``joints.<joint>.clearance_mm``. The study file's name (the
    dataset's title line, ADAMS's rule: design.md 4.16) becomes the study's, and its base
    values (``t_end`` where the dataset gives one: no MOTION, moved from rest for a
    while) the base table's; the other base values typed stay."""
    study = imported_study(text)
    table = study.get("mechanism")
    if not table:
        return (no_update, no_update, *[no_update] * len(mechanism_editor.outputs()),
                no_update, no_update)
    base = study.get("base") or {}
    rows = [{**r, "value": base[r["name"]]} if r.get("name") in base else r
            for r in base_rows or []]
    return (table, variable_rows(table), *mechanism_editor.fill(table),
            study.get("name") or no_update, rows if base and base_rows else no_update)


@callbacks(
    Output(ids.NEW_MECHANISM, "data", allow_duplicate=True),
    Input(ids.NEW_MECHANISM_VARIABLES, "data_timestamp"),
    State(ids.NEW_MECHANISM_VARIABLES, "data"),
    State(ids.NEW_MECHANISM, "data"),
    prevent_initial_call=True,
)
def edit_variables(_stamp, rows, table):
    """A variable edited in the table: the mechanism takes it (and is redrawn)."""
    return with_variables(table, rows) if table else no_update


@callbacks(
    Output(ids.NEW_MECHANISM_VARIABLES, "data", allow_duplicate=True),
    Input(ids.NEW_MECHANISM_ADD_VARIABLE, "n_clicks"),
    State(ids.NEW_MECHANISM_VARIABLES, "data"),
    prevent_initial_call=True,
)
def add_variable(_n, rows):
    """A new, empty variable row."""
    return [*(rows or []), mechanism_editor.variable_row()]


@callbacks(
    Output(ids.NEW_MECHANISM_VARIABLE_ERRORS, "children"),
    Output(ids.NEW_MECHANISM_VARIABLES, "data", allow_duplicate=True),
    Input(ids.NEW_MECHANISM_VARIABLES, "data_timestamp"),
    State(ids.NEW_MECHANISM_VARIABLES, "data"),
    prevent_initial_call=True,
)
def check_variables(_stamp, rows):
    """What is wrong with the variables as typed (field, value, allowed), and each row's
    unit from its name (sent only when one changed: a re-render under the typing hand)."""
    from gapsweep.core.mechanism.table import unit_of

    errors = mechanism_editor.variable_errors(rows)
    message = (None if not errors else dbc.Alert(
        [html.Div(str(e), className="field-error") for e in errors],
        color="danger", className="py-1 small"))
    units = [{**r, "unit": unit_of(str(r.get("variable") or "").strip()) or "–"}
             for r in rows or []]
    return message, (units if units != (rows or []) else no_update)


@callbacks(
    Output(ids.NEW_MECHANISM_CARD, "style", allow_duplicate=True),
    Input(ids.NEW_MODEL, "value"),
    prevent_initial_call=True,
)
def mechanism_card(model):
    """The mechanism card shows for model = "mechanism" only."""
    return _shown(can(model, DESCRIBED))


@callbacks(
    Output(ids.NEW_MECHANISM_DRAWING, "figure"),
    Output(ids.NEW_AXES_TABLE, "dropdown", allow_duplicate=True),
    Output(ids.NEW_MECHANISM_CARD, "style"),
    Input(ids.NEW_MECHANISM, "data"),
    State(ids.NEW_MODEL, "value"),
    prevent_initial_call=True,
)
def show_mechanism(table, model):
    """The mechanism drawn and its sweepable names offered on the axes, for its model."""
    return (mechanism_drawing(table), axis_dropdowns(model, table),
            _shown(can(model, DESCRIBED)))
