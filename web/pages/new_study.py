"""New study ``/studies/new``: the study file as a form (design.md 4.2).

Every change re-validates the whole form through :func:`gapsweep.study.spec.parse_spec`
and plans it, so the messages are the file's and the API's, and the case count and the
estimated solver time are the ones ``gapsweep study validate`` prints. Submit re-validates on
the server and creates the study exactly as ``POST /api/studies`` does.
"""

from __future__ import annotations

import re
from typing import Any

import dash
import dash_bootstrap_components as dbc
import flask
from dash import (
    Input,
    Output,
    State,
    callback,
    clientside_callback,
    dash_table,
    dcc,
    html,
    no_update,
)
from gapsweep.accounts.roles import Action, may
from gapsweep.core import metrics as metric_registry
from gapsweep.core.api import DEFAULT_MODEL, DESCRIBED, NAMED_JOINTS, can, measures_of
from gapsweep.core.iso286 import fit_names
from gapsweep.study.design_registry import FORM_DESIGNS
from gapsweep.study.errors import FieldError, SpecError
from gapsweep.study.upload import MAX_UPLOAD_BYTES, read_upload
from gapsweep.web import actions, data, ids
from gapsweep.web.auth import principal
from gapsweep.web.components import adams_upload, mechanism_editor
from gapsweep.web.figures.labels import parameter_label
from gapsweep.web.views import parameters
from gapsweep.web.views.study_form import (
    AXIS_COLUMNS,
    AXIS_FORMS,
    BASE_VALUE_TINT,
    FORM_VALUES,
    PRESET,
    axes_from_rows,
    base_from_rows,
    base_overridden,
    design_help,
    design_uses,
    error_cells,
    fit_limits_text,
    form_to_spec,
    spec_to_form,
)

dash.register_page(__name__, path="/studies/new", name="New study",
                   title="gapsweep — new study", order=1)

DESIGNS = FORM_DESIGNS  # the design registry's
SERIES = (("preview", "preview (default)"), ("full", "full"), ("none", "none"))

# The active and selected cells in the form's tables: a quiet blue (Dash's default is red,
# which reads as an error; red is kept for the cells an error names).
SELECTED_CELL = [
    {"if": {"state": "active"}, "backgroundColor": "rgba(13, 110, 253, 0.08)",
     "border": "1px solid #0d6efd"},
    {"if": {"state": "selected"}, "backgroundColor": "rgba(13, 110, 253, 0.08)",
     "border": "1px solid #0d6efd"},
]

# the form's fields, in form_to_spec's keyword names
FIELDS = (
    ("name", ids.NEW_NAME, "value"),
    ("description", ids.NEW_DESCRIPTION, "value"),
    ("tags", ids.NEW_TAGS, "value"),
    ("model", ids.NEW_MODEL, "value"),
    ("design", ids.NEW_DESIGN, "value"),
    ("ideal_twin", ids.NEW_IDEAL_TWIN, "value"),
    ("series", ids.NEW_SERIES, "value"),
    ("samples", ids.NEW_SAMPLES, "value"),
    ("seed", ids.NEW_SEED, "value"),
    ("morris_levels", ids.NEW_MORRIS_LEVELS, "value"),
    ("metric", ids.NEW_METRIC, "value"),
    ("mechanism", ids.NEW_MECHANISM, "data"),
    ("objective", ids.NEW_OBJECTIVE, "value"),
    ("goal", ids.NEW_GOAL, "value"),
    ("target", ids.NEW_TARGET, "value"),
    ("budget", ids.NEW_BUDGET, "value"),
    ("measurement", ids.NEW_MEASUREMENT, "value"),
    ("measurement_file", ids.NEW_MEASUREMENT_FILE, "data"),
    ("fit_series", ids.NEW_FIT_SERIES, "value"),
    ("base_rows", ids.NEW_BASE_TABLE, "data"),
    ("axis_rows", ids.NEW_AXES_TABLE, "data"),
)
FORM_INPUTS = [Input(cid, prop) for _, cid, prop in FIELDS]
FORM_STATES = [State(cid, prop) for _, cid, prop in FIELDS]
FORM_OUTPUTS = [Output(cid, prop) for _, cid, prop in FIELDS]


