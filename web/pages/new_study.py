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
from gapsweep.core.api import DEFAULT_MODEL
from gapsweep.study.errors import FieldError, SpecError
from gapsweep.study.upload import MAX_UPLOAD_BYTES, read_upload
from gapsweep.web import actions, data, ids
from gapsweep.web.auth import principal
from gapsweep.web.components import adams_upload, mechanism_editor
from gapsweep.web.views import new_study_axes, new_study_general, new_study_mechanism, parameters
from gapsweep.web.views.new_study_axes import (
    SELECTED_CELL,
    add_axis,
    axes_card,
    axis_dropdowns,
    fit_limits,
    mechanism_names,
)
from gapsweep.web.views.new_study_general import (
    DESIGN_ROWS,
    DESIGNS,
    SERIES,
    design_fields,
    general_card,
    metric_lists,
    metric_names,
    metric_options,
)
from gapsweep.web.views.new_study_mechanism import (
    add_variable,
    check_variables,
    edit_variables,
    import_adams,
    mechanism_drawing,
    mechanism_library,
    mechanism_section,
    pick_mechanism,
    show_mechanism,
    variable_rows,
    with_variables,
)
from gapsweep.web.views.study_form import (
    BASE_VALUE_TINT,
    PRESET,
    axes_from_rows,
    base_from_rows,
    base_overridden,
    design_help,
    error_cells,
    form_to_spec,
    spec_to_form,
)

# the page is its sections' (web/views/new_study_*.py): their functions and callbacks stay
# reachable here, where scripts and tests have always found them
__all__ = [
    "DESIGN_ROWS", "DESIGNS", "SERIES", "add_axis", "add_variable", "check_variables",
    "design_fields", "edit_variables", "fit_limits", "import_adams", "mechanism_drawing",
    "mechanism_library", "mechanism_names", "metric_lists", "metric_names", "metric_options",
    "pick_mechanism", "show_mechanism", "variable_rows", "with_variables",
]

dash.register_page(__name__, path="/studies/new", name="New study",
                   title="gapsweep — new study", order=1)
# the sections' own callbacks (web/page_callbacks.py: wired here, once per app)
for _section in (new_study_axes, new_study_general, new_study_mechanism, adams_upload,
                 mechanism_editor):
    _section.register_callbacks()


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
    _, axes_header, _ = design_help(form["design"])
    general = general_card(form)
    axes = axes_card(form, axes_header)
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
    mechanism = mechanism_section(form)
    return html.Div([
        html.H3("New study"),
        notice,
        role_notice(),
        dcc.Store(id=ids.NEW_MECHANISM, data=form["mechanism"]),
        dbc.Row([dbc.Col([general, mechanism, axes, base], lg=8), dbc.Col(side, lg=4)]),
    ])


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
