"""A study ``/studies/<study_id>``: live progress (polling the database), cancel and retry,
and its results in tabs (cases, trends, sensitivity, spectra, convergence, parallel
coordinates when it has more than two axes; variation for a monte-carlo study, a response
surface when it has numeric axes: :mod:`gapsweep.web.views.tolerance_views`). Figures come
from ``web/figures``; the data from ``gapsweep.db``; the shaping from
:mod:`gapsweep.web.views.study_view`."""

from __future__ import annotations

import math
from datetime import datetime, timezone
from typing import Any

import dash
import dash_bootstrap_components as dbc
from dash import Input, Output, Patch, State, callback, dcc, html, no_update
from gapsweep.db.models import MAX_ID
from gapsweep.study.design_registry import DEFAULT_DESIGN, get_design
from gapsweep.web import actions, context, data, ids
from gapsweep.web.auth import principal
from gapsweep.web.components import (
    case_grid,
    figure_downloads,
    measurement_upload,
    study_motion,
    study_notes,
)
from gapsweep.web.figures import trend_bands
from gapsweep.web.figures.windows import DEFAULT_WINDOW, WINDOWS
from gapsweep.web.views import study_results, tolerance_views
from gapsweep.web.views import study_view as view

dash.register_page(__name__, path_template="/studies/<study_id>", name="Study",
                   title="gapsweep — study")
study_notes.register_callbacks()
case_grid.register_callbacks()

POLL_MS = 1500
TAB_CASES, TAB_TRENDS, TAB_SENSITIVITY = "cases", "trends", "sensitivity"
TAB_SPECTRA, TAB_CONVERGENCE, TAB_PARALLEL = "spectra", "convergence", "parallel"
TAB_SEARCH = "search"  # optimize / calibrate (web/views/search_view.py)


def parse_id(value: Any) -> int | None:
    """A study id from the path or the page's store (the browser's to send: anything)."""
    try:
        study_id = int(str(value))
    except (TypeError, ValueError):
        return None
    return study_id if -MAX_ID <= study_id <= MAX_ID else None


MEMO_SIZE = 8  # study details kept per process (a 1,000-case detail is ~0.5 MB)
#: up to this many cases the tabs read the whole detail (every metric, attempts, reasons);
#: above it, the study's table by columns: the metric columns and the metrics a tab asks
#: for (:func:`gapsweep.db.case_pages.study_table`; issue 41.2: the JSON of 100,000 cases'
#: other metrics is not decoded for a figure of one)
WHOLE_UP_TO = 5_000


def load_detail(study_id: int | None, metrics: tuple[str, ...] = ()
                ) -> dict[str, Any] | None:
    """The study's detail (``show --json``), memoised on its progress fingerprint: a tab
    switch or a figure option on a study whose cases did not move costs two small queries,
    not the whole detail (about 0.1 s for 1,000 cases). Past :data:`WHOLE_UP_TO` cases,
    its table by columns with ``metrics`` (and their windows) beside the metric columns."""
    study_id = parse_id(study_id)
    state = load_progress(study_id)
    if state is None:
        return None
    whole = state["counts"]["total"] <= WHOLE_UP_TO
    wanted = () if whole else windowed(metrics)
    key = (study_id, *fingerprint(state), state["analysed"], wanted)
    memo = context.current().memo
    if key in memo:
        return memo[key]
    detail = (data.study_detail(study_id) if whole
              else data.study_table(study_id, metrics=list(wanted)))
    if detail is not None:
        stale = [k for k in list(memo) if k[0] == study_id]  # its earlier states
        oldest = list(memo)[: max(0, len(memo) - MEMO_SIZE + 1)]
        for old in stale + oldest:
            memo.pop(old, None)
        memo[key] = detail
    return detail


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


def load_progress(study_id: int | None) -> dict[str, Any] | None:
    """What the poll needs, cheaply (:func:`gapsweep.web.data.study_state`); None for an
    unknown or deleted study."""
    return data.study_state(parse_id(study_id))


def progress_state(state: dict[str, Any]) -> dict[str, Any]:
    """The progress card's values from :func:`load_progress` (or a study detail)."""
    progress, status = state["counts"], state["status"]
    percent, label = view.progress_bar(progress)
    finished = status in view.FINISHED
    return {
        "status": status, "percent": percent, "label": label, "animated": not finished,
        "counts": view.counts_text(progress),
        "eta": view.eta_text(view.eta_seconds(progress, state.get("started")), status),
        # Retry: off unless something failed that a retry queues again (a failed twin too)
        "finished": finished,
        "no_retry": not retryable(state),
    }


