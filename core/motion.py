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

*Above the integration noise* (issue 33, design.md 4.15). The section of a settled motion
jitters by the integration error (c = 0.02 mm riding the wall at rtol 1e-6: a median step of
5.6e-4 c and up to 1.55e-3 c a revolution, the size of the settling tolerance 1e-3 c), so a
fixed tolerance let round-off pick between periodic-1, -2 and -4. Each section's jitter is
measured from the section itself (:func:`section_jitter`: the rms distance of a point from
where its cycle repeats, for the best-repeating N <= 8) and the periodicity tolerance is
:data:`JITTER_FACTOR` times it, with the settling tolerance as the floor and
:data:`JITTER_CAP` times the floor as the ceiling (a section that moves more than that is
moving, not jittering): :func:`motion_tolerance`. A cycle whose points still move along a
trend (the journal creeping along the wall after capture) is not settled: the stop criterion
and the classifier both reject a period whose phases drift significantly
(:data:`DRIFT_SIGNIFICANCE` standard errors) at a rate that would carry them out of the
tolerance within :data:`DRIFT_HORIZON` revolutions (:func:`drift_exceeds`). The compiled
loop's :func:`stepping._settled_period` applies the same rules.
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
# the periodicity tolerance is this many times the measured jitter (a point's rms distance
# from its cycle): the diameter of 8-24 points of Gaussian jitter is 3-3.5 times it
JITTER_FACTOR = 5.0
# ... but never above this many times the settling tolerance: jitter beyond 3/5 of the
# floor (6e-4 c at the default 1e-3 c) is motion, not the integration's noise (measured
# at rtol 1e-6 on the reference mechanism at 5000 rpm, revolutions 100-150 of fixed runs:
# 0.8e-4 to 6.4e-4 c for the settled cases, 1.7e-2 to 0.33 c for the chaotic ones;
# benchmarks/motion_checks.py jitter)
JITTER_CAP = 3.0
# a drift counts when it is this many standard errors of the per-phase slope ...
DRIFT_SIGNIFICANCE = 3.0
# ... and would carry the cycle out of the tolerance within this many revolutions
DRIFT_HORIZON = 100.0


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


def _joints(pts: np.ndarray) -> int:
    """Points ``[K, 2 n]`` hold n joints' (x, y); ``[K, 1]`` a probe coordinate."""
    return max(pts.shape[1] // 2, 1)


def section_jitter(points: np.ndarray, max_period: int = MAX_PERIOD) -> float:
    """How far a section point lies from where its cycle would be, in the points' units:
    the smallest over N <= ``max_period`` of sqrt(mean |p[i + 2N] - 2 p[i + N] + p[i]|^2 / 6)
    (per joint, rms over the joints) - the rms of independent jitter on every point, whose
    second differences have 6 times its variance. A steady drift or a slowly decaying cycle
    has (nearly) no second difference, so this is the integration's noise for a settled or
    settling motion, and the size of the section for a chaotic one. The smallest of up to 8
    estimates reads low: ~0.7 of the rms for Gaussian jitter on 24-40 points, less on the
    8 of a settling window (on the safe side: the tolerance falls towards its floor). NaN
    for fewer than 3 points."""
    pts = np.asarray(points, dtype=float).reshape(len(points), -1)
    best = math.inf
    for period in range(1, max_period + 1):
        if len(pts) < 2 * period + 1:
            break
        d2 = pts[2 * period :] - 2.0 * pts[period:-period] + pts[: -2 * period]
        best = min(best, math.sqrt(float(np.mean(np.sum(d2 * d2, axis=1))) / (6.0 * _joints(pts))))
    return best if math.isfinite(best) else math.nan


def motion_tolerance(points: np.ndarray, floor: float, *, factor: float = JITTER_FACTOR,
                     cap: float = JITTER_CAP) -> float:
    """The periodicity tolerance of ``points`` (their units): ``factor`` x their
    :func:`section_jitter`, at least ``floor`` (the settling tolerance), at most
    ``cap`` x ``floor``."""
    jitter = section_jitter(points)
    if not math.isfinite(jitter):
        return floor
    return min(max(floor, factor * jitter), cap * floor)


def drift_exceeds(points: np.ndarray, period: int, tol: float,
                  horizon: float = DRIFT_HORIZON) -> bool:
    """True when some phase of the N-cycle (every N-th point) moves along a straight line
    significantly - its least-squares slope more than :data:`DRIFT_SIGNIFICANCE` standard
    errors (residual variance pooled over the phases) - and fast enough to leave ``tol``
    within ``horizon`` revolutions. What :func:`stepping._settled_period` checks before it
    stops a run."""
    pts = np.asarray(points, dtype=float).reshape(len(points), -1)
    n = len(pts)
    joints = _joints(pts)
    dims = pts.shape[1] // joints
    for j in range(joints):
        cols = pts[:, j * dims : (j + 1) * dims]
        fits = []
        rss, dof = 0.0, 0
        for phase in range(period):
            idx = np.arange(n - 1 - phase, -1, -period)[::-1]  # ending at the last point
            if len(idx) < 3:
                continue
            x = idx - idx.mean()
            sxx = float(np.sum(x * x))
            y = cols[idx] - cols[idx].mean(axis=0)
            beta = (x @ y) / sxx
            rss += float(np.sum((y - np.outer(x, beta)) ** 2))
            dof += (len(idx) - 2) * dims
            fits.append((beta, sxx))
        if dof == 0:
            continue
        var = rss / dof
        for beta, sxx in fits:
            b2 = float(np.sum(beta * beta))
            if b2 * horizon * horizon > tol * tol and b2 > DRIFT_SIGNIFICANCE**2 * var / sxx:
                return True
    return False


def classify(points: np.ndarray, tol: float, *, factor: float = JITTER_FACTOR,
             cap: float = JITTER_CAP, horizon: float = DRIFT_HORIZON,
             jitter_points: np.ndarray | None = None) -> Motion:
    """The class of section ``points`` ``[K, d]`` with the settling tolerance ``tol`` (the
    points' units) as the floor of the periodicity tolerance (:func:`motion_tolerance`):
    periodic-N when the points repeat with period N within it and do not drift out of it
    (:func:`drift_exceeds`); else chaotic when the 0-1 test says so on enough points and
    the section is scattered, not drifting; else irregular. The jitter is measured on
    ``jitter_points`` when given, else on ``points``."""
    pts = np.asarray(points, dtype=float).reshape(len(points), -1)
    noisy = pts if jitter_points is None else jitter_points
    tol = motion_tolerance(noisy, tol, factor=factor, cap=cap)
    period = section_period(pts, tol)
    if period > 0 and drift_exceeds(pts, period, tol, horizon):
        period = 0
    indicator = zero_one_test(observable(pts)) if len(pts) >= 10 else math.nan
    if period > 0:
        return Motion(f"periodic-{period}", period, indicator)
    if len(pts) >= MIN_POINTS_CHAOS and indicator > CHAOS_THRESHOLD and not drifting(pts):
        return Motion("chaotic", 0, indicator)
    return Motion("irregular", 0, indicator)
