"""The mechanism model run through the compiled batch: the reference slider-crank written as
a mechanism equals the built-in model; several clearance joints and applied loads keep the
energy balance; each measure and each joint gets its metrics."""

from __future__ import annotations

import math

import numpy as np
import pytest
from gapsweep.core.api import run_cases
from support.mechanism_tables import table

# refined between steps (design.md 1.3), hence independent of where the steps fall
WHOLE_RUN = ("peak_slider_accel", "peak_contact_force", "max_penetration", "impacts")


def test_reference_mechanism_file_equals_the_built_in_model():
    mech, built_in = (
        run_cases("mechanism", [{"mechanism": table("reference_slider_crank"), "t_end": 0.024,
                                 "joints.piston_pin.clearance_mm": 0.1}], threads=1)[0],
        # two crank revolutions (both models' default runs until the motion settles)
        run_cases("slider-crank", [{"clearance_mm": 0.1, "t_end": 0.024}], threads=1)[0],
    )
    assert mech.ok and built_in.ok
    for name in WHOLE_RUN:
        assert mech.metrics[name] == pytest.approx(built_in.metrics[name], rel=1e-6), name
    assert mech.metrics["peak_contact_force.piston_pin"] == mech.metrics["peak_contact_force"]
    # the torque's peak is read at the step ends only, so it needs the same steps: the
    # mechanism's step control weighs its headline measure's quadrature as the built-in's
    # weighs the slider's (3.7e-11 apart measured; 1.4e-2 at c = 0.05 mm without it)
    assert mech.metrics["accepted_steps"] == built_in.metrics["accepted_steps"]
    assert mech.metrics["peak_driving_torque"] == pytest.approx(
        built_in.metrics["peak_driving_torque"], rel=1e-6)
    # the measure's RMS is integrated over the accepted steps (trapezoid), the built-in
    # probe's by a quadrature in the state
    assert mech.metrics["rms_slider_accel"] == pytest.approx(
        built_in.metrics["rms_slider_accel"], rel=1e-3)


def test_ideal_makes_every_clearance_joint_ideal():
    m = table("two_clearance_slider_crank")
    (r,) = run_cases("mechanism", [{"mechanism": m, "ideal": True}], threads=1)
    assert r.ok
    assert r.metrics["impacts"] == 0 and r.metrics["peak_contact_force"] == 0.0
    for joint in ("crank_pin", "piston_pin"):
        assert r.metrics[f"impacts.{joint}"] == 0


def test_two_clearance_joints_balance_energy_and_stay_inside_their_clearances():
    m = table("two_clearance_slider_crank")
    params = {"mechanism": m, "joints.crank_pin.clearance_mm": 0.1,
              "joints.piston_pin.clearance_mm": 0.05, "t_end": 0.04}  # two revolutions
    (r,) = run_cases("mechanism", [params], threads=1)
    assert r.ok, r.reason
    assert r.metrics["energy_balance_error"] < 1e-3
    clearances = {"crank_pin": 0.1e-3, "piston_pin": 0.05e-3}
    for joint, c in clearances.items():
        assert r.metrics[f"impacts.{joint}"] >= 1, joint
        assert r.metrics[f"peak_contact_force.{joint}"] > 0.0
        assert 0.0 < r.metrics[f"max_penetration.{joint}"] < c
        # the joint's orbit stays within clearance + penetration of the bearing centre
        e = np.hypot(r.series[f"eccentricity_x.{joint}"], r.series[f"eccentricity_y.{joint}"])
        assert e.max() < c + r.metrics["max_penetration"] + 1e-12
    # one run: the extremes over the joints are the joints' own (design.md 4.16)
    assert r.metrics["max_penetration"] == max(r.metrics[f"max_penetration.{j}"]
                                               for j in clearances)
    assert r.metrics["impacts"] == sum(r.metrics[f"impacts.{j}"] for j in clearances)