def form_kwargs(values: tuple[Any, ...]) -> dict[str, Any]:
    return {key: value for (key, _, _), value in zip(FIELDS, values, strict=True)}


# a clearance joint's own metrics, offered per joint when a mechanism has several
JOINT_METRICS = ("peak_contact_force", "max_penetration", "impacts")


def metric_names(model: str | None = None, mechanism: dict | None = None) -> list[str]:
    """The metrics a convergence study follows or an optimize study's objective reads: the
    study's headline metrics from the model registry (a described mechanism's measures'
    settled peaks and its contact figures, never the slider's; a built-in model's
    headline ones), then its trend metrics (whole-run peaks, RMS), and a mechanism's clearance
    joints' own contact figures when it has several (design.md 4.7)."""
    measures = measures_of(model, mechanism)
    # the trends' metrics besides (whole-run peaks, RMS); a ratio to the ideal twin needs one
    names = [*measures.headline, *(n for n in measures.trend
                                   if not n.startswith(metric_registry.RATIO))]
    joints = [j for j in measures.joints if j]
    if can(model, DESCRIBED) and len(joints) > 1:
        names += [metric_registry.per_joint(m, j) for j in joints for m in JOINT_METRICS]
    return list(dict.fromkeys(names))


def metric_options(model: str | None = None, mechanism: dict | None = None,
                   value: str | None = None) -> list[dict[str, str]]:
    """:func:`metric_names` as dropdown options (name and title); ``value``, a metric set
    already (an uploaded file's) that the list lacks, is kept at the end."""
    measures = measures_of(model, mechanism)
    names = metric_names(model, mechanism)
    if value and value not in names:
        names.append(value)
    return [{"label": f"{n} — {measures.metric(n).title}", "value": n} for n in names]


def axis_dropdowns(model: str, mechanism: dict | None = None) -> dict[str, Any]:
    """The axes table's dropdowns. Parameters are listed by name in alphabetical order, so a
    name comes before the longer names it begins (typing "friction" and Enter picks
    ``friction``, not ``friction_law``), each with its label; a described mechanism's are its
    sweepable names with their units (design.md 4.7)."""
    names = sorted(parameters.defaults(model))
    options = [{"label": f"{n} — {parameter_label(n)}", "value": n} for n in names]
    if can(model, NAMED_JOINTS):
        options = [{"label": f"{n} [{u}]" if u else n, "value": n}
                   for n, u in mechanism_names(mechanism).items()]
    return {
        "parameter": {"options": options, "clearable": False},
        "form": {"options": [{"label": f, "value": f} for f in AXIS_FORMS], "clearable": False},
        # the fit picker of an ISO 286 fit row: type to filter, the limits show below the table
        "fit": {"options": [{"label": f, "value": f} for f in fit_names()]},
    }


def mechanism_names(table: dict | None) -> dict[str, str]:
    """A mechanism's sweepable names with units; {} while there is none or it is refused."""
    from gapsweep.core.errors import InputError
    from gapsweep.core.mechanism.case import sweepable_names

    if not table:
        return {}
    try:
        return sweepable_names(table)
    except (InputError, TypeError, ValueError):
        return {}


def mechanism_library() -> dict[str, dict]:
    """The mechanisms to pick from, label -> table: the shipped examples'
    (``"<name> (example)"``), then the archive's - the tables of its mechanism studies,
    newest first, one per distinct table (``"<name> (study <id>: <study name>)"``), read
    through :mod:`gapsweep.web.data`."""
    from gapsweep.study.examples import example_files
    from gapsweep.study.spec import tomllib  # the Python 3.10 shim

    out = {}
    for name, path in example_files().items():
        with open(path, "rb") as f:
            table = tomllib.load(f).get("mechanism")
        if table:
            out[f"{table.get('name', name)} (example)"] = table
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


