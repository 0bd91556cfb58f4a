"""Trends of a large study (issue 41.2): past :data:`POINT_LIMIT` cases the metric is drawn,
per x level and group, as the median line inside its min-max band, not as every point.

Why a median and a band, not a rasterised cloud (Datashader) nor WebGL (``Scattergl``): the
band keeps each level's extremes - the worst case a clearance is sized against - as exact
numbers in the hover, where a raster turns them into a pixel's shade; the figure's size then
grows with the levels (500 x levels x at most :data:`MAX_GROUPS` groups), not with the cases:
100,000 points sent as markers are ~16 MB of figure JSON for the browser to parse, whatever
draws them, and Datashader would be a new dependency. The exact points stay one click away:
a click on a level opens the case grid filtered to it (``customdata`` = ``["level", low,
high]``).

x levels are the cases' distinct x values; more than :data:`MAX_LEVELS` of them (a sampling
design's continuous axis) are binned into :data:`MAX_LEVELS` equal-width bins, each drawn at
its centre. More than :data:`MAX_GROUPS` groups are pooled into one band (a legend of 200
colours reads as none).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import plotly.graph_objects as go

from .cases import metric_value
from .labels import level_name, metric_label, metric_parts, parameter_label, parameter_parts, phrase
from .style import color, new_figure

POINT_LIMIT = 5_000  # cases drawn as points up to here
MAX_LEVELS = 200
MAX_GROUPS = 12
LEVEL = "level"  # customdata[0] of a band's point: a click filters the grid to its x level


def _number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def band_figure(
    cases: Sequence[Mapping[str, Any]],
    metric: str,
    *,
    x_axis: str,
    group_axis: str | None,
    log_y: bool = False,
    limit: float | None = None,
    twin_metrics: Mapping[str, Any] | None = None,
) -> go.Figure:
    """``metric`` vs ``x_axis``: per group level of ``group_axis`` (pooled past
    :data:`MAX_GROUPS`), the median over the cases at each x level, with the min-max band.
    ``cases``: case dicts (``params``, ``status``, ``metrics``); only done cases with a value
    count."""
    xs, ys, gs = [], [], []
    for case in cases:
        y = metric_value(case, metric)  # None unless done with a value; in its shown unit
        x = (case.get("params") or {}).get(x_axis)
        if y is None or not _number(x):
            continue
        xs.append(float(x))
        ys.append(float(y))
        gs.append((case.get("params") or {}).get(group_axis) if group_axis else None)
    return band_from_columns(np.asarray(xs, dtype=float), np.asarray(ys, dtype=float), gs,
                             metric, x_axis=x_axis, group_axis=group_axis, log_y=log_y,
                             limit=limit, twin_metrics=twin_metrics, n_cases=len(cases))


def band_from_columns(
    x: np.ndarray, y: np.ndarray, gs: Sequence[Any], metric: str, *, x_axis: str,
    group_axis: str | None, log_y: bool = False, limit: float | None = None,
    twin_metrics: Mapping[str, Any] | None = None, n_cases: int | None = None,
) -> go.Figure:
    """:func:`band_figure` from columns: ``x`` and ``y`` (the metric in its shown unit) of the
    done cases with a value, ``gs`` their group levels (None without a group); ``n_cases``:
    the study's case count for the note."""
    cases = range(n_cases if n_cases is not None else x.size)
    levels = np.unique(x)
    binned = levels.size > MAX_LEVELS
    if binned:
        edges = np.linspace(x.min(), x.max(), MAX_LEVELS + 1)
        where = np.clip(np.searchsorted(edges, x, side="right") - 1, 0, MAX_LEVELS - 1)
        centres = 0.5 * (edges[:-1] + edges[1:])
        spans = np.column_stack([edges[:-1], edges[1:]])
    else:
        where = np.searchsorted(levels, x)
        centres = levels
        spans = np.column_stack([levels, levels])
    groups = list(dict.fromkeys(gs))
    pooled = len(groups) > MAX_GROUPS or group_axis is None
    title, _ = metric_parts(metric)
    note = (f"{len(cases):,} cases: median and min–max band per "
            f"{'x bin' if binned else 'x level'}{'' if pooled else ' and group'}"
            f"{f' ({len(groups)} groups pooled)' if pooled and group_axis else ''}; "
            "click a level for its cases")
    fig = new_figure(f"{title} vs {phrase(parameter_parts(x_axis)[0])}",
                     parameter_label(x_axis), metric_label(metric), subtitle=note)
    labels = np.zeros(x.size, dtype=int) if pooled else \
        np.asarray([groups.index(g) for g in gs], dtype=int)
    for k in range(1 if pooled else len(groups)):
        mine = labels == k
        stats = _level_stats(where[mine], y[mine], centres.size)
        keep = stats[:, 3] > 0
        cx, lo, med, hi, n = centres[keep], *stats[keep].T
        span = spans[keep]
        name = title if pooled else level_name(group_axis, groups[k])
        tint = color(k)
        fig.add_trace(go.Scatter(x=cx, y=hi, mode="lines", line={"width": 0, "color": tint},
                                 showlegend=False, hoverinfo="skip", legendgroup=name))
        fig.add_trace(go.Scatter(x=cx, y=lo, mode="lines", line={"width": 0, "color": tint},
                                 fill="tonexty", opacity=0.25, showlegend=False,
                                 hoverinfo="skip", legendgroup=name))
        fig.add_trace(go.Scatter(
            x=cx, y=med, mode="lines+markers", name=f"{name} (median, min–max)",
            legendgroup=name, line={"color": tint},
            customdata=[[LEVEL, float(a), float(b)] for a, b in span],
            text=[f"{x_axis} = {v:.6g}: median {m:.6g}, min {a:.6g}, max {b:.6g}, "
                  f"{int(c)} cases" for v, m, a, b, c in zip(cx, med, lo, hi, n, strict=True)],
            hovertemplate="%{text}<extra></extra>"))
    twin = metric_value({"status": "done", "metrics": twin_metrics or {}}, metric)
    if twin is not None and centres.size:
        fig.add_trace(go.Scatter(x=[centres[0], centres[-1]], y=[twin, twin], mode="lines",
                                 name="ideal joint", line={"dash": "dash", "color": "#444"}))
    if limit is not None:
        fig.add_hline(y=limit, line_dash="dot")
    if log_y:
        fig.update_yaxes(type="log")
    return fig


