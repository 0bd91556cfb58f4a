"""The study page's Trends tab: metric, window, log y, limit, the x and grouping choices
of the study's design, the figure (points, or bands for a large study), and a click that
opens a case or a band's level in the Cases tab."""

from __future__ import annotations

import math
from typing import Any

import dash_bootstrap_components as dbc
from dash import Input, Output, Patch, State, dcc, html, no_update

from .. import context, data, ids
from ..components import figure_downloads
from ..figures.windows import DEFAULT_WINDOW, WINDOWS
from ..page_callbacks import PageCallbacks
from . import study_results
from . import study_view as view
from .study_page_data import TAB_CASES, TAB_TRENDS, _large, load_detail, parse_id


def trends_tab(detail: dict[str, Any]) -> html.Div:
    """Metric, window, log y, and the x and grouping choices of the study's design (see
    :func:`gapsweep.web.views.study_view.trend_choices`); a click on a point opens its case."""
    choice = view.trend_choices(detail)
    metric_options, metric = view.trend_metric_choices(detail)
    return html.Div([
        dbc.Row([
            dbc.Col(dcc.Dropdown(id=ids.TRENDS_METRIC, value=metric, clearable=False,
                                 options=metric_options), md=4),
            dbc.Col(dbc.RadioItems(id=ids.TRENDS_WINDOW, value=DEFAULT_WINDOW, inline=True,
                                   options=[{"label": label, "value": key}
                                            for key, label in WINDOWS.items()]), md=5),
            dbc.Col(dbc.Checklist(id=ids.TRENDS_LOG_Y, value=[], switch=True,
                                  options=[{"label": "log y", "value": "log"}]), md=1),
            dbc.Col(dbc.Input(id=ids.TRENDS_LIMIT, type="number", step="any", debounce=True,
                              placeholder="limit (the metric's unit)", size="sm"), md=3),
        ], className="my-2 g-2", align="center"),
        dbc.Row([
            dbc.Col(dbc.Label("x", className="mb-0 small text-muted"), width="auto"),
            dbc.Col(dcc.Dropdown(id=ids.TRENDS_X, value=choice["x"], clearable=False,
                                 options=choice["x_options"]), md=4),
            dbc.Col(dbc.Label(choice["group_label"], id=ids.TRENDS_GROUP_LABEL,
                              className="mb-0 small text-muted"), width="auto"),
            dbc.Col(dcc.Dropdown(id=ids.TRENDS_GROUP, value=choice["group"], clearable=False,
                                 options=choice["group_options"]), md=4,
                    style={} if choice["group_shown"] else {"display": "none"}),
        ], className="mb-1 g-2", align="center"),
        dcc.Store(id=ids.TRENDS_AXES, data={"design": view.design_of(detail),
                                            "axes": view.axes_of(detail)}),
        html.Div("Click a point to open its case.", className="text-muted small"),
        dcc.Graph(id=ids.TRENDS_GRAPH, config=study_results.GRAPH_CONFIG),
        figure_downloads.tools(ids.TRENDS_GRAPH, "trends"),
        # a study whose cases wear: the settled peak at end of life against the new joint's
        html.Div([dcc.Graph(id=ids.TRENDS_WEAR_GRAPH, config=study_results.GRAPH_CONFIG),
                  figure_downloads.tools(ids.TRENDS_WEAR_GRAPH, "wear-life-peaks")],
                 id=ids.TRENDS_WEAR_BOX, style={"display": "none"}),
        dcc.Location(id=ids.TRENDS_OPEN_CASE, refresh=True),
    ])


callbacks = PageCallbacks()  # wired by the page: register_callbacks()
register_callbacks = callbacks.register


@callbacks(
    Output(ids.TRENDS_WEAR_GRAPH, "figure"),
    Output(ids.TRENDS_WEAR_BOX, "style"),
    Input(ids.STUDY_TABS, "active_tab"),
    Input(ids.STUDY_VERSION, "data"),
    Input(ids.TRENDS_X, "value"),
    State(ids.STUDY_ID_STORE, "data"),
)
def wear_peaks(tab, _version, x_axis, study_id):
    """The worn cases' settled peak at end of life and new (design.md 4.12), over the x
    axis of the trends; hidden for a study whose cases do not wear."""
    from gapsweep.web.figures.wear import PEAK_END, PEAK_NEW, wear_peaks_figure

    if tab != TAB_TRENDS or not isinstance(x_axis, str) or _large(study_id):
        return no_update, no_update
    detail = load_detail(study_id, (PEAK_NEW, PEAK_END))
    fig = None if detail is None else wear_peaks_figure(detail.get("cases") or [], x_axis)
    if fig is None:
        return {}, {"display": "none"}
    return fig, {}


