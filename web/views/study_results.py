"""The study page's result tabs as components: the study's detail in, figures (from
``web/figures``) and short notes out. Server side only; the series of the spectra tab are
read from the archive here."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import dash_bootstrap_components as dbc
import numpy as np
import plotly.graph_objects as go
from dash import dcc, html
from gapsweep.core import metrics as metric_registry
from gapsweep.study import twins as twins_rule
from gapsweep.study.case_inputs import case_inputs
from gapsweep.study.design_registry import TREND_PANELS, get_design

from .. import data, ids
from ..figures import convergence as convergence_figs
from ..figures import parallel as parallel_figs
from ..figures import sensitivity as sensitivity_figs
from ..figures import spectra as spectra_figs
from ..figures import trend_bands, windows
from ..figures import trends as trend_figs
from ..figures.labels import default_metric, level_name, metric_label, metric_scale
from ..figures.style import GRAPH_CONFIG
from ..figures.windows import DEFAULT_WINDOW
from . import parameters
from . import study_view as view

MAX_SPECTRA = 12  # overlaid spectra stay readable up to about this many lines


def note(text: str, color: str = "secondary") -> dbc.Alert:
    return dbc.Alert(text, color=color, className="my-2 py-2")


def graph(fig: go.Figure, graph_id: str | None = None) -> dcc.Graph:
    kwargs = {"id": graph_id} if graph_id else {}
    return dcc.Graph(figure=fig, config=GRAPH_CONFIG, **kwargs)


def analysis_of(detail: Mapping[str, Any]) -> dict[str, Any]:
    """The stored analysis (written when the study finished), else computed now from the
    cases done so far (the analyses report what is still missing)."""
    if detail.get("analysis"):
        return dict(detail["analysis"])
    from gapsweep.study.analysis import analyse_study

    return analyse_study(detail)


@view.drawn
def trends(
    detail: Mapping[str, Any], *, metric: str, x_axis: str, group_axis: str | None,
    window: str = DEFAULT_WINDOW, log_y: bool = False, limit: float | None = None,
) -> go.Figure:
    """The design's trends figure (see :mod:`.figures.trends`) of ``metric`` read over
    ``window`` (:data:`.figures.windows.WINDOWS`, the settled motion by default; the title
    and the y axis name it, a note says when the study has no such metric; a
    ``ratio_to_ideal_`` metric is its windowed metric over the case's twin's). ``x_axis``: an
    axis, or for one-at-a-time :data:`~.study_view.ALL_FACTORS`; ``group_axis``: an axis,
    None or :data:`~.study_view.NO_GROUP`. An axis the study does not have falls back to the
    design's default (the browser sends the choice). ``limit``: a horizontal reference
    line in the metric's shown unit, with where each line crosses it (grid lines only)."""
    axes = view.axes_of(detail)
    design = view.design_of(detail)
    defaults = view.trend_choices(detail)
    panels = get_design(design).trends == TREND_PANELS
    if x_axis not in axes and not (panels and x_axis == view.ALL_FACTORS):
        x_axis = defaults["x"]
    if group_axis not in axes or group_axis == x_axis:
        group_axis = None
    cases = detail["cases"]
    ratio = metric.startswith(metric_registry.RATIO)
    key, window_note = windows.study_metric(cases, metric.removeprefix(metric_registry.RATIO),
                                            window)
    common = {"twin_metrics": view.single_twin_metrics(detail), "log_y": log_y,
              "limit": limit}
    if ratio:
        # each case over its own twin; the ideal joint's ratio is 1 by definition
        key = metric_registry.RATIO + key
        cases = view.with_ratio(cases, detail.get("twins"), key)
        common["twin_metrics"] = {key: 1.0}
    if len(cases) > trend_bands.POINT_LIMIT and x_axis != view.ALL_FACTORS:
        # a night's study: the median and min-max band per level (web/figures/trend_bands)
        return _noted(trend_bands.band_figure(cases, key, x_axis=x_axis, group_axis=group_axis,
                                              **common), window_note)
    return _noted(_trends(detail, cases, design, axes, key, x_axis, group_axis, common),
                  window_note)


