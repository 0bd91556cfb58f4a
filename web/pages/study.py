"""A study ``/studies/<study_id>``: live progress (polling the database), cancel and retry,
and its results in tabs (cases, trends, sensitivity, spectra, convergence, parallel
coordinates when it has more than two axes; variation for a monte-carlo study, a response
surface when it has numeric axes: :mod:`gapsweep.web.views.tolerance_views`). Figures come
from ``web/figures``; the data from ``gapsweep.db``; the shaping from
:mod:`gapsweep.web.views.study_view`."""

from __future__ import annotations

from typing import Any

import dash
import dash_bootstrap_components as dbc
from dash import Patch, dcc, html, no_update
from gapsweep.study.design_registry import get_design
from gapsweep.web import context, ids
from gapsweep.web.auth import principal
from gapsweep.web.components import (
    case_grid,
    figure_downloads,
    measurement_upload,
    study_motion,
    study_notes,
)
from gapsweep.web.views import study_progress, study_result_tabs, study_trends_tab, tolerance_views
from gapsweep.web.views import study_view as view
from gapsweep.web.views.study_page_data import (
    CERTIFICATE_WAIT_S,
    MEMO_SIZE,
    TAB_CASES,
    TAB_CONVERGENCE,
    TAB_PARALLEL,
    TAB_SEARCH,
    TAB_SENSITIVITY,
    TAB_SPECTRA,
    TAB_TRENDS,
    WHOLE_UP_TO,
    certificate_counts,
    fingerprint,
    keep_polling,
    load_detail,
    load_progress,
    load_summary,
    parse_id,
    windowed,
)
from gapsweep.web.views.study_progress import (
    act,
    ask_cancel,
    cancel_look,
    cancel_question,
    download_spec,
    poll,
    progress_card,
    progress_state,
    retryable,
)
from gapsweep.web.views.study_result_tabs import (
    convergence,
    metric_picker,
    parallel,
    search,
    sensitivity,
    spectra,
    spectra_choices,
)
from gapsweep.web.views.study_trends_tab import (
    follow_x,
    open_case,
    open_level,
    trends,
    trends_tab,
)

# the page is its sections' (web/views/study_*.py): their functions and callbacks stay
# reachable here, where scripts and tests have always found them
__all__ = [
    "CERTIFICATE_WAIT_S", "MEMO_SIZE", "Patch", "TAB_TRENDS", "WHOLE_UP_TO", "act",
    "ask_cancel", "cancel_look", "cancel_question", "certificate_counts", "context",
    "convergence", "download_spec", "follow_x", "load_progress", "no_update", "open_case",
    "open_level", "parallel", "poll", "progress_state", "retryable", "search", "sensitivity",
    "spectra", "spectra_choices", "trends", "windowed",
]

dash.register_page(__name__, path_template="/studies/<study_id>", name="Study",
                   title="gapsweep — study")
study_notes.register_callbacks()
case_grid.register_callbacks()
# the sections' own callbacks (web/page_callbacks.py: wired here, once per app)
for _section in (study_progress, study_result_tabs, study_trends_tab, measurement_upload):
    _section.register_callbacks()

POLL_MS = 1500


study_motion.register_callbacks(load_detail)
tolerance_views.register_callbacks(load_detail)


def not_found(text: str) -> html.Div:
    return html.Div([dbc.Alert(text, color="warning"), dcc.Link("Back to the archive", href="/")])


def header(detail: dict[str, Any]) -> html.Div:
    spec = detail.get("spec") or {}
    badges = [dbc.Badge(detail["model"], color="info", className="me-1"),
              dbc.Badge(view.design_of(detail), color="secondary", className="me-1")]
    study_id = detail["id"]
    notes = {"description": detail.get("description") or "",
             "tags": list(detail.get("tags") or []), "owner": detail.get("owner")}
    return html.Div([
        html.H3([f"Study {study_id}: ", detail["name"]]),
        html.Div([html.Span(badges), html.Span(study_notes.tag_badges(notes["tags"]),
                                               id=ids.STUDY_TAGS)], className="mb-1"),
        html.P(notes["description"], id=ids.STUDY_DESCRIPTION, className="text-muted mb-2"),
        settings_card(spec),
        html.P(f"Owner: {view.owner_text(detail.get('owner'), principal().via != 'local')}",
               id=ids.STUDY_OWNER, className="small text-muted mb-2"),
        study_notes.editor(study_id, notes),
        html.Div(id=ids.STUDY_NOTES_MESSAGE),
        measurement_upload.uploader(notes["owner"], study_id),
        html.Div([
            dbc.Button("Clone", id=ids.STUDY_CLONE, href=f"/studies/new?from={study_id}",
                       size="sm", color="primary", outline=True, className="me-2"),
            dbc.Button("Cases CSV", href=f"/api/studies/{study_id}/cases.csv",
                       external_link=True, size="sm", color="secondary", outline=True,
                       className="me-1"),
            dbc.Button("its units", href=f"/api/studies/{study_id}/cases.units.csv",
                       external_link=True, size="sm", color="link", className="me-2"),
            dbc.Button("Study file (TOML)", id=ids.STUDY_DOWNLOAD_SPEC, size="sm",
                       color="secondary", outline=True, className="me-2"),
            dbc.Button("JSON", href=f"/api/studies/{study_id}", external_link=True,
                       target="_blank", size="sm", color="secondary", outline=True),
            dcc.Download(id=ids.STUDY_DOWNLOAD),
        ], className="mb-3"),
    ])


