"""Wear over the joint's life (design.md 4.12, 4.15 "Wear life"): Archard's law on the
bearing's profile, against closed forms derived here, and the worn profile in the contact."""

from __future__ import annotations

import math
from dataclasses import replace
from types import SimpleNamespace

import numpy as np
import pytest
from gapsweep.core.api import run_cases
from gapsweep.core.cases import SliderCrankCase
from gapsweep.core.errors import InputError
from gapsweep.core.mechanism.case import MechanismCase
from gapsweep.core.simulation import simulate, to_job
from gapsweep.core.solver import run_jobs
from gapsweep.core.wear import (
    ContactHistory,
    WearStep,
    WornJoint,
    depth_at,
    node_angles,
    wear_increment,
    wear_life,
    wear_lives,
    wear_volume,
)
from support.mechanism_tables import table

F, R, L, K_D = 100.0, 0.010, 0.020, 1e-15  # N, m (R_B), m, m²/N: design.md 4.12's numbers
OMEGA = 2.0 * math.pi * 50.0  # the journal's speed [rad/s]; the closed forms do not read it


def _revolution(theta_of_t, profile, clearance, delta, samples=720):
    """One revolution of a prescribed contact: constant force F, the journal's surface
    sliding at omega R over the bearing, the line of centres at ``theta_of_t`` (bearing
    frame) and the journal sunk ``delta`` into the worn wall there."""
    period = 2.0 * math.pi / OMEGA
    t = np.linspace(0.0, period, samples + 1)
    theta = np.mod(theta_of_t(t), 2.0 * math.pi)
    ecc = clearance + depth_at(profile, theta) + delta
    return WearStep(ContactHistory(t, theta, ecc, np.full_like(t, F), np.full_like(t, OMEGA * R)),
                    1, F)


def _life(theta_of_t, *, cycles, steps, nodes=180, clearance=1e-5, delta=1e-7):
    return wear_life(lambda h: _revolution(theta_of_t, h, clearance, delta), nodes=nodes,
                     cycles=cycles, steps=steps, coefficient=K_D, clearance=clearance,
                     bearing_radius=R, length=L)


def test_volume_is_k_times_sliding_work():
    """Archard in the large: the worn volume equals k_D x the sliding work F s (s = omega R
    x time, derived from the prescribed motion, not read from the code) to 1 %."""
    t = np.linspace(0.0, 0.02, 2001)
    theta = 0.3 + 5.0 * t + 0.2 * np.sin(300.0 * t)  # a contact point wandering over the hole
    force = F * (1.0 + 0.5 * np.sin(200.0 * t)) ** 2
    slip = OMEGA * R * np.cos(100.0 * t)
    history = ContactHistory(t, theta, np.full_like(t, 1e-5 + 1e-7), force, slip)
    dh = wear_increment(np.zeros(360), history, coefficient=K_D, clearance=1e-5,
                        bearing_radius=R, length=L)
    # the work in closed form: int F |v| dt with F, v above, on a much finer grid
    tf = np.linspace(0.0, 0.02, 200_001)
    power = F * (1 + 0.5 * np.sin(200 * tf)) ** 2 * np.abs(OMEGA * R * np.cos(100 * tf))
    work = np.trapezoid(power, tf)
    assert wear_volume(dh, R, L) == pytest.approx(K_D * work, rel=0.01)
    assert np.all(dh >= 0.0)


def test_load_fixed_to_journal_wears_evenly():
    """The contact point circling the bearing: the hole wears evenly, Dc = k_D F s/(2 pi R L);
    design.md's figures (1e5 revolutions: V = 0.628 mm³, Dc = 0.50 um) derived here."""
    cycles = 1e5
    s = 2.0 * math.pi * R * cycles  # sliding distance [m]
    volume = K_D * F * s
    dc = volume / (2.0 * math.pi * R * L)
    assert volume * 1e9 == pytest.approx(0.628, abs=0.001)
    assert dc * 1e6 == pytest.approx(0.50, abs=0.005)
    life = _life(lambda t: OMEGA * t, cycles=cycles, steps=4)
    m = life.metrics(1e-5, R, L)
    assert m["wear_volume"] == pytest.approx(volume, rel=0.01)
    assert m["max_wear_depth"] == pytest.approx(dc, rel=0.01)
    assert life.profile.min() == pytest.approx(dc, rel=0.01)  # even: no node lags
    assert m["clearance_after_wear"] == pytest.approx(1e-5 + dc, rel=1e-3)