def large_trends(
    summary: Mapping[str, Any], *, metric: str, x_axis: str, group_axis: str | None,
    window: str = DEFAULT_WINDOW, log_y: bool = False, limit: float | None = None,
) -> go.Figure | None:
    """:func:`trends` of a study past :data:`.trend_bands.POINT_LIMIT` cases from the columns
    it draws only (x, the grouping, the metric; the twins' metric for a ratio or the ideal
    line), never the cases as dicts (issue 41.2); None for a design drawn per factor (the
    caller then draws from the detail)."""
    axes = view.axes_of(summary)
    design = view.design_of(summary)
    if design == "one-at-a-time" or x_axis == view.ALL_FACTORS:
        return None
    if x_axis not in axes:
        x_axis = view.trend_choices(summary)["x"]
    if x_axis is None:
        return None
    if group_axis not in axes or group_axis == x_axis:
        group_axis = None
    ratio = metric.startswith(metric_registry.RATIO)
    base = metric.removeprefix(metric_registry.RATIO)
    key, note = windows.windowed_metric(base, window)
    shown = [a for a in (x_axis, group_axis) if a]
    # a case's twin id only to divide by its twin's metric (a ratio)
    cols = data.trend_columns(summary["id"], shown, key, ids=ratio)
    if key != base and not any(v is not None for v in cols.get(key, [])):
        fallback = data.trend_columns(summary["id"], shown, base, ids=ratio)
        if any(v is not None for v in fallback.get(base, [])):  # run before the window
            key, cols = base, fallback
            note = (f"cases run before {windows.WINDOWS.get(window, window)} metrics: "
                    "whole run shown")
    twins = data.trend_columns(summary["id"], [], key, kind="twin")
    twin_y = dict(zip(twins.get("id", []), twins.get(key, []), strict=True))
    y = np.array([np.nan if v is None else float(v) for v in cols.get(key, [])])
    twin_metrics = {key: twin_y[next(iter(twin_y))]} if len(twin_y) == 1 else None
    if ratio and key in twins_rule.DEVIATIONS:  # 1 + the deviation each case stores
        dev = data.trend_columns(summary["id"], [], twins_rule.DEVIATIONS[key], ids=False)
        y = np.array([np.nan if v is None else 1.0 + float(v)
                      for v in dev.get(twins_rule.DEVIATIONS[key], [])])
        key = metric_registry.RATIO + key
        twin_metrics = {key: 1.0}
    elif ratio:  # a window's metric no deviation is kept of: each case over its own twin
        over = np.array([np.nan if twin_y.get(t) in (None, 0) else float(twin_y[t])
                         for t in cols.get("twin_id", [])])
        y = y / over if y.size else y
        key = metric_registry.RATIO + key
        twin_metrics = {key: 1.0}
    x = np.array([np.nan if v is None else float(v) for v in cols.get(x_axis, [])])
    scale = metric_scale(key)  # stored SI -> the unit the figure shows
    keep = np.isfinite(x) & np.isfinite(y)
    groups = cols.get(group_axis, [None] * x.size) if group_axis else [None] * x.size
    fig = trend_bands.band_from_columns(
        x[keep], y[keep] * scale, [g for g, k in zip(groups, keep, strict=True) if k], key,
        x_axis=x_axis, group_axis=group_axis, log_y=log_y, limit=limit,
        twin_metrics=twin_metrics, n_cases=int((summary.get("counts") or {}).get("total", 0)))
    return _noted(fig, note)


def _noted(fig: go.Figure, text: str | None) -> go.Figure:
    if text:
        fig.update_layout(title_text=f"{fig.layout.title.text}<br><sup>{text}</sup>")
    return fig