def settings_card(spec: dict[str, Any]) -> html.Div:
    """What the study held fixed (its base parameters; everything else at the model's
    defaults, listed on each case's page) and what it varied (its axes), at the top."""
    base, axes = view.setting_lines(spec)
    return html.Div([
        html.Div([html.Strong("Fixed: "),
                  html.Span(" · ".join(base) or "every parameter at the model's default",
                            id=ids.STUDY_BASE)], className="small"),
        html.Div([html.Strong("Varied: "), html.Span(" · ".join(axes), id=ids.STUDY_AXES)],
                 className="small mb-2"),
    ])


def cases_tab(detail: dict[str, Any]) -> html.Div:
    """The case grid (web/components/case_grid.py: sorted, filtered and paged on the server)."""
    return html.Div([
        html.Div([
            dbc.Button("Compare selected", id=ids.STUDY_COMPARE_LINK, href="/compare",
                       disabled=True, size="sm", color="primary", outline=True),
            dbc.FormText(" tick 2–6 cases", className="ms-2"),
            dbc.Checklist(id=ids.STUDY_CASE_GRID_MORE, value=[], switch=True, inline=True,
                          className="ms-4 d-inline-block", options=[
                              {"label": "more columns: attempts, reason, time",
                               "value": "more"}]),
        ], className="my-2"),
        case_grid.grid(detail),
        *case_grid.stores(detail),
    ])


def layout(study_id: str | None = None, **_query: Any) -> html.Div:
    sid = parse_id(study_id)
    detail = load_summary(sid)
    if detail is None:
        return not_found(f"There is no study {study_id}.")
    axes = view.axes_of(detail)
    spectrum_options, spectrum_signal = view.spectrum_choices(detail)
    tabs = [
        dbc.Tab(cases_tab(detail), label="Cases", tab_id=TAB_CASES),
        dbc.Tab(trends_tab(detail), label="Trends", tab_id=TAB_TRENDS),
        dbc.Tab(html.Div([metric_picker(ids.SENSITIVITY_METRIC, detail),
                          html.Div(id=ids.SENSITIVITY_CONTENT),
                          figure_downloads.tools(ids.SENSITIVITY_CONTENT, "sensitivity")]),
                label="Sensitivity", tab_id=TAB_SENSITIVITY),
        dbc.Tab(html.Div([
            dbc.RadioItems(id=ids.SPECTRA_SIGNAL, value=spectrum_signal, inline=True,
                           className="my-2", options=spectrum_options),
            dbc.Row([
                dbc.Col(dbc.RadioItems(id=ids.SPECTRA_VIEW, value="overlay", inline=True,
                                       options=[{"label": "overlay", "value": "overlay"},
                                                {"label": "waterfall", "value": "waterfall"}]),
                        width="auto"),
                dbc.Col(dbc.Checklist(id=ids.SPECTRA_LOG_X, value=[], switch=True, options=[
                    {"label": "log x (the whole spectrum)", "value": "log"}]), width="auto"),
                dbc.Col(dbc.Checklist(id=ids.SPECTRA_LOG_Y, value=[], switch=True, options=[
                    {"label": "log y (overlay)", "value": "log"}]), width="auto"),
            ]),
            dcc.Dropdown(id=ids.SPECTRA_CASES, multi=True, value=[], className="my-2",
                         placeholder="cases to draw (empty: the automatic choice)"),
            html.Div(id=ids.SPECTRA_GRAPH),
            figure_downloads.tools(ids.SPECTRA_GRAPH, "spectra"),
        ]), label="Spectra", tab_id=TAB_SPECTRA),
        dbc.Tab(study_motion.tab(detail), label="Motion", tab_id=study_motion.TAB_MOTION),
        dbc.Tab(html.Div([html.Div(id=ids.CONVERGENCE_CONTENT),
                          figure_downloads.tools(ids.CONVERGENCE_CONTENT, "convergence")]),
                label="Convergence",
                tab_id=TAB_CONVERGENCE),
    ]
    if tolerance_views.is_variation(detail):
        tabs.insert(1, dbc.Tab(tolerance_views.variation_tab(detail), label="Variation",
                               tab_id=tolerance_views.TAB_VARIATION))
    if tolerance_views.has_numeric_axes(detail):
        tabs.append(dbc.Tab(tolerance_views.surface_tab(detail), label="Response surface",
                            tab_id=tolerance_views.TAB_SURFACE))
    if len(axes) > 2:
        tabs.append(dbc.Tab(html.Div([metric_picker(ids.PARALLEL_METRIC, detail),
                                      dcc.Graph(id=ids.PARALLEL_GRAPH),
                                      figure_downloads.tools(ids.PARALLEL_GRAPH, "parallel")]),
                            label="Parallel coordinates", tab_id=TAB_PARALLEL))
    adaptive = get_design(view.design_of(detail)).adaptive
    if adaptive:
        tabs.insert(0, dbc.Tab(html.Div(id=ids.SEARCH_CONTENT), label="Search",
                               tab_id=TAB_SEARCH))
    return html.Div([
        dcc.Store(id=ids.STUDY_ID_STORE, data=sid),
        # the table in the layout is current: the first poll need not send it again
        dcc.Store(id=ids.STUDY_VERSION, data=fingerprint(detail)),
        dcc.Interval(id=ids.STUDY_POLL, interval=POLL_MS, disabled=not keep_polling(detail)),
        header(detail),
        progress_card(detail),
        html.Div(id=ids.STUDY_START_FLAG),
        dbc.Tabs(tabs, id=ids.STUDY_TABS, active_tab=TAB_SEARCH if adaptive else TAB_CASES),
    ])


