"""A dynamic run of the ideal Flores slider-crank against its closed-form motion.

With ideal joints and a constant-speed driver the mechanism has no free degree of freedom,
so the integrated motion must be the kinematics (design.md 1.3 geometry, 5000 rpm, two
revolutions, gravity on), and the driver's torque must be the inverse dynamics: its power
``tau omega`` equals the rate of change of kinetic plus gravitational energy, written out
here from the closed-form motion of all three bodies (no project kernel involved).

The run uses ``rtol = 1e-9``: the stored series are cubic-Hermite dense output between
accepted steps, and the ideal case's steps are long (52 steps for two revolutions at
rtol = 1e-6, 81 at 1e-7), so at those tolerances the interpolation error of the stored
slider velocity reaches ~1e-4 and ~2e-5 of its peak.
"""

from __future__ import annotations

import numpy as np
import pytest
from gapsweep.core.cases import SliderCrankCase
from gapsweep.core.simulation import simulate
from gapsweep.core.templates.slider_crank import FLORES

G = FLORES
RTOL = 1e-9
PEAK_TOL = 1e-5  # of the peak of each series, at every output sample
DRIFT_TOL = 1e-9  # [m]


def closed_form(theta, omega, gravity):
    """Slider x, x', x'' and the inverse-dynamics driving torque at crank angle theta."""
    r, length = G.crank_length, G.rod_length
    s, c = np.sin(theta), np.cos(theta)
    root = np.sqrt(length**2 - (r * s) ** 2)  # the rod's projection on x
    # slider x(theta) and its theta-derivatives
    x = r * c + root
    x1 = -r * s - r * r * s * c / root
    x2 = -r * c - r * r * (c * c - s * s) / root - r**4 * s * s * c * c / root**3
    # rod angle beta = -asin(r s / L) and its theta-derivatives
    b1 = -r * c / root
    b2 = r * s / root - r**3 * s * c * c / root**3
    # rod centre of mass ((r c + x)/2, r s/2) and its theta-derivatives
    px1, py1 = 0.5 * (-r * s + x1), 0.5 * r * c
    px2, py2 = 0.5 * (-r * c + x2), -0.5 * r * s
    # d/dt (T + V) at constant omega: d/dt = omega d/dtheta; the crank's kinetic energy is
    # constant (uniform rotation), its centre rises at (r/2) cos(theta) omega
    power = omega**3 * (
        G.rod_mass * (px1 * px2 + py1 * py2) + G.rod_inertia * b1 * b2 + G.slider_mass * x1 * x2
    ) + omega * gravity * (G.crank_mass * 0.5 * r * c + G.rod_mass * py1)
    return x, omega * x1, omega**2 * x2, power / omega


def peak_error(got, ref):
    return float(np.max(np.abs(got - ref)) / np.max(np.abs(ref)))


@pytest.fixture(scope="module")
def ideal_run():
    case = SliderCrankCase(ideal=True, rtol=RTOL, t_end=0.024)  # two revolutions
    result = simulate(case)
    assert result.status == "ok", result.reason
    return case, result


def test_motion_matches_closed_form(ideal_run):
    case, result = ideal_run
    s = result.series
    x, v, a, _ = closed_form(case.omega * s["t"], case.omega, case.gravity)
    errors = {
        "position": peak_error(s["slider_position"], x),
        "velocity": peak_error(s["slider_velocity"], v),
        "acceleration": peak_error(s["slider_acceleration"], a),
    }
    print("\nideal dynamics vs closed form (of peak):", {k: f"{e:.2e}" for k, e in errors.items()})
    assert all(e <= PEAK_TOL for e in errors.values()), errors
    assert len(s["t"]) == case.n_output and s["t"][-1] == pytest.approx(case.t_end)


def test_driving_torque_is_the_inverse_dynamics(ideal_run):
    case, result = ideal_run
    s = result.series
    *_, torque = closed_form(case.omega * s["t"], case.omega, case.gravity)
    error = peak_error(s["driving_torque"], torque)
    print(
        f"\ndriving torque vs inverse dynamics: {error:.2e} of peak {np.abs(torque).max():.4g} N m"
    )
    assert error <= PEAK_TOL
    # the gravity term is visible at this tolerance: dropping it must fail the comparison
    *_, no_gravity = closed_form(case.omega * s["t"], case.omega, 0.0)
    assert peak_error(s["driving_torque"], no_gravity) > 10 * PEAK_TOL


def test_constraint_drift(ideal_run):
    _, result = ideal_run
    drift = result.metrics["max_constraint_drift"]  # every accepted step, before projection
    print(f"\nmax constraint drift at the accepted steps: {drift:.2e} m")
    assert drift <= DRIFT_TOL


@pytest.mark.parametrize("rtol", [SliderCrankCase().rtol, RTOL])
def test_stabilization_modes_drift(rtol):
    """Projection vs Baumgarte (alpha = beta = 5 /s) vs none, printed for the record.

    ``max_constraint_drift``: largest |Phi| at the end of each accepted step (before the
    projection, if any); ``series max``: largest |Phi| at the stored samples, which are
    interpolated between steps and so carry the dense output's error as well.
    """
    rows = {}
    for mode in ("projection", "baumgarte", "none"):
        for revolutions in (2, 20):
            case = SliderCrankCase(
                ideal=True, rtol=rtol, stabilization=mode, t_end=revolutions * 0.012
            )
            result = simulate(case)
            assert result.status == "ok", result.reason
            rows[mode, revolutions] = (
                result.metrics["max_constraint_drift"],
                float(np.max(result.series["constraint_drift"])),
            )
    print(f"\nconstraint drift [m], rtol = {rtol:g}: mode, revolutions, steps, series max")
    for (mode, revs), (steps, series) in rows.items():
        print(f"  {mode:10s} {revs:3d}  {steps:.2e}  {series:.2e}")
    # projection keeps the accepted states on the manifold however long the run: what is
    # left is one step's drift, set by the tolerance (below 1e-9 m at rtol = 1e-9)
    assert rows["projection", 20][0] <= 2.0 * rows["projection", 2][0]
    if rtol <= RTOL:
        assert rows["projection", 20][0] <= DRIFT_TOL
    # without it the drift accumulates: it may only grow with the length of the run
    assert rows["none", 20][0] >= rows["none", 2][0]