def _trends(detail: Mapping[str, Any], cases: list[dict[str, Any]], design: str,
            axes: list[str], metric: str, x_axis: str, group_axis: str | None,
            common: dict[str, Any]) -> go.Figure:
    if get_design(design).trends == TREND_PANELS:
        shown = axes if x_axis == view.ALL_FACTORS else [x_axis]
        return trend_figs.one_at_a_time_figure(
            cases, metric, axes=shown, factors=axes, nominal=trend_figs.nominal_of(cases, axes),
            twins=detail.get("twins"), **common)
    if design in trend_figs.SAMPLING_DESIGNS:
        return trend_figs.scatter_figure(cases, metric, x_axis=x_axis, color_axis=group_axis,
                                         **common)
    others = [a for a in axes if a not in (x_axis, group_axis)]
    return trend_figs.trend_figure(cases, metric, x_axis=x_axis, group_axis=group_axis,
                                   other_axes=others, twins=detail.get("twins"), **common)


@view.drawn
def sensitivity(detail: Mapping[str, Any], metric: str) -> Any:
    figs = sensitivity_figs
    design = view.design_of(detail)
    analysis = analysis_of(detail)
    if analysis.get("error"):
        return note(f"The analysis could not run: {analysis['error']}", "warning")
    if analysis.get("incomplete"):
        return note(f"The analysis needs every case: {analysis['incomplete']} not done yet.")
    if design == "one-at-a-time":
        return html.Div([graph(figs.tornado_figure(analysis, metric)),
                         graph(figs.coefficients_figure(analysis, metric))])
    if design == "sobol":
        return graph(figs.sobol_figure(analysis, metric))
    if design == "morris":
        return graph(figs.morris_figure(analysis, metric))
    if design == "latin-hypercube" and analysis.get("correlations"):
        return graph(figs.spearman_figure(analysis, metric), ids.SPEARMAN_GRAPH)
    if design == "grid" and analysis.get("tornado"):
        return graph(figs.tornado_figure(analysis, metric))
    if design == "grid" and len(view.axes_of(detail)) >= 1:
        anova = grid_anova_of(detail, metric)
        if anova is not None:
            return graph(figs.main_effects_figure(anova, metric))
    return note("Sensitivity views belong to the one-at-a-time, Latin-hypercube, Sobol and "
                f"Morris designs; this study's design is {design} (its trends tab shows each "
                "factor's effect).")


def large_sensitivity(summary: Mapping[str, Any], metric: str) -> Any:
    """:func:`sensitivity` of a large grid study from the columns the ANOVA reads (its axes
    and ``metric`` of the done cases), never the cases as dicts (issue 41.2); None for
    another design (the caller reads the detail: their analyses are stored when the study
    finishes)."""
    from gapsweep.study.anova import grid_anova

    axes = view.axes_of(summary)
    if view.design_of(summary) != "grid" or not axes or not isinstance(metric, str):
        return None
    cols = data.trend_columns(summary["id"], axes, metric, ids=False)
    values = cols.get(metric, [])
    if set(map(type, values)) <= {int, float}:
        # every done case has the number (the usual study): the columns as read, no index
        # list picked through per axis (100,000 cases, issue 41)
        levels = {a: cols[a] for a in axes}
    else:
        keep = [i for i, v in enumerate(values)
                if isinstance(v, (int, float)) and not isinstance(v, bool)]
        levels = {a: [cols[a][i] for i in keep] for a in axes}
        values = [values[i] for i in keep]
    if len(values) < 2:
        return None
    return graph(sensitivity_figs.main_effects_figure(grid_anova(levels, values), metric))


def grid_anova_of(detail: Mapping[str, Any], metric: str) -> dict[str, Any] | None:
    """:func:`gapsweep.study.anova.grid_anova` of ``metric`` over the grid's axes, from the
    done cases with a number; None when there are fewer than two."""
    from gapsweep.study.anova import grid_anova

    axes = view.axes_of(detail)
    rows = [(c["params"], v) for c in detail["cases"] if c.get("status") == "done"
            and isinstance(v := (c.get("metrics") or {}).get(metric), (int, float))
            and not isinstance(v, bool)]
    if len(rows) < 2:
        return None
    return grid_anova({a: [p.get(a) for p, _ in rows] for a in axes}, [v for _, v in rows])