@callbacks(
    Output(ids.TRENDS_GRAPH, "figure"),
    Input(ids.STUDY_TABS, "active_tab"),
    Input(ids.STUDY_VERSION, "data"),
    Input(ids.TRENDS_METRIC, "value"),
    Input(ids.TRENDS_WINDOW, "value"),
    Input(ids.TRENDS_LOG_Y, "value"),
    Input(ids.TRENDS_X, "value"),
    Input(ids.TRENDS_GROUP, "value"),
    Input(ids.TRENDS_LIMIT, "value"),
    State(ids.TRENDS_AXES, "data"),
    State(ids.STUDY_ID_STORE, "data"),
)
def trends(tab, _version, metric, window, log_y, x_axis, group_axis, limit, shape, study_id):
    if tab != TAB_TRENDS or not x_axis:
        return no_update
    panels = isinstance(shape, dict) and shape.get("design") == "one-at-a-time"
    if context.triggered_id() == ids.TRENDS_LOG_Y and not panels:
        # the data did not change: patch the axis (the panels' several axes are redrawn)
        patch = Patch()
        kind = "log" if "log" in (log_y or []) else "linear"
        patch["layout"]["yaxis"]["type"] = kind
        return patch
    limit = float(limit) if isinstance(limit, (int, float)) and not isinstance(limit, bool) \
        and math.isfinite(limit) else None
    if _large(study_id) and isinstance(metric, str) and isinstance(x_axis, str):
        # a night's study: the columns drawn, not the cases (issue 41.2)
        summary = data.study_summary(parse_id(study_id))
        fig = None if summary is None else study_results.large_trends(
            summary, metric=metric, x_axis=x_axis, group_axis=group_axis,
            window=window or DEFAULT_WINDOW, log_y="log" in (log_y or []), limit=limit)
        if fig is not None:
            return fig
    detail = load_detail(study_id, (metric,))
    if detail is None:
        return no_update
    return study_results.trends(detail, metric=metric, x_axis=x_axis,
                                group_axis=group_axis, window=window,
                                log_y="log" in (log_y or []), limit=limit)


@callbacks(
    Output(ids.TRENDS_GROUP, "value"),
    Input(ids.TRENDS_X, "value"),
    State(ids.TRENDS_GROUP, "value"),
    State(ids.TRENDS_AXES, "data"),
    prevent_initial_call=True,
)
def follow_x(x_axis, group_axis, shape):
    """The grouping control shows what is drawn: x set to the grouped axis moves the
    grouping to another axis (the figure would otherwise draw one line per that axis while
    the control still named x's)."""
    axes = (shape or {}).get("axes") or [] if isinstance(shape, dict) else []
    chosen = view.group_for(axes, x_axis, group_axis)
    return no_update if chosen == group_axis else chosen


@callbacks(
    Output(ids.TRENDS_OPEN_CASE, "href"),
    Input(ids.TRENDS_GRAPH, "clickData"),
    prevent_initial_call=True,
)
def open_case(click):
    """A click on a case's point opens ``/cases/<id>`` (the twin line has no case)."""
    case_id = view.clicked_case(click)
    return no_update if case_id is None else f"/cases/{case_id}"


@callbacks(
    Output(ids.STUDY_TABS, "active_tab", allow_duplicate=True),
    Output(ids.STUDY_CASE_GRID, "filterModel"),
    Input(ids.TRENDS_GRAPH, "clickData"),
    State(ids.TRENDS_X, "value"),
    prevent_initial_call=True,
)
def open_level(click, x_axis):
    """A click on a large study's band (one x level) opens the Cases tab, its grid filtered
    to that level: the exact points one click away (issue 41.2)."""
    from gapsweep.web.figures.trend_bands import clicked_level, level_filter

    span = clicked_level(click)
    if span is None or not isinstance(x_axis, str):
        return no_update, no_update
    return TAB_CASES, level_filter(x_axis, span)
