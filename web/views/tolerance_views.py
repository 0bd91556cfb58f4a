"""The study page's Variation and Response-surface tabs (design.md 4.8): layouts, the
components they render from a study's detail, and their callbacks.

The numbers come from the pure study modules (:mod:`gapsweep.study.variation`,
:mod:`gapsweep.study.response_surface`, over :func:`gapsweep.study.factors.factor_data`, the
same functions the API's ``/variation`` and ``/predict`` answer with), the figures from
``web/figures``. The page module calls :func:`register_callbacks` with its detail loader.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

import dash_bootstrap_components as dbc
from dash import ALL, Input, Output, State, callback, callback_context, dcc, html, no_update

from .. import ids
from ..figures import response_surface as surface_figs
from ..figures import variation as variation_figs
from ..figures.labels import metric_label, metric_scale, metric_unit, parameter_label
from ..figures.style import GRAPH_CONFIG
from ..figures.whatif_export import whatif_html
from .study_view import TABLE_METRICS, axes_of, drawn, metric_choices

TAB_VARIATION, TAB_SURFACE = "variation", "surface"
SLIDER_STEPS = 100


def _metric_dropdown(cid: str, detail: Mapping[str, Any] | None = None) -> dcc.Dropdown:
    """The study's headline metrics (a mechanism's measures first), its default chosen."""
    options, value = (metric_choices(detail) if detail is not None else
                      ([{"label": metric_label(m), "value": m} for m in TABLE_METRICS],
                       TABLE_METRICS[0]))
    return dcc.Dropdown(id=cid, value=value, clearable=False, options=options)


def _graph(fig: Any, cid: str | None = None) -> dcc.Graph:
    return dcc.Graph(figure=fig, config=GRAPH_CONFIG, **({"id": cid} if cid else {}))


def _fmt(x: float | None, digits: int = 4) -> str:
    """``digits`` significant digits, without an exponent between 1e-3 and 1e7 (20190, not
    2.019e+04)."""
    if x is None or not math.isfinite(x):
        return "–"
    if x == 0 or not 1e-3 <= abs(x) < 1e7:
        return f"{x:.{digits}g}"
    decimals = max(0, digits - 1 - math.floor(math.log10(abs(x))))
    return f"{x:.{decimals}f}"


# --- variation ------------------------------------------------------------------------------


def variation_tab(detail: Mapping[str, Any] | None = None) -> html.Div:
    return html.Div([
        dbc.Row([
            dbc.Col(_metric_dropdown(ids.VARIATION_METRIC, detail), md=5),
            dbc.Col(dbc.InputGroup([
                dbc.InputGroupText("Limit"),
                dbc.Input(id=ids.VARIATION_LIMIT, type="number", debounce=True,
                          placeholder="in the metric's unit"),
            ]), md=4),
        ], className="my-2 g-2"),
        html.Div(id=ids.VARIATION_CONTENT),
    ])


def distribution_notes(detail: Mapping[str, Any]) -> list[str]:
    """Per axis, what was drawn and how it is bounded (truncation stated), and the twins."""
    from gapsweep.study.spec import parse_spec
    from gapsweep.study.variation_design import axis_distribution, twin_note

    spec = parse_spec(detail["spec"])
    if spec.design != "monte-carlo":
        return []
    notes = [f"{parameter_label(n)}: {axis_distribution(spec, n).describe()}"
             for n in spec.axes]
    seed = spec.seed or 0
    return [*notes, f"{spec.samples} samples, plain Monte Carlo, seed {seed}: the same "
            "seed draws the same cases.", twin_note(spec)]


@drawn
def variation_content(detail: Mapping[str, Any], metric: str,
                      limit_shown: float | None) -> html.Div:
    """Summary, exceedance, histogram, ECDF, variance shares and settling of ``metric``;
    ``limit_shown`` is typed in the unit the metric's label names."""
    from gapsweep.study import variation as v
    from gapsweep.study.factors import factor_data

    data = factor_data(detail, metric)
    if data.y.size < 2:
        return dbc.Alert(f"{data.y.size} done cases with {metric_label(metric)} so far: the "
                         "distribution needs at least 2.", color="secondary")
    scale, unit = metric_scale(metric), metric_unit(metric)
    limit = None if limit_shown is None else float(limit_shown) / scale
    stats = v.summary(data.y)
    shares, r2 = v.variance_shares(data.x, data.y, data.names)
    exceed = None if limit is None else v.exceedance(data.y, limit)
    x, f = v.ecdf(data.y)
    failed = sum(c.get("status") == "failed" for c in detail.get("cases", []))
    left_out = (f" ({failed} failed cases left out: a failure that depends on the factors "
                "biases what remains; see their reasons on the Cases tab)" if failed else "")
    summary_text = (f"n = {stats['n']} done cases{left_out} · mean "
                    f"{_fmt(stats['mean'] * scale)} · std {_fmt(stats['std'] * scale)} · P5 "
                    f"{_fmt(stats['p5'] * scale)} · P50 {_fmt(stats['p50'] * scale)} · P95 "
                    f"{_fmt(stats['p95'] * scale)} {unit}")
    if exceed is None:
        exceed_text = "Type a limit to get the probability of exceeding it."
    else:
        lo, hi = exceed["ci95"]
        k = int(round(exceed["probability"] * stats["n"]))
        exceed_text = (f"P({metric_label(metric)} > {_fmt(limit_shown, 6)}) = "
                       f"{exceed['probability']:.4f} (95 % Wilson interval {lo:.4f}–{hi:.4f}; "
                       f"{k} of {stats['n']} cases)")
    notes = distribution_notes(detail)
    method = ("Variance shares: squared standardised regression coefficients of a linear "
              f"fit on the sampled factors (its R² = {r2:.3f}; a low R² means a nonlinear "
              "or interacting response the shares do not capture). Percentiles: linear "
              "interpolation (type 7).")
    return html.Div([
        html.P(summary_text, id=ids.VARIATION_SUMMARY, className="mb-1"),
        html.P(exceed_text, id=ids.VARIATION_EXCEEDANCE, className="fw-semibold"),
        html.Ul([html.Li(n, className="small text-muted") for n in notes]),
        dbc.Row([
            dbc.Col(_graph(variation_figs.histogram_figure(metric, v.histogram(data.y), stats,
                                                           limit), ids.VARIATION_HISTOGRAM),
                    md=6),
            dbc.Col(_graph(variation_figs.ecdf_figure(metric, x, f, exceed), ids.VARIATION_ECDF),
                    md=6),
        ]),
        dbc.Row([
            dbc.Col(_graph(variation_figs.contributions_figure(metric, shares, r2)), md=6),
            dbc.Col(_graph(variation_figs.settling_figure(metric, v.settling(data.y, limit))),
                    md=6),
        ]),
        html.P(method, className="small text-muted"),
    ])


