"""A metric against the study's factors, drawn the way the study's design sampled them
(design.md 2, 4.2):

- grid: :func:`trend_figure`, the metric against one axis, one line per level of a second
  (and per combination of any further axes), the ideal joint dashed;
- one-at-a-time: :func:`one_at_a_time_figure`, one panel per factor against its own values
  (the other factors at their nominal), the nominal case marked, the twins' line;
- latin-hypercube, sobol, morris: :func:`scatter_figure`, every case against one factor,
  coloured by a second one (a colour bar).

Every point carries its case id in ``customdata[0]`` (the study page opens the case on a
click) and a hover text with units: ``"c = 0.1 mm · peak slider acceleration 30.4 km/s² ·
case 123"``.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import plotly.graph_objects as go
from gapsweep.core import metrics as metric_registry
from gapsweep.study.design_registry import SCATTERED_DESIGNS
from plotly.subplots import make_subplots

from .cases import metric_value, skipped_note
from .hover import quantity
from .labels import (
    default_metric,
    level_name,
    metric_label,
    metric_parts,
    parameter_label,
    parameter_parts,
    phrase,
)
from .style import REFERENCE_COLOR, SEQUENTIAL, TEMPLATE, color, new_figure, title_text

# The metrics the trends tab offers (each also as "<name>_steady", the last crank revolution).
TREND_METRICS = metric_registry.trend_metrics()  # the metric registry's
TWIN_NAME = "ideal joint"
NOMINAL_NAME = "nominal case"
# the designs whose cases are scattered samples (the design registry's): a scatter, no lines
SAMPLING_DESIGNS = SCATTERED_DESIGNS
DASHES = ("solid", "dot", "dashdot", "longdash")  # further axes of a grid, by combination


def metric_key(metric: str, steady: bool) -> str:
    """The stored metric name: ``peak_slider_accel``, or with ``steady`` its ``_steady`` twin."""
    return f"{metric}_steady" if steady and not metric.endswith("_steady") else metric


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _sort_key(level: Any) -> tuple[int, Any]:
    # numbers in order, then anything else (strings, None, tuples) by its text
    if _number(level):
        return (0, level)
    if isinstance(level, tuple):
        return (1, tuple(_sort_key(v) for v in level))
    return (2, str(level))


def _x(value: Any) -> Any:
    """An x value: a number as float, text ("hertz-sphere") kept for a categorical axis."""
    return float(value) if _number(value) else str(value)


def point_text(case: Mapping[str, Any], metric: str, y: float, names: Sequence[str]) -> str:
    """The hover text of one case's point: the parameters ``names`` (their own units), the
    metric (SI-prefixed unit) and the case id."""
    params = case.get("params") or {}
    title, unit = metric_parts(metric)
    parts = [level_name(n, params[n]) for n in names if n in params]
    parts.append(f"{phrase(title)} {quantity(y, unit)}")
    parts.append(f"case {case.get('id')}")
    return " · ".join(parts)


def trend_lines(
    cases: Sequence[Mapping[str, Any]],
    metric: str,
    x_axis: str,
    group_axis: str | None,
    others: Sequence[str] = (),
) -> tuple[dict[Any, tuple[np.ndarray, np.ndarray]], int]:
    """Group the cases into lines: ``({level: (x, y)}, skipped)``.

    ``x`` holds the values of parameter ``x_axis`` (its own unit) sorted ascending, ``y`` the
    metric (its unit). ``level`` is the case's ``group_axis`` value (None for a single line);
    with ``others`` (further axes) it is the tuple ``(group value, *other values)``, so cases
    differing in a third axis never share a line. Cases not done, without the metric or
    without ``x_axis`` are skipped and counted.
    """
    lines, skipped = _line_cases(cases, metric, x_axis, group_axis, others)
    return {level: (np.array([_x(p[0]) for p in pts]), np.array([p[1] for p in pts]))
            for level, pts in lines.items()}, skipped


def _line_cases(
    cases: Sequence[Mapping[str, Any]],
    metric: str,
    x_axis: str,
    group_axis: str | None,
    others: Sequence[str] = (),
) -> tuple[dict[Any, list[tuple[Any, float, Mapping[str, Any]]]], int]:
    """:func:`trend_lines` with each point's case: ``{level: [(x, y, case), ...]}``."""
    points: dict[Any, list[tuple[Any, float, Mapping[str, Any]]]] = {}
    skipped = 0
    for case in cases:
        params = case.get("params") or {}
        y = metric_value(case, metric)
        if y is None or x_axis not in params:
            skipped += 1
            continue
        level = params.get(group_axis) if group_axis else None
        if others:
            level = (level, *(params.get(a) for a in others))
        points.setdefault(level, []).append((params[x_axis], y, case))
    out = {}
    for level in sorted(points, key=_sort_key):
        out[level] = sorted(points[level], key=lambda p: _sort_key(p[0]))
    return out, skipped


