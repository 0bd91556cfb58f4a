"""Compare ``/compare?cases=1,2,3``: 2-6 cases overlaid (each with its ideal twin dashed),
their parameters and headline metrics side by side with a difference column and links to
each case; ``/compare?studies=4,5``: 2-6 studies' cases on one figure and a summary table
(the archive's Compare button)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import dash
import dash_bootstrap_components as dbc
from dash import Input, Output, State, callback, dash_table, dcc, html
from gapsweep.db.models import MAX_ID
from gapsweep.web import data, ids
from gapsweep.web.components import figure_downloads
from gapsweep.web.figures.compare import compare_figures
from gapsweep.web.figures.labels import measuring, metric_display, metric_label
from gapsweep.web.figures.studies import studies_figure
from gapsweep.web.figures.trends import TREND_METRICS as _TRENDS
from gapsweep.web.figures.windows import DEFAULT_WINDOW, study_metric
from gapsweep.web.views import case_view
from gapsweep.web.views.study_results import GRAPH_CONFIG, note
from gapsweep.web.views.study_view import (
    axes_of,
    clicked_case,
    design_of,
    differing_settings,
    single_twin_metrics,
)

dash.register_page(__name__, path="/compare", name="Compare", title="gapsweep — compare")

DIFFERENCE = "difference"
# the metrics a studies' comparison offers: the trends' own (a ratio to the ideal joint needs
# each case's twin, which this figure does not pair)
STUDY_METRICS = tuple(m for m in _TRENDS if not m.startswith("ratio_to_ideal_"))


def _number(value: Any) -> bool:
    return (isinstance(value, (int, float)) and not isinstance(value, bool)
            and math.isfinite(value))


def readable(value: float, *, sign: bool = False, digits: int = 4) -> str:
    """``value`` to ``digits`` significant digits, without an exponent where a person reads
    it plainly (1e-4 to 1e7): ``74613.2`` -> ``74610``, ``1.8123e-5`` -> ``1.812e-05``."""
    rounded = float(f"{value:.{digits}g}")
    if rounded == 0 or 1e-4 <= abs(rounded) < 1e7:
        text = f"{rounded:f}".rstrip("0").rstrip(".")
    else:
        text = f"{rounded:.{digits}g}"
    return ("+" if sign and rounded >= 0 else "") + text


def difference(values: Sequence[Any]) -> str:
    """The difference column of one row, in the row's own unit (the values as shown): two
    cases -> ``B − A`` (and its percent of A); more -> ``spread max − min``; ``same`` when
    every value is equal; ``""`` for text that differs or a missing value."""
    if len({repr(v) for v in values}) == 1:
        return "same"
    if not all(_number(v) for v in values):
        return ""
    if len(values) == 2:
        a, b = values
        text = readable(b - a, sign=True)
        return text + (f" ({100 * (b - a) / abs(a):+.1f} %)" if a else "")
    return f"spread {readable(max(values) - min(values))}"


def case_table(cases: Sequence[Mapping[str, Any]]) -> tuple[list[dict], list[dict]]:
    """:func:`gapsweep.web.views.case_view.side_by_side` with a first row of links to each case
    and a last column :data:`DIFFERENCE` (see :func:`difference`; with two cases its header
    says which minus which)."""
    columns, rows = case_view.side_by_side(cases)
    columns = [{**c, "presentation": "markdown"} if c["id"] != "name" else c for c in columns]
    head = (f"difference (case {cases[1]['id']} − case {cases[0]['id']})" if len(cases) == 2
            else "difference (max − min)")
    columns.append({"id": DIFFERENCE, "name": head})
    names: dict[str, None] = {}
    for c in cases:
        names.update(dict.fromkeys(c.get("params") or {}))
    raw = [[(c.get("params") or {}).get(n) for c in cases] for n in names]
    raw.append([c.get("status") for c in cases])
    # metrics in the unit their row shows (the registry's: max_penetration in µm)
    raw += [[metric_display(m, (c.get("metrics") or {}).get(m)) for c in cases]
            for m in case_view.compared_metrics(cases)]
    out = [{"name": "open", DIFFERENCE: "",
            **{str(c["id"]): f"[case {c['id']}](/cases/{c['id']})" for c in cases}}]
    out += [{**row, DIFFERENCE: difference(values)}
            for row, values in zip(rows, raw, strict=True)]
    return columns, out


def content(text: str | None) -> list[Any]:
    case_ids, problem = case_view.parse_case_ids(text)
    if problem:
        return [note(f"{problem}. Select cases on a study page, or type their ids above.")]
    # an id beyond what the database holds is no case (not the database's overflow error)
    loaded = [case_view.load_case(i) if abs(i) <= MAX_ID else None for i in case_ids]
    missing = [i for i, d in zip(case_ids, loaded, strict=True) if d is None]
    if missing:
        return [note(f"cases: no case with id {', '.join(map(str, missing))}", "warning")]
    # labels and metrics: the first case's model's measures (a mechanism's own)
    with measuring(case_view.measures_of(loaded[0]["detail"])):
        return _compared(loaded)


def _compared(loaded: list[dict[str, Any]]) -> list[Any]:
    columns, rows = case_table([d["detail"] for d in loaded])
    out: list[Any] = [dash_table.DataTable(
        id=ids.COMPARE_PARAMS, columns=columns, data=rows,
        markdown_options={"link_target": "_self"},
        style_table={"overflowX": "auto"},
        style_cell={"textAlign": "left", "fontSize": "0.85rem", "padding": "3px 6px"},
        style_header={"fontWeight": "bold", "whiteSpace": "normal"})]
    series = {d["detail"]["id"]: d["series"] for d in loaded if d["series"]}
    details = {d["detail"]["id"]: d["detail"] for d in loaded}
    twins = {d["detail"]["twin_id"]: d["twin_series"] for d in loaded
             if d["detail"].get("twin_id") is not None and d["twin_series"]}
    graphs = [dbc.Col([dcc.Graph(id=f"compare-graph-{name}", figure=fig, config=GRAPH_CONFIG),
                       figure_downloads.tools(f"compare-graph-{name}", f"compare-{name}")],
                      lg=6)
              for name, fig in compare_figures(series, details, twin_series=twins).items()]
    return [*out, dbc.Row(graphs, className="my-3")]


# --- studies ---------------------------------------------------------------------------------


def load_studies(study_ids: Sequence[int]) -> list[dict[str, Any] | None]:
    return data.study_details(list(study_ids))


def studies_content(text: str | None) -> list[Any]:
    study_ids, problem = case_view.parse_case_ids(text)
    if problem:
        return [note(problem.replace("cases:", "studies:").replace("case ids", "study ids")
                     + ". Select 2 to 6 studies in the archive.")]
    details = load_studies(study_ids)
    missing = [i for i, d in zip(study_ids, details, strict=True) if d is None]
    if missing:
        return [note(f"studies: no study with id {', '.join(map(str, missing))}", "warning")]
    rows = [{"study": f"[{d['id']}](/studies/{d['id']})", "name": d["name"],
             "model": d["model"], "design": design_of(d),
             "axes": ", ".join(case_view.parameter_label(a) for a in (d.get("spec") or {})
                               .get("axes", {})),
             "done": f"{d['counts'].get('done', 0)} / {d['counts'].get('total', 0)}"}
            for d in details]
    differ = view_differing(details)
    table = dash_table.DataTable(
        id=ids.COMPARE_STUDIES, data=rows, markdown_options={"link_target": "_self"},
        columns=[{"id": "study", "name": "Study", "presentation": "markdown"},
                 *[{"id": k, "name": k.capitalize()} for k in
                   ("name", "model", "design", "axes", "done")]],
        style_cell={"textAlign": "left", "fontSize": "0.85rem", "padding": "3px 6px"},
        style_header={"fontWeight": "bold"})
    # the settled peak (issue 23); the whole run for studies run before settled metrics
    first, _ = study_metric([c for d in details for c in d["cases"]], "peak_slider_accel",
                            DEFAULT_WINDOW)
    first = first if first in STUDY_METRICS else STUDY_METRICS[0]
    picker = dbc.Row([
        dbc.Col(dbc.Label("Metric", className="mb-0 small text-muted"), width="auto"),
        dbc.Col(dcc.Dropdown(id=ids.COMPARE_STUDIES_METRIC, value=first,
                             clearable=False, options=[{"label": metric_label(m), "value": m}
                                                       for m in STUDY_METRICS]), md=5),
    ], className="my-2 g-2", align="center")
    return [differ, table, picker, dcc.Store(id=ids.COMPARE_STUDIES_IDS, data=study_ids),
            dcc.Graph(id=ids.COMPARE_STUDIES_GRAPH, figure=studies_graph(details, first),
                      config=GRAPH_CONFIG, className="my-3")]


def studies_graph(details: Sequence[Mapping[str, Any]], metric: str) -> Any:
    return studies_figure(details, [axes_of(d) for d in details],
                          [single_twin_metrics(d) for d in details], metric=metric)


def view_differing(details: Sequence[Mapping[str, Any]]) -> Any:
    """The table of the parameters set differently in the studies, first: what the
    comparison is about (a clone with friction 0.1 against its source shows that row)."""
    rows = differing_settings([d.get("spec") or {} for d in details])
    if not rows:
        return note("The studies set every parameter alike.")
    return html.Div([html.H5("What differs"), dash_table.DataTable(
        id=ids.COMPARE_STUDIES_DIFFER, data=rows,
        columns=[{"id": "parameter", "name": "Parameter"},
                 *[{"id": str(i), "name": f"Study {d['id']}"} for i, d in enumerate(details)]],
        style_cell={"textAlign": "left", "fontSize": "0.85rem", "padding": "3px 6px",
                    "whiteSpace": "normal", "height": "auto"},
        style_header={"fontWeight": "bold"})], className="mb-3")


@callback(
    Output(ids.COMPARE_STUDIES_GRAPH, "figure"),
    Input(ids.COMPARE_STUDIES_METRIC, "value"),
    State(ids.COMPARE_STUDIES_IDS, "data"),
    prevent_initial_call=True,
)
def studies_metric(metric, study_ids):
    """Another metric: the studies' figure redrawn (the studies read again)."""
    ids_ = [i for i in study_ids or [] if isinstance(i, int) and not isinstance(i, bool)]
    details = load_studies(ids_)
    if not details or any(d is None for d in details) or metric not in STUDY_METRICS:
        return dash.no_update
    return studies_graph(details, metric)


def layout(cases: str | None = None, studies: str | None = None, **_query: Any) -> html.Div:
    if studies is not None and not cases:
        return html.Div([html.H3("Compare studies"),
                         html.Div("Click a point to open its case.", className="text-muted small"),
                         html.Div(studies_content(studies), id=ids.COMPARE_GRAPHS),
                         dcc.Location(id=ids.COMPARE_OPEN_CASE, refresh=True)])
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


@callback(
    Output(ids.COMPARE_OPEN_CASE, "href"),
    Input(ids.COMPARE_STUDIES_GRAPH, "clickData"),
    prevent_initial_call=True,
)
def open_case(click):
    """A click on a study's case point opens ``/cases/<id>``."""
    case_id = clicked_case(click)
    return dash.no_update if case_id is None else f"/cases/{case_id}"