def _reye_distance(life, theta_load, bearing_radius=R, length=L):
    """L2 distance [m] of the final profile to h0 cos(theta - theta_load) over the loaded
    half, h0 = V/(2 R L), and h0."""
    h0 = wear_volume(life.profile, bearing_radius, length) / (2.0 * bearing_radius * length)
    phi = np.angle(np.exp(1j * (node_angles(life.profile.size) - theta_load)))
    half = np.abs(phi) <= math.pi / 2
    reye = h0 * np.cos(phi[half])
    return math.sqrt(np.mean((life.profile[half] - reye) ** 2)), h0, life.profile[~half]


def test_fixed_load_on_turning_journal_tends_to_reye_shape():
    """A fixed load (along -y) on a turning journal: the hole wears towards Reye's shape
    h0 cos(theta) over the loaded half (a conformal joint: the clearance 1 % of the final
    depth), L2 distance below 10 % of h0, and nothing on the unloaded half."""
    down = 1.5 * math.pi
    life = _life(lambda t: np.full_like(t, down), cycles=6e5, steps=20, clearance=1e-7)
    distance, h0, unloaded = _reye_distance(life, down)
    assert h0 > 5e-6
    assert distance < 0.1 * h0
    assert np.all(unloaded < 1e-3 * h0)


def test_halving_the_step_moves_the_final_depth_little():
    """Step independence (design.md 4.12): 20 -> 40 steps moves the final largest depth of
    the Reye life by < 3 % (10 -> 20 too)."""
    down = 1.5 * math.pi
    depth = {n: _life(lambda t: np.full_like(t, down), cycles=6e5, steps=n,
                      clearance=1e-7).profile.max() for n in (10, 20, 40)}
    assert abs(depth[40] - depth[20]) / depth[40] < 0.03
    assert abs(depth[20] - depth[10]) / depth[40] < 0.03


def test_two_joints_wear_in_one_life_each_by_its_own_history():
    """Two joints worn together (one run per step gives both histories): the one with the
    load fixed to its journal wears evenly by k_D F s/(2 pi R L) with its own k_D, the other,
    a fixed load, towards Reye's shape with its k_D; each reports every run to progress."""
    k_even, k_reye, cycles = 2e-15, 1e-15, 6e5
    even, reye = WornJoint(180, k_even, 1e-5, R, L), WornJoint(180, k_reye, 1e-7, R, L)
    down = 1.5 * math.pi
    heard = []

    def run(profiles):
        return [_revolution(lambda t: OMEGA * t, profiles[0], 1e-5, 1e-7),
                _revolution(lambda t: np.full_like(t, down), profiles[1], 1e-7, 1e-7)]

    lives = wear_lives(run, [even, reye], cycles=cycles, steps=10,
                       progress=lambda k, n: heard.append((k, n)))
    dc = k_even * F * 2.0 * math.pi * R * cycles / (2.0 * math.pi * R * L)
    assert lives[0].profile.min() == pytest.approx(dc, rel=0.01)
    assert lives[0].profile.max() == pytest.approx(dc, rel=0.01)
    assert wear_volume(lives[1].profile, R, L) == pytest.approx(
        k_reye * F * 2.0 * math.pi * R * cycles, rel=0.01)
    distance, h0, unloaded = _reye_distance(lives[1], down)
    assert distance < 0.1 * h0
    assert heard == [(k, 11) for k in range(1, 12)]


def test_wear_parameters_checked_at_the_edge():
    with pytest.raises(InputError, match="wear_cycles"):
        SliderCrankCase.from_mapping({"wear_coefficient_m2_per_n": 1e-15})
    with pytest.raises(InputError, match="wear_nodes"):
        SliderCrankCase.from_mapping({"wear_nodes": 4})
    with pytest.raises(InputError, match="wear_steps"):
        SliderCrankCase.from_mapping({"wear_steps": 0})
    with pytest.raises(InputError, match="wear_coefficient_m2_per_n"):
        SliderCrankCase.from_mapping({"wear_coefficient_m2_per_n": -1.0})


def _worn(job, profile):
    mech = job.mechanism
    cj = replace(mech.clearance_joints[0], wear_profile=tuple(profile))
    return replace(job, mechanism=replace(mech, clearance_joints=(cj,)))


SHORT = {"t_end": 0.004, "clearance_mm": 0.1}


