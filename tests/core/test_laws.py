"""Contact and friction laws pinned against their published formulas, written out here
independently of ``core/`` (so swapping two laws, or an exponent, fails a test), and their
effect in a run of the single-impact rig of ``test_contact`` against closed forms.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest
from gapsweep.core.contact_laws import (
    CONTACT_LAWS,
    MIN_APPROACH_VELOCITY,
    SHAPE_HYSTERESIS,
    SHAPE_IMPACT,
    elastic_energy,
    normal_force,
)
from gapsweep.core.friction_laws import FRICTION_LAWS, friction_force
from gapsweep.core.solver import SolverOptions, run_jobs
from test_contact import CLEARANCE, MASS, exact_restitution, impact_job  # noqa: E402

# --- hysteresis factors chi(cr), as published ----------------------------------------------

PUBLISHED = {
    "hertz": lambda cr: 0.0,
    "hunt-crossley": lambda cr: 3.0 * (1.0 - cr) / 2.0,  # Hunt & Crossley 1975
    "lankarani-nikravesh": lambda cr: 3.0 * (1.0 - cr**2) / 4.0,  # Lankarani & Nikravesh 1990
    "flores": lambda cr: 8.0 * (1.0 - cr) / (5.0 * cr),  # Flores et al. 2011
    "gonthier": lambda cr: (1.0 - cr**2) / cr,  # Gonthier et al. 2004
}


@pytest.mark.parametrize("law", list(PUBLISHED))
@pytest.mark.parametrize("cr", [0.3, 0.5, 0.9, 0.99, 1.0])
def test_each_hysteresis_factor_is_its_published_formula(law, cr):
    assert CONTACT_LAWS[law].shape == SHAPE_HYSTERESIS
    assert CONTACT_LAWS[law].chi(cr) == pytest.approx(PUBLISHED[law](cr), rel=1e-14, abs=1e-15)


def test_the_damped_laws_are_all_different():
    # at cr = 0.5 the four factors are 0.75, 0.5625, 1.6 and 1.5: no two may be swapped
    values = [CONTACT_LAWS[law].chi(0.5) for law in PUBLISHED if law != "hertz"]
    assert len(set(values)) == 4
    assert CONTACT_LAWS["impact"].shape == SHAPE_IMPACT


@pytest.fixture(scope="module")
def law_runs():
    """Each law at cr 0.5 in the single-impact rig: the restitution it gives follows from
    the *published* chi through the exact damped-Hertz relation (test_contact)."""
    laws = list(PUBLISHED)
    results = run_jobs([impact_job(law, 0.5) for law in laws])
    return dict(zip(laws, results, strict=True))


@pytest.mark.parametrize("law", list(PUBLISHED))
def test_the_restitution_of_a_run_follows_the_published_factor(law_runs, law):
    r = law_runs[law]
    assert r.ok and r.metrics["impacts"] == 1
    e = -r.series["final_state"][3] / 1.0
    expected = exact_restitution(PUBLISHED[law](0.5)) if law != "hertz" else 1.0
    assert e == pytest.approx(expected, rel=1e-6)


# --- the normal force kernel ----------------------------------------------------------------

K, CHI = 2e10, 0.6


@pytest.mark.parametrize("n", [1.5, 1.0, 1.3, 2.2])
@pytest.mark.parametrize(("delta_dot", "v0"), [(0.4, 1.0), (-0.4, 1.0), (0.4, -2.0)])
def test_hysteresis_force_is_k_delta_n_times_the_damping_term(n, delta_dot, v0):
    delta = 3e-6
    total, elastic = normal_force(SHAPE_HYSTERESIS, K, n, CHI, 0.0, 0.0, delta, delta_dot, v0)
    assert elastic == pytest.approx(K * delta**n, rel=1e-13)
    assert total == pytest.approx(K * delta**n * (1 + CHI * delta_dot / abs(v0)), rel=1e-13)


def test_the_approach_velocity_floor_caps_the_damping():
    delta, rate = 1e-6, 2e-3
    for v0 in (1e-5, 0.0, -1e-6, 9.9e-4):  # below the 1 mm/s floor: divided by the floor
        total, _ = normal_force(SHAPE_HYSTERESIS, K, 1.5, CHI, 0.0, 0.0, delta, rate, v0)
        assert total == pytest.approx(K * delta**1.5 * (1 + CHI * rate / 1e-3), rel=1e-13)
    total, _ = normal_force(SHAPE_HYSTERESIS, K, 1.5, CHI, 0.0, 0.0, delta, rate, 2e-3)
    assert total == pytest.approx(K * delta**1.5 * (1 + CHI), rel=1e-13)
    assert MIN_APPROACH_VELOCITY == 1e-3


def test_a_contact_never_pulls_and_is_zero_outside():
    # fast separation: the damping term outweighs the elastic one
    assert normal_force(SHAPE_HYSTERESIS, K, 1.5, CHI, 0, 0, 1e-6, -5.0, 1.0) == (0.0, K * 1e-9)
    assert normal_force(SHAPE_IMPACT, K, 1.5, 0, 1e5, 1e-6, 2e-6, -100.0, 1.0)[0] == 0.0
    for delta in (0.0, -1e-6):
        assert normal_force(SHAPE_HYSTERESIS, K, 1.5, CHI, 0, 0, delta, 1.0, 1.0) == (0.0, 0.0)


def _step(x, x0, h0, x1, h1):
    """ADAMS STEP, written out: h0 + (h1 - h0) s^2 (3 - 2 s), s = (x - x0)/(x1 - x0)."""
    if x <= x0:
        return h0
    if x >= x1:
        return h1
    s = (x - x0) / (x1 - x0)
    return h0 + (h1 - h0) * s * s * (3 - 2 * s)


@pytest.mark.parametrize("fraction", [0.0, 0.1, 0.25, 0.5, 0.75, 1.0, 1.5, 3.0])
@pytest.mark.parametrize("e", [1.5, 1.2])
def test_impact_law_damping_ramps_in_over_its_depth(fraction, e):
    c_max, depth, rate = 4e4, 2e-6, 0.3
    delta = fraction * depth if fraction > 0 else 1e-12
    total, elastic = normal_force(SHAPE_IMPACT, K, e, 0.0, c_max, depth, delta, rate, 1.0)
    ramp = _step(delta, 0.0, 0.0, depth, c_max)
    assert elastic == pytest.approx(K * delta**e, rel=1e-13)
    assert total == pytest.approx(K * delta**e + ramp * rate, rel=1e-12)
    # the closed form at the nodes: a quarter depth is 5/32 of c_max, half depth half of it
    closed = {0.25: 5 / 32, 0.5: 0.5, 0.75: 27 / 32, 1.0: 1.0, 1.5: 1.0, 3.0: 1.0}
    if fraction in closed:
        assert ramp == pytest.approx(closed[fraction] * c_max, rel=1e-14)


@pytest.mark.parametrize("n", [1.5, 1.3, 2.0])
def test_elastic_energy_is_the_integral_of_the_elastic_force(n):
    delta = 4e-6
    assert elastic_energy(K, n, delta) == pytest.approx(K * delta ** (n + 1) / (n + 1), rel=1e-13)
    assert elastic_energy(K, n, -1e-6) == 0.0


# --- a non-1.5 exponent and the floor in a run ---------------------------------------------


@pytest.mark.parametrize(("n", "k"), [(1.0, 1e8), (1.3, 1e10), (2.0, 1e14)])
def test_hertz_impact_with_another_exponent_reaches_its_closed_form_depth(n, k):
    job = impact_job("hertz", 1.0, exponent=n, stiffness=k)
    (r,) = run_jobs([job])
    assert r.ok and r.metrics["impacts"] == 1
    # 1/2 m V0^2 = K d^(n+1) / (n+1) at the deepest point, and the journal leaves at V0
    depth = ((n + 1) * MASS * 1.0**2 / (2 * k)) ** (1 / (n + 1))
    assert r.metrics["max_penetration"] == pytest.approx(depth, rel=1e-6)
    assert -r.series["final_state"][3] == pytest.approx(1.0, rel=1e-7)


def test_a_slow_impact_below_the_velocity_floor_is_damped_as_if_at_the_floor():
    """V0 = 0.1 mm/s, a tenth of the floor: chi v/1e-3 = (chi/10) v/V0, so the restitution is
    the exact one of chi/10 (the floor's effect), not of chi."""
    v0 = 1e-4
    job = impact_job("lankarani-nikravesh", 0.5)
    y0 = np.zeros(6)
    y0[0], y0[3] = CLEARANCE - 1e-8, v0  # 0.1 ms of flight to the wall
    options = SolverOptions(t_end=3e-3, rtol=1e-10, atol=1e-16, n_output=101)
    (r,) = run_jobs([replace(job, y0=y0, options=options)])
    assert r.ok and r.metrics["impacts"] == 1
    chi = PUBLISHED["lankarani-nikravesh"](0.5)
    e = -r.series["final_state"][3] / v0
    assert e == pytest.approx(exact_restitution(chi * v0 / 1e-3), rel=1e-4)
    assert abs(e - exact_restitution(chi)) > 0.1


# --- friction ----------------------------------------------------------------------------

MU, MU_S, V_0, V_1, FN = 0.1, 0.15, 1e-4, 1e-3, 250.0
KIND = {name: law.kind for name, law in FRICTION_LAWS.items()}


def coulomb_tanh(v):
    return -MU * FN * math.tanh(v / V_0)


def ambrosio(v):
    speed = abs(v)
    cd = 0.0 if speed <= V_0 else (1.0 if speed >= V_1 else (speed - V_0) / (V_1 - V_0))
    return -MU * cd * FN * math.copysign(1.0, v)


def adams(v):
    if abs(v) < V_0:  # stiction: a smooth step through zero up to mu_s at +-v_s
        return -_step(v, -V_0, -MU_S, V_0, MU_S) * FN
    return -_step(abs(v), V_0, MU_S, V_1, MU) * FN * math.copysign(1.0, v)


FORMULAS = {"coulomb-tanh": coulomb_tanh, "ambrosio": ambrosio, "adams": adams}
SPEEDS = [0.0, 2e-5, 5e-5, 9.9e-5, 1e-4, 3e-4, 5.5e-4, 1e-3, 2e-3, 0.5]


@pytest.mark.parametrize("law", list(FORMULAS))
@pytest.mark.parametrize("v", [s * sign for s in SPEEDS for sign in (1, -1)])
def test_friction_force_is_its_formula_and_opposes_the_slip(law, v):
    f = friction_force(KIND[law], MU, V_0, V_1, MU_S, FN, v)
    assert f == pytest.approx(FORMULAS[law](v), rel=1e-12, abs=1e-12)
    if v != 0.0:
        assert f * v <= 0.0


def test_adams_friction_peaks_at_static_then_falls_to_dynamic():
    f = [abs(friction_force(KIND["adams"], MU, V_0, V_1, MU_S, FN, v)) for v in (V_0, V_1, 1.0)]
    assert f == pytest.approx([MU_S * FN, MU * FN, MU * FN], rel=1e-14)
    mid = abs(friction_force(KIND["adams"], MU, V_0, V_1, MU_S, FN, 0.5 * (V_0 + V_1)))
    assert mid == pytest.approx(0.5 * (MU_S + MU) * FN, rel=1e-12)  # STEP's midpoint
    half = friction_force(KIND["adams"], MU, V_0, V_1, MU_S, FN, 0.5 * V_0)
    assert half == pytest.approx(-MU_S * FN * (2 * 0.75**2 * 1.5 - 1), rel=1e-12)


@pytest.mark.parametrize("law", ["none", *FORMULAS])
def test_no_normal_force_no_friction(law):
    for fn in (0.0, -1.0):
        assert friction_force(KIND[law], MU, V_0, V_1, MU_S, fn, 0.3) == 0.0
    assert friction_force(KIND["none"], MU, V_0, V_1, MU_S, FN, 0.3) == 0.0


@pytest.mark.parametrize("law", list(FORMULAS))
def test_friction_in_a_run_takes_mu_times_the_normal_impulse(law):
    """The journal starts 10 nm from the wall (normal +x) sliding along it at 1 m/s: the slip
    stays far above v1 through the impact, so every law is mu Fn against the slip: the
    tangential impulse is mu times the normal one, and the journal's tangential speed drops
    by about that over m against the same impact without friction."""
    mu, vt = 0.05, 1.0
    job = impact_job("lankarani-nikravesh", 0.9, friction_law=law, static_friction=MU_S)
    frictionless = job.mechanism
    job = replace(job, mechanism=_contact(frictionless, friction=mu))
    y0 = np.zeros(6)
    y0[0], y0[3], y0[4] = CLEARANCE - 1e-8, 1.0, vt
    options = replace(job.options, t_end=2e-4, n_output=4001)
    r, free = run_jobs(
        [replace(job, y0=y0, options=options),
         replace(job, y0=y0, options=options, mechanism=frictionless)]
    )  # fmt: skip
    assert r.ok and free.ok and r.metrics["impacts"] == free.metrics["impacts"] == 1
    t, fn, ft = (r.series[k] for k in ("t", "contact_normal_force", "contact_tangential_force"))
    normal_impulse = np.trapezoid(fn, t)
    # (more than m V0 (1 + e): the wall also turns the sliding journal round the bearing)
    assert normal_impulse > MASS * 1.9
    assert abs(np.trapezoid(ft, t)) / normal_impulse == pytest.approx(mu, rel=1e-3)
    slowed = free.series["final_state"][4] - r.series["final_state"][4]
    # within the ~0.15 rad the contact point travels round the wall during the impact
    assert slowed == pytest.approx(mu * normal_impulse / MASS, rel=0.06)
    assert r.series["friction_dissipation"][-1] > 0.5 * mu * normal_impulse * (vt - slowed)
    assert free.series["friction_dissipation"][-1] == 0.0


def _contact(mech, **changes):
    (cj,) = mech.clearance_joints
    return replace(mech, clearance_joints=(replace(cj, contact=replace(cj.contact, **changes)),))