# --- response surface -----------------------------------------------------------------------


def surface_tab(detail: Mapping[str, Any]) -> html.Div:
    axes = axes_of(detail)
    options = [{"label": parameter_label(a), "value": a} for a in axes]
    return html.Div([
        dbc.Row([
            dbc.Col(_metric_dropdown(ids.SURFACE_METRIC, detail), md=4),
            dbc.Col(dbc.RadioItems(id=ids.SURFACE_ORDER, value=2, inline=True, options=[
                {"label": "linear", "value": 1}, {"label": "quadratic", "value": 2},
                {"label": "cubic", "value": 3}]), md=3),
            dbc.Col(dcc.Dropdown(id=ids.SURFACE_X, options=options,
                                 value=axes[0] if axes else None, clearable=False), md=2),
            dbc.Col(dcc.Dropdown(id=ids.SURFACE_Y, options=options,
                                 value=axes[1] if len(axes) > 1 else None, clearable=False),
                    md=2),
        ], className="my-2 g-2", align="center"),
        html.Div(id=ids.SURFACE_CONTENT),
        dcc.Download(id=ids.WHATIF_DOWNLOAD),
    ])


def _surface(detail: Mapping[str, Any], metric: str, order: int):
    from gapsweep.study.factors import factor_data
    from gapsweep.study.response_surface import fit_surface

    data = factor_data(detail, metric)
    return data, fit_surface(data.x, data.y, data.names, int(order))