def twin_line(
    points: Sequence[tuple[Any, float, Mapping[str, Any]]],
    metric: str,
    twins: Mapping[int, Mapping[str, Any]],
) -> tuple[list[Any], list[float]]:
    """The ideal twins' ``metric`` at the points' x (each point's case -> its ``twin_id``),
    one value per x, sorted: ``(x, y)``. A twin without the metric is left out."""
    by_x: dict[Any, float] = {}
    for x, _, case in points:
        twin = twins.get(case.get("twin_id"))  # type: ignore[arg-type]
        value = metric_value(twin, metric) if twin else None
        if value is not None:
            by_x.setdefault(x, value)
    xs = sorted(by_x, key=_sort_key)
    return [_x(x) for x in xs], [by_x[x] for x in xs]


def _twin_trace(x: Sequence[Any], y: Sequence[float], **kwargs: Any) -> go.Scatter:
    return go.Scatter(x=list(x), y=list(y), mode="lines", name=TWIN_NAME,
                      line={"color": REFERENCE_COLOR, "dash": "dash"},
                      hovertemplate="ideal joint: %{y:.4g}<extra></extra>", **kwargs)


def _twins_by_id(twins: Sequence[Mapping[str, Any]] | None) -> dict[int, Mapping[str, Any]]:
    return {t["id"]: t for t in twins or [] if "id" in t}


def trend_figure(
    cases: Sequence[Mapping[str, Any]],
    metric: str | None = None,
    *,
    x_axis: str = "clearance_mm",
    group_axis: str | None = "stiffness_scale",
    other_axes: Sequence[str] = (),
    twin_metrics: Mapping[str, float | int | None] | None = None,
    twins: Sequence[Mapping[str, Any]] | None = None,
    steady: bool = False,
    log_y: bool = False,
    limit: float | None = None,
) -> go.Figure:
    """``metric`` vs parameter ``x_axis``, one line per level of ``group_axis`` (a colour
    each) and per combination of ``other_axes`` (a dash each).

    ``cases``: case dicts (see :mod:`.cases`). ``metric``: a name of :data:`TREND_METRICS`
    (or any metric); ``steady`` reads ``<metric>_steady`` (last crank revolution).
    The ideal joint is the last trace, dashed, named ``"ideal joint"``: ``twin_metrics`` (one
    twin for the whole study) is drawn as a horizontal line across the x range; else
    ``twins`` (the study's twin dicts, matched through each case's ``twin_id``) as the
    twins' values against x, when every x has one twin value. ``log_y``: logarithmic metric
    axis. Skipped cases are counted in the subtitle. The x axis is in the unit of the
    parameter (``Clearance [mm]``), y in the metric's (``[m/s²]``).
    """
    metric = metric or default_metric()  # the study's own (a mechanism's measure)
    key = metric_key(metric, steady)
    others = [a for a in other_axes if a not in (x_axis, group_axis)]
    lines, skipped = _line_cases(cases, key, x_axis, group_axis, others)
    title, _ = metric_parts(key)
    fig = new_figure(
        f"{title} vs {phrase(parameter_parts(x_axis)[0])}",
        parameter_label(x_axis),
        metric_label(key),
        subtitle=skipped_note(skipped, len(cases)),
    )
    groups = list(dict.fromkeys(lv[0] if others else lv for lv in lines))
    combos = list(dict.fromkeys(lv[1:] for lv in lines)) if others else [()]
    shown = [x_axis, *([group_axis] if group_axis else []), *others]
    for level, pts in lines.items():
        group = level[0] if others else level
        combo = level[1:] if others else ()
        parts = [level_name(group_axis, group)] if group_axis and group is not None else []
        parts += [level_name(a, v) for a, v in zip(others, combo, strict=True)]
        fig.add_trace(go.Scatter(
            x=[_x(p[0]) for p in pts],
            y=[p[1] for p in pts],
            mode="lines+markers",
            name=", ".join(parts) or title,
            # without a grouping the combinations of the other axes take the colours
            line={"color": color(groups.index(group) if group_axis else combos.index(combo)),
                  "dash": DASHES[combos.index(combo) % len(DASHES)] if group_axis
                  else "solid"},
            customdata=[[p[2].get("id")] for p in pts],
            text=[point_text(p[2], key, p[1], shown) for p in pts],
            hovertemplate="%{text}<extra></extra>",
        ))
    _add_twin_line(fig, lines, key, twin_metrics, twins)
    if limit is not None:
        add_limit(fig, limit, key)
        # the case lines were added first, in the order of ``lines``
        for trace, pts in zip(fig.data[:len(lines)], lines.values(), strict=True):
            xs = crossings(trace.x, trace.y, limit)
            if xs:
                changes = class_changes(pts, xs)
                fig.add_trace(go.Scatter(
                    x=xs, y=[limit] * len(xs), mode="markers",
                    marker={"symbol": "x", "size": 11, "color": trace.line.color},
                    name=f"{trace.name}: crosses at {x_axis} = "
                         + ", ".join(f"{x:.4g}" for x in xs)
                         + "".join(f"; {c}" for c in changes if c),
                    hoverinfo="name"))
    if log_y:
        fig.update_yaxes(type="log")
    return fig