def test_zero_profile_is_the_circular_hole():
    """A worn profile of zeros is the circular hole bit for bit: every metric and series."""
    job = to_job(SliderCrankCase.from_mapping(SHORT))
    new, zero = run_jobs([job, _worn(job, np.zeros(360))], threads=1)
    for key in ("peak_slider_accel", "peak_contact_force", "max_penetration", "impacts"):
        assert zero.metrics[key] == new.metrics[key]
    for key in ("t", "penetration", "contact_normal_force", "eccentricity_x"):
        assert np.array_equal(zero.series[key], new.series[key])


def test_evenly_worn_hole_is_a_larger_clearance():
    """A profile of depth D everywhere is a hole of clearance c + D (frictionless, the same
    stiffness K: the contact force passes through the centres whatever the hole's radius), to
    round-off: the Winkler resultant of an even ring is along the line of centres and its
    equivalent penetration |e| - c - D."""
    d = 0.02e-3
    base = {**SHORT, "friction": 0.0, "stiffness": 2e11}
    worn = _worn(to_job(SliderCrankCase.from_mapping(base)), np.full(90, d))
    wide = to_job(SliderCrankCase.from_mapping({**base, "clearance_mm": 0.12}))
    a, b = run_jobs([worn, wide], threads=1)
    for key in ("peak_slider_accel", "peak_contact_force", "max_penetration"):
        assert a.metrics[key] == pytest.approx(b.metrics[key], rel=2e-9)  # measured 7e-10
    assert a.metrics["impacts"] == b.metrics["impacts"]


# the bound on a worn hole: c = 0.02 mm worn evenly by 0.04 mm against a new hole of 0.06 mm,
# frictionless with one stiffness (as above); the hard K puts the deepest impact between c and
# c + D, the soft one past c + D (both asserted, so the test shows the regime it claims)
BOUND = {"t_end": 0.004, "friction": 0.0, "clearance_mm": 0.02}
WORN_BY = 0.04e-3


def _worn_and_wide(stiffness):
    base = {**BOUND, "stiffness": stiffness}
    worn = _worn(to_job(SliderCrankCase.from_mapping(base)), np.full(90, WORN_BY))
    wide = to_job(SliderCrankCase.from_mapping({**base, "clearance_mm": 0.06}))
    return run_jobs([worn, wide], threads=1)


def test_penetration_bound_is_the_worn_clearance():
    """A journal that strikes the worn wall deeper than the unworn clearance c but within
    c + h_max is a legitimate impact of the wider hole: the worn joint runs as the new hole
    of clearance c + D does, bound included (before, the bound was c and the run failed)."""
    a, b = _worn_and_wide(2e11)
    assert a.ok and b.ok, (a.reason, b.reason)
    c = BOUND["clearance_mm"] * 1e-3
    assert c < a.metrics["max_penetration"] < c + WORN_BY
    for key in ("peak_slider_accel", "peak_contact_force", "max_penetration"):
        assert a.metrics[key] == pytest.approx(b.metrics[key], rel=1e-6)


def test_penetration_past_the_worn_clearance_still_fails():
    """A contact soft enough that the journal sinks past c + h_max fails the worn joint with
    the solver's message, at the time the new hole of clearance c + D fails."""
    a, b = _worn_and_wide(1e10)
    for r in (a, b):
        assert r.status == "failed" and r.reason.startswith("penetration exceeded its bound")
    t_fail = [float(r.reason.rsplit("t = ", 1)[1].split()[0]) for r in (a, b)]
    assert t_fail[0] == pytest.approx(t_fail[1], rel=1e-6)


def test_journal_striking_a_groove_may_sink_past_the_unworn_clearance():
    """The slider-crank's grooves (docs/wear.md): Reye-shaped each way along the stroke, 2c
    deep, 0 across it. The first impacts land in a groove and sink the journal deeper than c
    into its worn wall (its eccentricity past c; measured 69 um, c = 20 um): the run goes on;
    a contact soft enough that its penetration passes c + h_max fails with the solver's
    message. The penetration the solver reports on a worn hole is the Winkler contact's
    equivalent one (measured from the worn clearance, not |e| - c); the journal overlaps the
    groove's bottom (|e| - c - h_max) by less than it: the groove fits the journal, so its
    overlap arc is wider than the equivalent circle's at the same depth. That wide arc
    carries the journal: at K = 1e10 (the line-of-centres contact failed there) the
    penetration reaches 0.93 of c + h_max and the run goes on; 3e9 fails."""
    c = BOUND["clearance_mm"] * 1e-3
    theta = node_angles(360)
    groove = np.maximum((c + WORN_BY) * np.abs(np.cos(theta)) - c, 0.0)
    hard, soft = (_worn(to_job(SliderCrankCase.from_mapping({**BOUND, "stiffness": k})), groove)
                  for k in (2e11, 3e9))
    a, b = run_jobs([hard, soft], threads=1)
    assert a.ok, a.reason
    ecc = np.hypot(a.series["eccentricity_x"], a.series["eccentricity_y"])
    assert c < ecc.max()
    assert 0.0 < ecc.max() - (c + WORN_BY) < a.metrics["max_penetration"]
    assert b.status == "failed" and b.reason.startswith("penetration exceeded its bound")


