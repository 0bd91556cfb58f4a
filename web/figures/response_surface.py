"""Figures of a response surface (design.md 4.8): actual against predicted, and a contour
over two factors with the run cases on it. Inputs: a fitted
:class:`gapsweep.study.response_surface.ResponseSurface` and plain arrays; values in the
metric's stored unit, shown in its label's unit.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from .labels import metric_label, metric_scale, parameter_label
from .style import REFERENCE_COLOR, SEQUENTIAL, color, new_figure


def fit_subtitle(r2: float, r2_adjusted: float | None, r2_predicted: float | None) -> str:
    def f(x: float | None) -> str:
        return "–" if x is None else f"{x:.3f}"

    return f"R² {f(r2)}, adjusted {f(r2_adjusted)}, predicted (PRESS) {f(r2_predicted)}"


def actual_vs_predicted(metric: str, actual: np.ndarray, predicted: np.ndarray,
                        case_ids: Sequence[int], subtitle: str) -> go.Figure:
    """Each run case: its metric against the surface's value there; the diagonal is a
    perfect fit."""
    s = metric_scale(metric)
    a, p = np.asarray(actual) * s, np.asarray(predicted) * s
    label = metric_label(metric)
    fig = new_figure("Actual against predicted", f"Predicted: {label}", f"Actual: {label}",
                     subtitle=subtitle)
    lo, hi = float(min(a.min(), p.min())), float(max(a.max(), p.max()))
    fig.add_scatter(x=[lo, hi], y=[lo, hi], mode="lines", name="actual = predicted",
                    line={"color": REFERENCE_COLOR, "dash": "dot"}, hoverinfo="skip")
    fig.add_scatter(x=p, y=a, mode="markers", name="run cases", marker_color=color(0),
                    customdata=list(case_ids),
                    hovertemplate="case %{customdata}: actual %{y:.4g}, predicted %{x:.4g}"
                                  "<extra></extra>")
    fig.update_layout(showlegend=False)
    return fig


def contour_figure(metric: str, fx: str, fy: str, xs: np.ndarray, ys: np.ndarray,
                   z: np.ndarray, run_x: np.ndarray, run_y: np.ndarray,
                   subtitle: str) -> go.Figure:
    """The surface over ``fx`` × ``fy`` (``z[i, j]`` at ``ys[i]``, ``xs[j]``), the other
    factors at the what-if values; the run cases as points."""
    s = metric_scale(metric)
    fig = new_figure(f"Response surface: {metric_label(metric)}", parameter_label(fx),
                     parameter_label(fy), subtitle=subtitle)
    fig.add_contour(x=xs, y=ys, z=np.asarray(z) * s, colorscale=SEQUENTIAL,
                    colorbar={"title": {"text": metric_label(metric), "side": "right"}},
                    contours={"showlabels": True}, name="surface")
    fig.add_scatter(x=run_x, y=run_y, mode="markers", name="run cases",
                    marker={"color": "white", "line": {"color": "black", "width": 1}})
    fig.update_layout(showlegend=False)
    return fig
