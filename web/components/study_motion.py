"""The study page's motion tab (design.md 4.10): the bifurcation diagram over any numeric
axis, the map of the motion class or the chaos indicator over two axes (clearance x speed),
and the flag "the settled motion depends on how the machine starts" above the tabs. The
figures come from :mod:`.figures.bifurcation`; the sections are read from the archive here.
The study page (``web/pages/study.py``) places :func:`tab` and :func:`start_flag`."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import dash_bootstrap_components as dbc
import plotly.graph_objects as go
from dash import Input, Output, State, callback, dcc, html, no_update
from gapsweep.study.case_inputs import case_inputs

from .. import context, data, ids
from ..figures import bifurcation
from ..figures.cases import DONE_STATUSES
from ..figures.labels import parameter_label
from ..figures.motion import section_joints
from ..figures.style import GRAPH_CONFIG
from ..views import study_view as view
from . import figure_downloads

TAB_MOTION = "motion"


def numeric_axes(detail: Mapping[str, Any]) -> list[str]:
    """The study's axes whose values are numbers in every case that has them (a summary
    without its cases - the page's frame - reads the spec's levels)."""
    if "cases" not in detail:
        spec_axes = (detail.get("spec") or {}).get("axes") or {}
        return [a for a in view.axes_of(detail) if _numeric_spec(spec_axes.get(a) or {})]
    out = []
    for axis in view.axes_of(detail):
        values = [(c.get("params") or {}).get(axis) for c in detail.get("cases") or []]
        values = [v for v in values if v is not None]
        if values and all(isinstance(v, (int, float)) and not isinstance(v, bool)
                          for v in values):
            out.append(axis)
    return out


def _numeric_spec(axis: Mapping[str, Any]) -> bool:
    values = [v for k, v in axis.items() if k in ("values", "nominal", "start", "stop", "low",
                                                   "high")]
    flat = [x for v in values for x in (v if isinstance(v, list) else [v])]
    return bool(flat) and all(isinstance(x, (int, float)) and not isinstance(x, bool)
                              for x in flat)


def _named(axes: Sequence[str], stem: str) -> str | None:
    """The axis that is ``stem`` (a mechanism's ``joints.<j>.clearance_mm``,
    ``driver.speed_rpm`` too)."""
    return next((a for a in axes if a.split(".")[-1] == stem), None)


def map_axes(axes: Sequence[str]) -> tuple[str | None, str | None]:
    """The class map's default axes: clearance x speed when the study has both, else the
    first two numeric axes (None where it has fewer)."""
    x = _named(axes, "clearance_mm") or (axes[0] if axes else None)
    rest = [a for a in axes if a != x]
    y = _named(rest, "speed_rpm") or (rest[0] if rest else None)
    return x, y


def load_sections(case_ids: Sequence[int]) -> dict[int, dict[str, Any]]:
    """{case id: its stored section series}; cases without one are left out."""
    return {k: v for k, v in data.sections(list(case_ids)).items() if section_joints(v)}


def _options(names: Sequence[str]) -> list[dict[str, str]]:
    return [{"label": parameter_label(a), "value": a} for a in names]


def tab(detail: Mapping[str, Any]) -> html.Div:
    """The tab's controls and empty graphs (the callbacks draw them when it is opened)."""
    axes = numeric_axes(detail)
    x, y = map_axes(axes)
    quantities = [{"label": bifurcation.quantity_label(q), "value": q}
                  for q in bifurcation.QUANTITIES]
    small = "mb-0 small text-muted"
    return html.Div([
        html.Div(id=ids.MOTION_NOTE),
        html.H5("Bifurcation diagram", className="mt-2"),
        dbc.Row([
            dbc.Col(dbc.Label("x", className=small), width="auto"),
            dbc.Col(dcc.Dropdown(id=ids.MOTION_AXIS, value=axes[0] if axes else None,
                                 clearable=False, options=_options(axes)), md=3),
            dbc.Col(dbc.Label("y", className=small), width="auto"),
            dbc.Col(dcc.Dropdown(id=ids.MOTION_QUANTITY, value="eccentricity_ratio",
                                 clearable=False, options=quantities), md=4),
            dbc.Col(dbc.Label("joint", className=small), width="auto"),
            dbc.Col(dcc.Dropdown(id=ids.MOTION_JOINT, value="", clearable=False,
                                 options=[{"label": "the clearance joint", "value": ""}]),
                    md=2),
        ], className="mb-1 g-2", align="center"),
        html.Div("Every point is the journal once per crank revolution (t = k·T) after the "
                 "transient; one dot per x is periodic-1, N dots periodic-N, a smear chaos. "
                 "Click a point to open its case.", className="text-muted small"),
        dcc.Graph(id=ids.BIFURCATION_GRAPH, config=GRAPH_CONFIG),
        figure_downloads.tools(ids.BIFURCATION_GRAPH, "bifurcation"),
        html.H5("Motion over two axes", className="mt-3"),
        dbc.Row([
            dbc.Col(dbc.Label("x", className=small), width="auto"),
            dbc.Col(dcc.Dropdown(id=ids.MOTION_MAP_X, value=x, clearable=False,
                                 options=_options(axes)), md=3),
            dbc.Col(dbc.Label("y", className=small), width="auto"),
            dbc.Col(dcc.Dropdown(id=ids.MOTION_MAP_Y, value=y, clearable=False,
                                 options=_options(axes)), md=3),
            dbc.Col(dbc.RadioItems(id=ids.MOTION_MAP_SHOW, value="motion", inline=True,
                                   options=[{"label": "motion class", "value": "motion"},
                                            {"label": "chaos indicator (0-1 test)",
                                             "value": "chaos_indicator"}]), md=4),
        ], className="mb-1 g-2", align="center"),
        dcc.Graph(id=ids.MOTION_MAP_GRAPH, config=GRAPH_CONFIG),
        figure_downloads.tools(ids.MOTION_MAP_GRAPH, "motion-map"),
        dcc.Location(id=f"{ids.BIFURCATION_GRAPH}-open", refresh=True),
    ])