def test_life_through_the_solver():
    """A short life of the reference slider-crank at 0.02 mm: the volume is k_D x the life's
    sliding work (the profile barely changes at this k_D, so each step's work is the new
    joint's), the clearance grows by the largest depth, the series have their lengths."""
    case = {"clearance_mm": 0.02, "wear_coefficient_m2_per_n": 1e-16, "wear_cycles": 1e6,
            "wear_steps": 2, "wear_nodes": 180, "max_revolutions": 30}
    r = simulate(case)
    assert r.ok, r.reason
    m = r.metrics
    assert m["contact_sliding_work"] > 0.0
    assert m["wear_volume"] == pytest.approx(1e-16 * m["contact_sliding_work"] * 1e6, rel=0.02)
    assert m["clearance_after_wear"] == pytest.approx(0.02e-3 + m["max_wear_depth"])
    assert r.series["wear_depth"].shape == (180,)
    assert list(r.series["wear_cycle"]) == [0.0, 5e5, 1e6]
    assert r.series["wear_peak_settled"].shape == (3,)
    assert m["wear_peak_settled_new"] == pytest.approx(r.series["wear_peak_settled"][0])


def test_life_through_the_solver_does_not_depend_on_the_step():
    """Halving the life's step once it is fine enough (6 -> 12 updates over 1e6 revolutions,
    the depth growing to ~65 % of the clearance) moves the final largest depth by less than
    2 % (measured with the Winkler contact: 0.77 % at these 30-revolution caps, 0.28 %
    uncapped). 3 steps are not fine enough: the first third of the life worn on the new
    hole's motion, 3 -> 6 moves it 2.46 % (the depth at a third of the life converges as
    the step's first power: 4.76, 5.02, 5.15, 5.20 um at 3, 6, 12, 24 steps)."""
    base = {"clearance_mm": 0.02, "wear_coefficient_m2_per_n": 1e-16, "wear_cycles": 1e6,
            "max_revolutions": 30}
    coarse, fine = (simulate({**base, "wear_steps": n}).metrics["max_wear_depth"]
                    for n in (6, 12))
    assert fine == pytest.approx(coarse, rel=0.02)
    assert fine > 0.3 * 0.02e-3


# a short worn life of the reference slider-crank at 0.02 mm (2 steps over 1e6 revolutions,
# the depth ~45 % of c at its end), run once per change of the contact stiffness
ROUNDOFF_LIFE = {"clearance_mm": 0.02, "wear_coefficient_m2_per_n": 1e-16, "wear_cycles": 1e6,
                 "wear_steps": 2, "wear_nodes": 180, "max_revolutions": 30}


@pytest.fixture(scope="module")
def worn_life(roundoff_eps):
    """The life's result and each of its settled runs' metrics (the new, the half-worn and
    the worn joint's), under the round-off harness's K x (1 + eps)."""
    import gapsweep.core.simulation as simulation

    runs = []

    def recording(jobs, **kw):
        out = run_jobs(jobs, **kw)
        # the life's settled runs (the case's own batch call holds the life's placeholder)
        runs.extend(dict(r.metrics) for r in out if "motion" in r.metrics)
        return out

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(simulation, "run_jobs", recording)
        result = simulate(ROUNDOFF_LIFE)
    return result, runs


@pytest.mark.roundoff
def test_a_worn_life_keeps_its_class_under_roundoff(worn_life):
    """Whatever the last bits of K: every settled run of the life (on the new, half-worn
    and worn hole) settles periodic-1 within the cap, the worn volume is k_D x the sliding
    work a revolution x the cycles (2 %, as in test_life_through_the_solver), and the wear
    is deepest along the stroke, uneven (the trajectory's own figures - the depth - are not
    asserted)."""
    result, runs = worn_life
    assert result.ok, result.reason
    assert len(runs) == 3
    for m in runs:
        assert m["motion"] == "periodic-1" and m["settled"] == 1
    m = result.metrics
    cycles = ROUNDOFF_LIFE["wear_cycles"]
    k_d = ROUNDOFF_LIFE["wear_coefficient_m2_per_n"]
    # the per-revolution work the new joint's (as test_life_through_the_solver: 2 %)
    assert m["wear_volume"] == pytest.approx(k_d * m["contact_sliding_work"] * cycles, rel=0.02)
    c = ROUNDOFF_LIFE["clearance_mm"] * 1e-3
    assert 0.1 * c < m["max_wear_depth"] < c
    profile = np.asarray(result.series["wear_depth"])
    # the deepest wear along the stroke (0 or 180 deg of the rod's frame), where the small end
    # carries the slider's inertia force, and spread, not even: the median node below half
    # the largest depth
    deepest = math.degrees(float(np.asarray(result.series["wear_angle"])[profile.argmax()]))
    assert min(deepest % 180.0, 180.0 - deepest % 180.0) < 15.0
    assert 0.0 < np.median(profile) < 0.5 * profile.max()


