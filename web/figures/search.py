"""An adaptive study's figures (design.md 4.9): the best cost so far per generation, each
parameter's trace, the calibration's overlay of the best case on the measurement (time and
spectrum) and each fitted parameter's cost profile. Pure: data in, ``go.Figure`` out.

Inputs are what ``show --json`` carries: ``search["history"]`` =
``[{"stage", "generation", "best_cost", "best_params"}]`` in order, and the cases.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import plotly.graph_objects as go

from .labels import parameter_label, series_label, with_unit
from .style import color, new_figure

BEST_NAME = "best so far"
MEASURED_NAME = "measured"
SIMULATED_NAME = "best case"


def _finite(x: Any) -> float | None:
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        return None
    return float(x) if math.isfinite(x) else None


def cost_history(history: Sequence[Mapping[str, Any]], cost_label: str) -> go.Figure:
    """The best cost so far after each generation (x: generation, counted over the stages;
    one line per stage, their costs differ)."""
    fig = new_figure("Best cost so far", "Generation [–]", cost_label)
    stages = sorted({int(h.get("stage", 0)) for h in history})
    for k in stages:
        points = [(i, _finite(h.get("best_cost"))) for i, h in enumerate(history)
                  if int(h.get("stage", 0)) == k]
        fig.add_trace(go.Scatter(
            x=[i for i, _ in points], y=[c for _, c in points], mode="lines+markers",
            name=BEST_NAME if len(stages) == 1 else f"{BEST_NAME}, stage {k + 1}",
            line={"color": color(k), "shape": "hv"}))
    fig.update_yaxes(type="log" if all((_finite(h.get("best_cost")) or 0) > 0
                                       for h in history) and history else "linear")
    return fig


def parameter_traces(history: Sequence[Mapping[str, Any]], axes: Sequence[str]) -> go.Figure:
    """Each parameter of the best case so far against the generation (one subplot per
    parameter, each in its unit)."""
    from plotly.subplots import make_subplots

    fig = make_subplots(rows=max(1, len(axes)), cols=1, shared_xaxes=True,
                        subplot_titles=[parameter_label(a) for a in axes])
    for i, name in enumerate(axes):
        fig.add_trace(go.Scatter(
            x=list(range(len(history))),
            y=[(h.get("best_params") or {}).get(name) for h in history],
            mode="lines+markers", name=parameter_label(name), line={"color": color(i),
                                                                    "shape": "hv"}),
            row=i + 1, col=1)
        fig.update_yaxes(title_text=parameter_label(name), row=i + 1, col=1)
    fig.update_xaxes(title_text="Generation [–]", row=max(1, len(axes)), col=1)
    fig.update_layout(title={"text": "Parameters of the best case per generation"},
                      height=220 * max(1, len(axes)) + 80, showlegend=False)
    return fig


def measurement_overlay(
    t_measured: Sequence[float], measured: Sequence[float], t_simulated: Sequence[float],
    simulated: Sequence[float], series: str, errors: Mapping[str, Any] | None = None,
) -> go.Figure:
    """The measured record and the best case's series against time [ms], with the error
    figures in the subtitle."""
    subtitle = None
    if errors:
        subtitle = (f"peak error {100 * errors['peak_error']:+.1f} %, RMS error "
                    f"{errors['rms_error']:.4g}, correlation {errors['correlation']:.3f}")
    fig = new_figure(f"{series_label(series).split(' [')[0]}: best case on the measurement",
                     "Time [ms]", series_label(series), subtitle=subtitle)
    fig.add_trace(go.Scatter(x=(np.asarray(t_measured) * 1e3).tolist(), y=list(measured),
                             mode="lines", name=MEASURED_NAME, line={"color": "#444"}))
    fig.add_trace(go.Scatter(x=(np.asarray(t_simulated) * 1e3).tolist(), y=list(simulated),
                             mode="lines", name=SIMULATED_NAME, line={"color": color(0)}))
    return fig


def spectrum_overlay(
    t_measured: Sequence[float], measured: Sequence[float], t_simulated: Sequence[float],
    simulated: Sequence[float], series: str,
) -> go.Figure:
    """Amplitude spectra (Hann window) of the measured record and of the best case on the
    measurement's samples."""
    from gapsweep.core.spectra import amplitude_spectrum

    t_m, y_m = np.asarray(t_measured, float), np.asarray(measured, float)
    y_s = np.interp(t_m, np.asarray(t_simulated, float), np.asarray(simulated, float))
    fig = new_figure("Spectra: best case and measurement", "Frequency [Hz]",
                     with_unit("Amplitude", series_label(series).split("[")[-1].rstrip("]")))
    for name, y, c in ((MEASURED_NAME, y_m, "#444"), (SIMULATED_NAME, y_s, color(0))):
        spec = amplitude_spectrum(t_m, y, window="hann")
        fig.add_trace(go.Scatter(x=spec.frequency_hz.tolist(), y=spec.amplitude.tolist(),
                                 mode="lines", name=name, line={"color": c}))
    return fig


def cost_profiles(
    cases: Sequence[Mapping[str, Any]], axes: Sequence[str], metric: str, label: str,
) -> go.Figure:
    """Each fitted parameter's cost profile (identifiability): every done case's cost
    against the parameter, and the lower envelope (the least cost found per bin of the
    parameter: a sharp, deep minimum = well identified, a flat floor = not)."""
    from plotly.subplots import make_subplots

    fig = make_subplots(rows=1, cols=max(1, len(axes)), shared_yaxes=True,
                        subplot_titles=[parameter_label(a) for a in axes])
    costs = [_finite((c.get("metrics") or {}).get(metric)) for c in cases]
    for i, name in enumerate(axes):
        xs = [(c.get("params") or {}).get(name) for c in cases]
        pts = [(x, y) for x, y in zip(xs, costs, strict=True) if y is not None and x is not None]
        fig.add_trace(go.Scatter(x=[p[0] for p in pts], y=[p[1] for p in pts], mode="markers",
                                 name=f"cases ({name})", marker={"color": color(i), "size": 5,
                                                                 "opacity": 0.6}),
                      row=1, col=i + 1)
        ex, ey = profile_envelope([p[0] for p in pts], [p[1] for p in pts])
        fig.add_trace(go.Scatter(x=ex, y=ey, mode="lines", name=f"profile ({name})",
                                 line={"color": color(i)}), row=1, col=i + 1)
        fig.update_xaxes(title_text=parameter_label(name), row=1, col=i + 1)
    fig.update_yaxes(title_text=label, type="log", row=1, col=1)
    fig.update_layout(title={"text": "Cost profiles (identifiability)"}, showlegend=False)
    return fig


def profile_envelope(x: Sequence[float], y: Sequence[float], bins: int = 30
                     ) -> tuple[list[float], list[float]]:
    """The least ``y`` in each of ``bins`` equal bins of ``x`` (bins with no point left out)."""
    if not x:
        return [], []
    xa, ya = np.asarray(x, float), np.asarray(y, float)
    edges = np.linspace(xa.min(), xa.max(), bins + 1)
    k = np.clip(np.searchsorted(edges, xa, side="right") - 1, 0, bins - 1)
    out_x, out_y = [], []
    for b in range(bins):
        sel = k == b
        if sel.any():
            j = np.argmin(np.where(sel, ya, np.inf))
            out_x.append(float(xa[j]))
            out_y.append(float(ya[j]))
    return out_x, out_y