def start_flag(detail: Mapping[str, Any]) -> Any:
    """The flag above the tabs where some case's settled motion depends on its start
    (nothing otherwise)."""
    text = bifurcation.start_dependence_note(detail.get("cases") or [])
    return dbc.Alert(text, color="warning", className="py-2 my-2") if text else None


def bifurcation_view(detail: Mapping[str, Any], axis: str | None, quantity: str | None,
                     joint: str | None) -> tuple[go.Figure, list[dict[str, str]], Any]:
    """The diagram, the joint choices of the study's sections, and a note (or None)."""
    done = [c for c in detail.get("cases") or [] if c.get("status") in DONE_STATUSES]
    sections = load_sections([c["id"] for c in done])
    joints = list(dict.fromkeys(j for s in sections.values() for j in section_joints(s)))
    joint_options = [{"label": j.replace("_", " ") if j else "the clearance joint",
                      "value": j} for j in joints] or [{"label": "the clearance joint",
                                                        "value": ""}]
    axes = numeric_axes(detail)
    if axis not in axes:
        axis = axes[0] if axes else None
    if quantity not in bifurcation.QUANTITIES:
        quantity = "eccentricity_ratio"
    if joint not in joints:
        joint = joints[0] if joints else ""
    note = None
    if axis is None:
        note = "The bifurcation diagram needs a numeric axis; this study has none."
    elif not sections:
        note = ("No case stores its Poincaré section yet (it runs over many revolutions "
                "with series kept; cases run before sections existed have none).")
    # each case as it ran: a joint's clearance the axes do not set is its study's table's
    spec = detail.get("spec")
    ran = [{**c, "params": case_inputs(c.get("params") or {}, spec)} for c in detail["cases"]]
    fig = (bifurcation.bifurcation_figure(ran, sections, axis=axis,
                                          quantity=quantity, joint=joint)
           if axis is not None else go.Figure())
    return fig, joint_options, (dbc.Alert(note, color="secondary", className="py-2")
                                if note else None)


def _large_summary(study_id: Any) -> dict[str, Any] | None:
    """The study's summary when it is large (its tab then reads the cases it draws, not
    every case: :mod:`..views.study_large_tabs`), else None."""
    from ..views.study_page_data import _large, parse_id

    return data.study_summary(parse_id(study_id)) if _large(study_id) else None