def retryable(state: dict[str, Any]) -> int:
    """Failed cases a retry would queue again (design cases and twins), from
    :func:`load_progress` or a study detail."""
    if "retryable" in state:
        return int(state["retryable"])
    twins = sum(t.get("status") == "failed" for t in state.get("twins") or [])
    return int(state["counts"].get("failed") or 0) + twins


def cancel_look(status: str) -> tuple[str, str]:
    """The Cancel button's (text, colour): red while it can still cancel, grey and saying
    so once the study is cancelled (a red button there reads as an action still open)."""
    return ("Cancelled", "secondary") if status == "cancelled" else ("Cancel", "danger")


def cancel_question(state: dict[str, Any] | None) -> str:
    """What the confirmation asks before a cancel, with what it stops."""
    c = (state or {}).get("counts") or {}
    queued, running = int(c.get("queued") or 0), int(c.get("running") or 0)
    return (f"Cancel this study? Its {queued} queued cases will not run; the {running} "
            "running ones finish their chunk. Cancelled cases do not run again (Retry runs failed "
            "cases; Clone makes a new study).")


def progress_card(detail: dict[str, Any]) -> dbc.Card:
    now = progress_state(detail)
    return dbc.Card(dbc.CardBody([
        dbc.Row([
            dbc.Col(html.H5(now["status"], id=ids.STUDY_STATUS, className="mb-0"),
                    width="auto"),
            dbc.Col(dbc.Progress(id=ids.STUDY_PROGRESS, value=now["percent"],
                                 label=now["label"], striped=True, animated=now["animated"],
                                 style={"height": "1.4rem"}), className="pt-1"),
            dbc.Col([
                dbc.Button(cancel_look(now["status"])[0], id=ids.STUDY_CANCEL,
                           color=cancel_look(now["status"])[1], outline=True,
                           size="sm", className="me-2", disabled=now["finished"]),
                dcc.ConfirmDialog(id=ids.STUDY_CANCEL_CONFIRM),
                dbc.Button("Retry failed", id=ids.STUDY_RETRY, color="warning", outline=True,
                           size="sm", disabled=now["no_retry"]),
            ], width="auto"),
        ], align="center"),
        html.Div([html.Span(now["counts"], id=ids.STUDY_COUNTS), html.Span(" · "),
                  html.Span(now["eta"], id=ids.STUDY_ETA)], className="mt-2 text-muted"),
        html.Div(id=ids.STUDY_ACTION_MESSAGE, className="mt-2"),
    ]), className="mb-3")


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
        dcc.Location(id=ids.TRENDS_OPEN_CASE, refresh=True),
    ])


def metric_picker(cid: str, detail: dict[str, Any]) -> dcc.Dropdown:
    """The study's headline metrics, its model's default first chosen (a mechanism's own)."""
    options, value = view.metric_choices(detail)
    return dcc.Dropdown(id=cid, value=value, clearable=False, options=options,
                        className="my-2")


def load_summary(study_id: int | None) -> dict[str, Any] | None:
    """The study without its cases (the page's frame; the case grid pages them itself, the
    tabs read the detail when opened): fast whatever the study's size."""
    return data.study_summary(study_id)


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


def fingerprint(detail: dict[str, Any]) -> list[Any]:
    """What changes when the page must redraw: the status, the case counts and the
    certificates' counts (they run after the study is done)."""
    certs = certificate_counts(detail)
    return [detail["status"], *[detail["counts"].get(s, 0) for s in view.CASE_STATUSES],
            *[certs.get(s, 0) for s in view.CASE_STATUSES]]


#: how long after a study finished the page waits for its certificates to be queued [s]
CERTIFICATE_WAIT_S = 60.0


def certificate_counts(state: dict[str, Any]) -> dict[str, int]:
    """Certificate counts by status, from :func:`load_progress` or a study detail."""
    if "certificate_counts" in state:
        return dict(state["certificate_counts"])
    out: dict[str, int] = {}
    for cert in state.get("certificates") or []:
        out[cert["status"]] = out.get(cert["status"], 0) + 1
    return out


def keep_polling(state: dict[str, Any], now: datetime | None = None) -> bool:
    """Whether the page still has something to wait for: a case, or a certificate, queued
    or running - or a study finished moments ago whose certificates are being queued
    (``CERTIFICATE_WAIT_S``)."""
    from gapsweep.study.certificates import NO_CERTIFICATES

    if state["status"] not in view.FINISHED:
        return True
    certs = certificate_counts(state)
    if certs.get("queued", 0) + certs.get("running", 0):
        return True
    design = state.get("design") or (state.get("spec") or {}).get("design", DEFAULT_DESIGN)
    if (state["status"] != "done" or sum(certs.values()) or design in NO_CERTIFICATES
            or not state["counts"].get("done")):
        return False
    finished = view.as_time(state.get("finished"))
    now = now or datetime.now(timezone.utc)
    return finished is not None and (now - finished).total_seconds() < CERTIFICATE_WAIT_S


