"""Sensitivity views (design.md 2): tornado and normalised coefficients of a one-at-a-time
study, Sobol indices with confidence intervals, Morris μ* against σ.

Inputs are the JSON-ready dicts of ``gapsweep.study.analysis.analyse`` (keys below); values
may be None (JSON's NaN) and are then drawn as gaps.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import plotly.graph_objects as go

from .labels import (
    DIMENSIONLESS,
    format_value,
    metric_label,
    metric_parts,
    metric_scale,
    phrase,
    with_unit,
)
from .style import BASELINE_COLOR, color, new_figure, vertical_markers


def _num(value: Any) -> float:
    """A JSON number as float; None (NaN written as null) -> NaN."""
    return math.nan if value is None else float(value)


def _gap(value: float) -> float | None:
    """NaN -> None, which Plotly draws as a gap (and JSON can carry)."""
    return None if math.isnan(value) else value


def _tornado_row(row: Mapping[str, Any]) -> dict[str, Any]:
    """One tornado row in the figure's terms, from either key set (see :func:`tornado_rows`)."""
    if "metric_low" in row or "metric_high" in row:
        keys = ("low", "high", "metric_low", "metric_high", "nominal_metric")
    else:
        keys = ("low_value", "high_value", "low", "high", "nominal")
    low, high, m_low, m_high, nominal = (row.get(k) for k in keys)
    return {
        "axis": str(row["axis"]),
        "low": low,
        "high": high,
        "metric_low": _num(m_low),
        "metric_high": _num(m_high),
        "nominal_metric": _num(nominal),
    }


def tornado_rows(analysis: Mapping[str, Any], metric: str | None = None) -> list[dict[str, Any]]:
    """The tornado rows of a one-at-a-time analysis for ``metric``, largest swing first.

    ``analysis["tornado"]`` is ``{metric: [row, ...]}`` (``gapsweep.study.analysis``: rows
    ``{"axis", "low_value", "high_value", "low", "high", "nominal", "swing", ...}`` with
    ``low``/``high`` the metric at the factor's extreme levels ``low_value``/``high_value``)
    or one list of rows ``{"axis", "low", "high", "metric_low", "metric_high",
    "nominal_metric"}`` (``low``/``high`` the factor's values). Returned rows use the second
    key set, metrics as floats (NaN when missing). Swing = ``|metric_high - metric_low|`` in
    the metric's unit; rows without one sort last.
    """
    rows = analysis.get("tornado") or []
    if isinstance(rows, Mapping):
        rows = rows.get(metric, []) if metric else next(iter(rows.values()), [])

    def swing(row: Mapping[str, Any]) -> float:
        s = abs(row["metric_high"] - row["metric_low"])
        return -1.0 if math.isnan(s) else s

    return sorted((_tornado_row(r) for r in rows), key=swing, reverse=True)


def tornado_figure(
    analysis: Mapping[str, Any], metric: str = "peak_slider_accel", *, title: str | None = None
) -> go.Figure:
    """Tornado chart of ``metric``: per factor a bar from the nominal value to the metric at
    the factor's low level and one to its high level, largest swing on top.

    Two horizontal bar traces, ``low`` then ``high``, with ``y`` = the factor names in
    :func:`tornado_rows` order, ``base`` = the nominal metric and ``x`` = metric - nominal
    (the bar's length); the nominal metric is a vertical dashed line. x in the metric's unit.
    """
    rows = tornado_rows(analysis, metric)
    name, _ = metric_parts(metric)
    fig = new_figure(title or f"Tornado: {phrase(name)}", metric_label(metric), "Factor")
    axes = [str(r["axis"]) for r in rows]
    scale = metric_scale(metric)  # bars in the metric's shown unit (penetrations in µm)
    for side, i in (("low", 0), ("high", 1)):
        nominal = [r["nominal_metric"] * scale for r in rows]
        value = [r[f"metric_{side}"] * scale for r in rows]
        fig.add_trace(
            go.Bar(
                orientation="h",
                y=axes,
                base=[_gap(n) for n in nominal],
                x=[_gap(v - n) for v, n in zip(value, nominal, strict=True)],
                name=side,
                marker_color=color(i),
                customdata=[
                    [format_value(r.get(side)), _gap(v)] for r, v in zip(rows, value, strict=True)
                ],
                hovertemplate=f"%{{y}} = %{{customdata[0]}} ({side}): %{{customdata[1]:.4g}}"
                "<extra></extra>",
            )
        )
    fig.update_layout(barmode="overlay")
    fig.update_yaxes(categoryorder="array", categoryarray=axes, autorange="reversed")
    nominals = {r["nominal_metric"] * scale for r in rows if not math.isnan(r["nominal_metric"])}
    if len(nominals) == 1:
        vertical_markers(fig, list(nominals), dash="dash", color=BASELINE_COLOR)
    return fig


