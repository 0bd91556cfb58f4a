r"""The equations of motion: accelerations and multipliers of one case at one instant.

Index-1 form of the constrained equations (ADAMS style, design.md 1.1)::

    M q'' + Phi_q^T lambda = Q,      Phi_q q'' = gamma - 2 alpha Phi' - beta^2 Phi

``M = diag(m, m, J)`` per body is diagonal, so the augmented system is solved through its
Schur complement ``S = Phi_q M^-1 Phi_q^T`` (m x m, symmetric positive definite for
independent constraints) with a small in-place Cholesky: no dense augmented matrix, no
allocation, no LAPACK call per evaluation. The Baumgarte terms are zero unless chosen;
the default keeps the constraints by projection after each step (see :mod:`stepping`).

The ODE state of a case is ``y = [q (n), v (n), W_driver, E_damping, E_friction, I_a2]``:
the last four are quadratures integrated with the motion under the same error control -
driver work [J], energy dissipated by contact damping and by friction [J], and the
integral of the squared probe acceleration [m^2/s^3] for its RMS.
"""

from __future__ import annotations

import math

import numpy as np

from .constraints import constraint_jacobian, constraint_rates, constraint_values
from .forces import N_DIAG, applied_forces, clearance_forces
from .jit import kernel

N_AUX = 4
AUX_DRIVER_WORK, AUX_DAMPING, AUX_FRICTION, AUX_ACCEL2 = range(N_AUX)


@kernel
def make_workspace(n, m, n_clear):
    """Scratch arrays reused by every evaluation of one case (no allocation in the RHS)."""
    return (
        np.zeros((m, n)),  # 0 jac
        np.zeros((m, m)),  # 1 schur
        np.zeros(m),  # 2 phi
        np.zeros(m),  # 3 gamma
        np.zeros(m),  # 4 phi_t
        np.zeros(m),  # 5 lambda
        np.zeros(n),  # 6 Q
        np.zeros((n_clear, N_DIAG)),  # 7 contact diagnostics
        np.zeros(n),  # 8 scratch
    )


@kernel
def cholesky_solve(a, b):
    """Solve ``a x = b`` in place (``b`` becomes x) for small SPD ``a`` (overwritten).

    Returns False when ``a`` is not positive definite (redundant or singular constraints).
    """
    m = a.shape[0]
    for j in range(m):
        d = a[j, j]
        for k in range(j):
            d -= a[j, k] * a[j, k]
        if d <= 0.0:
            return False
        d = math.sqrt(d)
        a[j, j] = d
        for i in range(j + 1, m):
            s = a[i, j]
            for k in range(j):
                s -= a[i, k] * a[j, k]
            a[i, j] = s / d
    for i in range(m):
        s = b[i]
        for k in range(i):
            s -= a[i, k] * b[k]
        b[i] = s / a[i, i]
    for i in range(m - 1, -1, -1):
        s = b[i]
        for k in range(i + 1, m):
            s -= a[k, i] * b[k]
        b[i] = s / a[i, i]
    return True


@kernel
def schur_solve(jac, inv_mass, schur, rhs):
    """Solve ``(J M^-1 J^T) x = rhs`` in place in ``rhs``; False if singular."""
    m, n = jac.shape
    for i in range(m):
        for j in range(i + 1):
            s = 0.0
            for k in range(n):
                s += jac[i, k] * inv_mass[k] * jac[j, k]
            schur[i, j] = s
            schur[j, i] = s
    return cholesky_solve(schur, rhs)


@kernel
def inverse_mass(mass, inertia, out):
    """Fill ``out`` (length 3 nb) with the diagonal of M^-1."""
    for b in range(mass.shape[0]):
        out[3 * b] = 1.0 / mass[b]
        out[3 * b + 1] = 1.0 / mass[b]
        out[3 * b + 2] = 1.0 / inertia[b]


@kernel
def derivative(t, y, model, in_contact, approach_velocity, alpha, beta, probe, inv_mass, ws, dydt):
    """Fill ``dydt`` with the time derivative of the state ``y`` at time ``t`` [s].

    ``model`` is the case's tuple ``(joint_int, joint_par, load_int, load_par, clear_int,
    clear_par, mass, inertia, gravity)``; ``alpha``, ``beta`` the Baumgarte gains [1/s]
    (0 for none). Returns False if the constraint equations are singular. The multipliers
    stay in ``ws[5]`` and the contact diagnostics in ``ws[7]`` for the caller.
    """
    joint_int, joint_par, load_int, load_par, clear_int, clear_par, mass, inertia, gravity = model
    jac, schur, phi, gamma, phi_t, lam, Q, diag, _ = ws
    n = inv_mass.shape[0]
    m = phi.shape[0]
    q = y[:n]
    v = y[n : 2 * n]
    spring_damping = applied_forces(q, v, mass, gravity, load_int, load_par, Q)
    damping, friction = clearance_forces(
        q, v, clear_int, clear_par, in_contact, approach_velocity, Q, diag
    )
    constraint_jacobian(q, joint_int, joint_par, jac)
    constraint_rates(q, v, joint_int, joint_par, gamma, phi_t)
    if alpha != 0.0 or beta != 0.0:
        constraint_values(q, t, joint_int, joint_par, phi)
    for i in range(m):
        rate = phi_t[i]
        for k in range(n):
            rate += jac[i, k] * v[k]
        g = gamma[i]
        if alpha != 0.0 or beta != 0.0:
            g -= 2.0 * alpha * rate + beta * beta * phi[i]
        s = 0.0
        for k in range(n):
            s += jac[i, k] * inv_mass[k] * Q[k]
        lam[i] = s - g
    if not schur_solve(jac, inv_mass, schur, lam):
        return False
    driver_power = 0.0
    for i in range(m):
        driver_power += lam[i] * phi_t[i]
    for k in range(n):
        f = Q[k]
        for i in range(m):
            f -= jac[i, k] * lam[i]
        dydt[k] = v[k]
        dydt[n + k] = inv_mass[k] * f
    dydt[2 * n + AUX_DRIVER_WORK] = driver_power
    dydt[2 * n + AUX_DAMPING] = damping + spring_damping
    dydt[2 * n + AUX_FRICTION] = friction
    a = dydt[n + probe] if probe >= 0 else 0.0
    dydt[2 * n + AUX_ACCEL2] = a * a
    return True
