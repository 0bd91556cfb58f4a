"""Kinematic analysis: positions by Newton-Raphson, then velocities and accelerations.

For a kinematically driven mechanism (as many independent constraints as coordinates,
design.md 1.1 / seed 004) the motion follows from the constraints alone:
``Phi(q, t) = 0``, ``Phi_q q' = -Phi_t``, ``Phi_q q'' = gamma``. With fewer constraints the
minimum-norm solution is returned (used to assemble initial conditions).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .assembly import CaseArrays, Topology, assemble
from .constraints import constraint_jacobian, constraint_rates, constraint_values
from .errors import InputError
from .model import Mechanism


@dataclass(frozen=True)
class KinematicState:
    """Positions [m, rad], velocities and accelerations (each ``[3 nb]``) at time ``t`` [s]."""

    t: float
    q: np.ndarray
    v: np.ndarray
    a: np.ndarray


def _case(topo: Topology, arrays: CaseArrays, case: int = 0) -> tuple[np.ndarray, np.ndarray]:
    return topo.joint_int, arrays.joint_par[case]


def solve_positions(
    topo: Topology,
    arrays: CaseArrays,
    q_guess: np.ndarray,
    t: float = 0.0,
    *,
    tol: float = 1e-13,
    max_iter: int = 50,
) -> np.ndarray:
    """Newton-Raphson on ``Phi(q, t) = 0`` from ``q_guess``; raises InputError if it fails."""
    jint, jpar = _case(topo, arrays)
    m, n = topo.n_constraints, topo.n_coordinates
    q = np.array(q_guess, dtype=float)
    phi = np.zeros(m)
    jac = np.zeros((m, n))
    for _ in range(max_iter):
        constraint_values(q, t, jint, jpar, phi)
        if np.max(np.abs(phi), initial=0.0) <= tol:
            return q
        constraint_jacobian(q, jint, jpar, jac)
        dq = np.linalg.lstsq(jac, -phi, rcond=None)[0]
        q += dq
        if not np.all(np.isfinite(q)):
            break
    worst = float(np.max(np.abs(phi), initial=0.0))
    raise InputError(
        "assembly",
        f"|Phi| = {worst:.3g}",
        f"< {tol:g} (the joints can be closed)",
        "Newton-Raphson did not converge: the links cannot be assembled in this position",
    )


def _linear_terms(
    topo: Topology, arrays: CaseArrays, q: np.ndarray, v: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``Phi_q`` ``[m, n]``, ``gamma`` and ``Phi_t`` ``[m]`` at ``(q, v)``."""
    jint, jpar = _case(topo, arrays)
    m, n = topo.n_constraints, topo.n_coordinates
    jac = np.zeros((m, n))
    gamma, phi_t = np.zeros(m), np.zeros(m)
    constraint_jacobian(q, jint, jpar, jac)
    constraint_rates(q, v, jint, jpar, gamma, phi_t)
    return jac, gamma, phi_t


def solve_velocities(
    topo: Topology, arrays: CaseArrays, q: np.ndarray, v_guess: np.ndarray | None = None
) -> np.ndarray:
    """Velocities satisfying ``Phi_q v = -Phi_t`` closest (least squares) to ``v_guess``."""
    v0 = np.zeros(topo.n_coordinates) if v_guess is None else np.asarray(v_guess, float)
    jac, _, phi_t = _linear_terms(topo, arrays, q, v0)
    dv = np.linalg.lstsq(jac, -phi_t - jac @ v0, rcond=None)[0]
    return v0 + dv


def solve_accelerations(
    topo: Topology, arrays: CaseArrays, q: np.ndarray, v: np.ndarray
) -> np.ndarray:
    """Accelerations from ``Phi_q a = gamma`` (minimum norm if not fully driven)."""
    jac, gamma, _ = _linear_terms(topo, arrays, q, v)
    return np.linalg.lstsq(jac, gamma, rcond=None)[0]


def initial_guess(mech: Mechanism) -> np.ndarray:
    """The bodies' pose guesses stacked as ``q``."""
    return np.array([c for b in mech.bodies for c in b.pose], dtype=float)


def kinematic_analysis(mech: Mechanism, times: Sequence[float]) -> list[KinematicState]:
    """Positions, velocities and accelerations of a fully driven mechanism at ``times`` [s].

    Clearance joints are taken as ideal (kinematics has no contact). Each time starts Newton
    from the previous solution, so a continuous motion is followed branch by branch.
    """
    topo, arrays = assemble(mech.with_ideal_joints())
    if topo.n_constraints != topo.n_coordinates:
        raise InputError(
            "mechanism",
            mech.name,
            f"{topo.n_coordinates} independent constraints for kinematic analysis",
            f"it has {topo.n_constraints}; add drivers so no degree of freedom is left",
        )
    q = initial_guess(mech)
    states = []
    for t in times:
        q = solve_positions(topo, arrays, q, float(t))
        v = solve_velocities(topo, arrays, q)
        a = solve_accelerations(topo, arrays, q, v)
        states.append(KinematicState(float(t), q.copy(), v, a))
    return states
