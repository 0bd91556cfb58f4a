"""Prescribed bodies (a driven crank, a fixed frame) are eliminated before the Schur solve.

The elimination must give the same accelerations and multipliers as the full system: it is
checked against the full Schur path at a state in contact, against the dense constraint
equations, and end to end on a pendulum that hangs from a fixed frame instead of the ground.
"""

from __future__ import annotations

import numpy as np
import pytest
from gapsweep.core.assembly import DRIVER, FIXED, REVOLUTE, TRANSLATIONAL, assemble, case_model
from gapsweep.core.cases import SliderCrankCase
from gapsweep.core.constraints import constraint_jacobian, constraint_rates
from gapsweep.core.dynamics import N_AUX, WS_LAMBDA, derivative, inverse_mass, make_workspace
from gapsweep.core.model import Body, ClearanceJoint, ContactModel, Fixed, Mechanism, Probe
from gapsweep.core.simulation import build_mechanism, initial_state
from gapsweep.core.solver import Job, SolverOptions, run_jobs


def _evaluate(topo, arr, y, prescribed):
    """(dydt, multipliers) of the slider-crank in contact, with the given prescribed bodies."""
    n = topo.n_coordinates
    inv = np.empty(n)
    inverse_mass(arr.mass[0], arr.inertia[0], prescribed, inv)
    ws = make_workspace(n, topo.n_constraints, topo.clear_int.shape[0])
    dydt = np.zeros_like(y)
    model = case_model(topo, arr)._replace(prescribed=prescribed)
    contact, approach = np.ones(1, np.int64), np.full(1, 0.3)
    assert derivative(0.0, y, model, contact, approach, 0.0, 0.0, topo.probe, inv, ws, dydt)
    return dydt, ws[WS_LAMBDA].copy()


@pytest.fixture(scope="module")
def crank_in_contact():
    case = SliderCrankCase(clearance_mm=0.05, crank_angle_deg=40.0)
    topo, arr = assemble(build_mechanism(case))
    n = topo.n_coordinates
    y = np.zeros(2 * n + N_AUX)
    y[: 2 * n] = initial_state(case)
    y[6] += case.clearance_mm * 1e-3 + 2e-6  # slider x: the journal 2 um into the wall
    y[n + 6] += 0.3  # and closing
    return topo, arr, y


def test_the_driven_crank_is_prescribed_and_its_rows_come_last():
    driven = assemble(build_mechanism(SliderCrankCase()))[0]
    crank = 0
    assert driven.prescribed.tolist() == [crank]
    assert driven.joint_int[-2:].tolist() == [[REVOLUTE, -1, crank], [DRIVER, crank, -1]]
    free = assemble(build_mechanism(SliderCrankCase(drive="free")))[0]
    assert free.prescribed.size == 0  # no driver: the crank is a degree of freedom


def test_joint_slot_maps_the_model_order_to_the_table():
    mech = build_mechanism(SliderCrankCase(), driven=True).with_ideal_joints()
    topo, _ = assemble(mech)
    # the model's order: pivot, crank-rod pin, guide, the ideal clearance joint, the driver
    model_kinds = [REVOLUTE, REVOLUTE, TRANSLATIONAL, REVOLUTE, DRIVER]
    got = [int(topo.joint_int[topo.joint_slot[k], 0]) for k in range(len(model_kinds))]
    assert got == model_kinds
    assert topo.joint_slot.tolist() == [3, 0, 1, 2, 4]  # the pivot moved behind the others


