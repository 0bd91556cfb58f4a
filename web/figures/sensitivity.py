"""Sensitivity views (design.md 2): tornado and normalised coefficients of a one-at-a-time
study, Sobol indices with confidence intervals, Morris μ* against σ, Spearman rank
correlations (with p values) of a Latin-hypercube study.

Factors are named on the axes by their title and unit (``Crank speed [rpm]``), the traces'
categories stay the parameter names; every axis has ``automargin`` so no tick label is cut
and no axis title sits over them.

Inputs are the JSON-ready dicts of ``gapsweep.study.analysis.analyse`` (keys below); values
may be None (JSON's NaN) and are then drawn as gaps.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import plotly.graph_objects as go

from .hover import quantity
from .labels import (
    DIMENSIONLESS,
    default_metric,
    format_value,
    level_name,
    metric_label,
    metric_parts,
    metric_scale,
    parameter_label,
    parameter_parts,
    phrase,
    with_unit,
)
from .style import REFERENCE_COLOR, TEMPLATE, color, new_figure, title_text, vertical_markers


def _factor_axis(fig: go.Figure, axes: Sequence[str], which: str = "y",
                 notes: Mapping[str, str] | None = None) -> None:
    """Name the factor categories ``axes`` by their label (``Crank speed [rpm]``, plus a
    second line from ``notes``), with room for them (automargin, the title set apart)."""
    text = [parameter_label(a) + (f"<br><sub>{notes[a]}</sub>" if notes and a in notes else "")
            for a in axes]
    update = {"tickmode": "array", "tickvals": list(axes), "ticktext": text,
              "automargin": True, "title": {"standoff": 14}}
    if which == "y":
        fig.update_yaxes(**update)
        fig.update_xaxes(automargin=True)
    else:
        fig.update_xaxes(**update)
        fig.update_yaxes(automargin=True)


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


# one colour meaning on a one-at-a-time study's page: a factor's low level, its high level
# (the tornado and the coefficients below it)
SIDE_COLORS = {"low": color(0), "high": color(1)}


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def tornado_figure(
    analysis: Mapping[str, Any], metric: str | None = None, *, title: str | None = None
) -> go.Figure:
    """Tornado chart of ``metric``: per factor a bar from the nominal value to the metric at
    the factor's low level and one to its high level, largest swing on top.

    Two horizontal bar traces, ``low`` then ``high``, with ``y`` = the factor names in
    :func:`tornado_rows` order, ``base`` = the nominal metric and ``x`` = metric - nominal
    (the bar's length), each bar's ``text`` the factor's value at that end; the nominal
    metric is a vertical dashed line labelled with its value. The factor ticks read
    ``"Crank speed [rpm]"`` over ``"3500 – 6500, nominal 5000"`` (the nominal from
    ``analysis["nominal"]`` when given). x in the metric's unit.
    """
    metric = metric or default_metric()  # the study's own (a mechanism's measure)
    rows = tornado_rows(analysis, metric)
    name, unit = metric_parts(metric)
    fig = new_figure(title or f"Tornado: {phrase(name)}", metric_label(metric), "Factor")
    axes = [str(r["axis"]) for r in rows]
    scale = metric_scale(metric)  # bars in the metric's shown unit (penetrations in µm)
    for side, _i in (("low", 0), ("high", 1)):
        nominal = [r["nominal_metric"] * scale for r in rows]
        value = [r[f"metric_{side}"] * scale for r in rows]
        fig.add_trace(
            go.Bar(
                orientation="h",
                y=axes,
                base=[_gap(n) for n in nominal],
                x=[_gap(v - n) for v, n in zip(value, nominal, strict=True)],
                name=side,
                marker_color=SIDE_COLORS[side],
                text=[format_value(r.get(side)) for r in rows],
                textposition="outside",
                cliponaxis=False,
                customdata=[
                    [format_value(r.get(side)), _gap(v)] for r, v in zip(rows, value, strict=True)
                ],
                hovertemplate=f"%{{y}} = %{{customdata[0]}} ({side}): %{{customdata[1]:.4g}}"
                "<extra></extra>",
            )
        )
    fig.update_layout(barmode="overlay", legend={"orientation": "h", "y": -0.22, "x": 0})
    fig.update_yaxes(categoryorder="array", categoryarray=axes, autorange="reversed")
    factor_nominal = analysis.get("nominal") or {}
    notes = {}
    for r in rows:
        span = f"{format_value(r['low'])} – {format_value(r['high'])}"
        if r["axis"] in factor_nominal:
            span += f", nominal {format_value(factor_nominal[r['axis']])}"
        notes[r["axis"]] = span
    _factor_axis(fig, axes, "y", notes)
    nominals = {r["nominal_metric"] * scale for r in rows if not math.isnan(r["nominal_metric"])}
    if len(nominals) == 1:
        (m0,) = nominals
        vertical_markers(fig, [m0], dash="dash", color=REFERENCE_COLOR)
        fig.add_annotation(x=m0, y=1.0, xref="x", yref="paper", yanchor="bottom",
                           showarrow=False, text=f"nominal case: {quantity(m0, unit)}",
                           font={"size": 11, "color": REFERENCE_COLOR})
    return fig


def coefficients_figure(
    analysis: Mapping[str, Any], metric: str | None = None
) -> go.Figure:
    """Normalised sensitivity coefficients of ``metric`` [–], one bar per factor level.

    ``analysis["coefficients"][metric]`` = ``{axis: [{"value", "coefficient"}, ...]}``, the
    coefficient being the relative change of the metric per relative change of the factor
    (dimensionless). Two bar traces, ``low`` and ``high`` (a level below or above the
    factor's nominal, ``analysis["nominal"]``), coloured as the tornado colours them
    (:data:`SIDE_COLORS`: one colour meaning per page); x = the level's legend name
    (``"stiffness ×0.7"``, ``"c = 0.02 mm"``) in factor order.
    """
    metric = metric or default_metric()  # the study's own (a mechanism's measure)
    per_axis = (analysis.get("coefficients") or {}).get(metric, {})
    nominal = analysis.get("nominal") or {}
    name, _ = metric_parts(metric)
    fig = new_figure(
        f"Normalised sensitivity: {phrase(name)}",
        "Factor level",
        with_unit("Normalised coefficient", DIMENSIONLESS),
        subtitle="(Δm/m) / (Δx/x): the metric's relative change per relative change of the "
        "factor, from the nominal",
    )
    bars: dict[str, tuple[list[str], list[float]]] = {"low": ([], []), "high": ([], [])}
    order = []
    for axis, entries in per_axis.items():
        for e in entries:
            label = level_name(str(axis), e.get("value"))
            order.append(label)
            n = nominal.get(axis)
            low = _number(e.get("value")) and _number(n) and e["value"] < n
            x, y = bars["low" if low else "high"]
            x.append(label)
            y.append(_gap(_num(e.get("coefficient"))))
    for side, (x, y) in bars.items():
        fig.add_trace(go.Bar(x=x, y=y, name=f"{side} level", marker_color=SIDE_COLORS[side]))
    fig.update_xaxes(categoryorder="array", categoryarray=order)
    fig.update_layout(legend={"orientation": "h", "y": -0.3, "x": 0})
    fig.update_xaxes(automargin=True)
    fig.update_yaxes(automargin=True)
    return fig


def sobol_figure(analysis: Mapping[str, Any], metric: str | None = None) -> go.Figure:
    """Sobol first-order (S1) and total (ST) indices of ``metric`` per factor [–].

    ``analysis["indices"][metric]`` = ``{axis: {"S1", "S1_conf", "ST", "ST_conf"}}`` (the
    ``_conf`` values: half-widths of the 95 % confidence interval). Two bar traces, S1 then
    ST, with ``x`` = the factors in the given order and symmetric error bars = the conf values.
    """
    metric = metric or default_metric()  # the study's own (a mechanism's measure)
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
    _factor_axis(fig, axes, "x")
    return fig


def morris_figure(analysis: Mapping[str, Any], metric: str | None = None) -> go.Figure:
    """Morris screening of ``metric``: μ* (mean absolute elementary effect) against σ, one
    labelled marker per factor, horizontal error bars = ``mu_star_conf``.

    ``analysis["indices"][metric]`` = ``{axis: {"mu_star", "mu_star_conf", "sigma"}}``, all in
    the metric's unit (elementary effects on the unit design scale). One scatter trace.
    """
    metric = metric or default_metric()  # the study's own (a mechanism's measure)
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


def p_text(p: float | None) -> str:
    """A p value as a bar's label: ``"p = 0.003"``, ``"p < 1e-6"``, ``"p n/a"``."""
    if p is None or math.isnan(p):
        return "p n/a"
    return "p < 1e-6" if p < 1e-6 else f"p = {p:.2g}"


def spearman_figure(analysis: Mapping[str, Any], metric: str | None = None) -> go.Figure:
    """Spearman rank correlation ρ of ``metric`` with each factor of a Latin-hypercube study,
    one horizontal bar per factor (one trace), strongest on top, each bar labelled
    ``"ρ = 0.82 · p = 3e-05"`` (two-sided p value; ``customdata`` = [ρ, p]).

    ``analysis["correlations"][metric]`` = ``{axis: {"rho", "p_value"}}`` (None for an
    undefined ρ, a constant factor or output: drawn as a gap). x: ρ on [-1, 1], [–].
    """
    metric = metric or default_metric()  # the study's own (a mechanism's measure)
    per_axis = (analysis.get("correlations") or {}).get(metric, {})
    rows = [(str(a), _num(v.get("rho")), _num(v.get("p_value"))) for a, v in per_axis.items()]
    rows.sort(key=lambda r: -1.0 if math.isnan(r[1]) else abs(r[1]), reverse=True)
    name, _ = metric_parts(metric)
    fig = new_figure(f"Spearman rank correlation with {phrase(name)}",
                     with_unit("Spearman ρ", DIMENSIONLESS), "Factor",
                     subtitle="bars: ρ of the metric with each factor; p: two-sided p value")
    axes = [r[0] for r in rows]
    fig.add_trace(go.Bar(
        orientation="h",
        y=axes,
        x=[_gap(r[1]) for r in rows],
        text=[(f"ρ = {r[1]:.2f} · " if not math.isnan(r[1]) else "") + p_text(r[2])
              for r in rows],
        textposition="auto",
        customdata=[[_gap(r[1]), _gap(r[2])] for r in rows],
        marker_color=[color(0) if not r[1] < 0 else color(3) for r in rows],
        name="Spearman ρ",
        showlegend=False,
        hovertemplate="%{y}: ρ = %{customdata[0]:.3f}, p = %{customdata[1]:.2g}<extra></extra>",
    ))
    fig.update_xaxes(range=[-1.05, 1.05], zeroline=True, zerolinecolor="#999999")
    fig.update_yaxes(categoryorder="array", categoryarray=axes, autorange="reversed")
    _factor_axis(fig, axes, "y")
    return fig


def factor_names(analysis: Mapping[str, Any], metric: str) -> Sequence[str]:
    """The factors an indices analysis (Sobol or Morris) reports for ``metric``."""
    return [str(a) for a in (analysis.get("indices") or {}).get(metric, {})]


def main_effects_figure(anova: Mapping[str, Any], metric: str | None = None) -> go.Figure:
    """A grid study's main effects (:func:`gapsweep.study.anova.grid_anova`): one panel per
    factor, the metric's mean at each of its levels (over every other factor's levels) in
    the metric's shown unit, the grand mean dashed; each panel's title gives the factor's
    share of the variance. A last panel: the shares as bars, the interactions included."""
    metric = metric or default_metric()  # the study's own (a mechanism's measure)
    from plotly.subplots import make_subplots

    effects = anova.get("main_effects") or {}
    shares = anova.get("shares") or {}
    scale = metric_scale(metric)
    name, _ = metric_parts(metric)

    def share_text(x: Any) -> str:
        return "–" if x is None else f"{100 * x:.3g} %"

    titles = [f"{parameter_parts(str(f))[0]}: {share_text(shares.get(f))}" for f in effects]
    fig = make_subplots(rows=1, cols=len(effects) + 1,
                        subplot_titles=[*titles, "Share of the variance"])
    for i, (factor, points) in enumerate(effects.items(), start=1):
        fig.add_trace(go.Scatter(
            x=[format_value(level) if not _number(level) else level for level, _ in points],
            y=[mean * scale for _, mean in points], mode="lines+markers",
            name=parameter_parts(str(factor))[0], marker_color=color(i - 1),
            showlegend=False), row=1, col=i)
        fig.add_hline(y=anova["grand_mean"] * scale, line={"dash": "dash", "width": 1,
                                                           "color": REFERENCE_COLOR},
                      row=1, col=i)
        fig.update_xaxes(title_text=parameter_label(str(factor)), row=1, col=i)
        fig.update_yaxes(title_text=f"Mean {phrase(metric_label(metric))}", row=1, col=i)
    bars = [(parameter_parts(str(f))[0], shares.get(f)) for f in effects]
    bars.append(("interactions", anova.get("interactions")))
    fig.add_trace(go.Bar(x=[b[0] for b in bars], y=[_gap(_num(b[1])) for b in bars],
                         marker_color=[*(color(i) for i in range(len(effects))), REFERENCE_COLOR],
                         showlegend=False, name="share"), row=1, col=len(effects) + 1)
    fig.update_yaxes(title_text=with_unit("Share", DIMENSIONLESS), range=[0, 1],
                     row=1, col=len(effects) + 1)
    note_text = ("" if anova.get("balanced") else
                 f" (unbalanced: {anova.get('n')} cases; the split is approximate)")
    fig.update_layout(template=TEMPLATE, title={"text": title_text(
        f"Main effects: {phrase(name)}",
        "two-way analysis of variance on the grid: each factor's share, the rest is their "
        "interaction" + note_text)})
    return fig
