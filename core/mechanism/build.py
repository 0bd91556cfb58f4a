"""A :class:`~.table.MechanismSpec` assembled into the core's :class:`Mechanism`, its loops
closed, its driver swept through one revolution, and its initial state.

Every body's frame is its centre of mass at the design position, at angle 0: a hardpoint
``P`` on body ``b`` is the local point ``P - cm_b``. Newton-Raphson closes the loops at
t = 0 (driver angle 0) from the design position; :func:`kinematic_sweep` follows the ideal
mechanism (every clearance joint ideal) through one driver revolution and refuses a driver
that cannot turn it (a non-Grashof four-bar, a toggle), naming the angle and the joint.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from ..assembly import Topology, assemble
from ..cases import SliderCrankCase
from ..constraints import constraint_jacobian, constraint_values
from ..errors import InputError
from ..kinematics import initial_guess, solve_velocities
from ..model import (
    GROUND,
    AngleDriver,
    Body,
    ClearanceJoint,
    ContactModel,
    Fixed,
    Mechanism,
    PointForce,
    Probe,
    Revolute,
    Spring,
    TableLoad,
    Torque,
    Translational,
)
from ..solver import constraint_row
from .table import CONTACT_KEYS, JointSpec, MechanismSpec

SWEEP_STEPS = 180  # driver positions of the kinematic sweep (every 2 degrees)
SINGULAR = 1e-9  # smallest / largest singular value of Phi_q below which a position is a toggle


def _local(spec: MechanismSpec, body: str, p: tuple[float, float]) -> tuple[float, float]:
    """Point ``p`` [m, global design position] in ``body``'s frame (global for the ground)."""
    if body == GROUND:
        return p
    cm = next(b.cm for b in spec.bodies if b.name == body)
    return (p[0] - cm[0], p[1] - cm[1])


def contact_model(contact: dict) -> ContactModel:
    """The core's contact model of a clearance joint's parameters (slider-crank names)."""
    c = contact
    return ContactModel(
        law=c["contact_law"],
        stiffness_model=c["stiffness_model"],
        axial_length=c["axial_length_mm"] * 1e-3,
        restitution=c["restitution"],
        exponent=c["exponent"],
        stiffness=c["stiffness"] if c["stiffness"] > 0.0 else None,
        stiffness_scale=c["stiffness_scale"],
        youngs_bearing=c["youngs_modulus"],
        poisson_bearing=c["poisson_ratio"],
        youngs_journal=c["youngs_modulus"],
        poisson_journal=c["poisson_ratio"],
        damping_max=c["impact_damping"],
        damping_depth=c["impact_depth"],
        friction_law=c["friction_law"],
        friction=c["friction"],
        static_friction=c["static_friction"],
        friction_velocity=c["friction_velocity"],
        friction_velocity_full=c["friction_velocity_full"],
        lubrication=c["lubrication"],
        viscosity=c["viscosity_pa_s"],
    )


def _clearance_joint(spec: MechanismSpec, j: JointSpec, ideal: bool) -> ClearanceJoint:
    c = dict(j.contact or ())
    return ClearanceJoint(
        j.body_i, j.body_j, c["bearing_radius_mm"] * 1e-3, c["clearance_mm"] * 1e-3,
        _local(spec, j.body_i, j.at), _local(spec, j.body_j, j.at), contact_model(c), ideal,
        name=j.name,  # its section and series are named by it (metrics.per_joint)
    )