def class_changes(pts: Sequence[tuple[Any, float, Mapping[str, Any]]],
                  xs: Sequence[float]) -> list[str]:
    """Per crossing at ``xs``, a warning when the two cases either side of it settled into
    different classes of motion (``motion``: periodic-N, chaotic, irregular): the crossing is
    then interpolated across a change of motion, not along one smooth branch; "" otherwise."""
    placed = sorted(((_x(p[0]), str((p[2].get("metrics") or {}).get("motion") or ""))
                     for p in pts if _number(p[0])), key=lambda q: q[0])
    out = []
    for x in xs:
        below = [m for px, m in placed if px <= x]
        above = [m for px, m in placed if px >= x]
        a, b = (below[-1] if below else ""), (above[0] if above else "")
        out.append(f"between a {a} and a {b} case: interpolated across a change of motion"
                   if a and b and a != b else "")
    return out


LIMIT_NAME = "limit"


def add_limit(fig: go.Figure, limit: float, key: str) -> None:
    """A horizontal reference line at ``limit`` (the metric's shown unit), labelled."""
    unit = metric_parts(key)[1]
    shown = "" if unit == metric_registry.DIMENSIONLESS else f" {unit}"
    fig.add_hline(y=limit, line={"color": "#dc3545", "dash": "dash", "width": 1},
                  annotation_text=f"{LIMIT_NAME} {limit:g}{shown}",
                  annotation_position="top left")


def crossings(x: Sequence[Any], y: Sequence[Any], limit: float) -> list[float]:
    """Where the polyline through (x, y) (x ascending, numbers) crosses ``y = limit``: the
    x of each crossing by linear interpolation between the two points around it; a point
    exactly on the limit counts once. Text x values have no crossings."""
    pts = [(float(a), float(b)) for a, b in zip(x, y, strict=True)
           if _number(a) and _number(b) and math.isfinite(float(b))]
    out: list[float] = []
    for (x0, y0), (x1, y1) in itertools.pairwise(pts):
        d0, d1 = y0 - limit, y1 - limit
        if d0 == 0 and (not out or out[-1] != x0):
            out.append(x0)
        elif d0 * d1 < 0:
            out.append(x0 + (x1 - x0) * d0 / (d0 - d1))
    if pts and pts[-1][1] == limit and (not out or out[-1] != pts[-1][0]):
        out.append(pts[-1][0])
    return out


def _add_twin_line(
    fig: go.Figure,
    lines: Mapping[Any, Sequence[tuple[Any, float, Mapping[str, Any]]]],
    key: str,
    twin_metrics: Mapping[str, Any] | None,
    twins: Sequence[Mapping[str, Any]] | None,
    **trace_kwargs: Any,
) -> None:
    points = [p for pts in lines.values() for p in pts]
    if not points:
        return
    single = metric_value({"status": "done", "metrics": twin_metrics or {}}, key)
    if single is not None:
        xs = sorted({p[0] for p in points}, key=_sort_key)
        fig.add_trace(_twin_trace([_x(xs[0]), _x(xs[-1])], [single, single],
                                      **trace_kwargs))
        return
    by_id = _twins_by_id(twins)
    if not by_id:
        return
    # one twin line only when the twin's value is a function of x (e.g. x = speed): a twin
    # changing along the lines (a speed group) has no single line to draw
    values: dict[Any, set[float]] = {}
    for x, _, case in points:
        twin = by_id.get(case.get("twin_id"))  # type: ignore[arg-type]
        value = metric_value(twin, key) if twin else None
        if value is not None:
            values.setdefault(x, set()).add(value)
    if not values or any(len(v) > 1 for v in values.values()):
        return
    x, y = twin_line(points, key, by_id)
    if len(x) == 1:
        x, y = [x[0], x[0]], [y[0], y[0]]
    fig.add_trace(_twin_trace(x, y, **trace_kwargs))


