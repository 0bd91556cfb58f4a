"""A metric against a study axis, one line per level of a second axis (design.md 2).

The headline view: peak slider acceleration vs clearance, one line per stiffness level, with
the ideal joint's value as a dashed baseline.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import plotly.graph_objects as go

from .cases import metric_value, skipped_note
from .labels import level_name, metric_label, metric_parts, parameter_label, parameter_parts, phrase
from .style import BASELINE_COLOR, color, new_figure

# The metrics the trends tab offers (each also as "<name>_steady", the last crank revolution).
TREND_METRICS = (
    "peak_slider_accel",
    "rms_slider_accel",
    "peak_contact_force",
    "max_penetration",
    "peak_driving_torque",
)
BASELINE_NAME = "ideal joint"


def metric_key(metric: str, steady: bool) -> str:
    """The stored metric name: ``peak_slider_accel``, or with ``steady`` its ``_steady`` twin."""
    return f"{metric}_steady" if steady and not metric.endswith("_steady") else metric


def trend_lines(
    cases: Sequence[Mapping[str, Any]],
    metric: str,
    x_axis: str,
    group_axis: str | None,
) -> tuple[dict[Any, tuple[np.ndarray, np.ndarray]], int]:
    """Group the cases into lines: ``({level: (x, y)}, skipped)``.

    ``x`` holds the values of parameter ``x_axis`` (its own unit) sorted ascending, ``y`` the
    metric (its unit). ``level`` is the case's ``group_axis`` value (None for a single line).
    Cases not done, without the metric or without ``x_axis`` are skipped and counted.
    """
    points: dict[Any, list[tuple[float, float]]] = {}
    skipped = 0
    for case in cases:
        params = case.get("params") or {}
        y = metric_value(case, metric)
        if y is None or x_axis not in params:
            skipped += 1
            continue
        level = params.get(group_axis) if group_axis else None
        points.setdefault(level, []).append((_x_value(params[x_axis]), y))
    lines = {}
    for level in sorted(points, key=_sort_key):
        pts = sorted(points[level], key=lambda p: _sort_key(p[0]))
        lines[level] = (np.array([p[0] for p in pts]), np.array([p[1] for p in pts]))
    return lines, skipped


def _x_value(value: Any) -> float | str:
    # a choice-valued parameter (stiffness_model) is a categorical x axis, in text order
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return value
    return float(value)


def _sort_key(level: Any) -> tuple[int, Any]:
    # numbers in order, then anything else (strings, None) by its text
    if isinstance(level, (int, float)) and not isinstance(level, bool):
        return (0, level)
    return (1, str(level))


def trend_figure(
    cases: Sequence[Mapping[str, Any]],
    metric: str = "peak_slider_accel",
    *,
    x_axis: str = "clearance_mm",
    group_axis: str | None = "stiffness_scale",
    twin_metrics: Mapping[str, float | int | None] | None = None,
    steady: bool = False,
    log_y: bool = False,
) -> go.Figure:
    """``metric`` vs parameter ``x_axis``, one line per level of ``group_axis``.

    ``cases``: case dicts (see :mod:`.cases`). ``metric``: a name of :data:`TREND_METRICS`
    (or any metric); ``steady`` reads ``<metric>_steady`` (last crank revolution).
    ``twin_metrics``: the ideal twin's metrics; its value of the metric is drawn as a dashed
    horizontal trace named ``"ideal joint"`` across the x range (the last trace). ``log_y``:
    logarithmic metric axis. Skipped cases are counted in the subtitle. The x axis is in the
    unit of the parameter (``Clearance [mm]``), y in the metric's (``[m/s²]``).
    """
    key = metric_key(metric, steady)
    lines, skipped = trend_lines(cases, key, x_axis, group_axis)
    title, _ = metric_parts(key)
    fig = new_figure(
        f"{title} vs {phrase(parameter_parts(x_axis)[0])}",
        parameter_label(x_axis),
        metric_label(key),
        subtitle=skipped_note(skipped, len(cases)),
    )
    for i, (level, (x, y)) in enumerate(lines.items()):
        fig.add_trace(
            go.Scatter(
                x=x,
                y=y,
                mode="lines+markers",
                name=level_name(group_axis, level) if group_axis and level is not None else title,
                line={"color": color(i)},
            )
        )
    baseline = metric_value({"status": "done", "metrics": twin_metrics or {}}, key)
    if baseline is not None and lines:
        xs = sorted({v for x, _ in lines.values() for v in x.tolist()}, key=_sort_key)
        fig.add_trace(
            go.Scatter(
                x=[xs[0], xs[-1]],
                y=[baseline, baseline],
                mode="lines",
                name=BASELINE_NAME,
                line={"color": BASELINE_COLOR, "dash": "dash"},
            )
        )
    if log_y:
        fig.update_yaxes(type="log")
    return fig
