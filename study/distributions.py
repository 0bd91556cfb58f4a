"""Distributions of a Monte Carlo (variation) study's axes, and drawing from them.

design.md 4.8, as Adams Insight's "Variation" factors: an axis is

- ``distribution = "normal"``: ``nominal`` with ``three_sigma`` (absolute, the parameter's
  unit) or ``relative_percent`` (3σ as a percent of the nominal);
- ``distribution = "uniform"``: ``low``/``high``, or ``nominal`` ± ``half_width``;
- ``fit = "H7/g6"`` with ``diameter_mm`` (a clearance axis only): the hole and the shaft drawn
  uniformly in their ISO 286 zones, the **radial** clearance ``(hole - shaft) / 2``; the
  bearing radius of the case is the nominal diameter / 2.

Support and truncation: a uniform or a fit has a bounded support, which the spec checks lie
inside the parameter's allowed range (refused otherwise). A normal has none: it is truncated
to the parameter's allowed range (the interval the core's own check accepts around the
nominal, found by bisection on it - see :func:`allowed_interval`), drawn exactly by the
inverse CDF of the truncated normal, and the page states the truncation and the probability
mass cut off.

Drawing is plain Monte Carlo (independent pseudo-random draws, numpy's PCG64 seeded by the
study's ``seed``; each axis its own child stream spawned in the spec's axis order), so the
same spec gives the same samples, and an axis's samples do not change when another axis is
added. The functions take plain numbers and return numpy arrays (units: the parameter's).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from gapsweep.core.iso286 import fit_limits

# how far (in σ) the allowed interval of a normal is searched; beyond 8σ the mass is < 1e-15
SEARCH_SIGMAS = 8.0


@dataclass(frozen=True)
class Distribution:
    """One axis's distribution in the parameter's unit.

    ``kind``: normal | uniform | fit. ``low``/``high``: the support (for a normal, its
    truncation to the allowed range, ±inf where none applies). ``nominal``, ``sigma``: the
    normal's centre and σ (for uniform and fit: the support's midpoint and the uniform's
    σ = width / √12; for a fit, the σ of the triangular/trapezoidal sum). ``fit`` and
    ``diameter_mm``: a fit axis only. ``hole_mm``/``shaft_mm``: the fit's zones.
    """

    kind: str
    low: float
    high: float
    nominal: float
    sigma: float
    fit: str | None = None
    diameter_mm: float | None = None
    hole_mm: tuple[float, float] | None = None
    shaft_mm: tuple[float, float] | None = None

    @property
    def truncated_mass(self) -> float:
        """The probability mass of the untruncated normal outside [low, high] (0 otherwise)."""
        if self.kind != "normal" or self.sigma == 0:
            return 0.0
        a, b = _z(self.low, self), _z(self.high, self)
        return float(1.0 - (_phi(b) - _phi(a)))

    @property
    def bearing_radius_mm(self) -> float | None:
        """A fit's bearing radius: the nominal diameter / 2 [mm]."""
        return None if self.diameter_mm is None else self.diameter_mm / 2.0

    def describe(self) -> str:
        """One line a page shows: what is drawn and how it is bounded."""
        if self.kind == "fit":
            (h0, h1), (s0, s1) = self.hole_mm, self.shaft_mm
            return (f"fit {self.fit} on {self.diameter_mm:g} mm: hole {h0:.3f}-{h1:.3f}, shaft "
                    f"{s0:.3f}-{s1:.3f} mm, each uniform; radial clearance (hole - shaft)/2 "
                    f"in [{self.low:.4g}, {self.high:.4g}] mm")
        if self.kind == "uniform":
            return f"uniform on [{self.low:.6g}, {self.high:.6g}]"
        text = f"normal, nominal {self.nominal:.6g}, 3σ = {3 * self.sigma:.6g}"
        cut = self.truncated_mass
        if math.isfinite(self.low) or math.isfinite(self.high):
            text += (f"; truncated to the allowed range [{self.low:.6g}, {self.high:.6g}] "
                     f"({cut:.2e} of the mass cut off)")
        else:
            text += (f"; the allowed range holds nominal ± {SEARCH_SIGMAS:g}σ, so it is not "
                     "truncated (draws beyond would be)")
        return text


def _phi(z: float) -> float:
    """The standard normal CDF Φ(z) (math.erf: no SciPy to read a spec)."""
    return 0.5 * (1.0 + math.erf(z / math.sqrt(2.0)))