def _level_stats(where: np.ndarray, y: np.ndarray, n_levels: int) -> np.ndarray:
    """``(n_levels, 4)``: min, median, max and count of ``y`` per level index ``where``."""
    out = np.zeros((n_levels, 4))
    if y.size == 0:
        return out
    order = np.lexsort((y, where))
    w, v = where[order], y[order]
    starts = np.flatnonzero(np.r_[True, w[1:] != w[:-1]])
    ends = np.r_[starts[1:], w.size]
    for s, e in zip(starts, ends, strict=True):
        part = v[s:e]
        out[w[s]] = (part[0], np.median(part), part[-1], e - s)
    return out


def clicked_level(click: Any) -> tuple[float, float] | None:
    """The x range ``(low, high)`` of a clicked band point (one level: low = high), None for
    anything else (a case's point, a hand-made request)."""
    try:
        data = click["points"][0]["customdata"]
    except (KeyError, IndexError, TypeError):
        return None
    if isinstance(data, list) and len(data) == 3 and data[0] == LEVEL \
            and _number(data[1]) and _number(data[2]):
        return float(data[1]), float(data[2])
    return None


def level_filter(x_axis: str, span: tuple[float, float]) -> dict[str, Any]:
    """The case grid's filter model (AG Grid's number filter) for the cases of ``span``."""
    low, high = span
    return {x_axis: {"filterType": "number", "type": "inRange", "filter": low,
                     "filterTo": high}}
