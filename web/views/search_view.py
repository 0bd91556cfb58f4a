"""An adaptive study's tab (design.md 4.9): generation and best so far, the best case and
its parameters, the cost history, each parameter's trace; for a calibration the best case
on the measurement (time and spectrum) with the error figures, and the cost profiles.
Reads the detail (``show --json``) and, for a calibration, the study's measurement and the
best case's stored series; the figures are :mod:`.figures.search`'s."""

from __future__ import annotations

from typing import Any

import dash_bootstrap_components as dbc
from dash import dcc, html

from .. import data, ids
from ..figures import search as figures
from ..figures.labels import format_value, parameter_label

COST_LABELS = {
    "objective": "Objective cost [–]",
    "calibration_rms_error": "RMS error [series unit]",
}


def summary_line(search: dict[str, Any]) -> str:
    """``generation 4 · 50 of 300 cases · best cost 0.0123`` (what the progress shows)."""
    best = (search.get("best") or {}).get("cost")
    text = (f"generation {search.get('generation', 0)} · {search.get('cases', 0)} of "
            f"{search.get('budget')} cases · best cost "
            + ("–" if best is None else f"{best:.4g}"))
    if search.get("finished"):
        text += " · finished"
    elif search.get("blocked"):
        text += " · waiting: a case was lost to a crash (Retry failed continues)"
    return text


def best_table(best: dict[str, Any] | None, axes: list[str]) -> Any:
    if not best:
        return html.P("No case has finished yet.", className="text-muted")
    rows = [html.Tr([html.Td("case"), html.Td(dcc.Link(str(best["id"]),
                                                       href=f"/cases/{best['id']}"))])]
    rows += [html.Tr([html.Td(parameter_label(a)), html.Td(format_value(best["params"].get(a)),
                                                           id=f"{ids.SEARCH_BEST}-{a}")])
             for a in axes]
    rows.append(html.Tr([html.Td("cost"), html.Td(f"{best.get('cost'):.6g}"
                                                  if best.get("cost") is not None else "–")]))
    return dbc.Table(html.Tbody(rows), size="sm", bordered=False, className="w-auto")


def _measurement_and_series(detail: dict[str, Any], best: dict[str, Any], series: str):
    records = data.measured_records(detail["id"])
    if not records:
        return None
    record = records[0]["data"]
    stored = data.series_of(best["id"])
    y = stored.get(series)
    t = stored.get(f"t:{series}", stored.get("t"))
    if y is None or t is None or series not in record["series"]:
        return None
    return record, t, y


def calibration_figures(detail: dict[str, Any], axes: list[str]) -> list[Any]:
    """The overlay (time, spectrum) and the cost profiles of a calibration."""
    import numpy as np
    from gapsweep.core.api import get_model
    from gapsweep.study.search_rules import DEFAULT_FIT_SERIES
    from gapsweep.study.signal_match import align, crank_deg_to_time, match_errors

    spec = detail.get("spec") or {}
    series = spec.get("fit_series") or DEFAULT_FIT_SERIES
    out: list[Any] = [dcc.Graph(id=ids.SEARCH_PROFILES, figure=figures.cost_profiles(
        detail["cases"], axes, "calibration_rms_error", COST_LABELS["calibration_rms_error"]))]
    best = detail.get("best")
    found = _measurement_and_series(detail, best, series) if best else None
    if found is None:
        return [html.P("The overlay follows once the best case's series are stored.",
                       className="text-muted"), *out]
    record, t_sim, y_sim = found
    t_meas = np.asarray(record["time"], float)
    if record["time_base"] == "crank_deg":
        speed = get_model(detail["model"]).parse(best["params"]).speed_rpm
        t_meas = crank_deg_to_time(t_meas, speed)
    y_meas = record["series"][series]
    aligned = align(t_sim, y_sim, t_meas, y_meas)
    errors = match_errors(aligned.measured, aligned.simulated)
    return [dcc.Graph(id=ids.SEARCH_OVERLAY, figure=figures.measurement_overlay(
                t_meas, y_meas, t_sim, y_sim, series, errors)),
            dcc.Graph(id=ids.SEARCH_SPECTRUM, figure=figures.spectrum_overlay(
                t_meas, y_meas, t_sim, y_sim, series)), *out]


def search_content(detail: dict[str, Any]) -> html.Div:
    search = detail.get("search") or {}
    axes = list(search.get("axes") or (detail.get("spec") or {}).get("axes", {}))
    history = search.get("history") or []
    design = (detail.get("spec") or {}).get("design")
    label = COST_LABELS["calibration_rms_error" if design == "calibrate" else "objective"]
    parts: list[Any] = [
        html.P(summary_line(search), id=ids.SEARCH_SUMMARY, className="mt-2"),
        best_table(detail.get("best"), axes),
        dcc.Graph(id=ids.SEARCH_HISTORY, figure=figures.cost_history(
            history, "Stage cost [–]" if design == "calibrate" else label)),
        dcc.Graph(id=ids.SEARCH_TRACES, figure=figures.parameter_traces(history, axes)),
    ]
    if design == "calibrate":
        parts += calibration_figures(detail, axes)
    return html.Div(parts)