def test_spring_and_gas_table_keep_the_energy_balance():
    m = table("offset_slider_crank_gas")
    m["loads"]["return_spring"] = {
        "type": "spring", "bodies": ["ground", "piston"], "at": [[300, 12], "B"],
        "stiffness_n_per_m": 20000, "free_length_mm": 80,
    }
    m["joints"]["piston_pin"]["clearance_mm"] = 0.02
    (r,) = run_cases("mechanism", [{"mechanism": m}], threads=1)
    assert r.ok, r.reason
    assert r.metrics["energy_balance_error"] < 1e-4
    # the gas force's work from the stored series: F(crank angle) along -x times the
    # piston's velocity - large against the kinetic energy, so leaving it out of the
    # balance would show
    t = np.asarray(r.series["t"])
    omega = 3000 * 2 * math.pi / 60
    gas = m["loads"]["gas"]
    deg = np.degrees(omega * t) % 360.0
    knots = np.array(gas["angle_deg"] + [gas["angle_deg"][0] + 360.0])
    values = np.array(gas["force_n"] + [gas["force_n"][0]])
    force = np.interp(deg, knots, values)
    v = np.asarray(r.series["slider_velocity"])
    work = np.trapezoid(-force * v, t)
    assert abs(work) > 0.1 * r.metrics["peak_kinetic_energy"]
    spring_energy = np.asarray(r.series["potential_energy"])
    assert np.ptp(spring_energy) > 1e-3 * r.metrics["peak_kinetic_energy"]


def test_each_measure_gets_peak_rms_and_steady():
    m = table("four_bar_crank_rocker")
    (r,) = run_cases("mechanism", [{"mechanism": m, "joints.rocker_pin.clearance_mm": 0.05,
                                    "t_end": 0.2}], threads=1)  # two revolutions
    assert r.ok, r.reason
    t = np.asarray(r.series["t"])
    angle = np.asarray(r.series["rocker_angle"])
    # a position measure is observed at every step too: at least the largest |angle| stored
    assert r.metrics["peak_rocker_angle"] >= np.abs(angle).max() * (1 - 1e-12)
    assert r.metrics["peak_rocker_angle"] == pytest.approx(np.abs(angle).max(), rel=1e-6)
    assert r.metrics["peak_rocker_angle_steady"] <= r.metrics["peak_rocker_angle"]
    alpha = np.asarray(r.series["rocker_alpha"])
    assert r.metrics["peak_rocker_alpha"] >= np.abs(alpha).max() * (1 - 1e-9)
    # the loop integrates alpha^2 at every step; without impacts the grid agrees with it
    (ideal,) = run_cases("mechanism", [{"mechanism": m, "ideal": True, "t_end": 0.2}],
                         threads=1)
    alpha = np.asarray(ideal.series["rocker_alpha"])
    t = np.asarray(ideal.series["t"])
    assert ideal.metrics["rms_rocker_alpha"] == pytest.approx(
        math.sqrt(np.trapezoid(alpha**2, t) / t[-1]), rel=1e-3)
    assert ideal.metrics["peak_rocker_alpha"] == pytest.approx(np.abs(alpha).max(), rel=1e-3)


def test_point_and_magnitude_measures_follow_the_closed_form():
    # on the ideal crank-rocker: the crank pin A turns on a circle (|r| = a, |v| = a w,
    # |acc| = a w^2), the rocker pin B's acceleration is c sqrt(alpha4^2 + w4^4) (Freudenstein)
    m = table("four_bar_crank_rocker")
    m["measures"] = {
        "a_pos": {"body": "crank", "point": "A", "quantity": "position", "component": "magnitude"},
        "a_vel": {"body": "crank", "point": "A", "quantity": "velocity", "component": "magnitude"},
        "a_acc": {"body": "crank", "point": "A", "quantity": "acceleration",
                  "component": "magnitude"},
        "b_acc": {"body": "rocker", "point": "B", "quantity": "acceleration",
                  "component": "magnitude"},
        "b_x": {"body": "rocker", "point": "B", "quantity": "position", "component": "x"},
    }
    # two revolutions (without t_end it runs until settled: 8 or more)
    (r,) = run_cases("mechanism", [{"mechanism": m, "ideal": True, "t_end": 0.2}], threads=1)
    assert r.ok, r.reason
    a, b, c, d = 0.040, 0.120, 0.080, 0.100
    w2 = 600 * 2 * math.pi / 60
    assert np.allclose(r.series["a_pos"], a, rtol=1e-9)
    assert np.allclose(r.series["a_vel"], a * w2, rtol=1e-6)  # dense output at rtol 1e-6
    assert np.allclose(r.series["a_acc"], a * w2 * w2, rtol=1e-6)
    t = np.asarray(r.series["t"])
    for k in range(0, len(t), 97):
        th = w2 * t[k]
        k1, k2, k3 = d / a, d / c, (a * a - b * b + c * c + d * d) / (2 * a * c)
        qa = math.cos(th) - k1 - k2 * math.cos(th) + k3
        qb, qc = -2.0 * math.sin(th), k1 - (k2 + 1.0) * math.cos(th) + k3
        t4 = 2.0 * math.atan2(-qb - math.sqrt(qb * qb - 4 * qa * qc), 2.0 * qa)
        t3 = math.atan2(c * math.sin(t4) - a * math.sin(th),
                        d + c * math.cos(t4) - a * math.cos(th))
        w3 = a * w2 / b * math.sin(t4 - th) / math.sin(t3 - t4)
        w4 = a * w2 / c * math.sin(th - t3) / math.sin(t4 - t3)
        r1 = a * w2**2 * math.cos(th) + b * w3**2 * math.cos(t3) - c * w4**2 * math.cos(t4)
        r2 = a * w2**2 * math.sin(th) + b * w3**2 * math.sin(t3) - c * w4**2 * math.sin(t4)
        al4 = -(math.sin(t3) * r2 + math.cos(t3) * r1) / (c * math.sin(t3 - t4))
        assert r.series["b_acc"][k] == pytest.approx(c * math.hypot(al4, w4 * w4), rel=1e-6)
        # the output grid is the dense output of large steps (an ideal run): 0.1 um
        assert r.series["b_x"][k] == pytest.approx(d + c * math.cos(t4), abs=1e-7)
    assert r.metrics["peak_a_acc"] == pytest.approx(a * w2 * w2, rel=1e-6)


