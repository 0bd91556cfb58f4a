"""Parallel coordinates of a study's axes and one metric, for studies with more than two
axes (design.md 4.4): one line per done case, coloured by the metric."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import plotly.graph_objects as go

from .cases import metric_value, skipped_note
from .labels import default_metric, format_value, metric_label, parameter_label
from .style import SEQUENTIAL, new_figure


def _dimension(label: str, values: list[Any]) -> dict[str, Any]:
    """A parcoords dimension; text values (contact_law ...) become codes with their names as
    tick labels."""
    if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
        return {"label": label, "values": [float(v) for v in values]}
    names = sorted({format_value(v) for v in values})
    code = {n: i for i, n in enumerate(names)}
    return {
        "label": label,
        "values": [code[format_value(v)] for v in values],
        "tickvals": list(range(len(names))),
        "ticktext": names,
    }


def parallel_figure(
    cases: Sequence[Mapping[str, Any]], axes: Sequence[str], metric: str | None = None
) -> go.Figure:
    """One ``go.Parcoords`` trace: a dimension per axis (labelled with its unit, in ``axes``
    order) and a last one for ``metric`` (its unit), which also colours the lines.

    Cases not done, without the metric or without an axis value are skipped and counted in
    the subtitle.
    """
    metric = metric or default_metric()  # the study's own (a mechanism's measure)
    used = [
        (c, y)
        for c in cases
        if (y := metric_value(c, metric)) is not None
        and all(a in (c.get("params") or {}) for a in axes)
    ]
    fig = new_figure(
        f"Parallel coordinates: {len(axes)} axes and {metric_label(metric)}",
        "",
        "",
        subtitle=skipped_note(len(cases) - len(used), len(cases)),
    )
    dims = [_dimension(parameter_label(a), [c["params"][a] for c, _ in used]) for a in axes]
    ys = [y for _, y in used]
    dims.append({"label": metric_label(metric), "values": ys})
    fig.add_trace(
        go.Parcoords(
            dimensions=dims,
            line={"color": ys, "colorscale": SEQUENTIAL, "showscale": True},
        )
    )
    # the dimension labels sit above the plot area: the title goes to the top of the
    # figure with a margin that clears both (it overlapped the labels at the default)
    fig.update_layout(margin={"l": 80, "r": 80, "t": 120, "b": 40}, height=480,
                      title={"y": 0.98, "yref": "container", "yanchor": "top"})
    fig.update_xaxes(visible=False)  # no cartesian plot behind the parcoords
    fig.update_yaxes(visible=False)
    return fig
