"""The study page's progress card: status, bar, counts and ETA polled from the database,
Cancel (confirmed) and Retry, and the study file's download."""

from __future__ import annotations

from typing import Any

import dash_bootstrap_components as dbc
from dash import Input, Output, State, dcc, html, no_update

from .. import actions, context, ids
from ..auth import principal
from ..page_callbacks import PageCallbacks
from . import study_view as view
from .study_page_data import (
    fingerprint,
    keep_polling,
    load_detail,
    load_progress,
    parse_id,
)


def progress_state(state: dict[str, Any]) -> dict[str, Any]:
    """The progress card's values from :func:`load_progress` (or a study detail)."""
    progress, status = state["counts"], state["status"]
    percent, label = view.progress_bar(progress)
    finished = status in view.FINISHED
    return {
        "status": status, "percent": percent, "label": label, "animated": not finished,
        "counts": view.counts_text(progress) + steps_text(state.get("running")),
        "eta": view.eta_text(view.eta_seconds(progress, state.get("started")), status),
        # Retry: off unless something failed that a retry queues again (a failed twin too)
        "finished": finished,
        "no_retry": not retryable(state),
    }


def steps_text(running: list[dict[str, int]] | None) -> str:
    """`` · life steps k/N`` summed over the running cases that report their steps (a wear
    life's settled runs, design.md 4.12); '' when none does."""
    if not running:
        return ""
    done, total = sum(r["step"] for r in running), sum(r["steps"] for r in running)
    return f" · life steps {done}/{total}"


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


callbacks = PageCallbacks()  # wired by the page: register_callbacks()
register_callbacks = callbacks.register


@callbacks(
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


@callbacks(
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


@callbacks(
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


@callbacks(
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
