"""Cases overlaid for one series (the compare page, design.md 4.4: 2-6 cases)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import plotly.graph_objects as go

from .case_views import TIME_TITLE, line
from .labels import level_name, series_label, series_parts
from .style import REFERENCE_COLOR, new_figure

# Overlaid lines: the later ones thinner and all translucent, so the last drawn does not hide
# the others; the legend in rows under the plot, not a column eating half the width.
LINE_WIDTHS = (3.0, 2.5, 2.0, 1.7, 1.4, 1.2)
LINE_OPACITY = 0.8
LEGEND_BELOW = {"orientation": "h", "x": 0.0, "xanchor": "left", "y": -0.22, "yanchor": "top"}

MAX_CASES = 6  # more lines than this are no longer told apart


def compare_figure(
    series_by_case: Sequence[Mapping[str, np.ndarray]],
    labels: Sequence[str],
    name: str = "slider_acceleration",
    twins: Mapping[str, Mapping[str, np.ndarray]] | None = None,
) -> go.Figure:
    """Series ``name`` of 1 to :data:`MAX_CASES` cases against time [s], one trace per case
    named ``labels[i]`` (widths :data:`LINE_WIDTHS`, opacity :data:`LINE_OPACITY`); the y
    axis in the series' unit; the legend in rows below the plot. ``twins``: {legend name:
    the ideal twin's series}, each drawn dashed after the cases (the twin's line). A case
    without the series is left out (its label is then missing from the legend).

    Raises ValueError for no case, more than :data:`MAX_CASES`, or unequal lengths.
    """
    if len(series_by_case) != len(labels):
        raise ValueError(f"{len(series_by_case)} cases for {len(labels)} labels")
    if not 1 <= len(series_by_case) <= MAX_CASES:
        raise ValueError(f"{len(series_by_case)} cases: compare takes 1 to {MAX_CASES}")
    title = series_parts(name)[0]
    fig = new_figure(f"{title}: {len(labels)} cases", TIME_TITLE, series_label(name))
    for i, (series, label) in enumerate(zip(series_by_case, labels, strict=True)):
        if name in series:
            trace = line(series, name, label=label, index=i)
            trace.update(line_width=LINE_WIDTHS[i % len(LINE_WIDTHS)], opacity=LINE_OPACITY)
            fig.add_trace(trace)
    for label, series in (twins or {}).items():
        if name in series:
            trace = line(series, name, label=label)
            trace.update(line={"color": REFERENCE_COLOR, "dash": "dash", "width": 1.5})
            fig.add_trace(trace)
    fig.update_layout(legend=LEGEND_BELOW, height=460, margin_b=40)
    return fig


# The series the compare page overlays, in page order.
COMPARE_SERIES = (
    "slider_acceleration",
    "contact_normal_force",
    "penetration",
    "driving_torque",
)


def compare_labels(details: Mapping[int, Mapping[str, Any]]) -> dict[int, str]:
    """A legend name per case id: ``"case 12: c = 0.05 mm, stiffness ×0.7"`` - the
    parameters whose values differ between the cases (all of them, for a single case)."""
    params = {cid: d.get("params") or {} for cid, d in details.items()}
    keys = list(dict.fromkeys(k for p in params.values() for k in p))
    differ = [k for k in keys if len({repr(p.get(k)) for p in params.values()}) > 1]
    shown = differ if len(params) > 1 else keys
    out = {}
    for cid, p in params.items():
        parts = [level_name(k, p[k]) for k in shown if k in p]
        out[cid] = f"case {cid}: {', '.join(parts)}" if parts else f"case {cid}"
    return out


def twin_labels(
    details: Mapping[int, Mapping[str, Any]], twin_series: Mapping[int, Mapping[str, np.ndarray]]
) -> dict[str, Mapping[str, np.ndarray]]:
    """{legend name: series} of the cases' distinct ideal twins (``details[cid]["twin_id"]``
    -> ``twin_series[twin id]``): ``"ideal joint"`` when the cases share one twin, else
    ``"ideal joint of case 12"`` per twin (its first case)."""
    first: dict[int, int] = {}
    for cid, d in details.items():
        tid = d.get("twin_id")
        if tid is not None and twin_series.get(tid):
            first.setdefault(tid, cid)
    if len(first) == 1:
        (tid,) = first
        return {"ideal joint": twin_series[tid]}
    return {f"ideal joint of case {cid}": twin_series[tid] for tid, cid in first.items()}


def compare_figures(
    series: Mapping[int, Mapping[str, np.ndarray]],
    details: Mapping[int, Mapping[str, Any]],
    names: Sequence[str] = COMPARE_SERIES,
    twin_series: Mapping[int, Mapping[str, np.ndarray]] | None = None,
) -> dict[str, go.Figure]:
    """One :func:`compare_figure` per series name of ``names`` that some case has, keyed by
    the name; ``series``: {case id: series}, ``details``: {case id: case dict} (labels);
    ``twin_series``: {twin id: series} of the cases' ideal twins (dashed lines)."""
    ids = [cid for cid in series if series[cid]][:MAX_CASES]
    if not ids:
        return {}
    labels = compare_labels({cid: details.get(cid, {}) for cid in ids})
    twins = twin_labels({cid: details.get(cid, {}) for cid in ids}, twin_series or {})
    return {
        name: compare_figure([series[cid] for cid in ids], [labels[cid] for cid in ids], name,
                             twins)
        for name in names
        if any(name in series[cid] for cid in ids)
    }
