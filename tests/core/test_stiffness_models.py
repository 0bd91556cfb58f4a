"""Stiffness models of the clearance joint (core/contact_stiffness.py) against their
published formulas, their limits, the energy they store, and their effect on the Flores
slider-crank at small clearance.

References are computed here, independently of the kernels: Johnson's implicit
``delta = F/(pi L E*) (ln(4 pi L E* c / F) - 1)`` is solved with ``brentq`` at xtol 1e-300
/ rtol 4 eps; energies are ``quad`` integrals of the force; ``E*`` comes from the materials
written out here.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from gapsweep.core.assembly import CP_LINEK, clearance_parameters
from gapsweep.core.cases import SliderCrankCase
from gapsweep.core.contact_laws import CONTACT_LAWS, dissipative_force, normal_force
from gapsweep.core.contact_stiffness import (
    HERTZ_SPHERE,
    JOHNSON_CYLINDER,
    LIU_CONFORMAL,
    STIFFNESS_MODELS,
    contact_area,
    contact_half_width,
    elastic_energy,
    elastic_force,
    johnson_force,
    liu_force,
)
from gapsweep.core.errors import InputError
from gapsweep.core.model import Body, ClearanceJoint, ContactModel, Mechanism, Probe
from gapsweep.core.simulation import build_mechanism, simulate_batch
from gapsweep.core.solver import Job, SolverOptions, run_jobs
from scipy.integrate import quad
from scipy.optimize import brentq

E, NU = 207e9, 0.3  # steel, both bodies (design.md 1.3)
E_EFF = 1.0 / (2.0 * (1.0 - NU * NU) / E)  # [Pa]
LENGTH = 0.01  # [m] axial length
A = math.pi * LENGTH * E_EFF  # [N/m]
R_B = 0.01  # [m]
# clearances [m] and penetrations as a fraction of c (Johnson's relation holds to 8/e^3 c)
CLEARANCES = (2e-5, 1e-4, 5e-4)
FRACTIONS = (1e-9, 1e-6, 1e-3, 0.02, 0.1, 0.3, 0.39)


def johnson_reference(c: float, delta: float) -> float:
    """F solving delta = F/A (ln(4 c A / F) - 1) on the branch below F = 4 c A / e^2."""
    x = 4.0 * c * A

    def gap(f: float) -> float:
        return f / A * (math.log(x / f) - 1.0) - delta

    return brentq(gap, 1e-300, x * math.exp(-2.0), xtol=1e-300, rtol=4 * np.finfo(float).eps)


@pytest.mark.parametrize("c", CLEARANCES)
@pytest.mark.parametrize("fraction", FRACTIONS)
def test_johnson_force_solves_the_published_relation(c, fraction):
    delta = fraction * c
    assert johnson_force(A, c, delta) == pytest.approx(johnson_reference(c, delta), rel=1e-13)


@pytest.mark.parametrize("c", CLEARANCES)
@pytest.mark.parametrize("fraction", FRACTIONS)
def test_liu_force_is_the_published_formula(c, fraction):
    delta = fraction * c
    expected = 0.5 * math.pi * E_EFF * LENGTH * delta * math.sqrt(delta / (2.0 * (c + delta)))
    assert liu_force(A, c, delta) == pytest.approx(expected, rel=1e-14)


def test_vanishing_penetrations_give_finite_forces_and_energies():
    """Down to the smallest double (an onset a few ulp deep): no log(0), no NaN."""
    for model in (JOHNSON_CYLINDER, LIU_CONFORMAL):
        for delta in (5e-324, 1e-310, 1e-300, 1e-200):
            f = elastic_force(model, 0.0, 1.5, A, 2e-5, delta)
            u = elastic_energy(model, 0.0, 1.5, A, 2e-5, delta)
            assert math.isfinite(f) and 0.0 <= f < 1e-180
            assert math.isfinite(u) and 0.0 <= u < 1e-300


def test_johnson_is_tangent_continued_past_its_branch():
    """Past delta = 8c/e^3 the force goes on along the tangent (slope A): continuous, monotone."""
    c = 2e-5
    d_end = 8.0 * c * math.exp(-3.0)
    f_end = johnson_reference(c, d_end * (1.0 - 1e-12))
    assert johnson_force(A, c, d_end * (1.0 + 1e-12)) == pytest.approx(f_end, rel=1e-9)
    beyond = np.linspace(d_end, 3.0 * c, 50)
    forces = np.array([johnson_force(A, c, d) for d in beyond])
    assert np.all(np.diff(forces) > 0.0)
    assert np.diff(forces) / np.diff(beyond) == pytest.approx(A, rel=1e-9)


@pytest.mark.parametrize("model", [JOHNSON_CYLINDER, LIU_CONFORMAL])
@pytest.mark.parametrize("fraction", (1e-7, 1e-4, 0.05, 0.39, 1.5))
def test_stored_energy_is_the_integral_of_the_force(model, fraction):
    """Johnson's closed form and Liu's (and its small-delta series) against quadrature."""
    c = 5e-5
    delta = fraction * c
    energy, err = quad(
        lambda d: elastic_force(model, 0.0, 1.5, A, c, d), 0.0, delta, epsabs=0.0, epsrel=1e-12
    )
    assert elastic_energy(model, 0.0, 1.5, A, c, delta) == pytest.approx(energy, rel=1e-9)


def _hertz_law(shape: int, k: float, chi: float, c_max: float, d: float, delta: float,
               ddot: float, ddot0: float) -> tuple[float, float]:
    """The Hertz-sphere contact laws written out: elastic K delta^1.5; shape 0
    (hysteresis, Lankarani-Nikravesh/Flores form) K delta^1.5 (1 + chi ddot / v0) with the
    approach speed v0 = |ddot0| held at 1 mm/s or more; shape 1 (ADAMS IMPACT) K delta^1.5 +
    STEP(delta, 0, 0, d, c_max) ddot, STEP the cubic x^2 (3 - 2x) of x = delta / d up to d;
    the total never pulls."""
    elastic = k * delta**1.5
    if shape == 0:
        total = elastic * (1.0 + chi * ddot / max(abs(ddot0), 1e-3))
    else:
        x = min(delta / d, 1.0)
        total = elastic + c_max * x * x * (3.0 - 2.0 * x) * ddot
    return max(total, 0.0), elastic


def test_hertz_sphere_path_is_the_hertz_law():
    """The split into elastic part + dissipative factor gives the Hertz-sphere laws written out
    independently (to rounding: the kernel takes delta^1.5 as delta sqrt(delta)), for both
    dissipation shapes, in and beyond the IMPACT damping depth, pulling clamped to 0."""
    rng = np.random.default_rng(18)
    pulled = 0
    for _ in range(200):
        k, delta = 10 ** rng.uniform(9, 12), 10 ** rng.uniform(-9, -4)
        ddot, ddot0, chi = rng.normal(0, 2), rng.normal(0, 2), rng.uniform(0, 2)
        for shape in (0, 1):
            fn, fel = normal_force(shape, k, 1.5, chi, 2000.0, 1e-6, delta, ddot, ddot0)
            law_fn, law_fel = _hertz_law(shape, k, chi, 2000.0, 1e-6, delta, ddot, ddot0)
            elastic = elastic_force(HERTZ_SPHERE, k, 1.5, A, 1e-4, delta)
            assert fel == pytest.approx(law_fel, rel=1e-13) and elastic == fel
            assert fn == pytest.approx(law_fn, rel=1e-12, abs=1e-12 * law_fel)
            assert dissipative_force(shape, chi, 2000.0, 1e-6, elastic, delta, ddot, ddot0) == fn
            pulled += law_fn == 0.0
    assert pulled > 0  # the clamp was exercised
    # a penetration the rows above pin by hand: K = 1e10, delta = 1 µm, ddot = 0.5, v0 = 0.25
    fn, fel = normal_force(0, 1e10, 1.5, 0.8, 0.0, 1.0, 1e-6, 0.5, -0.25)
    assert (fel, fn) == pytest.approx((10.0, 10.0 * (1.0 + 0.8 * 2.0)), rel=1e-14)
    fn, _ = normal_force(1, 1e10, 1.5, 0.0, 2000.0, 2e-6, 1e-6, 0.5, 0.0)  # x = 1/2: STEP 1/2
    assert fn == pytest.approx(10.0 + 1000.0 * 0.5, rel=1e-14)


def test_assembled_row_carries_the_line_stiffness_and_the_scale():
    case = SliderCrankCase(
        clearance_mm=0.02, stiffness_model="liu-conformal", axial_length_mm=12.0
    ).replace(stiffness_scale=1.3)
    row = clearance_parameters(build_mechanism(case).clearance_joints[0])
    assert row[CP_LINEK] == pytest.approx(1.3 * math.pi * 0.012 * E_EFF, rel=1e-14)


# --- limits ------------------------------------------------------------------------------


def _local_exponent(force, delta: float) -> float:
    """d ln F / d ln delta by a central difference in ln delta."""
    h = 1e-4
    return (math.log(force(delta * math.exp(h))) - math.log(force(delta * math.exp(-h)))) / (2 * h)


def test_liu_tends_to_a_fixed_fraction_of_the_sphere_law_as_delta_over_c_vanishes():
    """delta/c -> 0: F_Liu -> pi E* L delta^1.5 / (2 sqrt(2c)), i.e. F_Liu / (K delta^1.5)
    -> 3 pi L / (8 sqrt(2 R_J R_B)) whatever c (sphere-type K = 4/3 E* sqrt(R_J R_B / c));
    the relative gap falls like delta / (2c). At delta >> c the law turns linear (Winkler)."""
    for c in CLEARANCES:
        r_j = R_B - c
        k_sphere = 4.0 / 3.0 * E_EFF * math.sqrt(r_j * R_B / c)
        limit = 3.0 * math.pi * LENGTH / (8.0 * math.sqrt(2.0 * r_j * R_B))
        for fraction in (1e-3, 1e-5):
            delta = fraction * c
            ratio = liu_force(A, c, delta) / (k_sphere * delta**1.5)
            assert ratio / limit - 1.0 == pytest.approx(-fraction / 2.0, rel=1e-2)
        assert _local_exponent(lambda d, c=c: liu_force(A, c, d), 1e-6 * c) == pytest.approx(
            1.5, abs=1e-5
        )
        assert _local_exponent(lambda d, c=c: liu_force(A, c, d), 1e4 * c) == pytest.approx(
            1.0, abs=1e-3
        )


def test_johnson_approaches_the_linear_line_contact_and_its_hertz_width_shrinks():
    """At a fixed load, as the clearance grows, Johnson's law tends to the line contact's
    F ~ delta (local exponent (s-1)/(s-2) -> 1 as s = ln(4 pi L E* c / F) grows) and its
    Hertz half-width sqrt(4 F R* / (pi L E*)) becomes small against R_J (the non-conformal
    assumption holds); at c = 0.02 mm it is half the pin: a conformal regime."""
    load = 5000.0  # [N] the order of the reference case's contact forces at small clearance
    exponents, widths = [], []
    for c in (2e-5, 2e-4, 2e-3):
        delta = brentq(lambda d, c=c: johnson_force(A, c, d) - load, 1e-15, 0.39 * c)
        s = math.log(4.0 * c * A / load)
        exponent = _local_exponent(lambda d, c=c: johnson_force(A, c, d), delta)
        assert exponent == pytest.approx((s - 1.0) / (s - 2.0), rel=1e-6)
        exponents.append(exponent)
        half = contact_half_width(
            "johnson-cylinder",
            delta=delta,
            force=load,
            journal_radius=R_B - c,
            clearance=c,
            e_eff=E_EFF,
            axial_length=LENGTH,
        )
        widths.append(half / (R_B - c))
    print(f"\nlocal exponents {exponents}, half-width / R_J {widths}")
    assert np.all(np.diff(exponents) < 0.0) and exponents[-1] < 1.2
    assert widths[0] > 0.4 and widths[-1] < 0.1


# --- the reference mechanism at small clearance -----------------------------------------

SMALL_C = SliderCrankCase(clearance_mm=0.02)


@pytest.fixture(scope="module")
def small_clearance_runs():
    """The Flores case at c = 0.02 mm under each model: metrics and the contact half-width
    at the peak (the peak force with the penetration the model needs for it)."""
    cases = [SMALL_C.replace(stiffness_model=m) for m in STIFFNESS_MODELS]
    results = simulate_batch(cases)
    out = {}
    for case, r in zip(cases, results, strict=True):
        assert r.ok, r.reason
        m = r.metrics
        half = contact_half_width(
            case.stiffness_model,
            delta=m["max_penetration"],
            force=m["peak_contact_force"],
            journal_radius=R_B - 2e-5,
            clearance=2e-5,
            e_eff=E_EFF,
            axial_length=LENGTH,
        )
        out[case.stiffness_model] = (m, half)
        print(
            f"\n{case.stiffness_model:17s} peak force {m['peak_contact_force']:8.1f} N, max "
            f"penetration {m['max_penetration'] * 1e6:6.3f} um, half-width {half * 1e3:5.2f} mm "
            f"(area {contact_area(case.stiffness_model, half, LENGTH) * 1e6:5.1f} mm^2), "
            f"peak accel {m['peak_slider_accel']:8.0f} m/s^2, {m['impacts']} impacts"
        )
    return out


def test_liu_conformal_gives_a_lower_peak_force_and_a_wider_contact_at_small_clearance(
    small_clearance_runs,
):
    """The sphere-type K is the stiffer law; Liu's conformal contact spreads over a larger arc
    of the pin (measured, L = 10 mm: peak 13.2 kN vs 15.8 kN, half-width 9.7 vs 8.0 mm)."""
    sphere, sphere_half = small_clearance_runs["hertz-sphere"]
    liu, liu_half = small_clearance_runs["liu-conformal"]
    assert liu["peak_contact_force"] < 0.95 * sphere["peak_contact_force"]
    assert liu["max_penetration"] > sphere["max_penetration"]
    assert liu_half > 1.1 * sphere_half


def test_johnson_line_contact_is_wider_but_stiffer_than_the_sphere_at_small_clearance(
    small_clearance_runs,
):
    """Johnson's law is the non-conformal 2-D Hertz line contact: at L = 10 mm it is stiffer
    than the sphere-type K (force ~ delta, not delta^1.5, at small delta), so its peak force
    is higher, not lower; its Hertz half-width exceeds the sphere's and reaches the size of
    the pin - the regime where the line-contact assumption (a << R) no longer holds."""
    sphere, sphere_half = small_clearance_runs["hertz-sphere"]
    johnson, johnson_half = small_clearance_runs["johnson-cylinder"]
    assert johnson["peak_contact_force"] > sphere["peak_contact_force"]
    assert johnson_half > sphere_half
    assert johnson_half > 0.5 * (R_B - 2e-5)


@pytest.mark.parametrize("model", ["johnson-cylinder", "liu-conformal"])
def test_conservative_joint_conserves_energy_with_each_line_law(model):
    """Free crank, elastic contact (hertz law), no friction or gravity: T + U_contact is
    constant over every impact only if the stored energy is the integral of the force."""
    case = SliderCrankCase(
        drive="free",
        contact_law="hertz",
        friction=0.0,
        gravity=0.0,
        clearance_mm=0.5,
        stiffness_model=model,
        rtol=1e-9,
        atol=1e-12,
    )
    (r,) = simulate_batch([case])
    assert r.ok, r.reason
    assert r.metrics["impacts"] >= 10
    assert r.metrics["energy_balance_error"] <= 1e-6


# --- one impact of a free journal (the rig of test_contact.py) ---------------------------

MASS, V0, C_IMPACT = 0.14, 1.0, 0.5e-3  # [kg], [m/s] approach speed, [m] clearance


def impact_job(stiffness_model: str, law: str, restitution: float) -> Job:
    """A free journal, centred, at V0 along +x towards the wall of a grounded bearing."""
    contact = ContactModel(
        law=law, restitution=restitution, friction=0.0, stiffness_model=stiffness_model
    )
    joint = ClearanceJoint("ground", "journal", R_B, C_IMPACT, contact=contact)
    mech = Mechanism(
        "single-impact",
        bodies=(Body("journal", MASS, 1e-4),),
        clearance_joints=(joint,),
        gravity=(0.0, 0.0),
        probe=Probe("journal", 0),
    )
    y0 = np.zeros(6)
    y0[3] = V0
    options = SolverOptions(t_end=C_IMPACT / V0 + 3e-4, rtol=1e-10, atol=1e-14, n_output=401)
    return Job(mech, y0, options, params={})


LINE_MODELS = ("johnson-cylinder", "liu-conformal")
IMPACT_LAWS = (("hertz", 1.0), ("lankarani-nikravesh", 0.9), ("flores", 0.5))


@pytest.fixture(scope="module")
def impacts():
    keys = [(m, law, cr) for m in LINE_MODELS for law, cr in IMPACT_LAWS]
    results = run_jobs([impact_job(*k) for k in keys])
    for k, r in zip(keys, results, strict=True):
        assert r.ok, (k, r.reason)
        assert r.metrics["impacts"] == 1, k
    return dict(zip(keys, results, strict=True))


def _reference_force(model: str, c: float, delta: float) -> float:
    if model == "johnson-cylinder":
        return johnson_reference(c, delta)
    return 0.5 * math.pi * E_EFF * LENGTH * delta * math.sqrt(delta / (2.0 * (c + delta)))


@pytest.mark.parametrize("model", LINE_MODELS)
def test_elastic_impact_stores_the_kinetic_energy_at_max_penetration(impacts, model):
    """Elastic (hertz law) impact: at the deepest point int_0^d_max F = m V0^2 / 2, with F
    the published law (quadrature + brentq here); the peak force is F(d_max); e = 1."""
    r = impacts[(model, "hertz", 1.0)]
    kinetic = 0.5 * MASS * V0**2

    def stored(d: float) -> float:
        return quad(lambda x: _reference_force(model, C_IMPACT, x), 0.0, d, epsrel=1e-12)[0]

    d_max = brentq(lambda d: stored(d) - kinetic, 1e-12, 0.39 * C_IMPACT, xtol=1e-20)
    print(f"\n{model}: d_max {r.metrics['max_penetration']:.6e} m (reference {d_max:.6e})")
    assert r.metrics["max_penetration"] == pytest.approx(d_max, rel=1e-6)
    peak = _reference_force(model, C_IMPACT, d_max)
    assert r.metrics["peak_contact_force"] == pytest.approx(peak, rel=1e-6)
    assert -r.series["final_state"][3] / V0 == pytest.approx(1.0, abs=1e-6)


@pytest.mark.parametrize("model", LINE_MODELS)
@pytest.mark.parametrize(("law", "restitution"), IMPACT_LAWS[1:])
def test_hysteresis_restitution_does_not_depend_on_the_elastic_law(
    impacts, model, law, restitution
):
    """F = F_e(d) (1 + chi d'/V0) separates as m v dv / (1 + chi v / V0) = -F_e dx: the
    restitution solves chi - ln(1+chi) = -chi e - ln(1 - chi e) whatever F_e is."""
    chi = CONTACT_LAWS[law].chi(restitution)
    target = chi - math.log1p(chi)
    upper = min(1.0, (1.0 - 1e-15) / chi)
    exact = brentq(lambda e: -chi * e - math.log1p(-chi * e) - target, 0.0, upper, xtol=1e-15)
    measured = -impacts[(model, law, restitution)].series["final_state"][3] / V0
    assert measured == pytest.approx(exact, rel=1e-6)


# --- bad input ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("values", "field", "allowed"),
    [
        ({"stiffness_model": "winkler"}, "stiffness_model", "hertz-sphere, johnson-cylinder"),
        ({"axial_length_mm": "0"}, "axial_length_mm", "> 0 mm"),
        ({"axial_length_mm": -3}, "axial_length_mm", "> 0 mm"),
        ({"axial_length_mm": "nan"}, "axial_length_mm", "finite"),
        (
            {"stiffness_model": "johnson-cylinder", "stiffness": 1e11},
            "stiffness",
            "only with hertz-sphere",
        ),
        ({"stiffness_model": "liu-conformal", "exponent": 1.3}, "exponent", "1.5"),
    ],
)
def test_invalid_stiffness_inputs_name_field_value_and_range(values, field, allowed):
    with pytest.raises(InputError) as info:
        SliderCrankCase.from_mapping(values)
    err = info.value
    assert err.field == field
    assert allowed in err.allowed
    assert str(values[field]) in str(err.value) or values[field] == err.value


def test_mechanism_level_contact_model_is_validated_too():
    from gapsweep.core.assembly import assemble

    mech = build_mechanism(SliderCrankCase())
    joint = mech.clearance_joints[0]
    for bad, field in (
        (ContactModel(stiffness_model="x"), "stiffness_model"),
        (ContactModel(axial_length=0.0), "axial_length"),
    ):
        from dataclasses import replace

        broken = replace(mech, clearance_joints=(replace(joint, contact=bad),))
        with pytest.raises(InputError) as info:
            assemble(broken)
        assert info.value.field == field
