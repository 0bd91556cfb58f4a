"""Study-level analyses of a finished (or partly finished) study (design.md 2).

:func:`analyse` dispatches on the design through :data:`ANALYSES`. Each analysis reads the
metrics of the plan's cases (``metrics[i]`` for ``plan.cases[i]``, None when that case is
not done) and returns JSON-ready data (no NaN: None). An analysis that needs every case
returns ``{"incomplete": n_missing}`` until it has them. The helpers below the dispatch take
plain arrays, so they can be checked against functions with known answers.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
from gapsweep.core import metrics as metric_registry
from gapsweep.core.convergence import refinement_study
from gapsweep.core.errors import InputError

from .design_registry import get_design
from .designs import StudyPlan, plan_study, problem
from .spec import StudySpec, parse_spec

HEADLINE_METRICS = metric_registry.headline()
# Not a property of the case: the same case takes a different time on another run.
NOT_ANALYSED = frozenset({"wall_time_s"})
CONVERGENCE_TOLERANCE = 0.01  # relative change of the last refinement (1 %)

Rows = Sequence[Mapping[str, Any] | None]


def clean(value: Any) -> Any:
    """JSON-ready: numpy to Python, non-finite floats to None, containers recursively."""
    if isinstance(value, Mapping):
        return {str(k): clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, np.ndarray)):
        return [clean(v) for v in value]
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        x = float(value)
        return x if math.isfinite(x) else None
    return value


def _number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def metric_names(rows: Rows) -> list[str]:
    """Metrics that are finite numbers in every present row, in the first row's order."""
    present = [r for r in rows if r is not None]
    if not present:
        return []
    return [
        k for k in present[0]
        if k not in NOT_ANALYSED and all(_number(r.get(k)) for r in present)
    ]


def _missing(rows: Rows) -> int:
    return sum(r is None for r in rows)


def _outputs(rows: Rows) -> dict[str, np.ndarray]:
    return {m: np.array([float(r[m]) for r in rows]) for m in metric_names(rows)}


# --- one-at-a-time ------------------------------------------------------------------------


def coefficient(p0: Any, m0: float, p: Any, m: float) -> float | None:
    """Normalised sensitivity ``(dm / m0) / (dp / p0)`` (dimensionless); None where it is
    undefined (text parameter, zero nominal, zero step)."""
    if not (_number(p0) and _number(p)) or p == p0 or p0 == 0 or m0 == 0:
        return None
    return ((m - m0) / m0) / ((p - p0) / p0)


def _one_at_a_time(spec: StudySpec, plan: StudyPlan, rows: Rows) -> dict[str, Any]:
    if rows[0] is None:
        return {"incomplete": _missing(rows)}
    nominal = {n: plan.cases[0][n] for n in spec.axes}
    points: dict[str, list[tuple[Any, Mapping[str, Any] | None]]] = {}
    for params, row in zip(plan.cases[1:], rows[1:], strict=True):
        moved = next(n for n in spec.axes if params[n] != nominal[n])
        points.setdefault(moved, []).append((params[moved], row))
    names = metric_names(rows)
    coefficients: dict[str, dict[str, list]] = {}
    tornado: dict[str, list] = {}
    for metric in names:
        m0 = float(rows[0][metric])
        per_axis, bars = {}, []
        for axis in spec.axes:
            pts = [(nominal[axis], rows[0])] + points.get(axis, [])
            per_axis[axis] = [
                {"value": p, "metric": None if r is None else r[metric],
                 "coefficient": None if r is None else coefficient(nominal[axis], m0, p, r[metric])}
                for p, r in pts[1:]
            ]
            bars.append(_bar(axis, pts, metric, m0))
        coefficients[metric] = per_axis
        tornado[metric] = sorted(bars, key=lambda b: -(b["swing"] or 0.0))
    out = {"nominal": nominal, "coefficients": coefficients, "tornado": tornado}
    return clean({**out, "missing": _missing(rows)})