def test_run_up_starts_at_rest_and_has_no_start_up_impact():
    # design.md 4.10: the driver ramps from rest to speed over run_up_revolutions (2: four
    # periods), the journals resting on their walls against the static reaction; the
    # start-up peak stays below 2x the ideal mechanism's peak, where a centred start at full
    # speed hits the free pins hard (the slider-crank's test_run_up_has_no_start_up_impact)
    from gapsweep.core.mechanism.build import initial_state
    from gapsweep.core.mechanism.case import MechanismCase

    runs = {}
    for name, c in (("reference_slider_crank", {"joints.piston_pin.clearance_mm": 0.05}),
                    ("two_clearance_slider_crank", {})):
        m = table(name)
        # the ramp (four periods), then two revolutions at speed
        t_end = 6 * MechanismCase.from_mapping({"mechanism": m, **c}).period
        c = {**c, "t_end": t_end}
        cases = {"ideal": {"ideal": True}, "run-up": {"initial": "run-up"},
                 "centred": {"initial": "centred"},
                 "ideal run-up": {"ideal": True, "initial": "run-up"}}
        results = run_cases("mechanism", [{"mechanism": m, **c, **v} for v in cases.values()],
                            threads=1)
        assert all(r.ok for r in results), [r.reason for r in results]
        runs[name] = dict(zip(cases, results, strict=True))
        case = MechanismCase.from_mapping({"mechanism": m, **c, "initial": "run-up"})
        period = case.period
        n = 3 * len(case.spec.bodies)
        assert case.ramp_time == pytest.approx(4 * period)
        assert np.all(initial_state(case.spec, ideal=False, initial="run-up")[n:] == 0.0)
        r = runs[name]["run-up"]
        assert r.series["t"][-1] == pytest.approx(6 * period)  # the ramp, then two revolutions
        for j in case.spec.clearance_joints:  # each journal on its own wall at t = 0
            e0 = math.hypot(r.series[f"eccentricity_x.{j.name}"][0],
                            r.series[f"eccentricity_y.{j.name}"][0])
            assert e0 == pytest.approx(dict(j.contact)["clearance_mm"] * 1e-3, rel=1e-6)
        ideal = runs[name]["ideal"].metrics["peak_slider_accel"]
        m_up = r.metrics
        assert m_up["peak_slider_accel_startup"] < 2 * ideal, name
        assert runs[name]["centred"].metrics["peak_slider_accel_startup"] > 2 * ideal, name
        # the ideal run-up ends at full speed: its last revolution is the ideal one
        assert runs[name]["ideal run-up"].metrics["peak_slider_accel_steady"] == pytest.approx(
            ideal, rel=1e-3)
    # the reference at 0.05 mm does not rattle at speed either: the whole run stays below
    ref = runs["reference_slider_crank"]
    assert ref["run-up"].metrics["peak_slider_accel"] < 2 * ref["ideal"].metrics[
        "peak_slider_accel"]
