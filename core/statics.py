r"""Static equilibrium of a mechanism (design.md 1.1, seed 004).

At rest (``q' = 0``) the equations of motion ``M q'' + Phi_q^T lambda = Q`` reduce to::

    F(q, lambda) = Q(q) - Phi_q(q)^T lambda = 0      (3 nb equations, N or N m)
    Phi(q, t) = 0                                    (m equations, m or rad)

solved here by Newton-Raphson on ``[q, lambda]``. ``Q`` is gravity plus the applied loads
(springs at rest: their damping does nothing), evaluated by the same compiled kernel the
dynamics uses; ``Phi`` and ``Phi_q`` likewise. Drivers are held at their value at time
``t``. Clearance joints are taken as ideal: at rest with the journal centred a clearance
joint carries nothing, so the ideal joint is the equilibrium the study compares with.

The tangent ``dF/dq`` (with ``lambda`` held, which is where the "geometric" stiffness of
the constraint forces comes from) is taken by central finite differences: the force kernels
have no analytic derivatives, and the second-order error of a 1e-5 relative step is far
below what the equilibrium or its eigenfrequencies (:mod:`linearize`) need.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .assembly import assemble
from .constraints import constraint_jacobian, constraint_values, rotation_table, rotations
from .errors import InputError
from .forces import applied_forces
from .kinematics import initial_guess
from .model import Mechanism

PHI_TOL = 1e-12  # [m or rad] constraint residual accepted at equilibrium
FORCE_RTOL = 1e-9  # force residual accepted, relative to the largest applied load
FORCE_ATOL = 1e-12  # [N or N m] floor of the accepted force residual (unloaded mechanisms)
FD_STEP = 1e-5  # relative central-difference step of the tangent stiffness


class StaticSystem:
    """The rest-state functions of one mechanism: ``Q(q)``, ``Phi``, ``Phi_q`` and ``F``.

    Shapes: ``q`` ``[n = 3 nb]``, ``lam`` ``[m]``; clearance joints are ideal (see module).
    """

    def __init__(self, mech: Mechanism, t: float = 0.0) -> None:
        self.mechanism = mech.with_ideal_joints()
        self.topology, arrays = assemble(self.mechanism)
        self.t = float(t)
        self.n = self.topology.n_coordinates
        self.m = self.topology.n_constraints
        self._joint = (self.topology.joint_int, arrays.joint_par[0])
        self._loads = (
            arrays.mass[0],
            arrays.gravity[0],
            self.topology.load_int,
            arrays.load_par[0],
        )
        self.mass_diagonal = np.repeat(arrays.mass[0], 3)  # [n] diag(m, m, J) per body
        self.mass_diagonal[2::3] = arrays.inertia[0]
        # typical size of each coordinate: lengths for x, y (at least 1 mm), 1 rad for phi
        guess = initial_guess(self.mechanism)
        length = max(float(np.max(np.abs(guess[np.arange(self.n) % 3 != 2]), initial=0)), 1e-3)
        self.scale = np.where(np.arange(self.n) % 3 == 2, 1.0, length)

    def loads(self, q: np.ndarray) -> np.ndarray:
        """Generalized applied forces ``Q(q)`` at rest ``[n]`` (N for x, y; N m for phi)."""
        out = np.zeros(self.n)
        rot = rotation_table(self.n // 3)
        rotations(q, rot)
        applied_forces(q, np.zeros(self.n), rot, *self._loads, out)
        return out

    def constraints(self, q: np.ndarray) -> np.ndarray:
        """``Phi(q, t)`` ``[m]``."""
        out = np.zeros(self.m)
        constraint_values(q, self.t, *self._joint, out)
        return out

    def jacobian(self, q: np.ndarray) -> np.ndarray:
        """``Phi_q(q)`` ``[m, n]``."""
        out = np.zeros((self.m, self.n))
        constraint_jacobian(q, *self._joint, out)
        return out

    def residual(self, q: np.ndarray, lam: np.ndarray) -> np.ndarray:
        """Unbalanced generalized force ``F = Q - Phi_q^T lambda`` ``[n]``."""
        return self.loads(q) - self.jacobian(q).T @ lam

    def stiffness(self, q: np.ndarray, lam: np.ndarray) -> np.ndarray:
        """Tangent stiffness ``K = -dF/dq`` at fixed ``lambda`` ``[n, n]`` (central differences).

        It holds the loads' stiffness (springs, gravity moments) and the geometric term
        ``d(Phi_q^T lambda)/dq`` of the constraint forces.
        """
        K = np.empty((self.n, self.n))
        for k in range(self.n):
            h = FD_STEP * max(abs(q[k]), self.scale[k])
            qp, qm = q.copy(), q.copy()
            qp[k] += h
            qm[k] -= h
            K[:, k] = -(self.residual(qp, lam) - self.residual(qm, lam)) / (2.0 * h)
        return K

    def force_tolerance(self, q: np.ndarray) -> float:
        """Largest accepted ``|F|`` [N or N m] at ``q``."""
        return FORCE_RTOL * float(np.max(np.abs(self.loads(q)), initial=0.0)) + FORCE_ATOL


@dataclass(frozen=True)
class Equilibrium:
    """A static equilibrium: positions ``q`` ``[3 nb]`` [m, rad], the joints' Lagrange
    multipliers ``lam`` ``[m]`` (reactions, the sign convention of :mod:`dynamics`), the
    time ``t`` [s] the drivers were held at, Newton iterations, and the remaining
    ``force_residual`` max ``|Q - Phi_q^T lambda|`` [N or N m]."""

    q: np.ndarray
    lam: np.ndarray
    t: float
    iterations: int
    force_residual: float


def _merit(system: StaticSystem, q: np.ndarray, lam: np.ndarray) -> float:
    """Dimensionless size of the residual: forces over their tolerance scale, Phi in lengths."""
    f = system.residual(q, lam) / (system.force_tolerance(q) / FORCE_RTOL)
    phi = system.constraints(q) / float(system.scale[0])
    return float(np.sqrt(f @ f + phi @ phi))


def static_equilibrium(
    mech: Mechanism,
    q_guess: np.ndarray | None = None,
    t: float = 0.0,
    *,
    max_iter: int = 50,
) -> Equilibrium:
    """Static equilibrium of ``mech`` near ``q_guess`` (default: the bodies' poses).

    Newton-Raphson on ``[q, lambda]`` with step halving while the residual grows; converged
    when ``|Phi| <= 1e-12`` and ``|Q - Phi_q^T lambda| <= 1e-9 max|Q| + 1e-12``. It may land
    on an unstable equilibrium (an inverted pendulum): :mod:`linearize` tells them apart.
    Raises :class:`InputError` (field ``equilibrium``) when it does not converge - e.g. a
    loaded degree of freedom nothing holds (a body in free fall), or a guess too far off.
    """
    system = StaticSystem(mech, t)
    n, m = system.n, system.m
    q = initial_guess(system.mechanism) if q_guess is None else np.array(q_guess, dtype=float)
    if q.shape != (n,):
        raise InputError("q_guess", f"shape {q.shape}", f"({n},) = [x, y, phi] per body")
    # first multipliers: the least-squares balance of the loads at the guess
    lam = np.linalg.lstsq(system.jacobian(q).T, system.loads(q), rcond=None)[0]
    for iteration in range(max_iter + 1):
        F, phi = system.residual(q, lam), system.constraints(q)
        worst_f = float(np.max(np.abs(F), initial=0.0))
        worst_phi = float(np.max(np.abs(phi), initial=0.0))
        if worst_phi <= PHI_TOL and worst_f <= system.force_tolerance(q):
            return Equilibrium(q, lam, system.t, iteration, worst_f)
        if iteration == max_iter or not np.all(np.isfinite(q)):
            break
        jac = system.jacobian(q)
        tangent = np.block([[-system.stiffness(q, lam), -jac.T], [jac, np.zeros((m, m))]])
        rhs = -np.concatenate([F, phi])
        # lstsq: a singular tangent (neutral or free directions) still gives the
        # minimum-norm step instead of an exception; a load it cannot balance stays.
        step = np.linalg.lstsq(tangent, rhs, rcond=None)[0]
        before = _merit(system, q, lam)
        for _ in range(30):
            q_new, lam_new = q + step[:n], lam + step[n:]
            if _merit(system, q_new, lam_new) < before:
                break
            step *= 0.5
        q, lam = q_new, lam_new
    raise InputError(
        "equilibrium",
        f"|Q - Phi_q^T lambda| = {worst_f:.3g}, |Phi| = {worst_phi:.3g}",
        f"<= {system.force_tolerance(q):.3g} N (N m) and <= {PHI_TOL:g} m (rad)",
        f"Newton-Raphson found no static equilibrium of {mech.name!r}: a loaded degree of "
        "freedom nothing holds (free fall, an unbalanced driver-free torque), or the bodies' "
        "poses are too far from one",
    )