def _bar(axis: str, pts: list, metric: str, m0: float) -> dict[str, Any]:
    """The tornado bar of one axis: the metric at its low and high level."""
    if all(_number(p) for p, _ in pts):
        pts = sorted(pts, key=lambda pr: pr[0])
    (p_lo, r_lo), (p_hi, r_hi) = pts[0], pts[-1]
    lo = None if r_lo is None else float(r_lo[metric])
    hi = None if r_hi is None else float(r_hi[metric])
    swing = None if lo is None or hi is None else abs(hi - lo)
    return {
        "axis": axis, "low_value": p_lo, "high_value": p_hi, "low": lo, "high": hi,
        "nominal": m0, "swing": swing,
        "relative_swing": None if swing is None or m0 == 0 else swing / abs(m0),
    }


# --- variance-based and screening ---------------------------------------------------------


def sobol_indices(names: Sequence[str], bounds: Sequence[Sequence[float]], y: np.ndarray,
                  seed: int = 0) -> dict[str, dict[str, float | None]]:
    """Sobol first-order and total indices (with 95 % confidence half-widths) of one
    output ``y`` from Saltelli's N(2D+2) sample (second order on), through SALib."""
    from SALib.analyze import sobol

    prob = {"num_vars": len(names), "names": list(names), "bounds": [list(b) for b in bounds]}
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")  # a constant output gives 0/0: reported as None
        res = sobol.analyze(prob, np.asarray(y, dtype=float), calc_second_order=True,
                            print_to_console=False, seed=seed)
    keys = ("S1", "S1_conf", "ST", "ST_conf")
    return clean({n: {k: res[k][j] for k in keys} for j, n in enumerate(names)})


def morris_indices(names: Sequence[str], bounds: Sequence[Sequence[float]], x: np.ndarray,
                   y: np.ndarray, levels: int = 4, seed: int = 0) -> dict[str, dict]:
    """Morris elementary-effect statistics (mu_star, its 95 % confidence, sigma, mu) of one
    output ``y`` over the trajectory sample ``x``, through SALib; units of ``y`` per
    fraction of each axis's range."""
    from SALib.analyze import morris

    prob = {"num_vars": len(names), "names": list(names), "bounds": [list(b) for b in bounds]}
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        res = morris.analyze(prob, np.asarray(x, dtype=float), np.asarray(y, dtype=float),
                             num_levels=levels, print_to_console=False, seed=seed)
    keys = ("mu_star", "mu_star_conf", "sigma", "mu")
    return clean({n: {k: res[k][j] for k in keys} for j, n in enumerate(names)})


def rank_correlations(names: Sequence[str], x: np.ndarray,
                      y: np.ndarray) -> dict[str, dict[str, float | None]]:
    """Spearman rank correlation (rho, two-sided p value) of ``y`` with each column of ``x``."""
    from scipy.stats import spearmanr

    x = np.asarray(x, dtype=float)
    out = {}
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")  # constant columns or outputs: rho undefined
        for j, n in enumerate(names):
            rho, p = spearmanr(x[:, j], y)
            out[n] = {"rho": float(rho), "p_value": float(p)}
    return clean(out)


def _per_metric(fn: Callable[[np.ndarray], dict]) -> Callable:
    def analysis(spec: StudySpec, plan: StudyPlan, rows: Rows) -> dict[str, Any]:
        if _missing(rows):
            return {"incomplete": _missing(rows)}
        ctx = (spec, plan)
        return {"indices": {m: fn(ctx, y) for m, y in _outputs(rows).items()}}

    return analysis


def _sobol(ctx: tuple, y: np.ndarray) -> dict:
    spec, _ = ctx
    prob = problem(spec)
    return sobol_indices(prob["names"], prob["bounds"], y, spec.seed or 0)


def _morris(ctx: tuple, y: np.ndarray) -> dict:
    spec, plan = ctx
    prob = problem(spec)
    return morris_indices(prob["names"], prob["bounds"], np.array(plan.design_matrix), y,
                          spec.morris_levels, spec.seed or 0)