@drawn
def surface_content(detail: Mapping[str, Any], metric: str, order: int,
                    fx: str | None, fy: str | None) -> html.Div:
    from gapsweep.study.response_surface import POOR_PREDICTED_R2, SurfaceError, grid

    try:
        data, s = _surface(detail, metric, order)
    except SurfaceError as exc:
        return dbc.Alert(f"No response surface of {metric_label(metric)}: {exc}.",
                         color="secondary")
    sub = surface_figs.fit_subtitle(s.r2, s.r2_adjusted, s.r2_predicted)
    centre = dict(zip(s.names, s.centre.tolist(), strict=True))
    parts: list[Any] = [html.P(f"Order {s.order} polynomial on coded factors (-1..1 over the "
                               f"run range), least squares over {s.y.size} done cases: {sub}.")]
    if s.poor:
        parts.append(dbc.Alert(
            f"Predicted R² {_fmt(s.r2_predicted, 3)} is below {POOR_PREDICTED_R2}: the surface "
            "does not predict the cases it is fitted to when each is left out: the metric "
            "scatters about any smooth trend in these factors (late-time metrics do in "
            "chaotic regions, c >= 0.08 mm on the reference mechanism). No contour is drawn; "
            "read the what-if as a trend at most.",
            color="warning"))
    figs = [dbc.Col(_graph(surface_figs.actual_vs_predicted(
        metric, data.y, s.predict(data.x), data.case_ids, sub)), md=6)]
    if not s.poor and fx in s.names and fy in s.names and fx != fy:
        xs, ys, z = grid(s, fx, fy, centre)
        figs.append(dbc.Col(_graph(surface_figs.contour_figure(
            metric, fx, fy, xs, ys, z, s.x[:, s.names.index(fx)], s.x[:, s.names.index(fy)],
            "other factors at their centre"), ids.SURFACE_CONTOUR), md=6))
    parts.append(dbc.Row(figs))
    parts.append(coefficient_table(s.coefficient_table()))
    parts.append(whatif_panel(s, metric))
    return html.Div(parts)


def coefficient_table(coefficients: Mapping[str, float]) -> dbc.Table:
    head = html.Thead(html.Tr([html.Th("Term (coded factors)"), html.Th("Coefficient")]))
    body = html.Tbody([html.Tr([html.Td(t), html.Td(f"{c:.6g}")])
                       for t, c in coefficients.items()])
    return dbc.Table([head, body], size="sm", bordered=True, className="w-auto small")


def slider_values(lo: float, hi: float) -> tuple[float, float, float]:
    """(min, max, step) of a what-if slider over the run range."""
    return lo, hi, (hi - lo) / SLIDER_STEPS


def whatif_panel(s: Any, metric: str) -> dbc.Card:
    rows = []
    for i, name in enumerate(s.names):
        lo = float(s.centre[i] - s.half_range[i])
        hi = float(s.centre[i] + s.half_range[i])
        mn, mx, step = slider_values(lo, hi)
        rows.append(dbc.Row([
            dbc.Col(html.Span(parameter_label(name)), md=3),
            dbc.Col(dcc.Slider(id={"type": ids.WHATIF_SLIDER, "factor": name}, min=mn, max=mx,
                               step=step, value=float(s.centre[i]), marks=None,
                               tooltip={"always_visible": True, "placement": "bottom",
                                        "transform": "significant"},  # assets/slider_tooltip.js
                               updatemode="mouseup"), md=9),
        ], className="my-1", align="center"))
    return dbc.Card(dbc.CardBody([
        html.H5("What-if"),
        *rows,
        html.P(id=ids.WHATIF_PREDICTION, className="fw-semibold mt-2 mb-1"),
        html.P(id=ids.WHATIF_NEAREST, className="small"),
        dbc.Button("Export what-if page (HTML)", id=ids.WHATIF_EXPORT, size="sm",
                   color="secondary", outline=True),
    ]), className="my-3", id=ids.SURFACE_WHATIF)


@drawn
def whatif_texts(detail: Mapping[str, Any], metric: str, order: int,
                 values: Mapping[str, float]) -> tuple[str, Any]:
    """The prediction line and the nearest run case at the sliders' ``values``."""
    from gapsweep.study.response_surface import SurfaceError

    try:
        data, s = _surface(detail, metric, order)
    except SurfaceError as exc:
        return str(exc), ""
    if set(values) != set(s.names):
        return "", ""
    y = s.predict_at(values)
    flag = " (poor predicted R²: a trend at most)" if s.poor else ""
    at = ", ".join(f"{parameter_label(n)} {values[n]:.8g}" for n in s.names)
    text = (f"Prediction at {at}: {metric_label(metric)} = "
            f"{_fmt(y * metric_scale(metric), 8)}{flag}")
    j = s.nearest_case(values)
    setting = ", ".join(f"{parameter_label(n)} {_fmt(float(s.x[j, i]), 6)}"
                        for i, n in enumerate(s.names))
    nearest = html.Span([
        "Nearest run case: ", dcc.Link(f"case {data.case_ids[j]}",
                                       href=f"/cases/{data.case_ids[j]}"),
        f" ({setting}): {_fmt(float(s.y[j]) * metric_scale(metric), 6)}"])
    return text, nearest