def build_mechanism(spec: MechanismSpec, *, ideal: bool = False, probe: int = 0,
                    ramp: float = 0.0) -> Mechanism:
    """The core mechanism of ``spec``; ``ideal`` makes every clearance joint ideal; the probe
    is the coordinate of measure number ``probe`` (none without measures); ``ramp`` [s] > 0:
    the driver runs up from rest to its speed over that time (the run-up start)."""
    bodies = tuple(Body(b.name, b.mass, b.inertia, (b.cm[0], b.cm[1], 0.0)) for b in spec.bodies)
    joints, clearance = [], []
    for j in spec.joints:
        if j.clearance:
            clearance.append(_clearance_joint(spec, j, ideal))
        elif j.type == "revolute":
            joints.append(Revolute(j.body_i, j.body_j, _local(spec, j.body_i, j.at),
                                   _local(spec, j.body_j, j.at)))
        elif j.type == "translational":
            # a body's frame is at angle 0 in the design position: the direction given there
            # is the guide's local direction (design.md 4.15, S2), the relative angle 0
            joints.append(Translational(j.body_j, _local(spec, j.body_j, j.at),
                                        _local(spec, j.body_i, j.at),
                                        j.direction or (1.0, 0.0), 0.0, guide=j.body_i))
        else:
            cm = next(b.cm for b in spec.bodies if b.name == j.body_j)
            joints.append(Fixed(j.body_j, (cm[0], cm[1], 0.0)))
    driven = spec.joint(spec.driver_joint).body_j if spec.driver_joint else None
    loads = []
    for ld in spec.loads:
        if ld.type == "spring":
            loads.append(Spring(ld.bodies[0], ld.bodies[1], ld.stiffness, ld.free_length,
                                ld.damping, _local(spec, ld.bodies[0], ld.points[0]),
                                _local(spec, ld.bodies[1], ld.points[1])))
        elif ld.tabled:
            point = _local(spec, ld.bodies[0], ld.points[0]) if ld.points else (0.0, 0.0)
            loads.append(TableLoad(ld.bodies[0], driven, ld.angles, ld.values,
                                   ld.direction if ld.type == "force" else None, point,
                                   body_frame=ld.frame == "body"))
        elif ld.type == "force":
            loads.append(PointForce(ld.bodies[0], (ld.vector[0], ld.vector[1]),
                                    _local(spec, ld.bodies[0], ld.points[0]),
                                    body_frame=ld.frame == "body"))
        else:
            loads.append(Torque(ld.bodies[0], ld.vector[0]))
    measure = spec.measures[probe] if spec.measures else None
    return Mechanism(
        name=spec.name,
        bodies=bodies,
        joints=tuple(joints),
        drivers=(AngleDriver(driven, spec.omega, 0.0, ramp),) if driven else (),
        loads=tuple(loads),
        clearance_joints=tuple(clearance),
        gravity=spec.gravity,
        probe=Probe(measure.body, measure.coordinate) if measure else None,
    )


# --- kinematics of the ideal mechanism ----------------------------------------------------


@dataclass(frozen=True)
class Kinematics:
    """The ideal mechanism's closure and sweep: ``q0`` [3 nb] closed at driver angle 0,
    ``angles`` [rad] of the sweep and ``positions`` ``[len(angles), 3 nb]``, the degrees of
    freedom without the driver, and the constraint rows' joint names."""

    q0: np.ndarray
    v0: np.ndarray
    angles: np.ndarray
    positions: np.ndarray
    dof: int
    row_joint: tuple[str, ...]


def _row_joints(spec: MechanismSpec, mech: Mechanism, topo: Topology) -> list[str]:
    """The joint name of each constraint row of ``topo`` (the ideal mechanism's)."""
    names = [j.name for j in spec.joints if not j.clearance]  # mech.joints' order
    names += [j.name for j in spec.joints if j.clearance]  # ideal clearance joints after
    names += [f"driver ({spec.driver_joint})"] if spec.driver_joint else []
    rows = [""] * topo.n_constraints
    from ..assembly import ROWS

    for k, name in enumerate(names):
        slot = int(topo.joint_slot[k])
        r0 = constraint_row(topo, slot)
        for r in range(ROWS[int(topo.joint_int[slot, 0])]):
            rows[r0 + r] = name
    return rows


def _newton(topo, arrays, q, t, tol=1e-12, max_iter=30):
    """Newton-Raphson on Phi(q, t) = 0; returns (q, converged, phi, jacobian)."""
    jint, jpar = topo.joint_int, arrays.joint_par[0]
    m, n = topo.n_constraints, topo.n_coordinates
    phi, jac = np.zeros(m), np.zeros((m, n))
    q = q.copy()
    for _ in range(max_iter):
        constraint_values(q, t, jint, jpar, phi)
        constraint_jacobian(q, jint, jpar, jac)
        if np.max(np.abs(phi), initial=0.0) <= tol:
            return q, True, phi, jac
        dq = np.linalg.lstsq(jac, -phi, rcond=None)[0]
        q += dq
        if not np.all(np.isfinite(q)) or np.max(np.abs(dq)) > 1e3:
            break
    return q, False, phi, jac