def coefficients_figure(
    analysis: Mapping[str, Any], metric: str = "peak_slider_accel"
) -> go.Figure:
    """Normalised sensitivity coefficients of ``metric`` [–], one bar per factor level.

    ``analysis["coefficients"][metric]`` = ``{axis: [{"value", "coefficient"}, ...]}``, the
    coefficient being the relative change of the metric per relative change of the factor
    (dimensionless). One bar trace per factor (axis order kept), x = ``"<axis> <value>"``.
    """
    per_axis = (analysis.get("coefficients") or {}).get(metric, {})
    name, _ = metric_parts(metric)
    fig = new_figure(
        f"Normalised sensitivity: {phrase(name)}",
        "Factor level",
        with_unit("Normalised coefficient (Δm/m)/(Δx/x)", DIMENSIONLESS),
    )
    for i, (axis, entries) in enumerate(per_axis.items()):
        fig.add_trace(
            go.Bar(
                x=[f"{axis} {format_value(e.get('value'))}" for e in entries],
                y=[_gap(_num(e.get("coefficient"))) for e in entries],
                name=str(axis),
                marker_color=color(i),
            )
        )
    return fig


def sobol_figure(analysis: Mapping[str, Any], metric: str = "peak_slider_accel") -> go.Figure:
    """Sobol first-order (S1) and total (ST) indices of ``metric`` per factor [–].

    ``analysis["indices"][metric]`` = ``{axis: {"S1", "S1_conf", "ST", "ST_conf"}}`` (the
    ``_conf`` values: half-widths of the 95 % confidence interval). Two bar traces, S1 then
    ST, with ``x`` = the factors in the given order and symmetric error bars = the conf values.
    """
    per_axis = (analysis.get("indices") or {}).get(metric, {})
    axes = [str(a) for a in per_axis]
    name, _ = metric_parts(metric)
    fig = new_figure(
        f"Sobol indices: {phrase(name)}",
        "Factor",
        with_unit("Sobol index", DIMENSIONLESS),
    )
    for i, (key, label) in enumerate((("S1", "first order S1"), ("ST", "total ST"))):
        fig.add_trace(
            go.Bar(
                x=axes,
                y=[_gap(_num(v.get(key))) for v in per_axis.values()],
                error_y={
                    "type": "data",
                    "symmetric": True,
                    "array": [_gap(_num(v.get(f"{key}_conf"))) for v in per_axis.values()],
                },
                name=label,
                marker_color=color(i),
            )
        )
    fig.update_layout(barmode="group")
    return fig


def morris_figure(analysis: Mapping[str, Any], metric: str = "peak_slider_accel") -> go.Figure:
    """Morris screening of ``metric``: μ* (mean absolute elementary effect) against σ, one
    labelled marker per factor, horizontal error bars = ``mu_star_conf``.

    ``analysis["indices"][metric]`` = ``{axis: {"mu_star", "mu_star_conf", "sigma"}}``, all in
    the metric's unit (elementary effects on the unit design scale). One scatter trace.
    """
    per_axis = (analysis.get("indices") or {}).get(metric, {})
    name, u = metric_parts(metric)
    scale = metric_scale(metric)  # in the metric's shown unit (penetrations in µm)
    fig = new_figure(
        f"Morris screening: {phrase(name)}",
        with_unit("μ* (mean |elementary effect|)", u),
        with_unit("σ (spread of elementary effects)", u),
    )
    fig.add_trace(
        go.Scatter(
            x=[_gap(_num(v.get("mu_star")) * scale) for v in per_axis.values()],
            y=[_gap(_num(v.get("sigma")) * scale) for v in per_axis.values()],
            error_x={
                "type": "data",
                "symmetric": True,
                "array": [_gap(_num(v.get("mu_star_conf")) * scale) for v in per_axis.values()],
            },
            text=[str(a) for a in per_axis],
            mode="markers+text",
            textposition="top center",
            marker={"color": color(0), "size": 10},
            name="factors",
            showlegend=False,
        )
    )
    return fig


def factor_names(analysis: Mapping[str, Any], metric: str) -> Sequence[str]:
    """The factors an indices analysis (Sobol or Morris) reports for ``metric``."""
    return [str(a) for a in (analysis.get("indices") or {}).get(metric, {})]
