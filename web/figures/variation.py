"""Figures of a variation (Monte Carlo) study (design.md 4.8): the histogram with P5/P50/P95
and the limit, the empirical CDF with the exceedance, each factor's variance share, and the
settling of the estimates as the samples grow.

Inputs are the pure results of :mod:`gapsweep.study.variation` in the metric's stored (SI)
unit; the figures show them in the unit the metric's label names (``metric_scale``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import plotly.graph_objects as go

from .labels import metric_label, metric_scale, parameter_label
from .style import REFERENCE_COLOR, color, new_figure, vertical_markers

PERCENTILE_DASH = "dot"
LIMIT_COLOR = "#D55E00"


def histogram_figure(metric: str, hist: Mapping[str, Sequence[float]],
                     stats: Mapping[str, Any], limit: float | None = None) -> go.Figure:
    """Bars: the cases per bin (``hist``: ``edges``, ``counts``); dotted lines at P5, P50,
    P95, a solid one at the limit."""
    s = metric_scale(metric)
    edges = np.asarray(hist["edges"], dtype=float) * s
    counts = list(hist["counts"])
    n = int(stats.get("n") or sum(counts))
    fig = new_figure(f"Distribution over {n} cases", metric_label(metric), "Cases [count]",
                     subtitle="dotted: P5, P50, P95" + ("; solid: the limit" if limit is not None
                                                        else ""))
    fig.add_bar(x=(edges[:-1] + edges[1:]) / 2, y=counts, width=np.diff(edges),
                marker={"color": color(0), "line": {"color": "white", "width": 1}},
                name="cases", customdata=np.column_stack([edges[:-1], edges[1:]]),
                hovertemplate="%{customdata[0]:.4g} – %{customdata[1]:.4g}: %{y} cases"
                              "<extra></extra>")
    marks = [stats[k] * s for k in ("p5", "p50", "p95") if stats.get(k) is not None]
    vertical_markers(fig, marks, dash=PERCENTILE_DASH, color=REFERENCE_COLOR)
    if limit is not None:
        vertical_markers(fig, [limit * s], dash="solid", color=LIMIT_COLOR)
    fig.update_layout(showlegend=False, bargap=0)
    return fig


def ecdf_figure(metric: str, x: np.ndarray, f: np.ndarray,
                exceedance: Mapping[str, Any] | None = None) -> go.Figure:
    """The empirical CDF (a step per case); with a limit, the share above it marked."""
    s = metric_scale(metric)
    fig = new_figure("Empirical distribution function", metric_label(metric),
                     "Share of cases at or below [–]")
    fig.add_scatter(x=np.asarray(x) * s, y=f, mode="lines", line={"shape": "hv",
                    "color": color(0)}, name="ECDF")
    if exceedance:
        p, (lo, hi) = exceedance["probability"], exceedance["ci95"]
        vertical_markers(fig, [exceedance["limit"] * s], dash="solid", color=LIMIT_COLOR)
        fig.add_annotation(x=exceedance["limit"] * s, y=0.05, xanchor="left", showarrow=False,
                           text=f" P(exceed) = {p:.3f} (95 %: {lo:.3f}–{hi:.3f})")
    fig.update_layout(showlegend=False, yaxis_range=[0, 1.02])
    return fig


def contributions_figure(metric: str, shares: Mapping[str, float], r2: float) -> go.Figure:
    """Horizontal bars: each factor's share of the variance (SRC², sums to 1)."""
    names = sorted(shares, key=lambda n: shares[n])
    fig = new_figure("Share of the variance per factor", "Share of the variance [–]", "",
                     subtitle=f"squared standardised regression coefficients; the linear fit "
                              f"explains R² = {r2:.3f} of {metric_label(metric)}")
    fig.add_bar(y=[parameter_label(n) for n in names], x=[shares[n] for n in names],
                orientation="h", marker_color=color(1), name="share",
                hovertemplate="%{y}: %{x:.3f}<extra></extra>")
    fig.update_layout(showlegend=False, xaxis_range=[0, 1])
    fig.update_yaxes(automargin=True)
    return fig


def settling_figure(metric: str, settle: Mapping[str, Sequence[float]]) -> go.Figure:
    """Mean and P95 (and the exceedance with its interval, on a second axis) against the
    number of samples taken, in run order."""
    s = metric_scale(metric)
    fig = new_figure("How the estimates settle as samples grow", "Samples [count]",
                     metric_label(metric))
    n = list(settle["n"])
    fig.add_scatter(x=n, y=np.asarray(settle["mean"]) * s, name="mean", mode="lines+markers",
                    line_color=color(0))
    fig.add_scatter(x=n, y=np.asarray(settle["p95"]) * s, name="P95", mode="lines+markers",
                    line_color=color(2))
    if "probability" in settle:
        fig.add_scatter(x=n + n[::-1], y=list(settle["ci_high"]) + list(settle["ci_low"])[::-1],
                        fill="toself", line={"width": 0}, fillcolor="rgba(213,94,0,0.15)",
                        yaxis="y2", name="95 % interval", hoverinfo="skip")
        fig.add_scatter(x=n, y=settle["probability"], name="P(exceed)", yaxis="y2",
                        mode="lines+markers", line_color=LIMIT_COLOR)
        fig.update_layout(yaxis2={"title": "Exceedance probability [–]", "overlaying": "y",
                                  "side": "right", "range": [0, 1], "showgrid": False})
    fig.update_layout(legend={"orientation": "h", "y": -0.2, "x": 0})
    return fig