def kinematics(spec: MechanismSpec) -> Kinematics:
    """Close, count and sweep the ideal mechanism of ``spec`` (cached on its geometry)."""
    key = _geometry_key(spec)
    found = _KINEMATICS.get(key)
    if found is None:
        if len(_KINEMATICS) >= 256:
            _KINEMATICS.clear()
        found = _KINEMATICS[key] = _compute_kinematics(_geometry_only(spec))
    return found


_KINEMATICS: dict[tuple, Kinematics] = {}


def _geometry_key(spec: MechanismSpec) -> tuple:
    """What the ideal kinematics depend on, as a cheap hashable key (see _geometry_only)."""
    return (
        tuple((b.name, b.cm) for b in spec.bodies),
        tuple((j.name, j.type, j.body_i, j.body_j, j.at, j.direction, j.clearance)
              for j in spec.joints),
        spec.driver_joint,
        spec.speed_rpm > 0.0,
    )


def _geometry_only(spec: MechanismSpec) -> MechanismSpec:
    """What the ideal kinematics depend on: positions, joints and the driver's sense (not
    masses, loads, measures, contact parameters or the speed's magnitude)."""
    marker = _DEFAULT_CONTACT  # an ideal run reads no contact parameter
    return replace(
        spec,
        name="geometry",
        variables=(),
        bodies=tuple(replace(b, mass=1.0, inertia=1.0) for b in spec.bodies),
        joints=tuple(replace(j, contact=marker if j.clearance else None) for j in spec.joints),
        speed_rpm=math.copysign(60.0 / (2.0 * math.pi), spec.speed_rpm) if spec.speed_rpm
        else 0.0,
        loads=(),
        measures=(),
    )


_DEFAULT_CONTACT = tuple(
    (k, getattr(SliderCrankCase(), k)) for k in ("clearance_mm", *CONTACT_KEYS)
)


def _compute_kinematics(spec: MechanismSpec) -> Kinematics:
    # unit speed (rad/s): time is the driver angle; positions do not depend on the speed
    mech = build_mechanism(spec, ideal=True)
    topo, arrays = assemble(mech)
    rows = _row_joints(spec, mech, topo)
    n, m = topo.n_coordinates, topo.n_constraints
    q, ok, phi, jac = _newton(topo, arrays, initial_guess(mech), 0.0)
    if not ok:
        r = int(np.argmax(np.abs(phi)))
        joint = rows[r]
        names = _variables_of(spec, joint)
        raise InputError(f"mechanism.joints.{joint}" if joint in _joint_names(spec)
                         else "mechanism.driver.joint", f"|Phi| = {abs(phi[r]):.3g} m",
                         "hardpoints whose links can be closed",
                         f"the loops cannot close at driver angle 0: joint {joint}"
                         + (f" (variables {', '.join(names)})" if names else ""))
    rank = int(np.linalg.matrix_rank(jac, tol=1e-9 * max(1.0, np.abs(jac).max())))
    if rank < m:
        raise InputError("mechanism.joints", ", ".join(dict.fromkeys(rows)),
                         "independent constraints",
                         f"{m - rank} redundant constraint equation(s): a joint repeats what "
                         "others already impose (make one a clearance joint or remove it)")
    dof = n - (m - 1) if spec.driver_joint else n - m  # the driver's row is not a joint
    v0 = solve_velocities(topo, arrays, q)
    # without a driver there is no revolution to sweep: the assembly position alone
    angles = np.linspace(0.0, 2.0 * math.pi, SWEEP_STEPS + 1) if spec.driver_joint else \
        np.zeros(1)
    positions = np.zeros((len(angles), n))
    positions[0] = q
    if dof == 1 and spec.driver_joint:  # the driver fixes the motion: follow it a revolution
        qk, vk = q.copy(), v0.copy()
        dt = angles[1]  # unit speed: time = angle
        for k in range(1, len(angles)):
            guess = qk + vk * dt
            qn, ok, phi, jac = _newton(topo, arrays, guess, float(angles[k]))
            sv = np.linalg.svd(jac, compute_uv=False) if ok else None
            if not ok or sv[-1] < SINGULAR * sv[0]:
                _refuse_sweep(spec, rows, topo, arrays, qk, float(angles[k]), phi, jac, ok)
            vk = solve_velocities(topo, arrays, qn, vk)
            qk = qn
            positions[k] = qk
    return Kinematics(q, v0, angles, positions, dof, tuple(rows))


