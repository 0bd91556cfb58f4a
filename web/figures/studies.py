"""Several studies' cases on one figure (the compare page's ``?studies=``): a metric
against the axis they share, a trace per study, each study's ideal joint dashed."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import plotly.graph_objects as go

from .cases import metric_value
from .labels import default_metric, metric_label, metric_parts, parameter_label
from .style import color, new_figure


def studies_figure(
    details: Sequence[Mapping[str, Any]],
    axes: Sequence[Sequence[str]],
    twins: Sequence[Mapping[str, Any] | None],
    metric: str | None = None,
) -> go.Figure:
    """Each study's done cases against the first axis the studies share (else the case's
    place in its study), one marker trace per study named ``"study 4: <name>"`` (hover and
    ``customdata``: the case id), and each study's single ideal twin (``twins[i]``, its
    metrics, or None) as a dashed line of the study's colour. ``details``: the studies as
    ``show --json`` gives them; ``axes[i]``: study i's axis names."""
    metric = metric or default_metric()  # the study's own (a mechanism's measure)
    shared = [a for a in axes[0] if all(a in other for other in axes[1:])]
    x_axis = shared[0] if shared else None
    n = len(details)
    fig = new_figure(f"{metric_parts(metric)[0]}: {n} stud{'y' if n == 1 else 'ies'}",
                     parameter_label(x_axis) if x_axis else "Case (design order)",
                     metric_label(metric))
    for i, d in enumerate(details):
        pts = [(c["params"].get(x_axis) if x_axis else k, y, c["id"])
               for k, c in enumerate(d["cases"])
               if (y := metric_value(c, metric)) is not None]
        fig.add_trace(go.Scatter(
            x=[p[0] for p in pts], y=[p[1] for p in pts], mode="markers",
            name=f"study {d['id']}: {d['name']}", marker={"color": color(i), "size": 8},
            opacity=0.8, customdata=[[p[2]] for p in pts],
            hovertemplate="case %{customdata[0]}: %{y:.4g}<extra>study " + str(d["id"])
            + "</extra>"))
        twin = twins[i]
        y0 = metric_value({"status": "done", "metrics": twin or {}}, metric)
        if y0 is not None and pts:
            xs = [p[0] for p in pts]
            fig.add_trace(go.Scatter(
                x=[min(xs), max(xs)], y=[y0, y0], mode="lines",
                name=f"ideal joint (study {d['id']})",
                line={"color": color(i), "dash": "dash", "width": 1.5}))
    fig.update_layout(legend={"orientation": "h", "x": 0, "y": -0.22, "yanchor": "top"},
                      height=480)
    return fig