@callback(
    Output(ids.STUDY_STATUS, "children"),
    Output(ids.STUDY_PROGRESS, "value"),
    Output(ids.STUDY_PROGRESS, "label"),
    Output(ids.STUDY_PROGRESS, "animated"),
    Output(ids.STUDY_COUNTS, "children"),
    Output(ids.STUDY_ETA, "children"),
    Output(ids.STUDY_POLL, "disabled"),
    Output(ids.STUDY_VERSION, "data"),
    Output(ids.STUDY_CANCEL, "disabled"),
    Output(ids.STUDY_RETRY, "disabled"),
    Output(ids.STUDY_CANCEL, "children"),
    Output(ids.STUDY_CANCEL, "color"),
    Input(ids.STUDY_POLL, "n_intervals"),
    State(ids.STUDY_ID_STORE, "data"),
    State(ids.STUDY_VERSION, "data"),
    prevent_initial_call=True,  # the layout was filled from the database a moment ago
)
def poll(_n, study_id, version):
    """Progress from the case counts; when a count moved, the new version makes the case
    grid ask again for its rows and the open figure redraw."""
    state = load_progress(study_id)
    if state is None:
        return ("deleted", 0, "", False, "", "", True, version, True, True, "Cancel", "danger")
    now, current = progress_state(state), fingerprint(state)
    return (now["status"], now["percent"], now["label"], now["animated"], now["counts"],
            now["eta"], not keep_polling(state), current, now["finished"], now["no_retry"],
            *cancel_look(now["status"]))


@callback(
    Output(ids.STUDY_CANCEL_CONFIRM, "displayed"),
    Output(ids.STUDY_CANCEL_CONFIRM, "message"),
    Input(ids.STUDY_CANCEL, "n_clicks"),
    State(ids.STUDY_ID_STORE, "data"),
    prevent_initial_call=True,
)
def ask_cancel(_n, study_id):
    """A cancel cannot be undone: the button asks first (the dialog's OK cancels)."""
    study_id = parse_id(study_id)
    return True, cancel_question(load_progress(study_id) if study_id is not None else None)


@callback(
    Output(ids.STUDY_ACTION_MESSAGE, "children"),
    Output(ids.STUDY_POLL, "disabled", allow_duplicate=True),
    Input(ids.STUDY_CANCEL_CONFIRM, "submit_n_clicks"),
    Input(ids.STUDY_RETRY, "n_clicks"),
    State(ids.STUDY_ID_STORE, "data"),
    prevent_initial_call=True,
)
def act(_cancel, _retry, study_id):
    study_id = parse_id(study_id)
    gone = dbc.Alert("This study no longer exists.", color="warning"), True
    if study_id is None:
        return gone
    try:
        if context.triggered_id() == ids.STUDY_CANCEL_CONFIRM:
            n = actions.archive(principal()).cancel(study_id)["cancelled"]
            text = f"Cancelled {n} queued cases; running ones finish their chunk."
        else:
            n = actions.archive(principal()).retry(study_id)["retried"]
            text = f"Queued {n} failed cases again."
    except actions.UnknownIdError:
        return gone
    except actions.ForbiddenError as exc:
        return dbc.Alert(f"Not allowed: {exc}.", color="danger"), no_update
    return dbc.Alert(text, color="info", dismissable=True, className="py-2"), False


@callback(
    Output(ids.STUDY_DOWNLOAD, "data"),
    Input(ids.STUDY_DOWNLOAD_SPEC, "n_clicks"),
    State(ids.STUDY_ID_STORE, "data"),
    prevent_initial_call=True,
)
def download_spec(_n, study_id):
    from gapsweep.study.spec import dumps_toml, parse_spec

    detail = load_detail(study_id)
    if detail is None:
        return no_update
    return dcc.send_string(dumps_toml(parse_spec(detail["spec"])), f"study-{detail['id']}.toml")