def _joint_names(spec: MechanismSpec) -> list[str]:
    return [j.name for j in spec.joints]


def _variables_of(spec: MechanismSpec, joint: str) -> list[str]:
    j = next((x for x in spec.joints if x.name == joint), None)
    return list(j.variables) if j else []


def _refuse_sweep(spec, rows, topo, arrays, q_last, angle, phi, jac, converged) -> None:
    """The driver cannot pass ``angle``: name the joint whose equations give way."""
    if converged:  # a toggle: the constraint forces' direction the Jacobian loses
        u = np.linalg.svd(jac)[0][:, -1]
        r = int(np.argmax(np.abs(u)))
        why = "the links reach a toggle (dead-centre) position"
    else:
        r = int(np.argmax(np.abs(phi)))
        why = "the links cannot reach this position"
    joint = rows[r]
    deg = math.degrees(angle)
    raise InputError(
        "mechanism.driver.joint", spec.driver_joint,
        "a driver that turns a full revolution (a Grashof crank, no toggle on the way)",
        f"at driver angle {deg:.0f} deg {why}: joint {joint} cannot close "
        "(a non-Grashof linkage or a toggle)",
    )


# --- initial state ------------------------------------------------------------------------


def initial_state(spec: MechanismSpec, *, ideal: bool, initial: str) -> np.ndarray:
    """``y0 = [q, v]`` of the mechanism at driver angle 0.

    ``centred``: at full speed, every journal at its bearing's centre and at rest relative
    to it (the ideal closure, as the built-in models start). ``wall``: at full speed, each
    journal resting on its bearing's wall, ``e = c`` opposite to the ideal joint's reaction
    on it (seed 002), then the loops closed again. ``run-up``: the whole mechanism at rest
    (the driver ramps up from standstill, :func:`build_mechanism`'s ``ramp``), each journal
    resting on its wall against the static reaction (gravity and the loads), as the
    slider-crank's run-up starts (core/simulation.py). An ideal run starts centred, or at
    rest for the run-up.
    """
    if initial not in STARTS:
        raise InputError("initial", initial, "one of " + ", ".join(STARTS))
    if ideal and initial == "wall":
        initial = "centred"  # an ideal joint has no wall: the centred start is the same
    if initial == "centred" or (ideal and initial == "run-up"):
        # beyond the geometry only the speed matters then
        key = (_geometry_key(spec), spec.speed_rpm, initial)
    else:
        key = (spec, initial)
    y = _INITIAL.get(key)
    if y is None:
        if len(_INITIAL) >= 512:
            _INITIAL.clear()
        y = _INITIAL[key] = STARTS[initial](spec, ideal)
    return y.copy()


_INITIAL: dict[tuple, np.ndarray] = {}


def _centred(spec: MechanismSpec, ideal: bool) -> np.ndarray:
    k = kinematics(spec)
    mech = build_mechanism(spec, ideal=True)
    topo, arrays = assemble(mech)
    v = solve_velocities(topo, arrays, k.q0)
    return np.concatenate([k.q0, v])


