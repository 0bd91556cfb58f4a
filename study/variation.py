"""The analysis of a variation (Monte Carlo) study: pure functions over numpy arrays.

design.md 4.8: per metric the mean, standard deviation (n - 1), P5/P50/P95, a histogram, an
empirical CDF; the probability of exceeding an engineer's limit with a 95 % interval; each
factor's share of the variance; and how these settle as the samples grow.

Methods, stated:

- **Percentiles**: numpy's default (linear interpolation between order statistics, Hyndman &
  Fan type 7).
- **Exceedance** ``P(y > limit)``: the proportion ``k / n``; its 95 % interval is **Wilson's
  score interval** (Wilson 1927; Newcombe 1998, method 3), which stays inside [0, 1] and
  keeps its coverage near 0 and 1 where the Wald interval collapses (k = 0 gives [0, 0] with
  Wald, [0, 3.8/n] here).
- **Variance shares**: squared standardised regression coefficients (SRC²) of a linear
  least-squares fit of the metric on the sampled factors, normalised to sum to 1:
  ``share_i = b_i² s_i² / Σ_j b_j² s_j²`` with ``b`` the fitted slopes and ``s`` the factors'
  sample standard deviations. For a linear response ``y = a0 + Σ a_i x_i`` with independent
  factors this is exactly ``a_i² σ_i² / Σ a_j² σ_j²``. It is a first-order (linear) picture:
  :func:`variance_shares` also returns the fit's R², and a low R² says the shares explain
  little of the variance (nonlinear or interacting response).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from scipy.special import ndtri

Z95 = float(ndtri(0.975))  # 1.959964: two-sided 95 %


def summary(y: np.ndarray) -> dict[str, float | int]:
    """n, mean, std (n - 1), P5, P50, P95 of ``y`` (shape ``(n,)``, the metric's unit)."""
    y = np.asarray(y, dtype=float)
    n = int(y.size)
    if n == 0:
        return {"n": 0, "mean": None, "std": None, "p5": None, "p50": None, "p95": None}
    p5, p50, p95 = np.percentile(y, [5, 50, 95])
    return {"n": n, "mean": float(y.mean()), "std": float(y.std(ddof=1)) if n > 1 else None,
            "p5": float(p5), "p50": float(p50), "p95": float(p95)}


def histogram(y: np.ndarray, bins: int | str = "auto") -> dict[str, list]:
    """Counts of ``y`` per bin: ``edges`` (n_bins + 1), ``counts`` (n_bins); numpy's "auto"
    bins (the larger of Sturges' and Freedman-Diaconis' counts) unless ``bins`` says."""
    y = np.asarray(y, dtype=float)
    counts, edges = np.histogram(y, bins=bins)
    return {"edges": edges.tolist(), "counts": counts.tolist()}


def ecdf(y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The empirical CDF: sorted values and ``F = i / n`` (i = 1..n)."""
    x = np.sort(np.asarray(y, dtype=float))
    return x, np.arange(1, x.size + 1) / x.size


def wilson_interval(k: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson's score interval of a proportion ``k / n`` (default 95 %)."""
    if n <= 0:
        return 0.0, 1.0
    p = k / n
    denom = 1.0 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def exceedance(y: np.ndarray, limit: float) -> dict[str, object]:
    """``P(y > limit)`` with Wilson's 95 % interval: ``{"limit", "probability", "ci95"}``."""
    y = np.asarray(y, dtype=float)
    k, n = int(np.count_nonzero(y > limit)), int(y.size)
    lo, hi = wilson_interval(k, n)
    return {"limit": float(limit), "probability": k / n if n else None, "ci95": [lo, hi]}


def variance_shares(x: np.ndarray, y: np.ndarray, names: Sequence[str]
                    ) -> tuple[dict[str, float], float]:
    """Each factor's share of the variance of ``y`` (SRC², see the module doc) and the R² of
    the linear fit. ``x``: ``(n, d)`` sampled factors, ``y``: ``(n,)``. A factor that did
    not vary gets 0; with no variance to share every share is 0."""
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    n, d = x.shape
    s = x.std(axis=0, ddof=1) if n > 1 else np.zeros(d)
    varied = s > 0
    shares = dict.fromkeys(names, 0.0)
    if n < 2 or not varied.any() or np.ptp(y) == 0:  # nothing varies: nothing to share
        return shares, 0.0
    design = np.column_stack([np.ones(n), x[:, varied]])
    coef, *_ = np.linalg.lstsq(design, y, rcond=None)
    parts = (coef[1:] * s[varied]) ** 2
    total = float(parts.sum())
    resid = y - design @ coef
    sst = float(((y - y.mean()) ** 2).sum())
    r2 = 1.0 - float(resid @ resid) / sst if sst > 0 else 0.0
    if total > 0:
        for name, part in zip(np.asarray(names)[varied], parts, strict=True):
            shares[str(name)] = float(part / total)
    return shares, r2


def settling(y: np.ndarray, limit: float | None = None, points: int = 20) -> dict[str, list]:
    """How the estimates settle as samples grow, in the samples' (run) order: at ``n`` =
    about ``points`` counts from 10 to all, the mean, the P95 and (with a limit) the
    exceedance probability with its Wilson interval."""
    y = np.asarray(y, dtype=float)
    total = y.size
    start = min(10, total)
    ns = sorted(set(np.unique(np.linspace(start, total, points).round().astype(int)).tolist()))
    ns = [k for k in ns if k >= 1]
    out: dict[str, list] = {"n": ns, "mean": [], "p95": []}
    if limit is not None:
        out |= {"probability": [], "ci_low": [], "ci_high": []}
    for k in ns:
        part = y[:k]
        out["mean"].append(float(part.mean()))
        out["p95"].append(float(np.percentile(part, 95)))
        if limit is not None:
            e = exceedance(part, limit)
            out["probability"].append(e["probability"])
            out["ci_low"].append(e["ci95"][0])
            out["ci_high"].append(e["ci95"][1])
    return out


def variation_report(metric: str, x: np.ndarray, y: np.ndarray, names: Sequence[str],
                     limit: float | None = None) -> dict[str, object]:
    """``GET /api/studies/<id>/variation`` (design.md 4.8): ``{"metric", "n", "mean", "std",
    "p5", "p50", "p95", "exceedance", "contributions"}`` over the cases given."""
    stats = summary(y)
    shares, _ = variance_shares(x, y, names) if len(y) else (dict.fromkeys(names, 0.0), 0.0)
    return {"metric": metric, **stats,
            "exceedance": None if limit is None or not len(y) else exceedance(y, limit),
            "contributions": shares}
