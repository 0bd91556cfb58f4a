"""A refinement study (design.md 2): the metric against the refinement level, the Richardson
estimate, the observed order and the verdict.

Input: the convergence analysis of ``gapsweep.study.analysis`` -
``{"axis", "metric", "levels", "values", "observed_order", "richardson_estimate",
"converged", "verdict", ...}`` (NaN written as None), or ``{"axis", "metric", "error"}`` /
``{"incomplete": n}`` when it could not be judged (then an empty figure says so).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import plotly.graph_objects as go

from .labels import (
    default_metric,
    metric_label,
    metric_parts,
    metric_scale,
    parameter_label,
    phrase,
)
from .style import REFERENCE_COLOR, color, fit_tick_labels, new_figure

RICHARDSON_NAME = "Richardson estimate"


def _finite(value: Any) -> float | None:
    if value is None or isinstance(value, bool):
        return None
    value = float(value)
    return value if math.isfinite(value) else None


def convergence_title(analysis: Mapping[str, Any], metric: str) -> tuple[str, str | None]:
    """(title, subtitle): ``"Convergence of peak contact force: observed order 2.00"`` and
    the verdict (or why there is none)."""
    head = f"Convergence of {phrase(metric_parts(metric)[0])}"
    if "incomplete" in analysis:
        return head, f"waiting for {analysis['incomplete']} cases"
    if "error" in analysis:
        return head, str(analysis["error"])
    order = _finite(analysis.get("observed_order"))
    head += ": observed order " + ("undefined" if order is None else f"{order:.2f}")
    return head, analysis.get("verdict")


def convergence_figure(
    analysis: Mapping[str, Any], *, metric: str | None = None, axis: str | None = None
) -> go.Figure:
    """``values`` against ``levels`` (log x, a tick at each level) as one line with markers,
    and the Richardson estimate as a dashed horizontal trace over the level range when it is
    finite.

    ``metric``/``axis`` default to the analysis' own ``"metric"``/``"axis"``. x in the unit
    of the refinement parameter (``Relative tolerance [–]``), y in the metric's.
    """
    metric = metric or analysis.get("metric") or "metric"
    axis = axis or analysis.get("axis") or "level"
    title, subtitle = convergence_title(analysis, metric)
    fig = new_figure(title, parameter_label(axis), metric_label(metric), subtitle=subtitle)
    fig.update_xaxes(type="log")
    levels = [float(v) for v in analysis.get("levels") or []]
    scale = metric_scale(metric)  # the metric's shown unit (penetrations in µm)
    values = [None if (y := _finite(v)) is None else y * scale
              for v in analysis.get("values") or []]
    if not levels:
        return fig
    # a tick at each level: a log axis spanning a decade or two otherwise labels its minor
    # ticks too (8 9 100n 2 3 ... 1µ), and a level between decades gets no label
    fig.update_xaxes(tickvals=levels)
    # converged values differ in their last digits: long tick labels ("21.108075µ")
    fit_tick_labels(fig, "yaxis")
    fig.add_trace(
        go.Scatter(
            x=levels,
            y=values,
            mode="lines+markers",
            name=metric_parts(metric)[0],
            line_color=color(0),
        )
    )
    estimate = _finite(analysis.get("richardson_estimate"))
    if estimate is not None:
        estimate *= scale
        fig.add_trace(
            go.Scatter(
                x=[min(levels), max(levels)],
                y=[estimate, estimate],
                mode="lines",
                name=RICHARDSON_NAME,
                line={"color": REFERENCE_COLOR, "dash": "dash"},
            )
        )
    return fig


CERTIFICATE_TITLE = "Convergence certificates"


def certificate_steps(report: Mapping[str, Any]) -> list[str]:
    """The x categories of :func:`certificate_figure`: "as run", then every refinement of
    the report in ladder order ("rtol ÷ 10", "output step ÷ 2", "K × 2", "K × 4")."""
    out = ["as run"]
    for source in report.get("sources") or []:
        for ladder in source.get("ladders") or []:
            for step in ladder.get("steps", [])[1:]:
                if step["label"] not in out:
                    out.append(step["label"])
    return out


def certificate_figure(
    report: Mapping[str, Any], source_names: Mapping[Any, str] | None = None
) -> go.Figure:
    """The headline metric of each certificate source against its refinements: one line
    with markers per source case, x the refinements as categories (:func:`certificate_steps`),
    y the metric (``report["metric"]``, its unit). Points missing (a run not done) are gaps.
    Each point's customdata is ``[case id, change from "as run" in %]`` (hover shows both).

    ``report``: ``gapsweep.study.certificates.certificate_report``; ``source_names``:
    {source case id: legend name} (default ``"case <id>"``, prefixed with its roles).
    """
    metric = report.get("metric") or default_metric()
    span = "" if metric.endswith("_settled") else " (whole run)"
    fig = new_figure(f"{CERTIFICATE_TITLE}: {phrase(metric_parts(metric)[0])}{span}",
                     "Refinement", metric_label(metric),
                     subtitle=_certificate_subtitle(report))
    steps = certificate_steps(report)
    for i, source in enumerate(report.get("sources") or []):
        by_label: dict[str, Mapping[str, Any]] = {}
        for ladder in source.get("ladders") or []:
            for step in ladder.get("steps", []):
                by_label.setdefault(step["label"], step)
        ys, custom = [], []
        for label in steps:
            step = by_label.get(label)
            value = None if step is None else _finite(step["metrics"].get(metric))
            change = None if step is None else _finite((step.get("changes") or {}).get(metric))
            ys.append(value)
            custom.append([None if step is None else step.get("case_id"),
                           None if change is None else 100.0 * change])
        name = (source_names or {}).get(source.get("case_id")) or f"case {source.get('case_id')}"
        roles = ", ".join(source.get("roles") or [])
        fig.add_trace(go.Scatter(
            x=steps, y=ys, customdata=custom, mode="lines+markers",
            name=f"{roles}: {name}" if roles else name, line_color=color(i),
            connectgaps=False,
            hovertemplate="%{x}: %{y:.6g}<br>case %{customdata[0]}, "
                          "change %{customdata[1]:.3g} %<extra></extra>",
        ))
    fig.update_xaxes(type="category", categoryorder="array", categoryarray=steps)
    return fig


def _certificate_subtitle(report: Mapping[str, Any]) -> str | None:
    numerics = report.get("numerics_converged")
    if numerics is None or report.get("numeric_tolerance") is None:
        return None
    tol = f"{100 * float(report['numeric_tolerance']):.3g} %"
    return f"numerics {'converged' if numerics else 'NOT converged'} within {tol}"
