"""Refinement studies: does a metric settle as a numerical parameter is refined? (design.md 2)

Generic over the refinement parameter: integration tolerance, time step, contact stiffness,
ANCF element count. The caller runs one case per level and passes the levels and the metric
(peak contact force, tip deflection ...); this module reports relative changes, the observed
order of convergence, a Richardson extrapolation and a one-line verdict.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .errors import InputError, require_range

# Successive level ratios must agree this closely to be read as one refinement ratio.
RATIO_RTOL = 1e-3


@dataclass(frozen=True)
class ConvergenceStudy:
    """The outcome of a refinement study, levels ordered coarse to fine.

    ``levels``: the refinement parameter per level (its own units). ``values``: the metric
    per level (its own units). ``relative_changes``: ``|f[k+1] - f[k]| / |f[k+1]|``, one
    fewer than levels (inf when ``f[k+1] = 0 != f[k]``). ``observed_order``: p from the last
    three levels, NaN when undefined. ``richardson_estimate``: the extrapolated limit (metric
    units), NaN unless p > 0 and the last two changes share a sign. ``converged``: last
    relative change < ``tolerance``. ``verdict``: a one-line summary for a page or a log.
    ``tolerance``: as given. ``ratio``: the refinement ratio used (> 1; NaN with 2 levels).
    """

    levels: tuple[float, ...]
    values: tuple[float, ...]
    relative_changes: tuple[float, ...]
    observed_order: float
    richardson_estimate: float
    converged: bool
    verdict: str
    tolerance: float
    ratio: float


def _relative_change(f_old: float, f_new: float) -> float:
    diff = abs(f_new - f_old)
    if diff == 0.0:
        return 0.0
    return diff / abs(f_new) if f_new != 0.0 else math.inf


def _refinement_ratio(levels: np.ndarray) -> float:
    """The constant ratio (> 1) of the last three levels, whichever way they run."""
    steps = levels[-2:] / levels[-3:-1]
    steps = np.maximum(steps, 1.0 / steps)  # 10 -> 20 and 1e-6 -> 1e-7 both refine
    if abs(steps[1] - steps[0]) > RATIO_RTOL * steps[0]:
        raise InputError(
            "levels",
            tuple(levels[-3:].tolist()),
            "a constant refinement ratio over the last three levels, or pass ratio=",
        )
    return float(steps[1])


def refinement_study(
    levels: Sequence[float],
    values: Sequence[float],
    *,
    tolerance: float = 0.01,
    ratio: float | None = None,
) -> ConvergenceStudy:
    """Convergence of ``values`` over successively refined ``levels``.

    ``levels``: >= 2 positive, strictly monotone numbers, coarse to fine (element counts
    10, 20, 40, or tolerances 1e-6, 1e-7, 1e-8). ``values``: the metric at each level.
    ``tolerance``: relative change (0.01 = 1 %) below which the last refinement counts as
    converged. ``ratio``: refinement ratio r > 1; inferred from the last three levels when
    None (they must then be geometric). With ``f1, f2, f3`` the last three values,
    ``p = ln(|f1 - f2| / |f2 - f3|) / ln r`` and the Richardson estimate is
    ``f3 + (f3 - f2) / (r^p - 1)``.
    """
    lv = np.asarray(levels, dtype=float)
    fv = np.asarray(values, dtype=float)
    if lv.ndim != 1 or lv.size < 2:
        raise InputError("levels", levels, "a sequence of at least 2 refinement levels")
    if not np.all(np.isfinite(lv)) or np.any(lv <= 0.0):
        raise InputError("levels", levels, "finite and > 0")
    steps = np.diff(lv)
    if not (np.all(steps > 0.0) or np.all(steps < 0.0)):
        raise InputError("levels", levels, "strictly increasing or strictly decreasing")
    if fv.shape != lv.shape:
        raise InputError("values", values, f"one value per level ({lv.size})")
    if not np.all(np.isfinite(fv)):
        raise InputError("values", values, "finite numbers")
    tol = require_range("tolerance", tolerance, 0.0, math.inf, low_open=True)

    changes = tuple(_relative_change(a, b) for a, b in zip(fv[:-1], fv[1:], strict=True))
    order = estimate = math.nan
    r = math.nan
    if ratio is not None:
        r = require_range("ratio", ratio, 1.0, math.inf, low_open=True)
    if lv.size >= 3:
        r = _refinement_ratio(lv) if ratio is None else r
        d_coarse, d_fine = fv[-2] - fv[-3], fv[-1] - fv[-2]
        if d_coarse != 0.0 and d_fine != 0.0:
            order = math.log(abs(d_coarse) / abs(d_fine)) / math.log(r)
            # Richardson assumes f = f* + C h^p, which needs monotone, shrinking changes.
            if order > 0.0 and d_coarse * d_fine > 0.0:
                estimate = float(fv[-1] + d_fine / (r**order - 1.0))

    converged = changes[-1] < tol
    return ConvergenceStudy(
        levels=tuple(lv.tolist()),
        values=tuple(fv.tolist()),
        relative_changes=changes,
        observed_order=order,
        richardson_estimate=estimate,
        converged=converged,
        verdict=_verdict(changes[-1], tol, converged, order, estimate),
        tolerance=tol,
        ratio=r,
    )


def _verdict(change: float, tol: float, converged: bool, order: float, estimate: float) -> str:
    head = "converged" if converged else "not converged"
    sign = "<" if converged else ">="
    text = f"{head}: last change {100 * change:.3g} % {sign} {100 * tol:.3g} %"
    if math.isnan(order):
        text += ", observed order undefined"
    else:
        text += f", observed order {order:.2f}"
    if not math.isnan(estimate):
        text += f", Richardson estimate {estimate:.6g}"
    return text