def test_elimination_equals_the_full_schur_solve(crank_in_contact):
    topo, arr, y = crank_in_contact
    dydt, lam = _evaluate(topo, arr, y, topo.prescribed)
    ref_dydt, ref_lam = _evaluate(topo, arr, y, np.zeros(0, np.int64))
    n = topo.n_coordinates
    acc, ref_acc = dydt[n : 2 * n], ref_dydt[n : 2 * n]
    assert np.max(np.abs(acc - ref_acc)) <= 1e-12 * np.max(np.abs(ref_acc))
    assert np.max(np.abs(lam - ref_lam)) <= 1e-12 * np.max(np.abs(ref_lam))
    # the driver's power and the other quadratures follow from the same multipliers
    assert np.allclose(dydt[2 * n :], ref_dydt[2 * n :], rtol=1e-12, atol=0.0)
    # and the accelerations satisfy the dense constraint equations Phi_q a = gamma
    q, v = y[:n], y[n : 2 * n]
    jac = np.zeros((topo.n_constraints, n))
    constraint_jacobian(q, topo.joint_int, arr.joint_par[0], jac)
    gamma, phi_t = np.zeros(topo.n_constraints), np.zeros(topo.n_constraints)
    constraint_rates(q, v, topo.joint_int, arr.joint_par[0], gamma, phi_t)
    assert np.max(np.abs(jac @ acc - gamma)) <= 1e-12 * np.max(np.abs(gamma))


def _hanging_bar(frame: bool) -> Mechanism:
    """A bar in a 0.1 mm clearance hole at (0.03, 0.01): in a frame welded there, or in the
    ground itself."""
    bar = Body("bar", mass=1.0, inertia=1.0 * 0.4**2 / 12, pose=(0.03, -0.19, 0.0))
    contact = ContactModel(law="hunt-crossley", friction_law="coulomb-tanh", friction=0.1)
    bodies: tuple[Body, ...] = (bar,)
    joints: tuple = ()
    bearing, point = "ground", (0.03, 0.01)
    if frame:
        bodies = (Body("frame", mass=5.0, inertia=0.1, pose=(0.05, 0.0, 0.3)), bar)
        joints = (Fixed("frame", pose=(0.05, 0.0, 0.3)),)
        # the same global point in the frame's axes (rotated by 0.3 rad about (0.05, 0))
        d = np.array([0.03 - 0.05, 0.01])
        c, s = np.cos(0.3), np.sin(0.3)
        bearing, point = "frame", (c * d[0] + s * d[1], -s * d[0] + c * d[1])
    hole = ClearanceJoint(
        bearing,
        "bar",
        bearing_radius=5e-3,
        clearance=0.1e-3,
        bearing_point=point,
        journal_point=(0.0, 0.2),
        contact=contact,
    )
    return Mechanism(
        "hanging bar",
        bodies=bodies,
        joints=joints,
        clearance_joints=(hole,),
        probe=Probe("bar", 0),
    )


def test_a_bar_in_a_fixed_frame_moves_as_in_the_ground():
    options = SolverOptions(t_end=0.04, rtol=1e-10, atol=1e-13)
    bar0 = [0.03, -0.19, 0.0, 0.4, 0.0, 0.0]  # x, y, phi, then velocities
    y_ground = np.array(bar0)
    y_frame = np.array([0.05, 0.0, 0.3, *bar0[:3], 0.0, 0.0, 0.0, *bar0[3:]])
    mech = _hanging_bar(frame=True)
    assert assemble(mech)[0].prescribed.tolist() == [0]
    assert [j for j in assemble(mech)[0].joint_int[:, 0]] == [FIXED]
    ground, framed = run_jobs(
        [Job(_hanging_bar(frame=False), y_ground, options), Job(mech, y_frame, options)]
    )
    assert ground.ok and framed.ok, (ground.reason, framed.reason)
    assert framed.metrics["impacts"] == ground.metrics["impacts"] > 3
    for name in ("peak_contact_force", "max_penetration", "peak_slider_accel"):
        assert framed.metrics[name] == pytest.approx(ground.metrics[name], rel=1e-6)
    # the frame does not move
    assert np.allclose(framed.series["final_state"][:3], [0.05, 0.0, 0.3], rtol=0, atol=1e-12)
    assert framed.metrics["max_constraint_drift"] < 1e-12
