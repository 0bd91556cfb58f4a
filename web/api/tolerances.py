"""The JSON routes of variation studies and response surfaces (design.md 4.8).

    GET /api/studies/<id>/variation?metric=M[&limit=L]
        {"metric", "n", "mean", "std", "p5", "p50", "p95",
         "exceedance": {"limit", "probability", "ci95": [lo, hi]} | null,
         "contributions": {axis: share}}
    GET /api/studies/<id>/predict?metric=M&<axis>=<value>...[&order=1|2|3]
        {"metric", "prediction", "r2", "r2_adjusted", "r2_predicted"}

Over the study's done cases. Every numeric axis must be given to ``/predict`` (422 naming
the missing one); ``order`` defaults to 2 (quadratic). An unknown metric or a study with too
few cases for the surface is a 422 with the reason; an unknown study a 404.
"""

from __future__ import annotations

import math
from typing import Any

from flask import Blueprint, jsonify, request
from gapsweep.study.factors import factor_data, metric_choices
from gapsweep.study.response_surface import DEFAULT_ORDER, ORDERS, SurfaceError, fit_surface
from gapsweep.study.variation import variation_report

from .. import data

tolerances_api = Blueprint("tolerances_api", __name__, url_prefix="/api")


def _refuse(field: str, value: Any, allowed: str) -> Any:
    return jsonify({"errors": [{"field": field, "value": value, "allowed": allowed}]}), 422


def _number_arg(name: str) -> float | None | str:
    raw = request.args.get(name)
    if raw is None or raw == "":
        return None
    try:
        x = float(raw)
    except ValueError:
        return raw
    return x if math.isfinite(x) else raw


def _finite(x: Any) -> Any:
    return x if not isinstance(x, float) or math.isfinite(x) else None


def _study_metric(study_id: int) -> tuple[dict[str, Any] | None, str | None, Any]:
    """(the study's detail, the ``metric`` asked for, None) - or (None, None, the answer
    refusing it: 404 for an unknown study, 422 for a metric its done cases do not have)."""
    detail = data.study_detail(study_id)
    if detail is None:
        return None, None, (jsonify({"error": f"no study with id {study_id}"}), 404)
    metric = request.args.get("metric", "")
    choices = metric_choices(detail)
    if metric not in choices:
        return None, None, _refuse("metric", metric, "a metric of the study's done cases: "
                                   + ", ".join(choices[:40]))
    return detail, metric, None


@tolerances_api.get("/studies/<id:study_id>/variation")
def variation(study_id: int) -> Any:
    detail, metric, refusal = _study_metric(study_id)
    if refusal:
        return refusal
    limit = _number_arg("limit")
    if isinstance(limit, str):
        return _refuse("limit", limit, "a finite number in the metric's unit")
    factors = factor_data(detail, metric)
    report = variation_report(metric, factors.x, factors.y, factors.names, limit)
    return jsonify({k: _finite(v) for k, v in report.items()})


@tolerances_api.get("/studies/<id:study_id>/predict")
def predict(study_id: int) -> Any:
    detail, metric, refusal = _study_metric(study_id)
    if refusal:
        return refusal
    order = _number_arg("order")
    if order is None:
        order = DEFAULT_ORDER
    if order not in ORDERS:
        return _refuse("order", request.args.get("order"), "1, 2 or 3")
    factors = factor_data(detail, metric)
    try:
        surface = fit_surface(factors.x, factors.y, factors.names, int(order))
    except SurfaceError as exc:
        return _refuse("metric", metric, f"a response surface: {exc}")
    values = {}
    for name in surface.names:
        value = _number_arg(name)
        if value is None or isinstance(value, str):
            lo = surface.centre[surface.names.index(name)] - surface.half_range[
                surface.names.index(name)]
            hi = lo + 2 * surface.half_range[surface.names.index(name)]
            return _refuse(name, value, f"a number (the cases span {lo:.6g} to {hi:.6g})")
        values[name] = value
    return jsonify({"metric": metric, "prediction": _finite(surface.predict_at(values)),
                    "r2": _finite(surface.r2), "r2_adjusted": _finite(surface.r2_adjusted),
                    "r2_predicted": _finite(surface.r2_predicted)})