@callback(
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


@callback(
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


@callback(
    Output(ids.TRENDS_OPEN_CASE, "href"),
    Input(ids.TRENDS_GRAPH, "clickData"),
    prevent_initial_call=True,
)
def open_case(click):
    """A click on a case's point opens ``/cases/<id>`` (the twin line has no case)."""
    case_id = view.clicked_case(click)
    return no_update if case_id is None else f"/cases/{case_id}"


def windowed(metrics: tuple[str, ...]) -> tuple[str, ...]:
    """``metrics`` (a ratio's without its prefix) and each one's windowed names, sorted."""
    from gapsweep.core import metrics as registry
    from gapsweep.web.figures.windows import WINDOWS, windowed_metric

    out = set()
    for metric in metrics:
        if not isinstance(metric, str):
            continue
        base = metric.removeprefix(registry.RATIO)
        out.add(base)
        out.update(windowed_metric(base, w)[0] for w in WINDOWS)
    return tuple(sorted(out))


@callback(
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


def _large(study_id: Any) -> bool:
    """Whether the study has more cases than Trends draws as points: its tabs then read the
    columns they draw (:data:`.figures.trend_bands.POINT_LIMIT`)."""
    state = load_progress(study_id)
    return state is not None and state["counts"]["total"] > trend_bands.POINT_LIMIT


def _when_open(tab, wanted, study_id, render, metrics: tuple[str, ...] = ()):
    """``render(detail)`` while tab ``wanted`` is the open one; a closed tab costs no query."""
    if tab != wanted:
        return no_update
    detail = load_detail(study_id, metrics)
    return no_update if detail is None else render(detail)


@callback(
    Output(ids.SENSITIVITY_CONTENT, "children"),
    Input(ids.STUDY_TABS, "active_tab"),
    Input(ids.STUDY_VERSION, "data"),
    Input(ids.SENSITIVITY_METRIC, "value"),
    State(ids.STUDY_ID_STORE, "data"),
)
def sensitivity(tab, _version, metric, study_id):
    if tab == TAB_SENSITIVITY and _large(study_id):  # a grid's ANOVA from its columns
        summary = data.study_summary(parse_id(study_id))
        content = None if summary is None else study_results.large_sensitivity(summary, metric)
        if content is not None:
            return content
    return _when_open(tab, TAB_SENSITIVITY, study_id,
                      lambda d: study_results.sensitivity(d, metric), (metric,))


@callback(
    Output(ids.SPECTRA_GRAPH, "children"),
    Input(ids.STUDY_TABS, "active_tab"),
    Input(ids.STUDY_VERSION, "data"),
    Input(ids.SPECTRA_SIGNAL, "value"),
    Input(ids.SPECTRA_VIEW, "value"),
    Input(ids.SPECTRA_LOG_X, "value"),
    Input(ids.SPECTRA_LOG_Y, "value"),
    Input(ids.SPECTRA_CASES, "value"),
    State(ids.STUDY_ID_STORE, "data"),
)
def spectra(tab, _version, signal, kind, log_x, log_y, chosen, study_id):
    picked = [i for i in chosen or [] if isinstance(i, int) and not isinstance(i, bool)]
    return _when_open(tab, TAB_SPECTRA, study_id,
                      lambda d: study_results.spectra(
                          d, signal, kind, isinstance(log_x, list) and "log" in log_x,
                          isinstance(log_y, list) and "log" in log_y, picked))


@callback(
    Output(ids.SPECTRA_CASES, "options"),
    Input(ids.STUDY_TABS, "active_tab"),
    Input(ids.STUDY_VERSION, "data"),
    State(ids.STUDY_ID_STORE, "data"),
)
def spectra_choices(tab, _version, study_id):
    return _when_open(tab, TAB_SPECTRA, study_id, study_results.spectra_choices)


@callback(
    Output(ids.CONVERGENCE_CONTENT, "children"),
    Input(ids.STUDY_TABS, "active_tab"),
    Input(ids.STUDY_VERSION, "data"),
    State(ids.STUDY_ID_STORE, "data"),
)
def convergence(tab, _version, study_id):
    return _when_open(tab, TAB_CONVERGENCE, study_id, study_results.convergence)


@callback(
    Output(ids.SEARCH_CONTENT, "children"),
    Input(ids.STUDY_TABS, "active_tab"),
    Input(ids.STUDY_VERSION, "data"),
    State(ids.STUDY_ID_STORE, "data"),
)
def search(tab, _version, study_id):
    from gapsweep.web.views.search_view import search_content

    return _when_open(tab, TAB_SEARCH, study_id, search_content)


@callback(
    Output(ids.PARALLEL_GRAPH, "figure"),
    Input(ids.STUDY_TABS, "active_tab"),
    Input(ids.STUDY_VERSION, "data"),
    Input(ids.PARALLEL_METRIC, "value"),
    State(ids.STUDY_ID_STORE, "data"),
)
def parallel(tab, _version, metric, study_id):
    return _when_open(tab, TAB_PARALLEL, study_id,
                      lambda d: study_results.parallel(d, metric), (metric,))