def test_a_mechanism_joint_wears_as_the_built_in_one():
    """The reference slider-crank written as a mechanism, its piston pin worn with the same
    settings, gives the built-in model's life (per-joint names, the unsuffixed the extreme):
    the two differ only in where the steps fall (the mechanism's step control weighs no loop
    probe), so to a few per cent."""
    wear = {"wear_coefficient_m2_per_n": 1e-16, "wear_cycles": 1e6, "wear_steps": 2,
            "wear_nodes": 180}
    mech = run_cases("mechanism", [{"mechanism": table("reference_slider_crank"),
                                    "joints.piston_pin.clearance_mm": 0.02,
                                    **{f"joints.piston_pin.{k}": v for k, v in wear.items()}}],
                     threads=1)[0]
    built_in = simulate({"clearance_mm": 0.02, **wear})
    assert mech.ok, mech.reason
    depth = mech.metrics["max_wear_depth.piston_pin"]
    assert mech.metrics["max_wear_depth"] == depth
    assert depth == pytest.approx(built_in.metrics["max_wear_depth"], rel=0.05)
    assert mech.series["wear_depth"].shape == (180,)


def _two_worn(**per_joint_k):
    case = {"mechanism": table("two_clearance_slider_crank"), "max_revolutions": 40}
    for joint, k in per_joint_k.items():
        case.update({f"joints.{joint}.clearance_mm": 0.02,
                     f"joints.{joint}.wear_coefficient_m2_per_n": k,
                     f"joints.{joint}.wear_cycles": 1e4, f"joints.{joint}.wear_steps": 1,
                     f"joints.{joint}.wear_nodes": 180})
    return case


def test_every_worn_joint_of_a_mechanism_wears_in_the_one_life():
    """Both clearance joints of the two-clearance slider-crank worn in one life, each with
    its own k_D: each joint's worn volume is its k_D x its own sliding work x the cycles to
    1 % (the wear 2 % of the clearance at most: the work barely moves over the life), the
    two works differ by more than the k_D ratio (a swap would fail), the unsuffixed names
    are the extremes and the progress hears each of the life's two runs."""
    k = {"crank_pin": 1e-16, "piston_pin": 3e-16}
    heard = []
    r = run_cases("mechanism", [_two_worn(**k)], threads=1,
                  case_progress=lambda *a: heard.append(a))[0]
    assert r.ok, r.reason
    m = r.metrics
    work = {j: m[f"contact_sliding_work.{j}"] for j in k}
    for joint, kd in k.items():
        assert m[f"wear_volume.{joint}"] == pytest.approx(kd * work[joint] * 1e4, rel=0.01)
        assert r.series[f"wear_depth.{joint}"].shape == (180,)
    assert work["crank_pin"] / work["piston_pin"] > 2 * 3.0
    for key in ("max_wear_depth", "wear_volume", "clearance_after_wear"):
        assert m[key] == max(m[f"{key}.{j}"] for j in k)
    assert heard == [(0, 1, 2), (0, 2, 2)]


def test_worn_joints_of_one_case_share_the_life():
    case = _two_worn(crank_pin=1e-16, piston_pin=1e-16)
    case["joints.piston_pin.wear_cycles"] = 2e4
    with pytest.raises(InputError, match="joints.piston_pin.wear_cycles"):
        MechanismCase.from_mapping(case)