def register_callbacks(load_detail: Callable[[Any], Mapping[str, Any] | None]) -> None:
    """The tab's callbacks and the flag's; ``load_detail(study_id)``: the study page's
    (memoised) detail of a study, None when it is gone."""

    @callback(
        Output(ids.BIFURCATION_GRAPH, "figure"),
        Output(ids.MOTION_JOINT, "options"),
        Output(ids.MOTION_NOTE, "children"),
        Input(ids.STUDY_TABS, "active_tab"),
        Input(ids.STUDY_VERSION, "data"),
        Input(ids.MOTION_AXIS, "value"),
        Input(ids.MOTION_QUANTITY, "value"),
        Input(ids.MOTION_JOINT, "value"),
        State(ids.STUDY_ID_STORE, "data"),
    )
    def draw_bifurcation(tab_id, _version, axis, quantity, joint, study_id):
        if tab_id != TAB_MOTION:
            return no_update, no_update, no_update
        large = _large_summary(study_id)
        if large is not None:  # the sections of cases spread along the axis (issue 41)
            from ..views import study_large_tabs

            sampled = study_large_tabs.bifurcation_detail(large, axis)
            if sampled is not None:
                detail, said = sampled
                fig, joints, note = bifurcation_view(detail, axis, quantity, joint)
                return fig, joints, note or dbc.Alert(said, color="secondary", className="py-2")
        detail = load_detail(study_id)
        if detail is None:
            return no_update, no_update, no_update
        return bifurcation_view(detail, axis, quantity, joint)

    @callback(
        Output(ids.MOTION_MAP_GRAPH, "figure"),
        Input(ids.STUDY_TABS, "active_tab"),
        Input(ids.STUDY_VERSION, "data"),
        Input(ids.MOTION_MAP_X, "value"),
        Input(ids.MOTION_MAP_Y, "value"),
        Input(ids.MOTION_MAP_SHOW, "value"),
        State(ids.STUDY_ID_STORE, "data"),
    )
    def draw_map(tab_id, _version, x_axis, y_axis, show, study_id):
        if tab_id != TAB_MOTION:
            return no_update
        large = _large_summary(study_id)
        detail = large if large is not None else load_detail(study_id)
        if detail is None:
            return no_update
        axes = numeric_axes(detail)
        if x_axis not in axes or y_axis not in axes or x_axis == y_axis:
            x_axis, y_axis = map_axes(axes)
        if x_axis is None or y_axis is None:
            return go.Figure(layout={"title": {"text": "The motion map needs two numeric "
                                                       "axes; this study has fewer."}})
        show = "chaos_indicator" if show == "chaos_indicator" else "motion"
        if large is not None:  # one point per level pair and class, counted by the database
            from ..views import study_large_tabs

            cases = study_large_tabs.motion_cases(large, x_axis, y_axis, show)
        else:
            cases = detail["cases"]
        return bifurcation.motion_map_figure(cases, x_axis=x_axis, y_axis=y_axis, show=show)

    @callback(
        Output(ids.STUDY_START_FLAG, "children"),
        Input(ids.STUDY_VERSION, "data"),
        State(ids.STUDY_ID_STORE, "data"),
    )
    def flag(version, study_id):
        # a finished study only: the detail of a running one would be read at every poll
        if not isinstance(version, list) or not version or version[0] not in view.FINISHED:
            return None
        large = _large_summary(study_id)
        if large is not None:  # the flagged cases counted by the database
            from ..views import study_large_tabs

            text = study_large_tabs.start_note(large)
            return dbc.Alert(text, color="warning", className="py-2 my-2") if text else None
        detail = load_detail(study_id)
        return no_update if detail is None else start_flag(detail)

    @callback(
        Output(f"{ids.BIFURCATION_GRAPH}-open", "href"),
        Input(ids.BIFURCATION_GRAPH, "clickData"),
        Input(ids.MOTION_MAP_GRAPH, "clickData"),
        prevent_initial_call=True,
    )
    def open_case(click_bifurcation, click_map):
        click = (click_bifurcation if context.triggered_id() == ids.BIFURCATION_GRAPH
                 else click_map)
        try:
            value = click["points"][0]["customdata"][0]
        except (KeyError, IndexError, TypeError):
            return no_update
        return f"/cases/{int(value)}" if isinstance(value, (int, float)) else no_update