def nominal_of(cases: Sequence[Mapping[str, Any]], axes: Sequence[str]) -> dict[str, Any]:
    """The nominal setting of a one-at-a-time study: its first case's values of ``axes``
    (the design puts the nominal case first, design.md 4.2)."""
    if not cases:
        return {}
    params = cases[0].get("params") or {}
    return {a: params.get(a) for a in axes}


def factor_runs(
    cases: Sequence[Mapping[str, Any]], axes: Sequence[str], nominal: Mapping[str, Any]
) -> dict[str, list[Mapping[str, Any]]]:
    """Per factor of ``axes``, the cases on its run: every other factor at its nominal value
    (the nominal case belongs to every run)."""
    runs: dict[str, list[Mapping[str, Any]]] = {a: [] for a in axes}
    for case in cases:
        params = case.get("params") or {}
        off = [a for a in axes if params.get(a) != nominal.get(a)]
        for a in axes:
            if not off or off == [a]:
                runs[a].append(case)
    return runs


def one_at_a_time_figure(
    cases: Sequence[Mapping[str, Any]],
    metric: str | None = None,
    *,
    axes: Sequence[str],
    factors: Sequence[str] | None = None,
    nominal: Mapping[str, Any] | None = None,
    twin_metrics: Mapping[str, float | int | None] | None = None,
    twins: Sequence[Mapping[str, Any]] | None = None,
    steady: bool = False,
    log_y: bool = False,
    columns: int = 3,
    limit: float | None = None,
) -> go.Figure:
    """One panel per factor of ``axes``: ``metric`` against the factor's own values (the
    other ``factors`` (default ``axes``) at ``nominal``, default :func:`nominal_of`), one
    line trace per factor named by the factor's title (``"Clearance"``), its x axis in the
    factor's unit, the panels sharing the metric axis. The nominal case is a star in every
    panel (one legend entry ``"nominal case"``); the ideal joint is dashed in each panel
    (see :func:`trend_figure`). Panels wrap after ``columns``.
    """
    metric = metric or default_metric()  # the study's own (a mechanism's measure)
    key = metric_key(metric, steady)
    factors = list(factors) if factors is not None else list(axes)
    nominal = dict(nominal) if nominal is not None else nominal_of(cases, factors)
    runs = factor_runs(cases, factors, nominal)
    ncols = max(1, min(columns, len(axes)))
    nrows = max(1, math.ceil(len(axes) / ncols))
    fig = make_subplots(rows=nrows, cols=ncols, shared_yaxes=True,
                        horizontal_spacing=0.06, vertical_spacing=0.22 / nrows)
    title, _ = metric_parts(key)
    used = {c.get("id") for a in axes for c in runs[a] if metric_value(c, key) is not None}
    total = len({c.get("id") for a in axes for c in runs[a]})
    skipped = total - len(used)
    fig.update_layout(
        template=TEMPLATE,
        title={"text": title_text(f"{title}: one factor at a time",
                                  skipped_note(skipped, len(cases)))},
        height=max(420, 340 * nrows),
    )
    for i, axis in enumerate(axes):
        row, col = i // ncols + 1, i % ncols + 1
        lines, _ = _line_cases(runs[axis], key, axis, None)
        pts = lines.get(None, [])
        fig.add_trace(go.Scatter(
            x=[_x(p[0]) for p in pts], y=[p[1] for p in pts], mode="lines+markers",
            name=parameter_parts(axis)[0], meta=axis, line={"color": color(i)},
            customdata=[[p[2].get("id")] for p in pts],
            text=[point_text(p[2], key, p[1], [axis]) for p in pts],
            hovertemplate="%{text}<extra></extra>",
        ), row=row, col=col)
        at_nominal = [p for p in pts if p[0] == nominal.get(axis)]
        if at_nominal:
            p = at_nominal[0]
            fig.add_trace(go.Scatter(
                x=[_x(p[0])], y=[p[1]], mode="markers", name=NOMINAL_NAME,
                legendgroup=NOMINAL_NAME, showlegend=i == 0, meta=axis,
                marker={"symbol": "star", "size": 14, "color": "#000000"},
                customdata=[[p[2].get("id")]],
                text=[f"nominal: {point_text(p[2], key, p[1], [axis])}"],
                hovertemplate="%{text}<extra></extra>",
            ), row=row, col=col)
        before = len(fig.data)
        _add_twin_line(fig, {None: pts}, key, twin_metrics, twins,
                      legendgroup=TWIN_NAME, meta=axis)
        if len(fig.data) > before:
            fig.data[-1].update(showlegend=all(t.name != TWIN_NAME for t in fig.data[:-1]))
            fig.data[-1].update(xaxis=fig.data[before - 1].xaxis,
                                yaxis=fig.data[before - 1].yaxis)
        fig.update_xaxes(title_text=parameter_label(axis), row=row, col=col)
    fig.update_yaxes(title_text=metric_label(key), row=1, col=1)
    for r in range(2, nrows + 1):
        fig.update_yaxes(title_text=metric_label(key), row=r, col=1)
    if limit is not None:
        add_limit(fig, limit, key)
    if log_y:
        fig.update_yaxes(type="log")
    fig.update_layout(legend={"orientation": "h", "y": -0.25, "x": 0})
    return fig


