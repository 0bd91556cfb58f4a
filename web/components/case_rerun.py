"""Rerun one case with other solver settings, from its page, and show the result beside the
stored one with the metric differences.

The rerun is a new one-case study (``rerun_spec``), submitted through
:func:`.actions.submit` like any other: it runs on the workers (which hold the compiled
kernels; the web process never compiles or runs the solver, so a page request cannot stall
for a 2.5-minute compile or a long case), it is owned, audited by its creation, kept in the
archive with its provenance, and its page is a link away. The case page then shows
``/cases/<id>?rerun=<new case id>``: the two cases' metrics side by side, polled until the
rerun is done.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import dash_bootstrap_components as dbc
from dash import Input, Output, State, callback, dcc, html, no_update
from gapsweep.core import metrics as metric_registry

from .. import actions, data, ids
from ..auth import principal
from ..figures.labels import metric_label

#: the solver settings the form offers (each checked by the spec and the core as usual)
SETTINGS = ("rtol", "integrator", "n_output", "event_location")
POLL_MS = 1000
#: metrics compared: those every case stores in a column (the headline ones, their steady
#: twins, torque, wall time; the metric registry's)
COMPARED = tuple(m.name for m in metric_registry.columns())


def choices() -> dict[str, tuple[str, ...]]:
    """The integrators and event-location methods the core offers."""
    from gapsweep.core.integrators import INTEGRATORS
    from gapsweep.core.solver import EVENTS

    return {"integrator": tuple(INTEGRATORS), "event_location": tuple(EVENTS)}


def rerun_spec(detail: Mapping[str, Any], settings: Mapping[str, Any],
               series: str = "full") -> dict[str, Any]:
    """The one-case study that reruns case ``detail`` with ``settings`` (solver options;
    blank ones, and ones equal to what the case ran with, left as they were): its parameters
    as the base, ``rtol`` as the one axis of one value (a study needs an axis), full series
    (the rerun is also the case's full-resolution view)."""
    if detail.get("kind") != "case":
        raise ValueError(f"case: {detail.get('id')} is an ideal twin — rerun one of the "
                         "clearance cases that use it")
    from ..views.parameters import defaults

    params = dict(detail.get("params") or {})
    ran_with = {**defaults(detail["model"]), **params}
    # only what differs from how the case ran: the rerun's params say what was changed
    changed = {k: v for k, v in settings.items()
               if k in SETTINGS and v not in (None, "") and v != ran_with.get(k)}
    params.update(changed)
    rtol = params.pop("rtol", ran_with.get("rtol", 1e-6))
    what = ", ".join(f"{k}={v}" for k, v in changed.items()) or "the same settings"
    return {
        "name": f"Rerun of case {detail['id']} ({what})"[:200],
        "model": detail["model"],
        "description": f"Case {detail['id']} of study {detail['study_id']} "
                       f"({detail.get('study_name', '')}) rerun with {what}.",
        "tags": ["rerun", f"case-{detail['id']}"],
        "design": "grid",
        "ideal_twin": False,
        "series": series,
        "base": params,
        "axes": {"rtol": {"values": [rtol]}},
    }


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) else None


def differences(stored: Mapping[str, Any], rerun: Mapping[str, Any]) -> list[dict[str, Any]]:
    """One row per compared metric both report: the stored and rerun values, the difference
    (rerun - stored) and the relative difference [%] (of the stored value; None at 0)."""
    rows = []
    for m in COMPARED:
        a, b = _number(stored.get(m)), _number(rerun.get(m))
        if a is None or b is None:
            continue
        rel = 100.0 * (b - a) / abs(a) if a != 0 else None
        rows.append({"metric": m, "label": metric_label(m), "stored": a, "rerun": b,
                     "difference": b - a, "relative_percent": rel})
    return rows


def form(detail: Mapping[str, Any], defaults: Mapping[str, Any]) -> dbc.Card:
    """The small form: each setting pre-filled with the value the case ran with."""
    params = {**defaults, **(detail.get("params") or {})}
    opts = choices()
    return dbc.Card([
        dbc.CardHeader("Rerun this case with other solver settings"),
        dbc.CardBody([
            dbc.Row([
                dbc.Col([dbc.Label("rtol [–]"), dbc.Input(
                    id=ids.CASE_RERUN_RTOL, type="number", value=params.get("rtol"),
                    min=1e-14, max=1e-2, step="any")], md=3),
                dbc.Col([dbc.Label("Integrator"), dbc.Select(
                    id=ids.CASE_RERUN_INTEGRATOR, options=list(opts["integrator"]),
                    value=params.get("integrator"))], md=3),
                dbc.Col([dbc.Label("Output samples n_output"), dbc.Input(
                    id=ids.CASE_RERUN_N_OUTPUT, type="number", value=params.get("n_output"),
                    min=2, step=1)], md=3),
                dbc.Col([dbc.Label("Event location"), dbc.Select(
                    id=ids.CASE_RERUN_EVENTS, options=list(opts["event_location"]),
                    value=params.get("event_location"))], md=3),
            ], className="g-2"),
            dbc.Button("Rerun", id=ids.CASE_RERUN_GO, color="primary", size="sm",
                       className="mt-2"),
            dbc.FormText(" runs on the workers as a one-case study (full series); the "
                         "result appears here beside the stored one."),
            dcc.Location(id=ids.CASE_RERUN_LOCATION, refresh="callback-nav"),
        ]),
    ], className="mt-3")