def _lhs(spec: StudySpec, plan: StudyPlan, rows: Rows) -> dict[str, Any]:
    if _missing(rows):
        return {"incomplete": _missing(rows)}
    x = np.array(plan.design_matrix)
    return {"correlations": {m: rank_correlations(list(spec.axes), x, y)
                             for m, y in _outputs(rows).items()}}


# --- convergence --------------------------------------------------------------------------


def convergence_summary(levels: Sequence[float], values: Sequence[float],
                        tolerance: float = CONVERGENCE_TOLERANCE) -> dict[str, Any]:
    """The core's refinement study as JSON-ready data (observed order, Richardson estimate,
    verdict); a sequence it cannot judge gives ``{"error": ...}``."""
    try:
        study = refinement_study([float(v) for v in levels], values, tolerance=tolerance)
    except InputError as exc:
        return {"error": str(exc)}
    return clean({
        "levels": study.levels, "values": study.values,
        "relative_changes": study.relative_changes, "observed_order": study.observed_order,
        "richardson_estimate": study.richardson_estimate, "converged": study.converged,
        "verdict": study.verdict, "tolerance": study.tolerance, "ratio": study.ratio,
    })


def _convergence(spec: StudySpec, plan: StudyPlan, rows: Rows) -> dict[str, Any]:
    if _missing(rows):
        return {"incomplete": _missing(rows)}
    (axis,) = spec.axes
    metric = spec.metric
    values = [r.get(metric) for r in rows]
    if not all(_number(v) for v in values):
        return {"axis": axis, "metric": metric,
                "error": f"metric {metric!r} is not a finite number in every case"}
    levels = [p[axis] for p in plan.cases]
    return {"axis": axis, "metric": metric, **convergence_summary(levels, values)}


# each design's analysis, named by its entry in the design registry (study/design_registry.py;
# a grid's trends are read from the cases themselves, a monte-carlo's variation analysis takes
# a metric and a limit: study/variation.py, on request)
one_at_a_time_analysis = _one_at_a_time
lhs_analysis = _lhs
sobol_analysis = _per_metric(_sobol)
morris_analysis = _per_metric(_morris)
convergence_analysis = _convergence


def analyse(spec: StudySpec, plan: StudyPlan, metrics: Rows) -> dict[str, Any]:
    """The design's analysis of the cases' metrics (JSON-ready; see the module doc)."""
    if len(metrics) != len(plan.cases):
        raise ValueError(f"{len(metrics)} metric rows for {len(plan.cases)} cases")
    return get_design(spec.design).analysis(spec, plan, metrics)


def stored_plan(spec: StudySpec, cases: Sequence[Mapping[str, Any]]) -> StudyPlan:
    """The study's plan as its stored ``cases`` (in design order) carry it: their params
    are the plan's cases (issue 34.4: a 100,000-case grid is not planned a second time to be
    analysed). A sampling design's analysis also reads the sample matrix (before integer
    axes were rounded), which the cases do not carry: that one is planned again from the
    spec (deterministic, design.md 4.2)."""
    if get_design(spec.design).samples:
        return plan_study(spec)
    params = [c["params"] for c in cases]
    return StudyPlan(params, [], [None] * len(params))


def analyse_study(detail: Mapping[str, Any]) -> dict[str, Any]:
    """The analysis of a study from its detail (``show --json``'s shape: ``spec``, ``cases``
    in the plan's order): the spec parsed, the plan read from the cases
    (:func:`stored_plan`), the done cases' metrics, the others missing. The one recipe for
    the analysis the worker stores when a study finishes and the one a page computes for a
    study still running.

    An analysis that cannot run gives ``{"error": "<type>: <message>"}`` instead of raising:
    it must neither lose the results nor break a page."""
    try:
        spec = parse_spec(detail["spec"])
        plan = stored_plan(spec, detail["cases"])
        # cases come back in the plan's order, so the i-th metrics belong to plan.cases[i]
        metrics = [c["metrics"] if c["status"] == "done" else None for c in detail["cases"]]
        return analyse(spec, plan, metrics)
    except Exception as exc:
        return {"error": f"{type(exc).__name__}: {exc}"}