def _field(label: str, control: Any, help_text: str | None = None,
           row_id: str | None = None, shown: bool = True, help_id: str | None = None) -> dbc.Row:
    children = [control]
    if help_text is not None:
        children.append(dbc.FormText(help_text, **({"id": help_id} if help_id else {})))
    return dbc.Row([dbc.Label(label, width=3), dbc.Col(children, width=9)], className="mb-2",
                   style=_shown(shown), **({"id": row_id} if row_id else {}))


# the design-dependent fields' rows (the design registry's fields): shown only for the designs
# using them
DESIGN_ROWS = (("samples", ids.NEW_SAMPLES_ROW), ("seed", ids.NEW_SEED_ROW),
               ("morris_levels", ids.NEW_MORRIS_LEVELS_ROW), ("metric", ids.NEW_METRIC_ROW),
               ("objective", ids.NEW_OBJECTIVE_ROW), ("budget", ids.NEW_BUDGET_ROW),
               ("measurement", ids.NEW_MEASUREMENT_ROW), ("fit_series", ids.NEW_FIT_SERIES_ROW))


def _shown(shown: bool) -> dict[str, str]:
    return {} if shown else {"display": "none"}


def adaptive_rows(form: dict[str, Any]) -> list[Any]:
    """An optimize or calibrate study's own fields (design.md 4.9), shown for those designs."""
    goals = [{"label": g, "value": g} for g in ("min", "max", "target")]
    record = form.get("measurement_file") or {}
    carried = (f"the uploaded study's own record ({record.get('file') or 'embedded'})"
               if record else "the id of a stored measurement (the study page's upload, or "
               "gapsweep measured add)")
    return [
        _field("Objective", dbc.Row([
            dbc.Col(dcc.Dropdown(id=ids.NEW_OBJECTIVE, options=metric_options(
                form.get("model"), form.get("mechanism"), form.get("objective")),
                                 value=form.get("objective"), placeholder="metric"), md=6),
            dbc.Col(dbc.RadioItems(id=ids.NEW_GOAL, value=form.get("goal") or "min",
                                   inline=True, options=goals), md=4),
            dbc.Col(dbc.Input(id=ids.NEW_TARGET, type="number", step="any",
                              value=form.get("target"), placeholder="target"), md=2),
        ], className="g-2"), "optimize: the metric to minimise, maximise or bring to a target",
            ids.NEW_OBJECTIVE_ROW, design_uses("objective", form["design"])),
        _field("Budget", dbc.Input(id=ids.NEW_BUDGET, type="number", min=10, step=1,
                                   value=form.get("budget")),
               "at most this many cases (10 to 100000); the search may stop sooner",
               ids.NEW_BUDGET_ROW, design_uses("budget", form["design"])),
        _field("Measurement", dbc.Input(id=ids.NEW_MEASUREMENT, type="number", min=1, step=1,
                                        value=form.get("measurement"),
                                        placeholder="stored measurement id"),
               f"calibrate: {carried}", ids.NEW_MEASUREMENT_ROW,
               design_uses("measurement", form["design"])),
        _field("Fitted series", dbc.Input(id=ids.NEW_FIT_SERIES, value=form.get("fit_series"),
                                          placeholder="slider_acceleration"),
               "calibrate: the measured series fitted (a case's series name, or a measure's "
               "for a mechanism)", ids.NEW_FIT_SERIES_ROW,
               design_uses("fit_series", form["design"])),
        dcc.Store(id=ids.NEW_MEASUREMENT_FILE, data=form.get("measurement_file")),
    ]


def role_notice() -> Any:
    """A viewer may look at the form (and download a study file) but not submit it; the
    submit callback refuses it on the server either way."""
    who = flask.g.get("principal")
    if who is None or may(who, Action.CREATE):
        return None
    return dbc.Alert(f"You are signed in as {who.name} ({who.role}): you can fill in the form "
                     "and download the study file, but only an editor or an admin can submit "
                     "it.", color="warning", id=ids.NEW_ROLE_NOTICE)