def _dry_rotor(**wear):
    """design.md 4.15's rotor fixture, dry: one driven rotor (3000 rpm) in a clearance
    bearing on the ground, c = 5 um, R_B = 10 mm, L = 10 mm, a constant F = 100 N along -y
    (ground frame), frictionless (the slip is the journal's surface speed whatever mu)."""
    bearing = {"type": "revolute", "bodies": ["ground", "rotor"], "at": "O",
               "clearance_mm": 0.005, "bearing_radius_mm": 10, "axial_length_mm": 10,
               "friction": 0.0, "restitution": 0.3, **wear}
    return {"name": "rotor in a worn bearing", "gravity": [0, 0], "points": {"O": [0, 0]},
            "bodies": {"rotor": {"mass_kg": 1.0, "inertia_kgm2": 1e-3, "cm": "O"}},
            "joints": {"bearing": bearing}, "driver": {"joint": "bearing", "speed_rpm": 3000},
            "loads": {"w": {"type": "force", "body": "rotor", "force_n": [0, -F],
                            "frame": "ground"}},
            "measures": {"x": {"body": "rotor", "quantity": "position", "component": "x"}}}


def test_a_rotor_under_a_fixed_load_wears_its_bearing_to_reyes_shape():
    """Through the solver (design.md 4.15 "Wear life"): the rotor fixture worn over 2e5
    revolutions (k_D = 1e-14; 4 steps, each a run of 2 revolutions) - the depth ~12 c, a conformal
    joint - wears the bearing's loaded half towards h0 cos(theta + 90 deg), L2 below 10 % of
    h0 = V/(2 R_B L), nothing on the unloaded half, and V = k_D F s with s the journal
    surface's sliding, 2 pi R_J a revolution, to 1 %."""
    from gapsweep.core.mechanism.case import simulate_mechanism

    cycles, k_d, r_b, c, length = 2e5, 1e-14, 0.010, 0.005e-3, 0.010
    wear = {"wear_coefficient_m2_per_n": k_d, "wear_cycles": cycles, "wear_steps": 4,
            "wear_nodes": 90}
    r = simulate_mechanism({"mechanism": _dry_rotor(**wear), "t_end": 0.04})
    assert r.ok, r.reason
    volume = k_d * F * 2.0 * math.pi * (r_b - c) * cycles
    assert r.metrics["wear_volume"] == pytest.approx(volume, rel=0.01)
    profile = np.asarray(r.series["wear_depth"])
    distance, h0, unloaded = _reye_distance(SimpleNamespace(profile=profile), 1.5 * math.pi, r_b,
                                             length)
    assert h0 == pytest.approx(volume / (2.0 * r_b * length), rel=0.01)
    assert h0 > 10 * c
    assert distance < 0.1 * h0
    assert np.all(unloaded < 1e-3 * h0)


def test_a_failed_step_keeps_both_joints_lives_up_to_it():
    """The third run of a two-joint life fails: the case fails with the cycle, and each
    joint keeps its profile and record up to the last good run (the unsuffixed the deeper);
    its wall time counts every run of the life."""
    from gapsweep.core.mechanism.case import _plan, _worn_joints
    from gapsweep.core.result import CaseResult
    from gapsweep.core.wear_life import run_life

    case = _two_worn(crank_pin=1e-16, piston_pin=3e-16)
    for joint in ("crank_pin", "piston_pin"):
        case[f"joints.{joint}.wear_steps"] = 3
    plan = _plan(MechanismCase.from_mapping(case), dict(case))
    calls, walls = [], []

    def run(jobs):
        calls.append(len(jobs))
        if len(calls) == 3:
            return [CaseResult("mechanism", {}, status="failed", reason="it diverged")]
        out = run_jobs(list(jobs), threads=1)
        walls.append(out[0].metrics["wall_time_s"])
        return out

    r = run_life(plan.jobs[0], _worn_joints(plan), run)
    assert r.status == "failed" and "cycle 6666.67" in r.reason and "it diverged" in r.reason
    assert list(r.series["wear_cycle"]) == pytest.approx([0.0, 1e4 / 3])
    depths = {}
    for joint in ("crank_pin", "piston_pin"):
        record = r.series[f"wear_max_depth.{joint}"]
        depths[joint] = r.metrics[f"max_wear_depth.{joint}"]
        assert record[0] == 0.0 and record[-1] == depths[joint] > 0.0
    assert r.metrics["max_wear_depth"] == max(depths.values())
    assert r.metrics["wall_time_s"] >= sum(walls)  # the case's cost is its whole life's


# --- the worn joint's contact: the Winkler resultant over the overlap arc (issue 37) --------

ROTOR_C, ROTOR_RB = 0.005e-3, 0.010  # the rotor fixture's clearance and bearing radius [m]