def _z(x: float, d: Distribution) -> float:
    if x == math.inf:
        return math.inf
    if x == -math.inf:
        return -math.inf
    return (x - d.nominal) / d.sigma


def normal(nominal: float, three_sigma: float, allowed: Callable[[float], bool] | None = None
           ) -> Distribution:
    """A normal of ``nominal`` and ``three_sigma`` (= 3σ), truncated to where ``allowed``
    holds (:func:`allowed_interval`)."""
    sigma = abs(float(three_sigma)) / 3.0
    lo, hi = -math.inf, math.inf
    if allowed is not None and sigma > 0:
        lo, hi = allowed_interval(allowed, nominal, SEARCH_SIGMAS * sigma)
    return Distribution("normal", lo, hi, float(nominal), sigma)


def uniform(low: float, high: float) -> Distribution:
    lo, hi = float(low), float(high)
    return Distribution("uniform", lo, hi, (lo + hi) / 2.0, (hi - lo) / math.sqrt(12.0))


def fit(fit_name: str, diameter_mm: float) -> Distribution:
    """The radial clearance [mm] of ``fit_name`` at ``diameter_mm``: hole and shaft uniform."""
    lim = fit_limits(fit_name, diameter_mm)
    lo, hi = lim.clearance_mm
    # (hole - shaft)/2 with independent uniforms: variance (w_h² + w_s²) / 12 / 4
    w_h = lim.hole_mm[1] - lim.hole_mm[0]
    w_s = lim.shaft_mm[1] - lim.shaft_mm[0]
    sigma = math.sqrt((w_h**2 + w_s**2) / 12.0) / 2.0
    return Distribution("fit", lo, hi, (lo + hi) / 2.0, sigma, fit=lim.fit,
                        diameter_mm=lim.diameter_mm, hole_mm=lim.hole_mm, shaft_mm=lim.shaft_mm)


def allowed_interval(allowed: Callable[[float], bool], nominal: float, reach: float,
                     steps: int = 60) -> tuple[float, float]:
    """The interval around ``nominal`` where ``allowed`` holds, searched to ``nominal ±
    reach``: each end is the last allowed value found by bisection (±inf where the whole
    reach is allowed). ``allowed(nominal)`` must hold; the allowed set is taken to be an
    interval (the core's ranges are)."""
    ends = []
    for sign in (-1.0, 1.0):
        far = nominal + sign * reach
        if allowed(far):
            ends.append(sign * math.inf)
            continue
        good, bad = nominal, far
        for _ in range(steps):
            mid = 0.5 * (good + bad)
            if mid in (good, bad):
                break
            good, bad = (mid, bad) if allowed(mid) else (good, mid)
        ends.append(good)
    return ends[0], ends[1]


def draw(dist: Distribution, n: int, rng: np.random.Generator) -> np.ndarray:
    """``n`` independent draws of ``dist`` (shape ``(n,)``), every one inside its support."""
    u = rng.random(n)
    if dist.kind == "uniform":
        return dist.low + u * (dist.high - dist.low)
    if dist.kind == "fit":
        shaft = dist.shaft_mm[0] + rng.random(n) * (dist.shaft_mm[1] - dist.shaft_mm[0])
        hole = dist.hole_mm[0] + u * (dist.hole_mm[1] - dist.hole_mm[0])
        return np.clip((hole - shaft) / 2.0, dist.low, dist.high)  # clip: rounding only
    if dist.sigma == 0:
        return np.full(n, dist.nominal)
    # inverse CDF of the truncated normal: u uniform on [Φ(a), Φ(b)]; SciPy only here, so
    # that reading a spec (`gapsweep submit`) imports no SciPy
    from scipy.special import ndtri

    pa, pb = _phi(_z(dist.low, dist)), _phi(_z(dist.high, dist))
    x = dist.nominal + dist.sigma * ndtri(pa + u * (pb - pa))
    return np.clip(x, dist.low, dist.high)  # the far tails' rounding stays in the support


def sample_matrix(dists: list[Distribution], n: int, seed: int) -> np.ndarray:
    """``n`` × ``len(dists)`` draws, one column per axis; axis ``j`` uses the ``j``-th child
    stream of ``seed`` (so a column does not change when a later axis is added)."""
    streams = np.random.SeedSequence(seed).spawn(len(dists))
    cols = [draw(d, n, np.random.default_rng(s)) for d, s in zip(dists, streams, strict=True)]
    return np.column_stack(cols) if cols else np.zeros((n, 0))
