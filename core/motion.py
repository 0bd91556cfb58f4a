"""Periodic or chaotic: the class of a motion from its Poincare section (design.md 4.10).

A section is a sequence of points ``[K, d]`` (the state once per driver period). It is
*periodic-N* when its points repeat with the smallest period ``N <= 8`` within a stated
tolerance; otherwise the Gottwald-Melbourne 0-1 test for chaos gives ``K`` in [0, 1] (near 0
regular, near 1 chaotic): ``chaotic`` when ``K`` is high on enough points, else ``irregular``
(too short a record, or a slow drift the test cannot call).

The 0-1 test is the regression form of Gottwald & Melbourne, "On the implementation of the
0-1 test for chaos", SIAM J. Appl. Dyn. Syst. 8 (2009) 129-145: for 100 frequencies ``c``
drawn in (pi/5, 4 pi/5) (fixed seed: the result is reproducible) the translation variables
``p, q`` of the observable, their mean square displacement ``M_c(n)`` for ``n <= N/10``
with the oscillating term subtracted, and ``K_c`` its correlation with ``n``; ``K`` is the
median over ``c``. Its convergence is slow in the number of points: on short records a
periodic signal reads up to ~0.75, so a motion is only called chaotic from
:data:`MIN_POINTS_CHAOS` points on and above :data:`CHAOS_THRESHOLD` (periodic ones are
caught first by the period test). The test also reads a trend as chaos (K near 1 for a
slow drift), so a drifting section (:func:`drifting`) is irregular, not chaotic.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

MAX_PERIOD = 8  # the longest period looked for (design.md 4.10)
MIN_POINTS_CHAOS = 32  # section points before the 0-1 test may call a motion chaotic
CHAOS_THRESHOLD = 0.8  # K above this (on enough points): chaotic; a periodic record of
# 32 points gives up to ~0.75 (logistic map, period 2-8), a chaotic one 0.93-1
# a section whose points move less than this share of its diameter per revolution drifts
# (a slow slide: 1/K of it over K points); a chaotic one jumps across it (~0.3-0.5 measured
# on the logistic and Henon maps)
DRIFT_RATIO = 0.1
CHAOS_METHOD = "Gottwald-Melbourne 0-1 test (regression form) on the Poincare section"


@dataclass(frozen=True)
class Motion:
    """The class of a section: ``name`` (``periodic-N``, ``chaotic``, ``irregular``),
    ``period`` (N, 0 if none) and the 0-1 test's ``indicator`` K (NaN on too few points)."""

    name: str
    period: int
    indicator: float


def section_period(points: np.ndarray, tol: float, max_period: int = MAX_PERIOD) -> int:
    """Smallest ``N <= max_period`` such that every two points of the same phase (indices a
    multiple of ``N`` apart) lie within ``tol`` of each other (Euclidean, the points' units),
    with at least two full periods plus one point; 0 if none.

    An N-cycle whose points coincide within ``tol`` is a shorter cycle within ``tol``
    (:func:`_collapsed_period`): a section jittering at the tolerance around a fixed point
    (c = 0.02 mm in continuous contact: ~1e-3 c at rtol 1e-6, the integration error) may
    pass the test for N = 2 or 4 before N = 1, and which one is a matter of round-off (a
    1e-13 change of K, or another processor, turned periodic-1 into periodic-2 or -4)."""
    pts = np.asarray(points, dtype=float).reshape(len(points), -1)
    for period in range(1, max_period + 1):
        if len(pts) < 2 * period + 1:
            return 0
        if all(_diameter(pts[phase::period]) <= tol for phase in range(period)):
            return _collapsed_period(pts, period, tol)
    return 0


def _diameter(points: np.ndarray) -> float:
    """The largest distance between two of ``points`` ``[K, d]``."""
    diff = points[:, None, :] - points[None, :, :]
    return float(np.sqrt(np.max(np.sum(diff * diff, axis=-1))))


def _collapsed_period(pts: np.ndarray, period: int, tol: float) -> int:
    """The smallest divisor ``d`` of ``period`` whose classes of the cycle's points (the mean
    of each phase; phases ``d`` apart in one class) each lie within ``tol``: the cycle seen
    at the tolerance. ``period`` itself when its points are distinct."""
    centres = np.array([pts[phase::period].mean(axis=0) for phase in range(period)])
    for d in range(1, period):
        if period % d == 0 and all(_diameter(centres[r::d]) <= tol for r in range(d)):
            return d
    return period