def _on_the_wall(spec: MechanismSpec, y: np.ndarray, ramp: float) -> np.ndarray:
    """``y`` with each clearance journal moved onto its bearing's wall, opposite to the
    ideal joint's reaction at ``y`` (the driver ramping over ``ramp`` [s] if > 0, so that
    a state at rest feels the static reaction only), the loops closed again."""
    from ..kinematics import solve_positions
    from ..simulation import joint_reactions

    mech = build_mechanism(spec, ideal=True, ramp=ramp)
    topo, arrays = assemble(mech)
    n = topo.n_coordinates
    reactions = joint_reactions(topo, arrays, y)
    n_plain = len(mech.joints)
    for i, j in enumerate(spec.clearance_joints):
        slot = int(topo.joint_slot[n_plain + i])
        row = constraint_row(topo, slot)
        reaction = reactions[row : row + 2]
        norm = float(np.hypot(*reaction))
        direction = -reaction / norm if norm > 0.0 else np.array([1.0, 0.0])
        arrays.joint_par[0, slot, 4:6] = -dict(j.contact)["clearance_mm"] * 1e-3 * direction
    q = solve_positions(topo, arrays, y[:n])
    v = solve_velocities(topo, arrays, q, y[n:])
    return np.concatenate([q, v])


def _wall(spec: MechanismSpec, ideal: bool) -> np.ndarray:
    y = _centred(spec, ideal)
    if ideal or not spec.clearance_joints:
        return y
    return _on_the_wall(spec, y, 0.0)


def _run_up(spec: MechanismSpec, ideal: bool) -> np.ndarray:
    q0 = kinematics(spec).q0
    y = np.concatenate([q0, np.zeros_like(q0)])  # at rest: the ramp starts at zero speed
    if ideal or not spec.clearance_joints:
        return y
    # any ramp > 0 gives the driver zero speed and acceleration at t = 0 (constraints.
    # driver_motion): the reaction is the static one whatever the ramp's length
    return _on_the_wall(spec, y, 1.0)


# where each start puts the journals (design.md 4.10)
STARTS = {"centred": _centred, "wall": _wall, "run-up": _run_up}


# --- geometry for drawings ----------------------------------------------------------------


def body_points(spec: MechanismSpec) -> dict[str, list[tuple[str, tuple[float, float]]]]:
    """Per body, the named points it carries (its joints, load points, centre of mass) in
    its local frame [m]."""
    out: dict[str, list[tuple[str, tuple[float, float]]]] = {b.name: [] for b in spec.bodies}
    out[GROUND] = []
    for j in spec.joints:
        for body in (j.body_i, j.body_j):
            out[body].append((j.name, _local(spec, body, j.at)))
    for ld in spec.loads:
        for body, p in zip(ld.bodies, ld.points, strict=False):
            out[body].append((ld.name, _local(spec, body, p)))
    for b in spec.bodies:
        out[b.name].append(("cm", (0.0, 0.0)))
    return out


def geometry(spec: MechanismSpec, q: np.ndarray) -> dict:
    """Global coordinates [mm] of every body's points and every joint at positions ``q``
    (3 per body, SI): ``{"bodies": {name: [[x, y], ...]}, "joints": {name: {"x", "y",
    "type", "clearance"}}}`` - what a drawing or an animation frame shows."""
    index = {b.name: k for k, b in enumerate(spec.bodies)}

    def place(body: str, p: tuple[float, float]) -> tuple[float, float]:
        if body == GROUND:
            return (float(p[0]) * 1e3, float(p[1]) * 1e3)
        k = index[body]
        x, y, phi = (float(v) for v in q[3 * k : 3 * k + 3])
        c, s = math.cos(phi), math.sin(phi)
        return ((x + c * p[0] - s * p[1]) * 1e3, (y + s * p[0] + c * p[1]) * 1e3)

    bodies = {name: [place(name, p) for label, p in pts if label != "cm"]
              for name, pts in body_points(spec).items() if name != GROUND}
    joints = {}
    for j in spec.joints:
        x, y = place(j.body_j, _local(spec, j.body_j, j.at))
        joints[j.name] = {"x": x, "y": y, "type": j.type, "clearance": j.clearance,
                          "bodies": [j.body_i, j.body_j]}
    centres = {b.name: place(b.name, (0.0, 0.0)) for b in spec.bodies}
    return {"bodies": bodies, "joints": joints, "centres": centres}
