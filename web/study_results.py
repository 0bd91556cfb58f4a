"""The study page's result tabs as components: the study's detail in, figures (from
``web/figures``) and short notes out. Server side only; the series of the spectra tab are
read from the archive here."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import dash_bootstrap_components as dbc
import plotly.graph_objects as go
from dash import dcc, html

from . import context, parameters
from . import study_view as view
from .figure_downloads import GRAPH_CONFIG
from .figures import convergence as convergence_figs
from .figures import parallel as parallel_figs
from .figures import sensitivity as sensitivity_figs
from .figures import spectra as spectra_figs
from .figures.trends import trend_figure

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
    from gapsweep.study.analysis import analyse
    from gapsweep.study.designs import plan_study
    from gapsweep.study.spec import parse_spec

    spec = parse_spec(detail["spec"])
    plan = plan_study(spec)
    metrics = [c["metrics"] if c["status"] == "done" else None for c in detail["cases"]]
    try:
        return analyse(spec, plan, metrics)
    except Exception as exc:  # an analysis that cannot run yet must not break the page
        return {"error": f"{type(exc).__name__}: {exc}"}


def trends(
    detail: Mapping[str, Any], *, metric: str, x_axis: str, group_axis: str | None,
    steady: bool, log_y: bool,
) -> go.Figure:
    return trend_figure(detail["cases"], metric, x_axis=x_axis, group_axis=group_axis,
                        twin_metrics=view.single_twin_metrics(detail), steady=steady,
                        log_y=log_y)


def sensitivity(detail: Mapping[str, Any], metric: str) -> Any:
    figs = sensitivity_figs
    design = (detail.get("spec") or {}).get("design", "grid")
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
    if design == "grid" and analysis.get("tornado"):
        return graph(figs.tornado_figure(analysis, metric))
    return note("Sensitivity views belong to the one-at-a-time, Sobol and Morris designs; "
                f"this study's design is {design} (its trends tab shows each factor's effect).")


def spectra_cases(detail: Mapping[str, Any], limit: int = MAX_SPECTRA) -> list[dict[str, Any]]:
    """The done cases a spectra overlay shows: along the first axis (clearance), at the
    nominal (middle) level of the others, at most ``limit``."""
    axes = view.axes_of(detail)
    done = [c for c in detail["cases"] if c["status"] == "done"]
    if not axes or not done:
        return done[:limit]
    others = axes[1:]
    middle = {}
    for a in others:
        levels = sorted({c["params"].get(a) for c in done}, key=str)
        numeric = sorted(v for v in levels if isinstance(v, (int, float)))
        middle[a] = numeric[len(numeric) // 2] if numeric else levels[0]
    picked = [c for c in done if all(c["params"].get(a) == middle[a] for a in others)]
    picked.sort(key=lambda c: c["params"].get(axes[0]))
    return picked[:limit]


def load_spectra(case_ids: list[int], signal: str) -> dict[int, dict[str, Any]]:
    """{case id: {"freq_hz", "amplitude"}} of the stored spectra (cases without are left out)."""
    from gapsweep.db.studies import case_series

    out = {}
    with context.session() as s:
        for case_id in case_ids:
            try:
                series = case_series(s, case_id, ["spectrum_freq_hz", f"spectrum_{signal}"])
            except KeyError:
                continue
            out[case_id] = {"freq_hz": series["spectrum_freq_hz"],
                            "amplitude": series[f"spectrum_{signal}"]}
    return out


def spectra(detail: Mapping[str, Any], signal: str, kind: str) -> Any:
    cases = spectra_cases(detail)
    stored = load_spectra([c["id"] for c in cases], signal)
    cases = [{**c, "spectrum": stored[c["id"]]} for c in cases if c["id"] in stored]
    if not cases:
        return note("No stored spectra yet (series policy 'none', or no case done).")
    axes = view.axes_of(detail)
    rpm = crank_speed(detail)
    make = spectra_figs.waterfall_figure if kind == "waterfall" else spectra_figs.spectra_figure
    return graph(make(cases, signal=signal, axis=axes[0] if axes else None, speed_rpm=rpm))


def crank_speed(detail: Mapping[str, Any]) -> float | None:
    """The study's one crank speed [rpm] (base, else the model's default) for the harmonic
    markers; None when the speed is an axis (no single set of harmonics) or unknown."""
    spec = detail.get("spec") or {}
    if "speed_rpm" in (spec.get("axes") or {}):
        return None
    value = (spec.get("base") or {}).get("speed_rpm")
    if value is None:
        value = parameters.defaults(detail.get("model", "slider-crank")).get("speed_rpm")
    return float(value) if isinstance(value, (int, float)) else None


def convergence(detail: Mapping[str, Any]) -> Any:
    design = (detail.get("spec") or {}).get("design", "grid")
    if design != "convergence":
        return note("Convergence studies (design = \"convergence\") show the metric against "
                    f"the refinement here; this study's design is {design}.")
    analysis = analysis_of(detail)
    if analysis.get("error"):
        return note(f"The analysis could not run: {analysis['error']}", "warning")
    if analysis.get("incomplete"):
        return note(f"The analysis needs every case: {analysis['incomplete']} not done yet.")
    verdict = analysis.get("verdict")
    return html.Div([graph(convergence_figs.convergence_figure(analysis)),
                     html.P(f"Verdict: {verdict}" if verdict else "", className="fw-bold")])


def parallel(detail: Mapping[str, Any], metric: str) -> go.Figure:
    return parallel_figs.parallel_figure(detail["cases"], view.axes_of(detail), metric)