def _rotor_contact(profile):
    """The rotor fixture's clearance joint on ``profile`` as the compiled kernels take it:
    ``force(e)`` is the contact force [N] on the journal (the rotor at rest, its centre at
    ``e`` [m] from the bearing's, in contact) and ``delta(e)`` the penetration the contact and
    the events read [m]."""
    from gapsweep.core.assembly import assemble, case_model
    from gapsweep.core.constraints import rotations
    from gapsweep.core.forces import clearance_forces, clearance_kinematics
    from gapsweep.core.mechanism.case import _plan

    case = {"mechanism": _dry_rotor(), "t_end": 0.01}
    job = _worn(_plan(MechanismCase.from_mapping(case), dict(case)).jobs[0], profile)
    topo, arrays = assemble(job.mechanism)
    model = case_model(topo, arrays)
    nq = 3 * arrays.mass.shape[1]

    def state(e):
        q = np.zeros(nq)
        q[0], q[1] = e
        rot = np.zeros((nq // 3, 3))
        rotations(q, rot)
        return q, rot

    def force(e):
        q, rot = state(e)
        out, diag = np.zeros(nq), np.zeros((1, 9))
        clearance_forces(q, np.zeros(nq), rot, model.clear_int, model.clear_par,
                         np.ones(1, dtype=np.int64), np.ones(1), out, diag)
        return out[:2]

    def delta(e):
        q, rot = state(e)
        bi, bj = model.clear_int[0]
        return clearance_kinematics(q, np.zeros(nq), rot, bi, bj, model.clear_par, 0)[4]

    return force, delta


def _pocket(nodes=360):
    """A worn profile [m] ``[nodes]``: a pocket 3c deep worn to the journal's radius at 40 deg
    and a shallower groove at 200 deg (the journal can overlap either away from its line of
    centres)."""
    theta = node_angles(nodes)
    return (np.maximum((4 * ROTOR_C) * np.cos(theta - math.radians(40)) - ROTOR_C, 0.0)
            + np.maximum((2 * ROTOR_C) * np.cos(theta - math.radians(200)) - ROTOR_C, 0.0))


def _overlap(profile, e, samples=2_000_001):
    """The journal's overlap with the worn wall, ``e . u(theta) - c - h(theta)`` [m], on a fine
    grid of angles (h linear between nodes), and the grid."""
    theta = np.linspace(0.0, 2.0 * math.pi, samples)
    nodes = node_angles(profile.size)
    h = np.interp(theta, np.append(nodes, 2 * math.pi), np.append(profile, profile[0]))
    return e[0] * np.cos(theta) + e[1] * np.sin(theta) - ROTOR_C - h, theta


def _circle_resultant(delta, clearance):
    """The resultant [m] of p = max(g, 0) over a circular hole of clearance c' with the journal
    sunk ``delta``: g = |e| cos(phi) - c', |e| = c' + delta, positive for |phi| < phi0,
    cos(phi0) = c'/|e|, so int g cos(phi) = |e| (phi0 + sin phi0 cos phi0) - 2 c' sin phi0
    = |e| phi0 - c' sin phi0."""
    ecc = clearance + delta
    phi0 = math.acos(clearance / ecc)
    return ecc * phi0 - clearance * math.sin(phi0)


def _circle_potential(delta, clearance, samples=20001):
    """1/2 int max(g, 0)^2 dphi [m² rad] over the circular hole (as above), by quadrature:
    g = |e| (cos phi - cos phi0) = 2 |e| sin((phi0 + phi)/2) sin((phi0 - phi)/2)."""
    ecc = clearance + delta
    phi0 = math.acos(clearance / ecc)
    phi = np.linspace(0.0, phi0, samples)
    g = 2.0 * ecc * np.sin(0.5 * (phi0 + phi)) * np.sin(0.5 * (phi0 - phi))
    return float(np.trapezoid(g * g, phi))


def test_worn_contact_acts_along_the_pressure_resultant():
    """A journal pressed against the worn wall beside the pocket (e at 10 deg, 9 um, the pocket
    3c deep at 40 deg: under the line of centres the wall is worn past the journal, the overlap
    is on the pocket's flank): the contact force on it is minus the resultant W of the Winkler
    pressure max(g, 0) u(theta), here a fine quadrature (its direction to 1e-8 rad, more than
    20 deg off the line of centres). Its size is the gradient of the law's energy: the
    Winkler potential V = 1/2 int max(g, 0)^2 is matched by a circular hole of the worn
    clearance c' = c + the pressure's mean depth int g+ h / int g+ at a penetration delta
    (V's gradient is W, so on that hole dV/d delta = W_circle(delta)), and the force is the
    unworn law's at delta times |W| / W_circle(delta) (1e-6). The line-of-centres contact
    read no contact here at all."""
    profile = _pocket()
    force, _ = _rotor_contact(profile)
    e = 9.0e-6 * np.array([math.cos(math.radians(10)), math.sin(math.radians(10))])
    g, theta = _overlap(profile, e)
    p = np.maximum(g, 0.0)
    w = np.array([np.trapezoid(p * np.cos(theta), theta), np.trapezoid(p * np.sin(theta), theta)])
    f = force(e)
    off = math.atan2(w[1], w[0]) - math.radians(10)
    assert abs(off) > math.radians(20)  # the pressure is off the line of centres
    assert math.atan2(-f[1], -f[0]) == pytest.approx(math.atan2(w[1], w[0]), abs=1e-8)
    # the size: the circular hole's resultant checked against its potential's slope
    depth = e[0] * np.cos(theta) + e[1] * np.sin(theta) - ROTOR_C - g  # h(theta) on the grid
    wide = ROTOR_C + float(np.trapezoid(p * depth, theta) / np.trapezoid(p, theta))
    assert ROTOR_C < wide < ROTOR_C + float(profile.max())  # the flank: a mean, not the max
    slope = (_circle_potential(1.001e-6, wide) - _circle_potential(0.999e-6, wide)) / 2e-9
    assert slope == pytest.approx(_circle_resultant(1e-6, wide), rel=1e-5)
    potential = 0.5 * np.trapezoid(p * p, theta)
    lo, hi = 0.0, 1e-5
    for _ in range(80):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if _circle_potential(mid, wide) < potential else (lo, mid)
    new_force, _ = _rotor_contact(np.zeros(profile.size))
    law = np.hypot(*new_force(np.array([ROTOR_C + lo, 0.0])))
    assert np.hypot(*f) == pytest.approx(law * np.hypot(*w) / _circle_resultant(lo, wide),
                                         rel=1e-6)


def test_no_overlap_is_unseen_by_the_worn_contact():
    """On the pocket profile, for 72 directions of the eccentricity, the journal placed where
    the contact's penetration turns positive (bisection on |e|) overlaps the worn wall
    nowhere by more than round-off (fine quadrature), while the old line-of-centres depth
    |e| - c - h(theta_e) would have left microns unseen there."""
    profile = _pocket()
    _, delta = _rotor_contact(profile)
    unseen, line_of_centres = 0.0, 0.0
    for angle in np.linspace(0.0, 2.0 * math.pi, 72, endpoint=False):
        u = np.array([math.cos(angle), math.sin(angle)])
        lo, hi = 0.0, 10 * ROTOR_C
        for _ in range(100):
            mid = 0.5 * (lo + hi)
            lo, hi = (mid, hi) if delta(mid * u) <= 0.0 else (lo, mid)
        g, _ = _overlap(profile, lo * u, samples=200_001)
        unseen = max(unseen, float(g.max()))
        at = ROTOR_C + float(depth_at(profile, np.array([angle]))[0])
        g_old, _ = _overlap(profile, at * u, samples=200_001)
        line_of_centres = max(line_of_centres, float(g_old.max()))
    assert abs(unseen) < 1e-15
    assert line_of_centres > 1e-6


def test_contact_away_from_the_wear_is_the_new_joints():
    """A groove 3c deep at 200 deg (worn over 124 - 276 deg), the journal pressed against the
    unworn wall at 20 deg, sunk up to 1 um (its overlap arc within +-34 deg: all on the new
    circle): the contact force is the new joint's at the same e, direction and size (1e-9).
    The equivalent hole's clearance is the pressure's mean depth over the arc, 0 here; the
    deepest groove's (c + 3c) would make this contact ~(4)^(1/2) = 2 x stiffer."""
    theta = node_angles(360)
    profile = np.maximum(4 * ROTOR_C * np.cos(theta - math.radians(200)) - ROTOR_C, 0.0)
    at = math.radians(20)
    assert depth_at(profile, np.linspace(at - 0.7, at + 0.7, 1001)).max() == 0.0
    worn, _ = _rotor_contact(profile)
    new, _ = _rotor_contact(np.zeros(profile.size))
    for depth in (1e-9, 1e-7, 1e-6):
        e = (ROTOR_C + depth) * np.array([math.cos(at), math.sin(at)])
        f_worn, f_new = worn(e), new(e)
        assert np.hypot(*f_new) > 0.0
        assert f_worn == pytest.approx(f_new, rel=1e-9, abs=1e-9 * np.hypot(*f_new))
