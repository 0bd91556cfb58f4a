"""One case ``/cases/<case_id>``: its figures (slider acceleration against its ideal twin,
contact force, penetration with c marked, the journal orbit inside the clearance circle, the
energy balance, driving torque, contact state), parameters, provenance, solver counters."""

from __future__ import annotations

from typing import Any

import dash
import dash_bootstrap_components as dbc
from dash import dash_table, dcc, html
from gapsweep.core.api import DESCRIBED, can
from gapsweep.db.models import MAX_ID
from gapsweep.web import ids
from gapsweep.web.components import case_motion, case_rerun, figure_downloads
from gapsweep.web.figures import case_views
from gapsweep.web.figures.labels import measuring
from gapsweep.web.views import case_measurements, case_view, parameters
from gapsweep.web.views.study_results import GRAPH_CONFIG, note

dash.register_page(__name__, path_template="/cases/<case_id>", name="Case",
                   title="gapsweep — case")
case_rerun.register_callbacks()


def _table(table_id: str, rows: list[dict], columns: list[str]) -> dash_table.DataTable:
    return dash_table.DataTable(
        id=table_id, data=rows, columns=[{"id": c, "name": c} for c in columns],
        style_cell={"textAlign": "left", "fontSize": "0.85rem", "padding": "3px 6px",
                    "whiteSpace": "normal", "height": "auto", "wordBreak": "break-word",
                    "maxWidth": "360px"},
        style_table={"overflowX": "auto"},
        style_header={"fontWeight": "bold"}, page_action="none",
    )


def figures(data: dict[str, Any]) -> list[Any]:
    """The case's graphs from ``web/figures/case_views.py`` (one dcc.Graph each)."""
    detail, series = data["detail"], data["series"]
    if not series:
        why = ("its study keeps no series (policy 'none')" if detail["series_policy"] == "none"
               else f"it is {detail['status']}")
        return [note(f"No series to show: {why}.")]
    # parameters the case leaves at the model's default (c for the orbit) included
    params = {**parameters.defaults(detail["model"]), **detail["params"]}
    figs = case_views.case_figures(series, params=params,
                                   twin_series=data["twin_series"] or None)
    animation = ([_mechanism_animation(detail["params"], series)]
                 if can(detail["model"], DESCRIBED) else [])
    return animation + [
        dbc.Col([dcc.Graph(id=f"case-graph-{name}", figure=fig, config=GRAPH_CONFIG),
                 figure_downloads.tools(f"case-graph-{name}", f"case-{detail['id']}-{name}")],
                lg=6) for name, fig in figs.items()]


def _mechanism_animation(params: dict[str, Any], series: dict[str, Any]) -> Any:
    """A described mechanism's run as an animation with its journal orbits magnified."""
    from gapsweep.core.errors import InputError
    from gapsweep.core.mechanism.case import MechanismCase
    from gapsweep.web.figures.mechanism import animation_figure

    try:
        spec = MechanismCase.from_mapping(params).spec
    except InputError as exc:  # a stored case the current code no longer reads
        return note(f"No animation: {exc}")
    fig = animation_figure(spec, series)
    return dbc.Col(dcc.Graph(id=ids.CASE_ANIMATION, figure=fig, config=GRAPH_CONFIG,
                             style={"height": "520px"}), lg=12)


def twin_words(detail: dict[str, Any]) -> list[Any]:
    """The header's words on the ideal twin: a clearance case links its twin; an ideal twin
    says whose twin it is, linking those cases; a case with neither says nothing of it."""
    if detail.get("twin_id"):
        return [" · ideal twin: ", dcc.Link(f"case {detail['twin_id']}",
                                            href=f"/cases/{detail['twin_id']}")]
    of = detail.get("twin_of") or []
    if detail["kind"] == "twin" and of:
        links: list[Any] = []
        for k, cid in enumerate(of):
            links += [", " if k else "", dcc.Link(str(cid), href=f"/cases/{cid}")]
        return [f" · this is the ideal twin (every clearance joint ideal) of "
                f"{len(of)} case{'s' if len(of) != 1 else ''}: ", *links]
    return []


def layout(case_id: str | None = None, **query: Any) -> html.Div:
    try:
        cid = int(str(case_id))
    except ValueError:
        cid = None
    if cid is not None and abs(cid) > MAX_ID:  # no case, rather than the database's overflow
        cid = None
    data = case_view.load_case(cid) if cid is not None else None
    if data is None:
        return html.Div([dbc.Alert(f"There is no case {case_id}.", color="warning"),
                         dcc.Link("Back to the archive", href="/")])
    with measuring(case_view.measures_of(data["detail"])):  # labels: the study's measures
        return _page(data, query)


def _page(data: dict[str, Any], query: dict[str, Any]) -> html.Div:
    detail = data["detail"]
    badge_color = {"done": "success", "failed": "danger", "running": "info"}.get(
        detail["status"], "secondary")
    head = html.Div([
        html.H3([f"Case {detail['id']} ", dbc.Badge(detail["status"], color=badge_color)]),
        html.P([
            "of study ", dcc.Link(f"{detail['study_id']}: {detail['study_name']}",
                                  href=f"/studies/{detail['study_id']}"),
            f" · {detail['kind']} · {detail['attempts']} attempt(s)",
            f" · {detail['wall_time_s']:.3g} s" if detail.get("wall_time_s") else "",
            *twin_words(detail),
        ], className="text-muted", id=ids.CASE_HEADER),
        dbc.Alert(f"Reason: {detail['reason']}", color="danger") if detail.get("reason") else None,
    ])
    metrics = detail.get("metrics") or {}
    tables = dbc.Row([
        dbc.Col([
            html.H5("Parameters"),
            _table(ids.CASE_PARAMS,
                   case_view.parameter_rows(detail["params"],
                                            parameters.defaults(detail["model"])),
                   ["parameter", "value", "source"]),
            html.H5("Solver counters", className="mt-3"),
            _table(ids.CASE_COUNTERS, case_view.metric_rows(metrics, counters=True),
                   ["quantity", "value"]),
        ], lg=4),
        dbc.Col([
            html.H5("Metrics"),
            _table(ids.CASE_METRICS, case_view.metric_rows(metrics, counters=False),
                   ["quantity", "value"]),
        ], lg=4),
        dbc.Col([
            html.H5("Provenance"),
            _table(ids.CASE_PROVENANCE, case_view.provenance_rows(data["provenance"]),
                   ["item", "value"]),
        ], lg=4),
    ], className="mt-3")
    # a rerun's comparison first (when asked for), the figures two to a row, the tables,
    # then the rerun form
    compared = ([case_rerun.panel(detail["id"], query["rerun"])]
                if query.get("rerun") is not None else [])
    rerun = [dcc.Store(id=ids.CASE_ID_STORE, data=detail["id"])]
    if detail["kind"] == "case":
        rerun.append(case_rerun.form(detail, parameters.defaults(detail["model"])))
    rerun.append(html.Div(id=ids.CASE_RERUN_MESSAGE, className="mt-2"))
    params = {**parameters.defaults(detail["model"]), **detail["params"]}
    motion = case_motion.section(detail, data["series"], params)
    measured = case_measurements.overlays(detail, data["series"])
    return html.Div([head, *compared, dbc.Row(figures(data), id=ids.CASE_GRAPHS), motion,
                     *measured,
                     tables, *rerun])
