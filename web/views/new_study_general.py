"""The new-study form's general card (``/studies/new``, web/pages/new_study.py): name,
description, tags, model, design, twin, series, the design's own fields (samples, seed, Morris
levels, the convergence metric, an optimize or calibrate study's objective, budget and
measurement), and their callbacks: which fields a design shows, and the metric lists the
model and its mechanism give (design.md 4.2, 4.7, 4.9)."""

from __future__ import annotations

from typing import Any

import dash_bootstrap_components as dbc
from dash import Input, Output, State, dcc
from gapsweep.core import metrics as metric_registry
from gapsweep.core.api import DESCRIBED, can, measures_of
from gapsweep.study.design_registry import FORM_DESIGNS

from .. import ids
from ..page_callbacks import PageCallbacks
from . import parameters
from .study_form import design_help, design_uses

DESIGNS = FORM_DESIGNS  # the design registry's
SERIES = (("preview", "preview (default)"), ("full", "full"), ("none", "none"))


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


def general_card(form: dict[str, Any]) -> dbc.Card:
    """The card of ``form`` (:func:`gapsweep.web.views.study_form.spec_to_form`)."""
    help_text, _, samples_help = design_help(form["design"])
    return dbc.Card(dbc.CardBody([
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


callbacks = PageCallbacks()  # wired by the page: register_callbacks()
register_callbacks = callbacks.register


@callbacks(
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


@callbacks(
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