def spectra_cases(detail: Mapping[str, Any], limit: int = MAX_SPECTRA) -> list[dict[str, Any]]:
    """The done cases a spectra overlay shows, along the first axis, at most ``limit``:

    - grid: at the middle level of the other axes;
    - one-at-a-time: the first factor's run (the others at their nominal, the first case's);
    - sampled designs (no two cases share a level) and whenever that picks fewer than two
      cases (a study still running): done cases evenly spread over the first axis's values.
    """
    axes = view.axes_of(detail)
    done = [c for c in detail["cases"] if c["status"] == "done"]
    if not axes or not done:
        return done[:limit]
    first, others = axes[0], axes[1:]
    design = view.design_of(detail)
    if design == "one-at-a-time":
        nominal = detail["cases"][0]["params"]
        middle = {a: nominal.get(a) for a in others}
    else:
        middle = {}
        for a in others:
            levels = sorted({c["params"].get(a) for c in done}, key=str)
            numeric = sorted(v for v in levels if isinstance(v, (int, float)))
            middle[a] = numeric[len(numeric) // 2] if numeric else levels[0]
    picked = [c for c in done if all(c["params"].get(a) == middle[a] for a in others)]
    if design in trend_figs.SAMPLING_DESIGNS or len(picked) < min(2, len(done)):
        picked = done
    picked.sort(key=lambda c: _first_key(c["params"].get(first)))
    if len(picked) <= limit:
        return picked
    step = (len(picked) - 1) / (limit - 1) if limit > 1 else 0
    return [picked[round(i * step)] for i in range(limit)]


def _first_key(value: Any) -> tuple[int, Any]:
    return (0, value) if isinstance(value, (int, float)) else (1, str(value))


def load_spectra(case_ids: list[int], signal: str) -> dict[int, dict[str, Any]]:
    """{case id: {"freq_hz", "amplitude"}} of the stored spectra (cases without are left out)."""
    return data.spectra(case_ids, signal)


def spectra_rule(detail: Mapping[str, Any], shown: int) -> str:
    """Which cases the automatic choice draws, in words (the overlay once showed a subset
    without saying so)."""
    axes = view.axes_of(detail)
    done = detail.get("done_total", sum(c["status"] == "done" for c in detail["cases"]))
    design = view.design_of(detail)
    if not axes:
        how = "in design order"
    elif design == "one-at-a-time" and len(axes) > 1:
        how = f"along {axes[0]}, the other factors at their nominal"
    elif design in trend_figs.SAMPLING_DESIGNS or len(axes) == 1:
        how = f"spread evenly over {axes[0]}"
    else:
        how = f"along {axes[0]}, {', '.join(axes[1:])} at the middle level"
    return (f"Showing {shown} of {done} done cases, {how} (at most {MAX_SPECTRA}); "
            "choose others below.")


#: the spectra picker's largest list (a night's study has 100,000 done cases: a dropdown of
#: them all is megabytes for the browser; past it, the cases spread evenly over the first axis)
MAX_CHOICES = 1_000


@view.drawn
def spectra_choices(detail: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The spectra's case picker: every done case (at most :data:`MAX_CHOICES`, then spread
    over the first axis as the overlay picks them), labelled by every varied factor."""
    axes = view.axes_of(detail)
    done = [c for c in detail["cases"] if c["status"] == "done"]
    if len(done) > MAX_CHOICES:
        done = spectra_cases({**detail, "cases": done}, MAX_CHOICES)
    return [{"label": f"{c['id']}: {spectra_figs.case_label(c, axes)}", "value": c["id"]}
            for c in done]


@view.drawn
def spectra(detail: Mapping[str, Any], signal: str, kind: str, log_x: bool = False,
            log_y: bool = False, chosen: Sequence[int] | None = None, *,
            drawn: Sequence[Mapping[str, Any]] | None = None) -> Any:
    """The spectra tab: the cases ``chosen`` (ids; at most :data:`MAX_SPECTRA`) or the
    automatic choice (:func:`spectra_cases`, said in words), labelled by every varied
    factor; overlay (``log_y``: log amplitude) or waterfall (log colour). ``drawn``: those
    cases already read (a large study's, :mod:`.study_large_tabs`; ``detail["done_total"]``
    its done count)."""
    picked = set(chosen or [])
    if drawn is not None:
        cases = [c for c in drawn if c["status"] == "done"][:MAX_SPECTRA]
    else:
        cases = ([c for c in detail["cases"] if c["id"] in picked and c["status"] == "done"]
                 [:MAX_SPECTRA] if picked else spectra_cases(detail))
    stored = load_spectra([c["id"] for c in cases], signal)
    cases = [{**c, "spectrum": stored[c["id"]]} for c in cases if c["id"] in stored]
    if not cases:
        policy = (detail.get("spec") or {}).get("series", "preview")
        if policy == "none":
            return note("This study stores no series (series policy 'none'): no spectra.")
        if not detail.get("done_total", any(c["status"] == "done" for c in detail["cases"])):
            return note("No case is done yet: the spectra appear as cases finish.")
        return note(f"No stored spectra for the cases shown (series policy '{policy}').")
    axes = view.axes_of(detail)
    rpm = crank_speed(detail)
    said = (f"Showing the {len(cases)} chosen cases." if picked
            else spectra_rule(detail, len(cases)))
    if kind == "waterfall":
        fig = spectra_figs.waterfall_figure(cases, signal=signal, axis=axes[0] if axes else None,
                                            speed_rpm=rpm, log_x=log_x)
    else:
        fig = spectra_figs.spectra_figure(cases, signal=signal, axis=axes or None,
                                          speed_rpm=rpm, log_x=log_x, log_y=log_y)
    return html.Div([html.Div(said, id=ids.SPECTRA_SHOWN, className="small text-muted"),
                     graph(fig)])


def crank_speed(detail: Mapping[str, Any]) -> float | None:
    """The study's one crank speed [rpm] (base, else the model's default) for the harmonic
    markers; None when the speed is an axis (no single set of harmonics) or unknown."""
    spec = detail.get("spec") or {}
    if "speed_rpm" in (spec.get("axes") or {}):
        return None
    value = (spec.get("base") or {}).get("speed_rpm")
    if value is None:
        value = parameters.defaults(view.model_of(detail)).get("speed_rpm")
    return float(value) if isinstance(value, (int, float)) else None


@view.drawn
def convergence(detail: Mapping[str, Any]) -> Any:
    """A convergence-design study: its refinement study (metric against the levels, order,
    Richardson estimate, verdict). Any other: its convergence certificates."""
    design = view.design_of(detail)
    if design != "convergence":
        return certificates(detail)
    analysis = analysis_of(detail)
    if analysis.get("error"):
        return note(f"The analysis could not run: {analysis['error']}", "warning")
    if analysis.get("incomplete"):
        return note(f"The analysis needs every case: {analysis['incomplete']} not done yet.")
    verdict = analysis.get("verdict")
    return html.Div([graph(convergence_figs.convergence_figure(analysis)),
                     html.P(f"Verdict: {verdict}" if verdict else "", className="fw-bold")])


@view.drawn
def parallel(detail: Mapping[str, Any], metric: str) -> go.Figure:
    return parallel_figs.parallel_figure(detail["cases"], view.axes_of(detail), metric)


CERTIFICATES_EXPLAINED = (
    "When a study's cases have ended, its case with the largest peak slider acceleration and "
    "its case with the smallest clearance are run again at rtol ÷ 10, at half the output step "
    "and with the contact stiffness raised (K × 2, × 4, seed 002's step-up). The verdict reads "
    "the whole-run peak slider acceleration: the first impact sets it, so it stays put where "
    "the late-time motion is chaotic (c ≥ 0.08 mm), unlike the last revolution's peak. "
    "Numerics pass within {num:.3g} %, the stiffness step-up within {stiff:.3g} %. These runs "
    "are not among the study's cases, counts or exports."
)


@view.drawn
def certificates(detail: Mapping[str, Any]) -> Any:
    """The certificates' verdict, progress, figure and table (see
    ``gapsweep.study.certificates``)."""
    from gapsweep.study.certificates import (
        NUMERIC_TOLERANCE,
        STIFFNESS_TOLERANCE,
        certificate_report,
    )

    explained = html.P(CERTIFICATES_EXPLAINED.format(num=100 * NUMERIC_TOLERANCE,
                                                     stiff=100 * STIFFNESS_TOLERANCE),
                       className="small text-muted")
    certs = detail.get("certificates") or []
    if not certs:
        if detail.get("status") in ("queued", "running"):
            text = "The convergence certificates run once the study's cases have ended."
        elif detail.get("status") == "cancelled":
            text = "A cancelled study gets no convergence certificate."
        else:
            text = ("No convergence certificate: none of the cases ended done, or the study "
                    "finished before certificates existed (or they are being queued now).")
        return html.Div([note(text), explained])
    # the cases as they ran: a mechanism's measures (the verdict's metric) are in its table
    ran = [{**c, "params": case_inputs(c["params"], detail.get("spec"))}
           for c in detail["cases"]]
    report = certificate_report(view.model_of(detail), ran, certs)
    counts = report["counts"]
    progress = (f"Certificates: {counts.get('done', 0)} of {len(certs)} done"
                + "".join(f", {n} {s}" for s, n in counts.items() if s != "done" and n))
    axes = view.axes_of(detail)
    by_id = {c["id"]: c for c in detail["cases"]}
    names = {cid: f"case {cid} (" + ", ".join(
        level_name(a, by_id[cid]["params"][a]) for a in axes if a in by_id[cid]["params"]) + ")"
        for cid in (s["case_id"] for s in report["sources"]) if cid in by_id}
    return html.Div([
        html.P(report["verdict"], id=ids.CERTIFICATE_VERDICT, className="fw-bold my-2"),
        html.P(report["metric_statement"], id=ids.CERTIFICATE_METRIC, className="mb-1"),
        html.P(progress, id=ids.CERTIFICATE_PROGRESS, className="text-muted mb-1"),
        graph(convergence_figs.certificate_figure(report, names), ids.CERTIFICATE_GRAPH),
        certificate_table(report, names),
        explained,
    ])


def _percent(x: Any) -> str:
    return "" if x is None else f"{100 * x:.3g} %"


def certificate_table(report: Mapping[str, Any], names: Mapping[Any, str]) -> dbc.Table:
    """One row per refinement: source, refinement, run, peak, its change from the step
    before (the verdict's reference: K × 4 against K × 2), the maximum penetration's, the
    ladder's verdict."""
    # the study's one judged metric (its headline, or the whole-run peak where the refined
    # runs settle to different motions): the verdict's and the chart's
    metric = report.get("metric") or default_metric()
    head = ["Source", "Refinement", "Run", metric_label(metric),
            "Change of the peak from the step before", "Change of max. penetration",
            "Verdict"]
    rows = []
    for source in report["sources"]:
        for ladder in source["ladders"]:
            for k, step in enumerate(ladder["steps"][1:]):
                peak = step["metrics"].get(metric)
                rows.append(html.Tr([
                    html.Td(names.get(source["case_id"], f"case {source['case_id']}")),
                    html.Td(step["label"]),
                    html.Td(dcc.Link(str(step["case_id"]), href=f"/cases/{step['case_id']}")
                            if step.get("case_id") else ""),
                    html.Td("" if peak is None else f"{peak:.6g}"),
                    html.Td(_percent(step["step_changes"].get(metric))),
                    html.Td(_percent(step["step_changes"].get("max_penetration"))),
                    html.Td(ladder["verdict"] if k == len(ladder["steps"]) - 2 else
                            step.get("status") if step.get("status") != "done" else ""),
                ]))
    return dbc.Table([html.Thead(html.Tr([html.Th(h) for h in head])), html.Tbody(rows)],
                     id=ids.CERTIFICATE_TABLE, size="sm", striped=True, className="small")
