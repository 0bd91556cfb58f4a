"""The case page's settled-motion section (design.md 4.10): the verdict in words ("settled
after 14 revolutions, periodic-1"), the start-up and settled peaks side by side, and the
figures of :mod:`.figures.motion` - the Poincaré map of each clearance joint, the phase
portrait, the orbit coloured by time with the settled part set apart, the case's spectrum
from the settled window with the crank orders marked. Server side; the case page
(``web/pages/case.py``) places it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import dash_bootstrap_components as dbc
import plotly.graph_objects as go
from dash import dcc, html

from .. import ids
from ..figures import bifurcation, motion
from ..figures.hover import quantity
from ..figures.labels import metric_parts
from ..figures.style import GRAPH_CONFIG
from ..figures.windows import DEFAULT_SETTLED, STARTUP_PEAK
from . import figure_downloads


def spectrum_window(metrics: Mapping[str, Any], series: Mapping[str, Any]) -> str:
    """Which part of the run the stored spectrum covers, in words: the worker takes it over
    the settled window when the case has one (``spectrum_t_start`` [s], a one-value series,
    tells where it starts), else over the whole run."""
    start = series.get("spectrum_t_start")
    if start is not None and len(start):
        settled = motion.finite_number(metrics.get("settled"))
        kind = "settled window" if settled is not None and settled >= 0.5 else "window"
        return f"{kind} from t = {float(start[0]):.4g} s"
    return "whole run"


def motion_figures(
    series: Mapping[str, Any], params: Mapping[str, Any], metrics: Mapping[str, Any]
) -> dict[str, go.Figure]:
    """The section's figures by name (``poincare``, ``phase``, ``orbit_time``,
    ``spectrum``), each where its series are stored; ``params`` with the model's defaults
    filled in (c, the speed)."""
    out: dict[str, go.Figure] = {}
    joints = motion.section_joints(series)
    clearances = {j: c for j in joints if (c := motion.clearance_of(params, j)) is not None}
    period = motion.driver_period_s(series, motion.speed_rpm_of(params))
    if clearances:
        out["poincare"] = motion.poincare_figure(
            series, clearances, first=motion.window_first_revolution(metrics, params, period),
            period_s=period)
    ideal = bool(params.get("ideal"))
    for joint in ([] if ideal else motion.orbit_joints(series)):
        # one journal's figures per clearance joint: "phase", or "phase-<joint>" of a mechanism
        c = motion.clearance_of(params, joint)
        if c is None:
            continue
        one = motion.joint_series(series, joint)
        tail = f"-{joint}" if joint else ""
        out[f"phase{tail}"] = motion.phase_portrait_figure(one, c, joint)
        out[f"orbit_time{tail}"] = motion.orbit_in_time_figure(
            one, c, motion.settled_from_s(metrics, period), joint)
    if "spectrum_slider_acceleration" in series and "spectrum_freq_hz" in series:
        out["spectrum"] = motion.case_spectrum_figure(
            series, "slider_acceleration", motion.speed_rpm_of(params),
            window=spectrum_window(metrics, series))
    return out


def peaks_text(metrics: Mapping[str, Any]) -> str | None:
    """``"Peak slider acceleration: settled 20.4 km/s², start-up 187 km/s²"``; None when
    the case has neither."""
    settled = metrics.get(DEFAULT_SETTLED)
    startup = metrics.get(STARTUP_PEAK)
    parts = []
    unit = metric_parts(DEFAULT_SETTLED)[1]
    if isinstance(settled, (int, float)):
        parts.append(f"settled {quantity(float(settled), unit)}")
    if isinstance(startup, (int, float)):
        parts.append(f"start-up {quantity(float(startup), unit)}")
    return f"Peak slider acceleration: {', '.join(parts)}" if parts else None


def section(detail: Mapping[str, Any], series: Mapping[str, Any],
            params: Mapping[str, Any]) -> html.Div | None:
    """The settled-motion section of a case (None for a case with no motion metrics and no
    section: run before issue 23, or a model without a clearance joint)."""
    metrics = detail.get("metrics") or {}
    words = motion.motion_words(metrics)
    figs = motion_figures(series, params, metrics) if series else {}
    if words is None and not figs:
        return None
    lines = [html.Span(words or "no settled-motion metrics stored", id=ids.CASE_MOTION_WORDS,
                       className="fw-bold")]
    peaks = peaks_text(metrics)
    if peaks:
        lines += [html.Br(), html.Span(peaks, className="text-muted")]
    starts = motion.starts_words(metrics)
    if starts:
        lines += [html.Br(), html.Span(starts, className="text-muted")]
    flag = bifurcation.depends_on_start({"metrics": metrics})
    alert = [dbc.Alert(bifurcation.DEPENDS_ON_START[:1].upper()
                       + bifurcation.DEPENDS_ON_START[1:] + ".", color="warning",
                       className="py-2")] if flag else []
    graphs = [dbc.Col([dcc.Graph(id=f"{ids.CASE_MOTION_GRAPH}-{name}", figure=fig,
                                 config=GRAPH_CONFIG),
                       figure_downloads.tools(f"{ids.CASE_MOTION_GRAPH}-{name}",
                                              f"case-{detail.get('id')}-{name}")], lg=6)
              for name, fig in figs.items()]
    return html.Div([html.H5("Settled motion", className="mt-3"), *alert, html.P(lines),
                     dbc.Row(graphs)], id=ids.CASE_MOTION)
