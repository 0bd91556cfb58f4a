"""Contact laws against closed forms: conformal Hertz stiffness, and one impact of a mass.

The single-impact rig is the smallest mechanism with a clearance joint: a free journal body
(no gravity, no ideal joints) starts centred in a bearing fixed to the ground and moves at
``V0`` along +x, so it flies ``c`` at constant speed, hits the wall once (normal = +x) and
leaves at ``-e V0``. Because the approach speed captured at onset is exactly ``V0``, every
hysteresis law ``F = K d^n (1 + chi d'/V0)`` has an exact restitution that depends on chi
alone (not on K, n or m): separating ``m v dv/dx = -K x^n (1 + chi v/V0)`` and integrating
over the whole impact (x returns to 0) gives

    chi - ln(1 + chi) = -chi e - ln(1 - chi e)

(Carvalho & Martins 2019, Mech. Mach. Theory 139:337). That is an independent reference
for the solver to ~1e-9; the laws' own *approximation* of the input cr is a separate question
(``test_restitution_close_to_input_where_the_law_is_meant_for_it``).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from gapsweep.core.assembly import CP_K, clearance_parameters
from gapsweep.core.cases import SliderCrankCase
from gapsweep.core.contact_laws import CONTACT_LAWS, conformal_stiffness
from gapsweep.core.model import Body, ClearanceJoint, ContactModel, Mechanism, Probe
from gapsweep.core.simulation import build_mechanism
from gapsweep.core.solver import Job, SolverOptions, run_jobs
from scipy.integrate import quad
from scipy.optimize import brentq

MASS = 0.14  # [kg] the Flores slider
BEARING_RADIUS = 0.01  # [m]
CLEARANCE = 0.5e-3  # [m]
V0 = 1.0  # [m/s] approach speed, within the 1-4 m/s of the reference case's first impact
T_END = CLEARANCE / V0 + 2e-4  # flight + contact (~70-80 us) + some free flight after exit
STEEL = 207e9, 0.3

# (law, input cr) of the single-impact batch
IMPACTS = [
    ("hertz", 1.0),
    ("hunt-crossley", 0.9),
    ("hunt-crossley", 0.5),
    ("lankarani-nikravesh", 0.9),
    ("lankarani-nikravesh", 0.5),
    ("flores", 0.9),
    ("flores", 0.5),
    ("gonthier", 0.9),
    ("gonthier", 0.5),
]
IMPACT_DAMPING = 2000.0  # [N s/m] c_max of the ADAMS IMPACT law run


def impact_job(law: str, restitution: float, event_location: str = "root", **contact) -> Job:
    """One impact of the free journal; tight tolerances: this tests the laws, not the steps."""
    model = ContactModel(law=law, restitution=restitution, friction=0.0, **contact)
    joint = ClearanceJoint("ground", "journal", BEARING_RADIUS, CLEARANCE, contact=model)
    mech = Mechanism(
        "single-impact",
        bodies=(Body("journal", MASS, 1e-4),),
        clearance_joints=(joint,),
        gravity=(0.0, 0.0),
        probe=Probe("journal", 0),
    )
    y0 = np.zeros(6)
    y0[3] = V0  # vx: centred journal heading for the wall at +x
    options = SolverOptions(
        t_end=T_END, rtol=1e-10, atol=1e-14, event_location=event_location, n_output=401
    )
    return Job(mech, y0, options, params={"law": law, "restitution": restitution})


def measured_restitution(result) -> float:
    """Exit / approach normal speed: the normal is +x, the journal leaves along -x."""
    return -result.series["final_state"][3] / V0


def exact_restitution(chi: float) -> float:
    """Root of ``chi - ln(1+chi) = -chi e - ln(1 - chi e)`` (see the module docstring)."""
    if chi == 0.0:
        return 1.0
    target = chi - math.log1p(chi)
    upper = min(1.0, (1.0 - 1e-15) / chi)
    return brentq(lambda e: -chi * e - math.log1p(-chi * e) - target, 0.0, upper, xtol=1e-15)


@pytest.fixture(scope="module")
def impacts():
    jobs = [impact_job(law, cr) for law, cr in IMPACTS]
    jobs.append(impact_job("impact", 1.0, damping_max=0.0))
    jobs.append(impact_job("impact", 1.0, damping_max=IMPACT_DAMPING))
    results = run_jobs(jobs)
    for r in results:
        assert r.ok, r.reason
    keys = [*IMPACTS, ("impact", 0.0), ("impact", IMPACT_DAMPING)]
    return dict(zip(keys, results, strict=True))


def hertz_stiffness() -> float:
    return conformal_stiffness(BEARING_RADIUS, CLEARANCE, *STEEL, *STEEL)


# --- conformal Hertz stiffness (design.md 1.2) --------------------------------------------


@pytest.mark.parametrize(
    ("clearance_mm", "expected"),
    [(0.5, 6.61e10), (0.1, 1.51e11), (0.05, 2.14e11), (0.02, 3.39e11)],
)
def test_conformal_stiffness_matches_design_values(clearance_mm, expected):
    """K = 4/3 E* sqrt(R*) to 3 significant figures, both from the formula and as the
    assembled case carries it - the case path is where seed 002's mm/SI (1000^1.5) bug hid."""
    k = conformal_stiffness(0.01, clearance_mm * 1e-3, *STEEL, *STEEL)
    assert float(f"{k:.3g}") == expected
    mech = build_mechanism(SliderCrankCase(clearance_mm=clearance_mm))
    assembled = clearance_parameters(mech.clearance_joints[0])[CP_K]
    assert assembled == pytest.approx(k, rel=1e-12)
    scaled = build_mechanism(SliderCrankCase(clearance_mm=clearance_mm, stiffness_scale=1.3))
    assert clearance_parameters(scaled.clearance_joints[0])[CP_K] == pytest.approx(1.3 * k)