@drawn
def export_page(detail: Mapping[str, Any], metric: str, order: int) -> str | None:
    from gapsweep.study.response_surface import SurfaceError

    try:
        _, s = _surface(detail, metric, order)
    except SurfaceError:
        return None
    return whatif_html(f"Study {detail['id']}: {detail['name']}", metric, s.to_dict(),
                       s.terms, note=f"Exported from gapsweep study {detail['id']}.")


# --- callbacks ------------------------------------------------------------------------------


def register_callbacks(load_detail: Callable[[Any], dict[str, Any] | None]) -> None:
    """The tabs' callbacks; ``load_detail(study_id)`` gives the study's (memoised) detail."""

    @callback(
        Output(ids.VARIATION_CONTENT, "children"),
        Input(ids.STUDY_TABS, "active_tab"),
        Input(ids.STUDY_VERSION, "data"),
        Input(ids.VARIATION_METRIC, "value"),
        Input(ids.VARIATION_LIMIT, "value"),
        State(ids.STUDY_ID_STORE, "data"),
    )
    def variation(tab, _version, metric, limit, study_id):
        if tab != TAB_VARIATION:
            return no_update
        detail = load_detail(study_id)
        if detail is None:
            return no_update
        ok = isinstance(limit, (int, float)) and math.isfinite(limit)
        return variation_content(detail, metric, float(limit) if ok else None)

    @callback(
        Output(ids.SURFACE_CONTENT, "children"),
        Input(ids.STUDY_TABS, "active_tab"),
        Input(ids.STUDY_VERSION, "data"),
        Input(ids.SURFACE_METRIC, "value"),
        Input(ids.SURFACE_ORDER, "value"),
        Input(ids.SURFACE_X, "value"),
        Input(ids.SURFACE_Y, "value"),
        State(ids.STUDY_ID_STORE, "data"),
    )
    def surface(tab, _version, metric, order, fx, fy, study_id):
        if tab != TAB_SURFACE:
            return no_update
        detail = load_detail(study_id)
        return no_update if detail is None else surface_content(detail, metric, order, fx, fy)

    @callback(
        Output(ids.WHATIF_PREDICTION, "children"),
        Output(ids.WHATIF_NEAREST, "children"),
        Input({"type": ids.WHATIF_SLIDER, "factor": ALL}, "value"),
        State(ids.SURFACE_METRIC, "value"),
        State(ids.SURFACE_ORDER, "value"),
        State(ids.STUDY_ID_STORE, "data"),
    )
    def whatif(values, metric, order, study_id):
        names = [i["id"]["factor"] for i in callback_context.inputs_list[0]]
        detail = load_detail(study_id)
        if detail is None or not names:
            return no_update, no_update
        return whatif_texts(detail, metric, order,
                            {n: float(v) for n, v in zip(names, values, strict=True)})

    @callback(
        Output(ids.WHATIF_DOWNLOAD, "data"),
        Input(ids.WHATIF_EXPORT, "n_clicks"),
        State(ids.SURFACE_METRIC, "value"),
        State(ids.SURFACE_ORDER, "value"),
        State(ids.STUDY_ID_STORE, "data"),
        prevent_initial_call=True,
    )
    def export(_n, metric, order, study_id):
        detail = load_detail(study_id)
        page = None if detail is None else export_page(detail, metric, order)
        if page is None:
            return no_update
        return dcc.send_string(page, f"study-{detail['id']}-{metric}-whatif.html")


def has_numeric_axes(detail: Mapping[str, Any]) -> bool:
    """Whether a response surface tab makes sense: an axis whose values are numbers (a
    distribution, a range, a factor, or numeric values)."""
    for axis in ((detail.get("spec") or {}).get("axes") or {}).values():
        values = axis.get("values")
        if values is None or all(isinstance(v, (int, float)) and not isinstance(v, bool)
                                 for v in values):
            return True
    return False


def is_variation(detail: Mapping[str, Any]) -> bool:
    return (detail.get("spec") or {}).get("design") == "monte-carlo"
