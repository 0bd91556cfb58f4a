"""The new-study form's axes card (``/studies/new``): the axes table with its dropdowns
(a model's parameters, a mechanism's sweepable names with units, the value forms and ISO 286
fits), "Add axis" and a fit row's limits (design.md 4.2, 4.7, 4.8)."""

from __future__ import annotations

from typing import Any

import dash_bootstrap_components as dbc
from dash import Input, Output, State, dash_table, html
from gapsweep.core.api import NAMED_JOINTS, can
from gapsweep.core.iso286 import fit_names

from .. import ids
from ..figures.labels import parameter_label
from ..page_callbacks import PageCallbacks
from . import parameters
from .study_form import AXIS_COLUMNS, AXIS_FORMS, FORM_VALUES, fit_limits_text

# The active and selected cells in the form's tables: a quiet blue (Dash's default is red,
# which reads as an error; red is kept for the cells an error names).
SELECTED_CELL = [
    {"if": {"state": "active"}, "backgroundColor": "rgba(13, 110, 253, 0.08)",
     "border": "1px solid #0d6efd"},
    {"if": {"state": "selected"}, "backgroundColor": "rgba(13, 110, 253, 0.08)",
     "border": "1px solid #0d6efd"},
]

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


def axes_card(form: dict[str, Any], axes_header: Any) -> dbc.Card:
    """The card of ``form``; ``axes_header`` the design's heading of its axes."""
    return dbc.Card([
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


callbacks = PageCallbacks()  # wired by the page: register_callbacks()
register_callbacks = callbacks.register


@callbacks(
    Output(ids.NEW_FIT_LIMITS, "children"),
    Input(ids.NEW_AXES_TABLE, "data"),
)
def fit_limits(rows):
    """A fit row's ISO 286 limits as it is typed (web/views/study_form.py)."""
    return [html.Div(text) for text in fit_limits_text(rows)]


@callbacks(
    Output(ids.NEW_AXES_TABLE, "data", allow_duplicate=True),
    Input(ids.NEW_ADD_AXIS, "n_clicks"),
    State(ids.NEW_AXES_TABLE, "data"),
    prevent_initial_call=True,
)
def add_axis(_n, rows):
    return [*(rows or []), {**{c: "" for c in AXIS_COLUMNS}, "form": FORM_VALUES}]