def test_given_stiffness_replaces_the_computed_one():
    mech = build_mechanism(SliderCrankCase(stiffness=1e12, stiffness_scale=0.7))
    assert clearance_parameters(mech.clearance_joints[0])[CP_K] == pytest.approx(0.7e12)


# --- one impact ------------------------------------------------------------------------


def test_every_law_gives_exactly_one_impact(impacts):
    for key, r in impacts.items():
        assert r.metrics["impacts"] == 1, key
        assert r.series["contact_state"][-1] == 0, key  # left the wall before t_end


def test_hertz_impact_is_elastic(impacts):
    r = impacts[("hertz", 1.0)]
    e = measured_restitution(r)
    print(f"\nHertz restitution {e:.10f}")
    assert e == pytest.approx(1.0, abs=1e-6)  # measured 1 - 3e-9
    assert r.series["damping_dissipation"][-1] == 0.0
    assert r.metrics["energy_balance_error"] < 1e-7


def test_hertz_impact_matches_closed_form(impacts):
    """Max penetration (5 m v0^2 / (4 K))^(2/5), peak force K d^1.5 and contact duration
    2 d_max/v0 * int_0^1 dx / sqrt(1 - x^(5/2)) (= 2.943 d_max / v0) of a Hertz impact."""
    r = impacts[("hertz", 1.0)]
    k = hertz_stiffness()
    d_max = (5.0 * MASS * V0**2 / (4.0 * k)) ** 0.4
    integral = quad(lambda x: 1.0 / math.sqrt(1.0 - x**2.5), 0.0, 1.0, limit=200)[0]
    duration = 2.0 * d_max / V0 * integral
    print(f"\nHertz d_max {r.metrics['max_penetration']:.9e} m (analytic {d_max:.9e})")
    assert r.metrics["max_penetration"] == pytest.approx(d_max, rel=1e-5)  # measured 3e-9
    assert r.metrics["peak_contact_force"] == pytest.approx(k * d_max**1.5, rel=1e-5)
    # a mass alone: |acceleration| peak is F/m
    assert r.metrics["peak_slider_accel"] == pytest.approx(k * d_max**1.5 / MASS, rel=1e-5)
    # the exit is located 1 nm past separation (EVENT_BAND): +1 ns at 1 m/s, 1.5e-5 of it
    contact_time = r.metrics["contact_time_fraction"] * T_END
    assert contact_time == pytest.approx(duration, rel=1e-4)


