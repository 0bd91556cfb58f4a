r"""Linearisation about a static equilibrium: natural frequencies and mode shapes.

Small motions ``q = q_eq + N z`` on the constraint manifold, with ``N`` ``[n, f]`` an
orthonormal basis of the null space of ``Phi_q(q_eq)`` (``f`` degrees of freedom), obey::

    M_r z'' + K_r z = 0,   M_r = N^T M N,   K_r = N^T K N,   K = -d(Q - Phi_q^T lambda)/dq

``K`` is the tangent stiffness of :class:`~.statics.StaticSystem` at the equilibrium
multipliers ``lambda``: besides the springs it holds the geometric term of the constraint
forces, without which a pendulum in absolute coordinates would have no restoring stiffness
(it is the Hessian of the Lagrangian ``V + lambda^T Phi`` restricted to the tangent space).
The generalized symmetric eigenproblem ``K_r z = omega^2 M_r z`` gives the modes. Damping
(spring dampers) is left out: these are the undamped natural frequencies. Clearance joints
are ideal, as in :mod:`statics`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.linalg import eigh, null_space

from .errors import InputError
from .model import Mechanism
from .statics import PHI_TOL, StaticSystem, static_equilibrium

EQUILIBRIUM_RTOL = 1e-6  # a given q_eq must balance the loads to this fraction of max |Q|


@dataclass(frozen=True)
class Modes:
    """The linearised free vibration about ``q`` ``[3 nb]`` (multipliers ``lam`` ``[m]``).

    ``omega_squared`` ``[f]`` [rad^2/s^2], ascending; ``frequencies`` ``[f]`` [Hz] =
    ``sqrt(omega^2) / (2 pi)``, negative (``-sqrt(-omega^2) / (2 pi)``) for an unstable
    direction (divergence, e.g. an inverted pendulum); ``shapes`` ``[3 nb, f]``: mode ``k``
    in all coordinates, column ``k``, mass-normalised (``shapes^T M shapes = I``).
    """

    q: np.ndarray
    lam: np.ndarray
    omega_squared: np.ndarray
    frequencies: np.ndarray
    shapes: np.ndarray

    @property
    def stable(self) -> bool:
        """True when no direction diverges (every ``omega^2 >= 0``)."""
        return bool(np.all(self.omega_squared >= 0.0))


def _multipliers(system: StaticSystem, q: np.ndarray) -> np.ndarray:
    """The multipliers that balance the loads at a given equilibrium ``q`` (checked)."""
    phi = float(np.max(np.abs(system.constraints(q)), initial=0.0))
    if phi > 1e3 * PHI_TOL:
        raise InputError("q_eq", f"|Phi| = {phi:.3g}", "positions satisfying the joints")
    loads = system.loads(q)
    lam = np.linalg.lstsq(system.jacobian(q).T, loads, rcond=None)[0]
    unbalanced = float(np.max(np.abs(system.residual(q, lam)), initial=0.0))
    allowed = EQUILIBRIUM_RTOL * float(np.max(np.abs(loads), initial=0.0)) + 1e-12
    if unbalanced > allowed:
        raise InputError(
            "q_eq",
            f"|Q - Phi_q^T lambda| = {unbalanced:.3g}",
            f"a static equilibrium (<= {allowed:.3g} N or N m)",
            "use statics.static_equilibrium to find one",
        )
    return lam


def linearize(mech: Mechanism, q_eq: np.ndarray | None = None, t: float = 0.0) -> Modes:
    """Natural frequencies and mode shapes of ``mech`` about a static equilibrium.

    ``q_eq`` ``[3 nb]`` [m, rad]: the equilibrium; None finds it with
    :func:`~.statics.static_equilibrium` from the bodies' poses. ``t`` [s]: the time the
    drivers are held at (a driven coordinate is locked). Raises :class:`InputError` if
    ``q_eq`` is not an equilibrium or none is found.
    """
    system = StaticSystem(mech, t)
    if q_eq is None:
        eq = static_equilibrium(mech, t=t)
        q, lam = eq.q, eq.lam
    else:
        q = np.array(q_eq, dtype=float)
        if q.shape != (system.n,):
            raise InputError("q_eq", f"shape {q.shape}", f"({system.n},) = [x, y, phi] per body")
        lam = _multipliers(system, q)
    basis = null_space(system.jacobian(q)) if system.m else np.eye(system.n)
    f = basis.shape[1]
    if f == 0:  # locked: nothing can vibrate
        empty = np.zeros(0)
        return Modes(q, lam, empty, empty, np.zeros((system.n, 0)))
    K = system.stiffness(q, lam)
    K_r = basis.T @ K @ basis
    K_r = 0.5 * (K_r + K_r.T)  # conservative loads: symmetric up to the differencing error
    M_r = basis.T @ (system.mass_diagonal[:, None] * basis)
    omega2, z = eigh(K_r, M_r)  # ascending; z^T M_r z = I
    hz = np.sign(omega2) * np.sqrt(np.abs(omega2)) / (2.0 * math.pi)
    return Modes(q, lam, omega2, hz, basis @ z)


def eigenfrequencies(mech: Mechanism, q_eq: np.ndarray | None = None, t: float = 0.0) -> np.ndarray:
    """Natural frequencies [Hz] of ``mech`` about its static equilibrium, ascending ``[f]``
    (negative for an unstable direction; see :class:`Modes`)."""
    return linearize(mech, q_eq, t).frequencies
