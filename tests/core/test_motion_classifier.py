"""The periodic/chaotic classifier (core/motion.py) where the answer is known (issue 23).

Logistic map x -> r x (1 - x): period 2 at r = 3.2, period 4 at r = 3.5, chaotic at r = 4
(Lyapunov exponent ln 2). Henon map (a = 1.4, b = 0.3): chaotic. A damped linear oscillator
driven at period T, sampled at t = k T: its exact solution's transient decays and the
section is a fixed point (periodic-1). The 0-1 test's K is near 0 for regular and near 1 for
chaotic records (Gottwald & Melbourne 2009).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from gapsweep.core.motion import (
    classify,
    drift_exceeds,
    drifting,
    motion_tolerance,
    section_drift,
    section_jitter,
    section_period,
    zero_one_test,
)

# the classifier is pure (no contact stiffness): under the round-off harness its answers
# must be the same five times over
pytestmark = pytest.mark.roundoff


def logistic(r: float, n: int, x: float = 0.3, skip: int = 2000) -> np.ndarray:
    out = np.empty(n)
    for i in range(skip + n):
        x = r * x * (1.0 - x)
        if i >= skip:
            out[i - skip] = x
    return out


def henon(n: int, skip: int = 2000) -> np.ndarray:
    x, y = 0.1, 0.1
    out = np.empty((n, 2))
    for i in range(skip + n):
        x, y = 1.0 - 1.4 * x * x + y, 0.3 * x
        if i >= skip:
            out[i - skip] = (x, y)
    return out


def driven_oscillator_sections(n: int, zeta: float = 0.05) -> np.ndarray:
    """(x, v) at t = k T of x'' + 2 zeta w x' + w^2 x = cos(W t), x(0) = 1, v(0) = 0, from
    its exact solution (w = 1, W = 1.7: T = 2 pi / W)."""
    w, big_w = 1.0, 1.7
    amp = 1.0 / complex(w * w - big_w * big_w, 2 * zeta * w * big_w)  # steady state phasor
    wd = w * math.sqrt(1 - zeta * zeta)
    # transient coefficients from the initial conditions
    x0 = 1.0 - amp.real
    v0 = 0.0 - (-big_w * amp.imag)  # the particular solution's velocity at 0 is -W Im(amp)
    c1 = x0
    c2 = (v0 + zeta * w * x0) / wd
    t = np.arange(n) * 2 * math.pi / big_w
    decay = np.exp(-zeta * w * t)
    x = (amp * np.exp(1j * big_w * t)).real + decay * (c1 * np.cos(wd * t) + c2 * np.sin(wd * t))
    v = (1j * big_w * amp * np.exp(1j * big_w * t)).real + decay * (
        (-zeta * w * c1 + wd * c2) * np.cos(wd * t) + (-zeta * w * c2 - wd * c1) * np.sin(wd * t)
    )
    return np.column_stack([x, v])


@pytest.mark.parametrize(("r", "expected"), [(3.2, "periodic-2"), (3.5, "periodic-4")])
def test_logistic_periodic_windows(r: float, expected: str) -> None:
    assert classify(logistic(r, 200)[:, None], 1e-6).name == expected


def test_logistic_r4_is_chaotic() -> None:
    motion = classify(logistic(4.0, 200)[:, None], 1e-6)
    assert motion.name == "chaotic"
    assert motion.period == 0
    assert motion.indicator > 0.9


def test_henon_is_chaotic() -> None:
    motion = classify(henon(200), 1e-6)
    assert motion.name == "chaotic"
    assert motion.indicator > 0.9


def test_driven_damped_oscillator_settles_to_a_fixed_point() -> None:
    sections = driven_oscillator_sections(300)
    # the transient at the start is not periodic ...
    assert section_period(sections[:20], 1e-6) == 0
    # ... the section after it is (exp(-0.05 x 200 x 3.7) ~ 1e-16)
    motion = classify(sections[200:], 1e-9)
    assert motion.name == "periodic-1"
    # and the fixed point is the steady-state phasor's value at t = k T
    amp = 1.0 / complex(1.0 - 1.7**2, 2 * 0.05 * 1.7)
    assert sections[-1, 0] == pytest.approx(amp.real, abs=1e-12)


def test_zero_one_test_separates_regular_from_chaotic() -> None:
    # regular: K near 0 on a long record (periodic and quasi-periodic)
    assert zero_one_test(logistic(3.5, 1000)) < 0.1
    quasi = np.cos(2 * math.pi * (math.sqrt(5) - 1) / 2 * np.arange(1000))
    assert zero_one_test(quasi) < 0.1
    # chaotic: K near 1
    assert zero_one_test(logistic(4.0, 1000)) > 0.95
    assert zero_one_test(henon(1000)[:, 0]) > 0.95


def test_short_or_constant_records_are_not_called_chaotic() -> None:
    # too few points for the 0-1 test: irregular, never chaotic
    assert classify(logistic(4.0, 20)[:, None], 1e-6).name == "irregular"
    assert math.isnan(zero_one_test(np.ones(50)))


def test_section_drift_reads_a_slow_slide() -> None:
    # points sliding 1e-3 per revolution along a circle: drift 1e-3, not periodic at 1e-4
    k = np.arange(60)
    pts = np.column_stack([np.cos(1e-3 * k), np.sin(1e-3 * k)])
    assert section_period(pts, 1e-4) == 0
    assert section_drift(pts) == pytest.approx(1e-3, rel=1e-3)
    # a drift, whatever the 0-1 test reads (on the mechanism's sliding journal K ~ 0.99):
    # irregular, not chaos
    assert drifting(pts)
    assert classify(pts, 1e-4).name == "irregular"
    # while the chaotic maps' sections are scattered, not drifting
    assert not drifting(logistic(4.0, 60)[:, None])
    assert not drifting(henon(60))


def test_section_drift_is_per_revolution_for_a_sliding_cycle() -> None:
    # a 2-cycle (two points 0.5 apart) whose centre slides 1e-4 per revolution: points two
    # revolutions apart are 2e-4 apart, so the drift per revolution is 1e-4 - not the
    # step between points of the same phase (2e-4), nor the cycle's width
    k = np.arange(60)
    x = 0.25 * (-1.0) ** k + 1e-4 * k
    pts = np.column_stack([x, 0.1 * x])
    speed = 1e-4 * math.hypot(1.0, 0.1)
    assert section_drift(pts) == pytest.approx(speed, rel=1e-9)
    # a 3-cycle sliding 3e-5 per revolution: 9e-5 between points of the same phase
    x3 = np.array([0.0, 0.4, -0.3])[k % 3] + 3e-5 * k
    assert section_drift(x3[:, None]) == pytest.approx(3e-5, rel=1e-9)
    assert drifting(pts) and section_period(pts, 1e-5) == 0


def test_a_cycle_whose_points_coincide_within_the_tolerance_is_the_shorter_cycle() -> None:
    # a fixed point jittering at the tolerance (the journal riding the wall at c = 0.02 mm:
    # ~1e-3 c of integration error, the settling tolerance): an alternation of 0.45 tol and
    # +-0.2 tol of jitter fails N = 1 (diameter 1.3 tol) and passes N = 2, whose two
    # points (0.9 tol apart) are one point within the tolerance: periodic-1
    rng = np.random.default_rng(3)
    k = np.arange(24)
    jitter = rng.uniform(-0.2, 0.2, len(k))
    jitter[:2] = (0.2, -0.2)  # the extremes, so N = 1 fails for sure
    x = 0.45 * (-1.0) ** k + jitter
    pts = np.column_stack([x, np.zeros_like(x)])
    assert np.ptp(x) > 1.0  # N = 1 fails on the points themselves
    assert section_period(pts, 1.0) == 1
    assert classify(pts, 1.0).name == "periodic-1"
    # the same alternation 3 tol wide is a true 2-cycle
    assert section_period(np.column_stack([1.5 * (-1.0) ** k + jitter, 0 * x]), 1.0) == 2
    # a 4-cycle (two distinct points 5 tol apart, each alternating 0.9 tol with jitter)
    # fails N = 2 (a phase spreads 1.3 tol) and passes N = 4, whose phases 0, 2 and 1, 3
    # coincide within the tolerance: a 2-cycle; 3 tol apart they stay a 4-cycle
    jitter[2] = -0.2  # k = 0 and k = 2: the same phase of N = 2, opposite extremes
    x4 = 5.0 * (k % 2) + 0.45 * (-1.0) ** (k // 2) + jitter
    assert section_period(np.column_stack([x4, 0 * x]), 1.0) == 2
    x4 = 5.0 * (k % 2) + 1.5 * (-1.0) ** (k // 2) + jitter
    assert section_period(np.column_stack([x4, 0 * x]), 1.0) == 4


def test_tolerance_sits_above_the_measured_jitter() -> None:
    # a fixed point with Gaussian jitter of rms radius 4e-4 (per axis 2.8e-4: c = 0.02 mm
    # riding the wall at rtol 1e-6 steps by a median 5.6e-4 c a revolution): the measured
    # jitter is that radius, the tolerance 5x it, above the floor 1e-3 and below the cap
    rng = np.random.default_rng(11)
    sigma = 4e-4
    pts = np.array([1.07, 0.2]) + rng.normal(0.0, sigma / math.sqrt(2), (40, 2))
    assert 0.5 * sigma < section_jitter(pts) <= 1.1 * sigma  # the smallest of 8 reads low
    tol = motion_tolerance(pts, 1e-3)
    assert tol == pytest.approx(5 * section_jitter(pts))
    assert 1e-3 < tol < 3e-3
    # at the floor alone the jittering fixed point fails N = 1 (its diameter is 4-5 sigma,
    # and only the shorter-cycle rule might still call it periodic-1, as round-off decides);
    # above its jitter it is periodic-1 whatever the draw
    diff = pts[:, None, :] - pts[None, :, :]
    assert np.sqrt(np.max(np.sum(diff * diff, axis=-1))) > 1e-3
    for seed in range(20):
        noisy = np.array([1.07, 0.2]) + np.random.default_rng(seed).normal(
            0.0, sigma / math.sqrt(2), (24, 2))
        assert classify(noisy, 1e-3).name == "periodic-1", seed
    # a steady drift or a decaying 2-cycle has no second difference: not read as jitter
    k = np.arange(40)
    slide = np.column_stack([1e-4 * k, 0 * k])
    assert section_jitter(slide) < 1e-12
    assert motion_tolerance(slide, 1e-3) == 1e-3
    # the cap: a chaotic section's "jitter" is its size; the tolerance stays at 3x the floor
    assert motion_tolerance(logistic(4.0, 40)[:, None], 1e-3) == pytest.approx(3e-3)


def test_a_creeping_fixed_point_is_not_periodic() -> None:
    # a fixed point with jitter 1e-4 creeping 3e-5 a revolution (the journal sliding along
    # the wall after a capture): within the tolerance over 20 revolutions, but out of it in
    # 100 - the drift test says so; the same points without the creep are periodic-1
    rng = np.random.default_rng(5)
    k = np.arange(40)
    noise = rng.normal(0.0, 1e-4 / math.sqrt(2), (40, 2))
    still = np.array([1.07, 0.2]) + noise
    creep = still + np.column_stack([3e-5 * k, 0 * k])
    assert classify(still, 1e-3).name == "periodic-1"
    assert section_period(creep[:20], 1e-3) == 1
    assert drift_exceeds(creep[:20], 1, 1e-3)
    assert not drift_exceeds(still[:20], 1, 1e-3)
    assert classify(creep, 1e-3).name != "periodic-1"
    # horizon 0: no drift test
    assert not drift_exceeds(creep, 1, 1e-3, horizon=0.0)