def zero_one_test(phi: np.ndarray, n_c: int = 100, seed: int = 0) -> float:
    """The 0-1 test's ``K`` in [-1, 1] (regression form) of the observable ``phi`` ``[N]``;
    NaN for fewer than 10 points or a constant observable."""
    x = np.asarray(phi, dtype=float)
    n = len(x)
    if n < 10 or np.ptp(x) == 0.0:
        return math.nan
    x = x - x.mean()  # the mean only enters the oscillating term, subtracted below
    n_cut = max(n // 10, 3)
    j = np.arange(1, n + 1)
    cs = np.random.default_rng(seed).uniform(math.pi / 5, 4 * math.pi / 5, n_c)
    steps = np.arange(1, n_cut + 1)
    ks = []
    for c in cs:
        p = np.cumsum(x * np.cos(j * c))
        q = np.cumsum(x * np.sin(j * c))
        m = np.array([np.mean((p[s:] - p[:-s]) ** 2 + (q[s:] - q[:-s]) ** 2) for s in steps])
        # subtract the oscillating term of a regular signal (zero-mean x: it is the variance
        # part that survives); the regression form keeps the correlation well defined
        d = m - np.mean(x) ** 2 * (1.0 - np.cos(steps * c)) / (1.0 - np.cos(c))
        if np.ptp(d) == 0.0:
            ks.append(0.0)
            continue
        ks.append(float(np.corrcoef(steps, d)[0, 1]))
    return float(np.median(ks))


def observable(points: np.ndarray) -> np.ndarray:
    """A scalar observable of section points ``[K, d]``: their coordinate along the
    direction of largest spread (first principal axis), so the test sees the motion whatever
    the joint's orientation."""
    pts = np.asarray(points, dtype=float).reshape(len(points), -1)
    centred = pts - pts.mean(axis=0)
    if pts.shape[1] == 1 or not np.any(centred):
        return centred[:, 0]
    _, _, vt = np.linalg.svd(centred, full_matrices=False)
    return centred @ vt[0]


def section_drift(points: np.ndarray) -> float:
    """How far the section moves per revolution, in the points' units: the smallest over
    periods N <= 8 of the mean distance between points N revolutions apart, divided by N.
    About the integration error for a settled motion; the sliding rate for a slow drift;
    of the order of the section's size for a chaotic one. NaN for fewer than 2 points."""
    pts = np.asarray(points, dtype=float).reshape(len(points), -1)
    best = math.inf
    for period in range(1, MAX_PERIOD + 1):
        if len(pts) <= period:
            break
        d = np.sqrt(np.sum((pts[period:] - pts[:-period]) ** 2, axis=1))
        best = min(best, float(np.mean(d)) / period)
    return best if math.isfinite(best) else math.nan


def drifting(points: np.ndarray) -> bool:
    """A slow drift rather than a scattered section: the points of some phase N <= 8 (every
    N-th) move on average by less than :data:`DRIFT_RATIO` of the section's diameter. The 0-1 test
    reads any trend as growth (K near 1), so a journal still sliding slowly round the
    bearing (the issue's wall start) would otherwise be called chaotic."""
    pts = np.asarray(points, dtype=float).reshape(len(points), -1)
    if len(pts) < 3:
        return False
    diameter = _diameter(pts)
    if diameter == 0.0:
        return False
    for period in range(1, min(MAX_PERIOD, len(pts) - 2) + 1):
        step = np.sqrt(np.sum((pts[period:] - pts[:-period]) ** 2, axis=1))
        if float(np.mean(step)) < DRIFT_RATIO * diameter:
            return True
    return False


def classify(points: np.ndarray, tol: float) -> Motion:
    """The class of section ``points`` ``[K, d]`` with the periodicity tolerance ``tol``
    (the points' units): periodic-N; else chaotic when the 0-1 test says so on enough
    points and the section is scattered, not drifting; else irregular."""
    pts = np.asarray(points, dtype=float).reshape(len(points), -1)
    period = section_period(pts, tol)
    indicator = zero_one_test(observable(pts)) if len(pts) >= 10 else math.nan
    if period > 0:
        return Motion(f"periodic-{period}", period, indicator)
    if len(pts) >= MIN_POINTS_CHAOS and indicator > CHAOS_THRESHOLD and not drifting(pts):
        return Motion("chaotic", 0, indicator)
    return Motion("irregular", 0, indicator)