def clone_source(value: Any) -> tuple[dict[str, Any] | None, Any]:
    """The spec of study ``value`` (``/studies/new?from=<id>``) with its current notes and
    tags, and a notice saying so; (None, a warning) for an id that names no live study."""
    try:
        study_id = int(str(value))
    except ValueError:
        study_id = None
    if study_id is None or abs(study_id) > data.MAX_ID:
        return None, dbc.Alert(f"from: {str(value)[:40]!r} — a study id; the form shows "
                               "the preset.", color="warning", id=ids.NEW_CLONE_NOTICE)
    source = data.study_spec(study_id)
    if source is None:
        return None, dbc.Alert(f"There is no study {study_id} to clone; the form shows "
                               "the preset.", color="warning", id=ids.NEW_CLONE_NOTICE)
    spec, name = source["spec"], source["name"]
    notice = dbc.Alert(["Cloned from ", dcc.Link(f"study {study_id}: {name}",
                                                 href=f"/studies/{study_id}"),
                        " — edit it and submit a new study."],
                       color="info", id=ids.NEW_CLONE_NOTICE)
    return spec, notice


def layout(**query: Any) -> html.Div:
    source, notice = (clone_source(query["from"]) if query.get("from") is not None
                      else (None, None))
    source = source or PRESET
    model = source.get("model", DEFAULT_MODEL)
    if model not in parameters.model_names():
        model = PRESET["model"]
    form = spec_to_form(source, parameters.parameter_rows(model))
    help_text, axes_header, samples_help = design_help(form["design"])
    general = dbc.Card(dbc.CardBody([
        _field("Name", dbc.Input(id=ids.NEW_NAME, value=form["name"], maxLength=200)),
        _field("Description", dbc.Textarea(id=ids.NEW_DESCRIPTION, value=form["description"],
                                           rows=2)),
        _field("Tags", dbc.Input(id=ids.NEW_TAGS, value=form["tags"]), "comma separated"),
        _field("Model", dcc.Dropdown(id=ids.NEW_MODEL, options=parameters.model_names(),
                                     value=form["model"], clearable=False)),
        _field("Design", dcc.Dropdown(id=ids.NEW_DESIGN, options=list(DESIGNS),
                                      value=form["design"], clearable=False),
               help_text, help_id=ids.NEW_DESIGN_HELP),
        _field("Ideal twin", dbc.Switch(id=ids.NEW_IDEAL_TWIN, value=form["ideal_twin"],
                                        label="also run the ideal-joint case of each setting")),
        _field("Series", dbc.RadioItems(id=ids.NEW_SERIES, value=form["series"], inline=True,
                                        options=[{"label": t, "value": v} for v, t in SERIES])),
        _field("Samples", dbc.Input(id=ids.NEW_SAMPLES, type="number", min=1, step=1,
                                    value=form["samples"]),
               samples_help, ids.NEW_SAMPLES_ROW, design_uses("samples", form["design"]),
               help_id=ids.NEW_SAMPLES_HELP),
        _field("Seed", dbc.Input(id=ids.NEW_SEED, type="number", min=0, step=1,
                                 value=form["seed"]), None, ids.NEW_SEED_ROW,
               design_uses("seed", form["design"])),
        _field("Morris levels", dbc.Input(id=ids.NEW_MORRIS_LEVELS, type="number", min=2,
                                          step=1, value=form["morris_levels"]),
               None, ids.NEW_MORRIS_LEVELS_ROW, design_uses("morris_levels", form["design"])),
        _field("Metric", dcc.Dropdown(id=ids.NEW_METRIC, options=metric_options(
            form["model"], form["mechanism"], form["metric"]),
                                      value=form["metric"]), "convergence: the judged metric",
               ids.NEW_METRIC_ROW, design_uses("metric", form["design"])),
        *adaptive_rows(form),
    ]), className="mb-3")
    axes = dbc.Card([
        dbc.CardHeader(axes_header, id=ids.NEW_AXES_HEADER),
        dbc.CardBody([
            dash_table.DataTable(
                id=ids.NEW_AXES_TABLE,
                columns=[{"id": c, "name": c, "editable": True,
                          **({"presentation": "dropdown"} if c in ("parameter", "form", "fit")
                             else {})}
                         for c in AXIS_COLUMNS],
                data=form["axis_rows"],
                dropdown=axis_dropdowns(form["model"], form["mechanism"]),
                editable=True,
                row_deletable=True,
                css=[{"selector": ".Select-menu-outer",  # dash-table hides the menu: show it,
                      # over the rows below (one rule: a second of the same selector
                      # replaced the first, and the menu stayed hidden)
                      "rule": "display: block !important; z-index: 1000 !important"}],
                style_data_conditional=SELECTED_CELL,
                style_cell={"textAlign": "left", "minWidth": "70px", "fontSize": "0.9rem"},
                style_cell_conditional=[
                    {"if": {"column_id": "parameter"}, "minWidth": "200px"},
                    {"if": {"column_id": "values"}, "minWidth": "220px"},
                    {"if": {"column_id": "form"}, "minWidth": "130px"},
                ],
                style_table={"overflowX": "auto"},
            ),
            dbc.Button("Add axis", id=ids.NEW_ADD_AXIS, size="sm", color="secondary",
                       outline=True, className="mt-2"),
            dbc.FormText(" values: a list (optional nominal among them); nominal ± %: "
                         "nominal, relative_percent, levels; range: start, stop, count "
                         "(optional nominal among its levels, for one-at-a-time). "
                         "Values in the parameter's unit. An axis replaces the parameter's "
                         "base value. Monte-carlo rows: normal (3σ): nominal with three_sigma "
                         "or relative_percent (3σ in %), truncated to the parameter's allowed "
                         "range; uniform: low/high or nominal/half_width; ISO 286 fit (a "
                         "clearance axis): fit (e.g. H7/g6) and diameter_mm."),
            html.Div(id=ids.NEW_FIT_LIMITS, className="mt-2 small"),
        ]),
    ], className="mb-3")
    base = dbc.Card([
        dbc.CardHeader("Base parameters (fixed for every case; empty = the default)"),
        dbc.CardBody(dash_table.DataTable(
            id=ids.NEW_BASE_TABLE,
            columns=[
                {"id": "name", "name": "Parameter", "editable": False},
                {"id": "unit", "name": "Unit", "editable": False},
                {"id": "default", "name": "Default", "editable": False},
                {"id": "value", "name": "Value", "editable": True},
            ],
            data=form["base_rows"],
            editable=True,
            filter_action="native",
            fixed_rows={"headers": True},
            style_table={"height": "360px", "overflowY": "auto"},
            style_cell={"textAlign": "left", "fontSize": "0.9rem", "minWidth": "90px"},
            style_data_conditional=[BASE_VALUE_TINT, *SELECTED_CELL],
        )),
    ], className="mb-3")
    side = dbc.Card(dbc.CardBody([
        html.H5("Study"),
        html.Div(id=ids.NEW_CASE_COUNT, className="mb-2"),
        html.Div(id=ids.NEW_NOTES),
        html.Div(id=ids.NEW_ERRORS),
        dbc.Button("Submit", id=ids.NEW_SUBMIT, color="primary", className="me-2 mt-2"),
        dbc.Button("Download study file", id=ids.NEW_DOWNLOAD_BUTTON, color="secondary",
                   outline=True, className="mt-2"),
        dcc.Download(id=ids.NEW_DOWNLOAD),
        html.Div(id=ids.NEW_SUBMIT_MESSAGE, className="mt-2"),
        html.Hr(),
        dcc.Upload(
            id=ids.NEW_UPLOAD,
            children=html.Div(["Drop a study file (.toml, .json) here or ",
                               html.A("choose one", href="#")]),
            max_size=MAX_UPLOAD_BYTES,
            accept=".toml,.json",
            multiple=False,
            className="border rounded p-3 text-center text-muted",
        ),
        html.Div(id=ids.NEW_UPLOAD_MESSAGE, className="mt-2"),
        html.Div(id=ids.NEW_URL_TIDY, hidden=True),
        dcc.Location(id=ids.NEW_REDIRECT, refresh="callback-nav"),
    ]), style={"position": "sticky", "top": "1rem"})
    library = mechanism_library()
    mechanism = dbc.Card(dbc.CardBody([
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
    return html.Div([
        html.H3("New study"),
        notice,
        role_notice(),
        dcc.Store(id=ids.NEW_MECHANISM, data=form["mechanism"]),
        dbc.Row([dbc.Col([general, mechanism, axes, base], lg=8), dbc.Col(side, lg=4)]),
    ])


@callback(
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


@callback(
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
    import tomllib

    study = tomllib.loads(text) if text else {}
    table = study.get("mechanism")
    if not table:
        return (no_update, no_update, *[no_update] * len(mechanism_editor.outputs()),
                no_update, no_update)
    base = study.get("base") or {}
    rows = [{**r, "value": base[r["name"]]} if r.get("name") in base else r
            for r in base_rows or []]
    return (table, variable_rows(table), *mechanism_editor.fill(table),
            study.get("name") or no_update, rows if base and base_rows else no_update)


@callback(
    Output(ids.NEW_MECHANISM, "data", allow_duplicate=True),
    Input(ids.NEW_MECHANISM_VARIABLES, "data_timestamp"),
    State(ids.NEW_MECHANISM_VARIABLES, "data"),
    State(ids.NEW_MECHANISM, "data"),
    prevent_initial_call=True,
)
def edit_variables(_stamp, rows, table):
    """A variable edited in the table: the mechanism takes it (and is redrawn)."""
    return with_variables(table, rows) if table else no_update


@callback(
    Output(ids.NEW_MECHANISM_VARIABLES, "data", allow_duplicate=True),
    Input(ids.NEW_MECHANISM_ADD_VARIABLE, "n_clicks"),
    State(ids.NEW_MECHANISM_VARIABLES, "data"),
    prevent_initial_call=True,
)
def add_variable(_n, rows):
    """A new, empty variable row."""
    return [*(rows or []), mechanism_editor.variable_row()]


@callback(
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


@callback(
    Output(ids.NEW_MECHANISM_CARD, "style", allow_duplicate=True),
    Input(ids.NEW_MODEL, "value"),
    prevent_initial_call=True,
)
def mechanism_card(model):
    """The mechanism card shows for model = "mechanism" only."""
    return _shown(can(model, DESCRIBED))


@callback(
    Output(ids.NEW_OBJECTIVE, "options"),
    Output(ids.NEW_METRIC, "options"),
    Input(ids.NEW_MODEL, "value"),
    Input(ids.NEW_MECHANISM, "data"),
    State(ids.NEW_OBJECTIVE, "value"),
    State(ids.NEW_METRIC, "value"),
)
def metric_lists(model, table, objective, metric):
    """The objective's and the convergence metric's lists follow the model and its
    mechanism: a mechanism's own measures and joints, not the slider's (issue 35)."""
    table = table if can(model, DESCRIBED) else None
    return metric_options(model, table, objective), metric_options(model, table, metric)


@callback(
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


def _fmt_seconds(seconds: float) -> str:
    """A solver-time estimate for a person: ``< 0.1 s``, ``340 ms``, ``4.2 s``, ``12 min``."""
    if seconds < 0.1:
        return "< 0.1 s"
    if seconds < 1:
        return f"{seconds * 1000:.0f} ms"
    if seconds < 10:
        return f"{seconds:.1f} s"
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def plan_form(form: dict[str, Any]) -> tuple[Any, Any, list[FieldError], str]:
    """Validate and plan the form once: (the StudySpec or None, its plan or None, errors,
    a one-line summary). The summary is the case count and the estimated solver time (on
    one core) when valid; a submit hands the spec and plan on as they are."""
    from gapsweep.study.designs import estimate_seconds, plan_study
    from gapsweep.study.spec import parse_spec

    data, errors = form_to_spec(**form)
    try:
        spec = parse_spec(data)
        plan = plan_study(spec)
    except SpecError as exc:
        return None, None, errors + exc.errors, "Not valid yet"
    except RecursionError:  # a hand-made request's cell of lists in lists in lists ...
        too_deep = FieldError("form", "lists nested too deeply", "numbers, text or flat lists")
        return None, None, [*errors, too_deep], "Not valid yet"
    if errors:
        return None, None, errors, "Not valid yet"
    n, twins = len(plan.cases), len(plan.twins)
    seconds = estimate_seconds(spec, n + twins)
    twin_text = f" + {twins} ideal twin{'s' if twins != 1 else ''}" if twins else ""
    return (spec, plan, [],
            f"{n} case{'s' if n != 1 else ''}{twin_text} · estimated solver time ≈ "
            f"{_fmt_seconds(seconds)}")


def check_form(form: dict[str, Any]) -> tuple[dict[str, Any] | None, list[FieldError], str]:
    """Validate and plan the form: (spec mapping or None, errors, a one-line summary)."""
    spec, _, errors, summary = plan_form(form)
    return (None if spec is None else spec.to_dict()), errors, summary


def error_list(errors: list[FieldError]) -> Any:
    if not errors:
        return None
    return dbc.Alert([html.Div(str(e), className="field-error") for e in errors],
                     color="danger", className="py-2")


def notes_of(form: dict[str, Any]) -> Any:
    """The form's notes (not errors): base values an axis replaces."""
    axes, _ = axes_from_rows(form.get("axis_rows"))
    notes = base_overridden(base_from_rows(form.get("base_rows")), axes)
    if not notes:
        return None
    return dbc.Alert([html.Div(n, className="form-note") for n in notes], color="info",
                     className="py-2")


@callback(
    Output(ids.NEW_CASE_COUNT, "children"),
    Output(ids.NEW_ERRORS, "children"),
    Output(ids.NEW_SUBMIT, "disabled"),
    Output(ids.NEW_NOTES, "children"),
    Output(ids.NEW_AXES_TABLE, "style_data_conditional"),
    Output(ids.NEW_BASE_TABLE, "style_data_conditional"),
    *FORM_INPUTS,
)
def validate(*values):
    """The case count or the errors, the notes, and the offending cells marked."""
    form = form_kwargs(values)
    _, _, errors, summary = plan_form(form)
    axes_cells, base_cells = error_cells(errors)
    return (html.Strong(summary), error_list(errors), bool(errors), notes_of(form),
            [*SELECTED_CELL, *axes_cells], [BASE_VALUE_TINT, *SELECTED_CELL, *base_cells])


@callback(
    *[Output(row_id, "style") for _, row_id in DESIGN_ROWS],
    Output(ids.NEW_DESIGN_HELP, "children"),
    Output(ids.NEW_AXES_HEADER, "children"),
    Output(ids.NEW_SAMPLES_HELP, "children"),
    Input(ids.NEW_DESIGN, "value"),
)
def design_fields(design):
    """Samples and seed for the sampling designs, Morris levels for morris, the metric for
    convergence, objective, budget, measurement and fitted series for the adaptive designs
    (the design registry's fields); hidden fields are not sent either (form_to_spec). The
    help texts follow the design."""
    design = design if isinstance(design, str) else None
    shown = tuple(_shown(design_uses(field, design)) for field, _ in DESIGN_ROWS)
    return (*shown, *design_help(design))


# After a clone the address still reads /studies/new?from=ID: a reload would clone again over
# the edits. The page replaces it in the history (no navigation, the form stays as it is).
clientside_callback(
    """function(notice) {
        if (window.location.search.indexOf("from=") >= 0) {
            window.history.replaceState(window.history.state, "", window.location.pathname);
        }
        return "";
    }""",
    Output(ids.NEW_URL_TIDY, "children"),
    Input(ids.NEW_CLONE_NOTICE, "children"),
)


@callback(
    Output(ids.NEW_BASE_TABLE, "data", allow_duplicate=True),
    Output(ids.NEW_AXES_TABLE, "dropdown"),
    Input(ids.NEW_MODEL, "value"),
    State(ids.NEW_BASE_TABLE, "data"),
    State(ids.NEW_MECHANISM, "data"),
    prevent_initial_call=True,
)
def change_model(model, rows, mechanism=None):
    """Another model: its parameters (values typed for names it shares are kept)."""
    typed = {r["name"]: r.get("value", "") for r in rows or []}
    fresh = [{**r, "value": typed.get(r["name"], "")}
             for r in parameters.parameter_rows(model)]
    return fresh, axis_dropdowns(model, mechanism)


@callback(
    Output(ids.NEW_FIT_LIMITS, "children"),
    Input(ids.NEW_AXES_TABLE, "data"),
)
def fit_limits(rows):
    """A fit row's ISO 286 limits as it is typed (web/views/study_form.py)."""
    return [html.Div(text) for text in fit_limits_text(rows)]


@callback(
    Output(ids.NEW_AXES_TABLE, "data", allow_duplicate=True),
    Input(ids.NEW_ADD_AXIS, "n_clicks"),
    State(ids.NEW_AXES_TABLE, "data"),
    prevent_initial_call=True,
)
def add_axis(_n, rows):
    return [*(rows or []), {**{c: "" for c in AXIS_COLUMNS}, "form": FORM_VALUES}]


@callback(
    Output(ids.NEW_REDIRECT, "pathname"),
    Output(ids.NEW_SUBMIT_MESSAGE, "children"),
    Input(ids.NEW_SUBMIT, "n_clicks"),
    *FORM_STATES,
    prevent_initial_call=True,
)
def submit(_n, *values):
    spec, plan, errors, _ = plan_form(form_kwargs(values))
    if spec is None:
        return no_update, error_list(errors)
    try:
        # the spec and plan the check made: a submit parses and plans once
        study_id = actions.submit(spec, plan=plan, who=principal())
    except actions.ForbiddenError as exc:
        return no_update, dbc.Alert(f"Not allowed: {exc}.", color="danger")
    except SpecError as exc:
        return no_update, error_list(exc.errors)
    return f"/studies/{study_id}", dbc.Alert(f"Study {study_id} created.", color="success")


@callback(
    Output(ids.NEW_DOWNLOAD, "data"),
    Output(ids.NEW_SUBMIT_MESSAGE, "children", allow_duplicate=True),
    Input(ids.NEW_DOWNLOAD_BUTTON, "n_clicks"),
    *FORM_STATES,
    prevent_initial_call=True,
)
def download(_n, *values):
    from gapsweep.study.spec import dumps_toml

    spec, _, errors, _ = plan_form(form_kwargs(values))
    if spec is None:
        return no_update, error_list(errors)
    slug = re.sub(r"[^A-Za-z0-9]+", "_", spec.name).strip("_").lower() or "study"
    return dcc.send_string(dumps_toml(spec), f"{slug}.toml"), None


@callback(
    *FORM_OUTPUTS,
    Output(ids.NEW_UPLOAD_MESSAGE, "children"),
    Output(ids.NEW_AXES_TABLE, "dropdown", allow_duplicate=True),
    Output(ids.NEW_MECHANISM_VARIABLES, "data", allow_duplicate=True),
    *mechanism_editor.outputs(),
    Input(ids.NEW_UPLOAD, "contents"),
    State(ids.NEW_UPLOAD, "filename"),
    prevent_initial_call=True,
)
def upload(contents, filename):
    data, errors = read_upload(contents or "", filename)
    if data is None:
        return (*[no_update] * len(FIELDS), error_list(errors), no_update, no_update,
                *[no_update] * len(mechanism_editor.outputs()))
    model = data.get("model", DEFAULT_MODEL)
    if model not in parameters.model_names():
        model = DEFAULT_MODEL
    try:
        form = spec_to_form(data, parameters.parameter_rows(model))
    except (AttributeError, TypeError, ValueError):
        # a section of the wrong shape (axes a list, base a string, ...): the form cannot show
        # it, so it stays as it was and the file's errors say what is wrong
        errors = errors or [FieldError("file", filename, "a study file the form can show")]
        return (*[no_update] * len(FIELDS), error_list(errors), no_update, no_update,
                *[no_update] * len(mechanism_editor.outputs()))
    message = (error_list(errors) if errors
               else dbc.Alert(f"Loaded {filename}.", color="success", className="py-2"))
    return (*[form[key] for key, _, _ in FIELDS], message,
            axis_dropdowns(model, form["mechanism"]), variable_rows(form["mechanism"]),
            *mechanism_editor.fill(form["mechanism"]))