def scatter_figure(
    cases: Sequence[Mapping[str, Any]],
    metric: str | None = None,
    *,
    x_axis: str,
    color_axis: str | None = None,
    twin_metrics: Mapping[str, float | int | None] | None = None,
    steady: bool = False,
    log_y: bool = False,
    limit: float | None = None,
) -> go.Figure:
    """Every case of a sampled study (Latin hypercube, Sobol, Morris) as a point: ``metric``
    against factor ``x_axis``, coloured by factor ``color_axis`` with a colour bar titled
    with its unit (one trace ``"cases"``). A text-valued colour factor gets one trace per
    value instead (a legend). ``twin_metrics`` (the one twin): a dashed horizontal line.
    """
    metric = metric or default_metric()  # the study's own (a mechanism's measure)
    key = metric_key(metric, steady)
    title, _ = metric_parts(key)
    pts = []
    for case in cases:
        params = case.get("params") or {}
        y = metric_value(case, key)
        if y is not None and x_axis in params and (not color_axis or color_axis in params):
            pts.append((params[x_axis], y, case))
    fig = new_figure(f"{title} vs {phrase(parameter_parts(x_axis)[0])}",
                     parameter_label(x_axis), metric_label(key),
                     subtitle=skipped_note(len(cases) - len(pts), len(cases)))
    shown = [x_axis, *([color_axis] if color_axis and color_axis != x_axis else [])]

    def trace(points: list, name: str, marker: dict[str, Any], **kwargs: Any) -> go.Scatter:
        return go.Scatter(
            x=[_x(p[0]) for p in points], y=[p[1] for p in points], mode="markers", name=name,
            marker={"size": 9, "line": {"width": 0.5, "color": "#333333"}, **marker},
            customdata=[[p[2].get("id")] for p in points],
            text=[point_text(p[2], key, p[1], shown) for p in points],
            hovertemplate="%{text}<extra></extra>", **kwargs)

    colours = [p[2]["params"][color_axis] for p in pts] if color_axis else []
    if color_axis and colours and not all(_number(v) for v in colours):
        for i, value in enumerate(sorted(set(map(str, colours)))):
            group = [p for p, v in zip(pts, colours, strict=True) if str(v) == value]
            fig.add_trace(trace(group, level_name(color_axis, value), {"color": color(i)}))
    elif color_axis:
        fig.add_trace(trace(pts, "cases", {
            "color": [float(v) for v in colours], "colorscale": SEQUENTIAL, "showscale": True,
            "colorbar": {"title": {"text": parameter_label(color_axis), "side": "right"}},
        }, showlegend=False))
    else:
        fig.add_trace(trace(pts, "cases", {"color": color(0)}, showlegend=False))
    _add_twin_line(fig, {None: pts}, key, twin_metrics, None)
    if len(fig.data) and fig.data[-1].name == TWIN_NAME:
        fig.update_layout(legend={"orientation": "h", "y": -0.2, "x": 0})
    if limit is not None:
        add_limit(fig, limit, key)
    if log_y:
        fig.update_yaxes(type="log")
    return fig