def comparison(case_id: int, rerun_id: Any) -> tuple[Any, bool]:
    """The comparison panel for ``?rerun=<id>`` and whether to keep polling."""
    try:
        rid = int(str(rerun_id))
    except ValueError:
        return dbc.Alert(f"rerun: {str(rerun_id)[:40]!r} — a case id", color="warning"), False
    stored, rerun = data.case_details([case_id, rid])
    if stored is None or rerun is None:
        return dbc.Alert(f"rerun: no case with id {rid}", color="warning"), False
    link = dcc.Link(f"case {rid}", href=f"/cases/{rid}")
    if rerun["status"] in ("queued", "running"):
        return dbc.Alert(["Rerun ", link, f" is {rerun['status']}…"], color="info"), True
    if rerun["status"] != "done":
        return dbc.Alert(["Rerun ", link, f" {rerun['status']}: {rerun.get('reason') or ''}"],
                         color="danger"), False
    settings = ", ".join(f"{k} = {rerun['params'].get(k)}" for k in SETTINGS
                         if k in rerun["params"])
    rows = differences(stored.get("metrics") or {}, rerun.get("metrics") or {})

    def show(x: float | None) -> str:
        return "—" if x is None else f"{x:.6g}"

    table = dbc.Table([
        html.Thead(html.Tr([html.Th(h) for h in (
            "Metric", f"Stored (case {case_id})", f"Rerun (case {rid})", "Difference",
            "Relative [%]")])),
        html.Tbody([html.Tr([html.Td(r["label"]), html.Td(show(r["stored"])),
                             html.Td(show(r["rerun"])), html.Td(show(r["difference"])),
                             html.Td(show(r["relative_percent"]))],
                            **{"data-metric": r["metric"]}) for r in rows]),
    ], size="sm", striped=True, id=ids.CASE_RERUN_TABLE)
    return html.Div([html.H5(["Rerun ", link, f" ({settings})"]), table]), False


def panel(case_id: int, rerun_id: Any) -> html.Div:
    content, waiting = comparison(case_id, rerun_id)
    return html.Div([
        dcc.Interval(id=ids.CASE_RERUN_POLL, interval=POLL_MS,
                     disabled=not waiting),
        dcc.Store(id=ids.CASE_RERUN_IDS, data=[case_id, str(rerun_id)]),
        html.Div(content, id=ids.CASE_RERUN_RESULT),
    ], className="mt-3")


def submit(_n, case_id, rtol, integrator, n_output, event_location):
    """Submit the rerun study; go to this case's page showing it (or say why not)."""
    from gapsweep.study.errors import SpecError

    try:
        cid = int(case_id)
        detail = data.case_detail(cid)
        if detail is None:
            raise ValueError(f"case: {case_id} — no such case")
        spec = rerun_spec(detail, {"rtol": rtol, "integrator": integrator,
                                   "n_output": n_output, "event_location": event_location})
        study_id = actions.submit(spec, who=principal())
    except actions.ForbiddenError as exc:
        return no_update, dbc.Alert(f"Not allowed: {exc}.", color="danger")
    except SpecError as exc:
        return no_update, dbc.Alert([html.Div(str(e)) for e in exc.errors], color="danger")
    except (TypeError, ValueError) as exc:
        return no_update, dbc.Alert(str(exc), color="danger")
    return f"/cases/{cid}?rerun={data.first_case_id(study_id)}", no_update


def poll(_n, pair):
    content, waiting = comparison(int(pair[0]), pair[1])
    return content, not waiting


def register_callbacks() -> None:
    """Wire the form and the poll (called by the case page module, once per app)."""
    callback(
        Output(ids.CASE_RERUN_LOCATION, "href"),
        Output(ids.CASE_RERUN_MESSAGE, "children"),
        Input(ids.CASE_RERUN_GO, "n_clicks"),
        State(ids.CASE_ID_STORE, "data"),
        State(ids.CASE_RERUN_RTOL, "value"),
        State(ids.CASE_RERUN_INTEGRATOR, "value"),
        State(ids.CASE_RERUN_N_OUTPUT, "value"),
        State(ids.CASE_RERUN_EVENTS, "value"),
        prevent_initial_call=True,
    )(submit)
    callback(
        Output(ids.CASE_RERUN_RESULT, "children"),
        Output(ids.CASE_RERUN_POLL, "disabled"),
        Input(ids.CASE_RERUN_POLL, "n_intervals"),
        State(ids.CASE_RERUN_IDS, "data"),
        prevent_initial_call=True,
    )(poll)