@pytest.mark.parametrize(("law", "restitution"), IMPACTS)
def test_restitution_matches_exact_hysteresis_relation(impacts, law, restitution):
    """The solver reproduces each law's exact restitution (independent of K, n, m)."""
    r = impacts[(law, restitution)]
    expected = exact_restitution(CONTACT_LAWS[law].chi(restitution))
    assert measured_restitution(r) == pytest.approx(expected, rel=1e-6)  # measured <= 3e-9
    # the dissipated energy is exactly the kinetic energy lost
    lost = 0.5 * MASS * V0**2 * (1.0 - measured_restitution(r) ** 2)
    ke0 = 0.5 * MASS * V0**2
    assert r.series["damping_dissipation"][-1] == pytest.approx(lost, rel=1e-6, abs=1e-7 * ke0)


# Where each law is meant for the input cr, its restitution must be within 5 % of cr.
# Measured (and exact, see above): Hunt-Crossley 0.9 -> 0.9090 (+1.0 %), LN 0.9 -> 0.9132
# (+1.5 %), Flores 0.9 -> 0.8939 (-0.7 %), Gonthier 0.9 -> 0.8764 (-2.6 %), Gonthier 0.5 ->
# 0.4877 (-2.5 %). Flores 0.5 -> 0.4704 (-5.9 %): the published chi = 8(1-cr)/(5 cr) itself
# gives that, so its bound is 6 %, stated rather than hidden. Laws "for cr near 1" are shown
# to fail at 0.5 (HC 0.663, LN 0.725): what "meant for it" means.
MEANT = [
    ("hunt-crossley", 0.9, 0.05),
    ("lankarani-nikravesh", 0.9, 0.05),
    ("flores", 0.9, 0.05),
    ("gonthier", 0.9, 0.05),
    ("gonthier", 0.5, 0.05),
    ("flores", 0.5, 0.06),
]


@pytest.mark.parametrize(("law", "restitution", "bound"), MEANT)
def test_restitution_close_to_input_where_the_law_is_meant_for_it(impacts, law, restitution, bound):
    e = measured_restitution(impacts[(law, restitution)])
    print(f"\n{law} cr {restitution}: measured {e:.5f} ({100 * (e / restitution - 1):+.2f} %)")
    assert e == pytest.approx(restitution, rel=bound)


@pytest.mark.parametrize("law", ["hunt-crossley", "lankarani-nikravesh"])
def test_near_elastic_laws_miss_low_restitution(impacts, law):
    e = measured_restitution(impacts[(law, 0.5)])
    assert e > 0.5 * 1.25, f"{law} at cr 0.5 gave {e:.4f}"


def test_impact_law_without_damping_is_elastic_and_with_damping_dissipates(impacts):
    elastic = impacts[("impact", 0.0)]
    assert measured_restitution(elastic) == pytest.approx(1.0, abs=1e-6)
    assert elastic.metrics["max_penetration"] == pytest.approx(
        (5.0 * MASS * V0**2 / (4.0 * hertz_stiffness())) ** 0.4, rel=1e-5
    )
    damped = impacts[("impact", IMPACT_DAMPING)]
    e = measured_restitution(damped)
    assert 0.0 < e < 0.99
    lost = 0.5 * MASS * V0**2 * (1.0 - e**2)
    assert damped.series["damping_dissipation"][-1] == pytest.approx(lost, rel=1e-6)


def test_onset_is_located_within_eps_for_a_single_impact():
    """Root finding starts the contact at the 1e-12 m threshold to within 1e-9 m; seed 003's
    step halving stops at its 0.1 us minimum step, so it can overshoot by up to V0 x 0.1 us
    (1e-7 m here) - the bound its design allows, not 1 nm. Restitution is the same."""
    results = run_jobs([impact_job("flores", 0.9, ev) for ev in ("root", "bisect")])
    for r in results:
        assert r.ok and r.metrics["impacts"] == 1
        assert r.metrics["max_free_flight_penetration"] <= 1e-12
    root, bisect = results
    print(
        f"\nonset error: root {root.metrics['onset_penetration_error']:.2e} m, "
        f"bisect {bisect.metrics['onset_penetration_error']:.2e} m"
    )
    assert root.metrics["onset_penetration_error"] <= 1e-9
    assert bisect.metrics["onset_penetration_error"] <= V0 * 1e-7
    assert measured_restitution(bisect) == pytest.approx(measured_restitution(root), rel=1e-6)
