"""Turn a :class:`~.model.Mechanism` into the flat arrays the compiled kernels read.

A study's cases share one *topology* (which bodies, which joints, in which order) and differ
in numbers, so the arrays split in two:

* :class:`Topology` - integer tables shared by every case of a batch;
* :class:`CaseArrays` - float tables with a leading case axis ``[n_cases, ...]``.

Layouts (``nb`` bodies, state ``q = [x0, y0, phi0, x1, ...]`` of length ``3 nb``; body index
-1 is the ground):

``joint_int[k] = (type, body_i, body_j)``; ``joint_par[case, k, :8]``:
  REVOLUTE     s_i(2), s_j(2), offset(2)   Phi = r_i + A_i s_i - r_j - A_j s_j - offset (2 rows)
  TRANSLATIONAL s(2), origin(2), dir(2), angle   n.(r_i + A_i s - origin) = 0, phi_i - angle (2)
  SLIDE        s_i(2), s_j(2), dir_i(2), angle   body j slides along body i (design.md 4.15, S2):
               (A_i n_i).(r_j + A_j s_j - r_i - A_i s_i) = 0, phi_j - phi_i - angle = 0 (2 rows),
               ``n_i`` the normal of the unit direction ``dir_i``, both in body i's frame
  FIXED        x, y, phi                   r_i = (x, y), phi_i = phi (3 rows)
  DRIVER       omega, phi0, ramp           phi_i - phi0 - f(t) = 0, f = omega t or a run-up (1 row)
``load_int[k] = (type, body_i, body_j)``; ``load_par[case, k, :N_LOAD_PAR]``:
  TORQUE tau; POINT_FORCE s(2), f(2), and at ``LP_FRAME`` 1 for a force in the body's frame
  (turning with it), 0 in the global frame; SPRING s_i(2), s_j(2), k, c, free length;
  TABLE_FORCE s(2), unit direction(2), phi0, sign, n, frame (as POINT_FORCE's), then
  ``N_TABLE`` knot angles [rad, in [0, 2 pi), increasing] and ``N_TABLE`` values [N];
  TABLE_TORQUE the same with values [N m]. A table load's ``body_j`` is the driven body: the
  load is a periodic function of the driver angle ``sign (phi_j - phi0)``, linear between
  knots (:func:`forces.table_value`).
``clear_int[k] = (bearing body, journal body)``; ``clear_par[case, k, :]`` indexed by the
``CP_*`` constants below.

*Prescribed bodies*: a body held to the ground by a FIXED joint, or by a revolute to the
ground plus an angle driver (a driven crank), has its motion fixed by these three rows alone.
The equations of motion eliminate it (:mod:`dynamics`): its acceleration comes from its own
3 x 3 block and only the other rows enter the Schur complement (4 instead of 7 rows for the
slider-crank, a third of the RHS cost). For that the joint table puts the prescribing joints
last, three rows per prescribed body in the order of ``Topology.prescribed``;
``Topology.joint_slot`` maps the model's joint order to the table's.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from .contact_laws import conformal_stiffness, get_contact_law
from .contact_stiffness import effective_modulus, get_stiffness_model, line_stiffness
from .errors import InputError
from .friction_laws import get_friction_law
from .journal_bearing import lubrication_kind
from .model import (
    AngleDriver,
    ClearanceJoint,
    Fixed,
    Mechanism,
    PointForce,
    Revolute,
    Spring,
    TableLoad,
    Torque,
    Translational,
)

REVOLUTE, TRANSLATIONAL, FIXED, DRIVER, SLIDE = 0, 1, 2, 3, 4
# constraint rows per joint kind, indexed by the kind (a tuple: the kernels index it too)
ROWS = tuple({REVOLUTE: 2, TRANSLATIONAL: 2, FIXED: 3, DRIVER: 1, SLIDE: 2}[k] for k in range(5))
TORQUE, POINT_FORCE, SPRING, TABLE_FORCE, TABLE_TORQUE = 0, 1, 2, 3, 4
N_JOINT_PAR = 8
N_TABLE = 72  # knots of a periodic load table (one every 5 degrees at most)
LP_FRAME = 7  # a force's frame: 1 the body's (turning with it), 0 the global frame
LP_TABLE = 8  # first knot angle in a table load's row; its values follow N_TABLE later
N_LOAD_PAR = LP_TABLE + 2 * N_TABLE

# clearance joint parameters (one row per joint and case)
(
    CP_SBX,
    CP_SBY,
    CP_SJX,
    CP_SJY,
    CP_RB,
    CP_RJ,
    CP_K,
    CP_EXP,
    CP_CHI,
    CP_CMAX,
    CP_DEPTH,
    CP_SHAPE,
    CP_FKIND,
    CP_MU,
    CP_V0,
    CP_V1,
    CP_MUS,
    CP_SMODEL,
    CP_LINEK,
    CP_CLR,
    CP_LUB,
    CP_VISC,
    CP_LEN,
    CP_WN,
    CP_WMAX,
) = range(25)
N_CLEAR_PAR = 25
# a worn bearing's profile (design.md 4.12): CP_WN = its node count (0: the circular hole),
# CP_WMAX its largest depth [m] (the worn clearance is c + CP_WMAX: the penetration bound's
# scale, stepping._step_end_peaks), the depths h_i [m] follow the row's N_CLEAR_PAR fixed
# columns (core/wear.py); rows of one batch are padded with zeros to the widest profile
CP_WPROF = N_CLEAR_PAR


@dataclass(frozen=True)
class Topology:
    """Integer tables shared by all cases of a batch (see the module docstring)."""

    n_bodies: int
    joint_int: np.ndarray  # int64 [n_joints, 3]
    load_int: np.ndarray  # int64 [n_loads, 3]
    clear_int: np.ndarray  # int64 [n_clearance, 2]
    n_constraints: int
    probe: int  # index into q of the output coordinate, -1 if none
    prescribed: np.ndarray  # int64 [n_prescribed] bodies, their rows last (module docstring)
    joint_slot: np.ndarray  # int64: row of joint_int of the model's k-th joint (then drivers)

    @property
    def n_coordinates(self) -> int:
        return 3 * self.n_bodies

    def key(self) -> tuple:
        """Hashable identity: cases with equal keys can share one batch."""
        return (
            self.n_bodies,
            self.joint_int.tobytes(),
            self.load_int.tobytes(),
            self.clear_int.tobytes(),
            self.probe,
            self.prescribed.tobytes(),
        )


@dataclass(frozen=True)
class CaseArrays:
    """Float tables of one or more cases, leading axis = case."""

    mass: np.ndarray  # [n, nb]
    inertia: np.ndarray  # [n, nb]
    joint_par: np.ndarray  # [n, n_joints, 8]
    load_par: np.ndarray  # [n, n_loads, 8]
    clear_par: np.ndarray  # [n, n_clearance, N_CLEAR_PAR]
    gravity: np.ndarray  # [n, 2]

    @staticmethod
    def stack(items: list[CaseArrays]) -> CaseArrays:
        """Concatenate single- or multi-case arrays along the case axis (clearance rows
        padded to the widest worn profile of the batch)."""
        fields = {f: [getattr(a, f) for a in items] for f in CaseArrays.__dataclass_fields__}
        widths = {a.shape[-1] for a in fields["clear_par"]}
        if len(widths) > 1:
            width = max(widths)
            fields["clear_par"] = [np.pad(a, ((0, 0), (0, 0), (0, width - a.shape[-1])))
                                   for a in fields["clear_par"]]
        return CaseArrays(*(np.concatenate(v) for v in fields.values()))


class CaseModel(NamedTuple):
    """One case's arrays as the compiled kernels take them (``model``: a numba named tuple,
    so a kernel reads ``model.mass``, not a position). Shapes as in :class:`Topology` and
    :class:`CaseArrays` with the case axis dropped; SI units."""

    joint_int: np.ndarray  # int64 [n_joints, 3] (shared by the batch)
    joint_par: np.ndarray  # [n_joints, 8]
    load_int: np.ndarray  # int64 [n_loads, 3] (shared)
    load_par: np.ndarray  # [n_loads, 8]
    clear_int: np.ndarray  # int64 [n_clearance, 2] (shared)
    clear_par: np.ndarray  # [n_clearance, N_CLEAR_PAR]
    mass: np.ndarray  # [n_bodies] kg
    inertia: np.ndarray  # [n_bodies] kg m^2
    gravity: np.ndarray  # [2] m/s^2
    prescribed: np.ndarray  # int64 [n_prescribed]: bodies whose motion is prescribed (shared)


def case_model(
    topo: Topology, arrays: CaseArrays, case: int = 0, *, contacts: bool = True
) -> CaseModel:
    """The ``model`` the compiled kernels take (:func:`dynamics.derivative`) for one case of
    ``arrays``; ``contacts=False`` leaves the clearance joints out."""
    k = slice(None) if contacts else slice(0, 0)
    return CaseModel(
        topo.joint_int,
        arrays.joint_par[case],
        topo.load_int,
        arrays.load_par[case],
        topo.clear_int[k],
        arrays.clear_par[case, k],
        arrays.mass[case],
        arrays.inertia[case],
        arrays.gravity[case],
        topo.prescribed,
    )


def _ideal_or_clearance(mech: Mechanism) -> tuple[list, list[ClearanceJoint]]:
    joints = list(mech.joints)
    clearance = []
    for cj in mech.clearance_joints:
        if cj.ideal:
            joints.append(cj.as_revolute())
        else:
            clearance.append(cj)
    return joints, clearance


def assemble(mech: Mechanism) -> tuple[Topology, CaseArrays]:
    """Arrays of one mechanism (a single case). Validates the mechanism first."""
    mech.validate()
    idx = mech.body_index
    joints, clearance = _ideal_or_clearance(mech)

    jint, jpar = [], []
    for j in joints:
        row = np.zeros(N_JOINT_PAR)
        if isinstance(j, Revolute):
            jint.append((REVOLUTE, idx(j.body_i), idx(j.body_j)))
            row[:4] = (*j.point_i, *j.point_j)
        elif isinstance(j, Translational) and idx(j.guide) >= 0:
            d = np.asarray(j.direction, float)
            jint.append((SLIDE, idx(j.guide), idx(j.body)))
            row[:7] = (*j.origin, *j.point, *(d / np.linalg.norm(d)), j.angle)
        elif isinstance(j, Translational):
            d = np.asarray(j.direction, float)
            jint.append((TRANSLATIONAL, idx(j.body), -1))
            row[:7] = (*j.point, *j.origin, *(d / np.linalg.norm(d)), j.angle)
        elif isinstance(j, Fixed):
            jint.append((FIXED, idx(j.body), -1))
            row[:3] = j.pose
        else:  # pragma: no cover - the Joint union is closed
            raise TypeError(f"unknown joint {j!r}")
        jpar.append(row)
    for d in mech.drivers:
        assert isinstance(d, AngleDriver)
        jint.append((DRIVER, idx(d.body), -1))
        row = np.zeros(N_JOINT_PAR)
        row[:3] = (d.omega, d.phi0, d.ramp)
        jpar.append(row)

    lint, lpar = [], []
    for ld in mech.loads:
        row = np.zeros(N_LOAD_PAR)
        if isinstance(ld, Torque):
            lint.append((TORQUE, idx(ld.body), -1))
            row[0] = ld.torque
        elif isinstance(ld, PointForce):
            lint.append((POINT_FORCE, idx(ld.body), -1))
            row[:4] = (*ld.point, *ld.force)
            row[LP_FRAME] = 1.0 if ld.body_frame else 0.0
        elif isinstance(ld, Spring):
            lint.append((SPRING, idx(ld.body_i), idx(ld.body_j)))
            row[:7] = (*ld.point_i, *ld.point_j, ld.stiffness, ld.damping, ld.free_length)
        elif isinstance(ld, TableLoad):
            lint.append((table_kind(ld), idx(ld.body), idx(ld.driver_body)))
            row[:] = table_row(ld, mech)
        lpar.append(row)

    prescribed, order = _prescribed_order(jint, len(mech.bodies))
    jint = [jint[k] for k in order]
    jpar = [jpar[k] for k in order]
    joint_slot = np.empty(len(order), dtype=np.int64)
    joint_slot[np.array(order, dtype=np.int64)] = np.arange(len(order))

    cint = [(idx(c.bearing_body), idx(c.journal_body)) for c in clearance]
    cpar = [clearance_parameters(c) for c in clearance]

    probe = -1
    if mech.probe is not None:
        probe = 3 * idx(mech.probe.body) + mech.probe.coordinate
    joint_int = np.array(jint, dtype=np.int64).reshape(-1, 3)
    topo = Topology(
        n_bodies=len(mech.bodies),
        joint_int=joint_int,
        load_int=np.array(lint, dtype=np.int64).reshape(-1, 3),
        clear_int=np.array(cint, dtype=np.int64).reshape(-1, 2),
        n_constraints=sum(ROWS[int(t)] for t in joint_int[:, 0]),
        probe=probe,
        prescribed=np.array(prescribed, dtype=np.int64),
        joint_slot=joint_slot,
    )
    arrays = CaseArrays(
        mass=np.array([[b.mass for b in mech.bodies]]),
        inertia=np.array([[b.inertia for b in mech.bodies]]),
        joint_par=np.array(jpar, dtype=float).reshape(1, -1, N_JOINT_PAR),
        load_par=np.array(lpar, dtype=float).reshape(1, -1, N_LOAD_PAR),
        clear_par=pad_columns([np.asarray(r, dtype=float)[None] for r in cpar],
                              N_CLEAR_PAR)[None],
        gravity=np.array([mech.gravity], dtype=float),
    )
    return topo, arrays


def pad_columns(rows: list[np.ndarray], width: int) -> np.ndarray:
    """Stack ``rows`` (each ``[1, w_i]``) into ``[n, max(width, w_i)]``, zero-padded."""
    full = max([width, *(r.shape[-1] for r in rows)])
    out = np.zeros((len(rows), full))
    for i, r in enumerate(rows):
        out[i, : r.shape[-1]] = r[0]
    return out


def table_kind(load: TableLoad) -> int:
    """TABLE_TORQUE for a table of torques, TABLE_FORCE for one of forces."""
    return TABLE_TORQUE if load.direction is None else TABLE_FORCE


def table_row(load: TableLoad, mech: Mechanism) -> np.ndarray:
    """The ``load_par`` row of a periodic table load: knots in [0, 2 pi), values, and the
    driver's start angle and sense of rotation read from the mechanism's driver."""
    driver = next((d for d in mech.drivers if d.body == load.driver_body), None)
    if driver is None:
        raise InputError("load.driver_body", load.driver_body, "a body with an angle driver")
    n = len(load.angles)
    if not 1 <= n <= N_TABLE:
        raise InputError("load.angles", n, f"1 to {N_TABLE} knots")
    row = np.zeros(N_LOAD_PAR)
    row[:2] = load.point
    if load.direction is not None:
        d = np.asarray(load.direction, float)
        row[2:4] = d / np.linalg.norm(d)
    row[4] = driver.phi0
    row[5] = 1.0 if driver.omega >= 0.0 else -1.0
    row[6] = n
    row[LP_FRAME] = 1.0 if load.body_frame else 0.0
    row[LP_TABLE : LP_TABLE + n] = load.angles
    row[LP_TABLE + N_TABLE : LP_TABLE + N_TABLE + n] = load.values
    return row


def _prescribed_order(jint: list[tuple[int, int, int]], n_bodies: int) -> tuple[list, list]:
    """The prescribed bodies and the joint order that puts their joints last.

    A body is prescribed when the joints between it and the ground alone are a FIXED joint,
    or a revolute plus a driver (three independent rows). Returns ``(bodies, order)``:
    ``order`` lists the joint indices, free joints first, then per prescribed body its
    revolute (or fixed) joint and its driver.
    """
    grounded: dict[int, list[int]] = {b: [] for b in range(n_bodies)}
    for k, (_, bi, bj) in enumerate(jint):
        if bi >= 0 and bj < 0:
            grounded[bi].append(k)
        elif bj >= 0 and bi < 0:
            grounded[bj].append(k)
    bodies, last = [], []
    for b, ks in grounded.items():
        kinds = sorted(jint[k][0] for k in ks)
        if kinds in ([FIXED], [REVOLUTE, DRIVER]):
            bodies.append(b)
            last.extend(sorted(ks, key=lambda k: jint[k][0] == DRIVER))
    order = [k for k in range(len(jint)) if k not in last] + last
    return bodies, order


# The round-off harness (design.md 4.15): tests marked ``roundoff`` rerun with every contact
# stiffness multiplied by 1 + eps, eps given by this variable (tests/conftest.py sets it), so a
# test cannot pin a trajectory that another processor's rounding would change. Unset or empty
# in production.
STIFFNESS_EPS_ENV = "GAPSWEEP_TEST_STIFFNESS_EPS"


def stiffness_perturbation() -> float:
    """The factor 1 + eps the round-off harness puts on every contact stiffness (1.0 when
    :data:`STIFFNESS_EPS_ENV` is unset); eps is bounded to |eps| <= 1e-6, a rounding."""
    text = os.environ.get(STIFFNESS_EPS_ENV, "").strip()
    if not text:
        return 1.0
    try:
        eps = float(text)
    except ValueError:
        raise InputError(STIFFNESS_EPS_ENV, text, "a float in [-1e-6, 1e-6]") from None
    if not abs(eps) <= 1e-6:
        raise InputError(STIFFNESS_EPS_ENV, text, "a float in [-1e-6, 1e-6]")
    return 1.0 + eps


def clearance_parameters(cj: ClearanceJoint) -> np.ndarray:
    """The ``CP_*`` row of one clearance joint: SI numbers, stiffness resolved and scaled
    (times :func:`stiffness_perturbation`, 1 outside the round-off harness)."""
    m = cj.contact
    law = get_contact_law(m.law)
    stiffness_model = get_stiffness_model(m.stiffness_model)
    friction = get_friction_law(m.friction_law)
    k = m.stiffness
    if k is None:
        k = conformal_stiffness(
            cj.bearing_radius,
            cj.clearance,
            m.youngs_bearing,
            m.poisson_bearing,
            m.youngs_journal,
            m.poisson_journal,
        )
    profile = np.asarray(cj.wear_profile, dtype=float)
    row = np.zeros(N_CLEAR_PAR + profile.size)
    row[CP_WN] = profile.size
    row[CP_WMAX] = max(float(profile.max()), 0.0) if profile.size else 0.0
    row[CP_WPROF:] = profile
    row[CP_SBX], row[CP_SBY] = cj.bearing_point
    row[CP_SJX], row[CP_SJY] = cj.journal_point
    row[CP_RB] = cj.bearing_radius
    row[CP_RJ] = cj.bearing_radius - cj.clearance
    perturbation = stiffness_perturbation()
    row[CP_K] = k * m.stiffness_scale * perturbation
    row[CP_EXP] = m.exponent
    row[CP_CHI] = law.chi(m.restitution)
    row[CP_CMAX] = m.damping_max
    row[CP_DEPTH] = m.damping_depth
    row[CP_SHAPE] = law.shape
    row[CP_FKIND] = friction.kind
    row[CP_MU] = m.friction
    row[CP_V0] = m.friction_velocity
    row[CP_V1] = m.friction_velocity_full
    row[CP_MUS] = m.static_friction
    row[CP_SMODEL] = stiffness_model.shape
    e_eff = effective_modulus(
        m.youngs_bearing, m.poisson_bearing, m.youngs_journal, m.poisson_journal
    )
    row[CP_LINEK] = line_stiffness(m.axial_length, e_eff) * m.stiffness_scale * perturbation
    row[CP_CLR] = cj.clearance
    # the oil film (design.md 4.11): the journal's radius CP_RJ is its R, the one axial length
    # of the joint its L (4.15)
    row[CP_LUB] = lubrication_kind(m.lubrication)
    row[CP_VISC] = m.viscosity
    row[CP_LEN] = m.axial_length
    return row
