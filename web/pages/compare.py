"""Compare ``/compare?cases=1,2,3``: 2-6 cases overlaid, their parameters side by side."""

from __future__ import annotations

from typing import Any

import dash
import dash_bootstrap_components as dbc
from dash import Input, Output, State, callback, dash_table, dcc, html
from gapsweep.db.models import MAX_ID
from gapsweep.web import case_view, figure_downloads, ids
from gapsweep.web.figures.compare import compare_figures
from gapsweep.web.study_results import GRAPH_CONFIG, note

dash.register_page(__name__, path="/compare", name="Compare", title="gapsweep — compare")



def content(text: str | None) -> list[Any]:
    case_ids, problem = case_view.parse_case_ids(text)
    if problem:
        return [note(f"{problem}. Select cases on a study page, or type their ids above.")]
    # an id beyond what the database holds is no case (not the database's overflow error)
    loaded = [case_view.load_case(i) if abs(i) <= MAX_ID else None for i in case_ids]
    missing = [i for i, d in zip(case_ids, loaded, strict=True) if d is None]
    if missing:
        return [note(f"cases: no case with id {', '.join(map(str, missing))}", "warning")]
    columns, rows = case_view.side_by_side([d["detail"] for d in loaded])
    out: list[Any] = [dash_table.DataTable(
        id=ids.COMPARE_PARAMS, columns=columns, data=rows,
        style_cell={"textAlign": "left", "fontSize": "0.85rem", "padding": "3px 6px"},
        style_header={"fontWeight": "bold"})]
    series = {d["detail"]["id"]: d["series"] for d in loaded if d["series"]}
    details = {d["detail"]["id"]: d["detail"] for d in loaded}
    graphs = [dbc.Col([dcc.Graph(id=f"compare-graph-{name}", figure=fig, config=GRAPH_CONFIG),
                       figure_downloads.tools(f"compare-graph-{name}", f"compare-{name}")],
                      lg=6) for name, fig in compare_figures(series, details).items()]
    return [dbc.Row(graphs, className="mb-3"), *out]


def layout(cases: str | None = None, **_query: Any) -> html.Div:
    return html.Div([
        html.H3("Compare cases"),
        dbc.InputGroup([
            dbc.InputGroupText("Case ids"),
            dbc.Input(id=ids.COMPARE_INPUT, value=cases or "", placeholder="e.g. 12, 15, 19"),
            dbc.Button("Compare", id=ids.COMPARE_GO, color="primary"),
        ], className="mb-3", style={"maxWidth": "520px"}),
        dcc.Location(id=ids.COMPARE_LOCATION, refresh="callback-nav"),
        html.Div(content(cases), id=ids.COMPARE_GRAPHS),
    ])


@callback(
    Output(ids.COMPARE_LOCATION, "search"),
    Input(ids.COMPARE_GO, "n_clicks"),
    Input(ids.COMPARE_INPUT, "n_submit"),
    State(ids.COMPARE_INPUT, "value"),
    prevent_initial_call=True,
)
def go(_n, _submit, text):
    case_ids, _ = case_view.parse_case_ids(text, lo=0, hi=10**6)
    return "?cases=" + ",".join(map(str, case_ids))
