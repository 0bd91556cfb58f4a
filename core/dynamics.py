r"""The equations of motion: accelerations and multipliers of one case at one instant.

Index-1 form of the constrained equations (ADAMS style, design.md 1.1)::

    M q'' + Phi_q^T lambda = Q,      Phi_q q'' = gamma - 2 alpha Phi' - beta^2 Phi

``M = diag(m, m, J)`` per body is diagonal, so the augmented system is solved through its
Schur complement ``S = Phi_q M^-1 Phi_q^T`` (m x m, symmetric positive definite for
independent constraints) with a small in-place Cholesky. ``Phi_q`` stays in row-block form
(each row touches at most two bodies, :mod:`constraints`), so building S costs only the
entries between rows that share a body: no dense augmented matrix, no allocation, no LAPACK
call per evaluation. The Baumgarte terms are zero unless chosen; the default keeps the
constraints by projection after each step (:mod:`projection`).

The ODE state of a case is ``y = [q (n), v (n), W_driver, E_damping, E_friction, I_a2]``:
the last four are quadratures integrated with the motion under the same error control -
driver work [J], energy dissipated by contact damping and by friction [J], and the
integral of the squared probe acceleration [m^2/s^3] for its RMS.
"""

from __future__ import annotations

import math

import numpy as np

from .constraints import constraint_rows, constraint_values_rot, rotations
from .forces import N_DIAG, applied_forces, clearance_forces
from .jit import kernel

N_AUX = 4
AUX_DRIVER_WORK, AUX_DAMPING, AUX_FRICTION, AUX_ACCEL2 = range(N_AUX)
# workspace slots (see make_workspace)
(
    WS_ROW_BODY,
    WS_ROW_COEF,
    WS_WEIGHTED,
    WS_SCHUR,
    WS_PHI,
    WS_GAMMA,
    WS_PHI_T,
    WS_LAMBDA,
    WS_FORCE,
    WS_DIAG,
    WS_SCRATCH,
    WS_ROT,
    WS_PATTERN,
    WS_N_PATTERN,
) = range(14)


@kernel
def make_workspace(n, m, n_clear):
    """Scratch arrays reused by every evaluation of one case (no allocation in the RHS)."""
    return (
        np.zeros((m, 2), dtype=np.int64),  # row bodies of Phi_q
        np.zeros((m, 6)),  # row coefficients of Phi_q
        np.zeros((m, 6)),  # the same times M^-1
        np.zeros((m, m)),  # Schur complement
        np.zeros(m),  # Phi
        np.zeros(m),  # gamma
        np.zeros(m),  # Phi_t
        np.zeros(m),  # lambda
        np.zeros(n),  # generalized forces Q
        np.zeros((n_clear, N_DIAG)),  # contact diagnostics
        np.zeros(n),  # scratch
        np.zeros((n // 3, 2)),  # (cos, sin) of each body
        np.zeros((2 * m * (m + 1), 4), dtype=np.int64),  # Schur sparsity (schur_pattern)
        np.zeros(1, dtype=np.int64),  # its length, 0 until built
    )


@kernel(inline="always")
def cholesky_solve(a, b):
    """Solve ``a x = b`` in place (``b`` becomes x) for small SPD ``a`` (overwritten).

    Returns False when ``a`` is not positive definite (redundant or singular constraints).
    """
    m = a.shape[0]
    ok = True
    for j in range(m):
        d = a[j, j]
        for k in range(j):
            d -= a[j, k] * a[j, k]
        if d <= 0.0:
            ok = False
            break
        d = math.sqrt(d)
        a[j, j] = d
        for i in range(j + 1, m):
            s = a[i, j]
            for k in range(j):
                s -= a[i, k] * a[j, k]
            a[i, j] = s / d
    if ok:
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
    return ok


@kernel(inline="always")
def weigh_rows(row_body, row_coef, inv_mass, weighted):
    """``weighted = Phi_q M^-1`` in row-block form."""
    for r in range(row_body.shape[0]):
        for side in range(2):
            b = row_body[r, side]
            for d in range(3):
                c = 3 * side + d
                weighted[r, c] = row_coef[r, c] * inv_mass[3 * b + d] if b >= 0 else 0.0


@kernel(inline="always")
def row_dot(row_body, coef, r, x):
    """Row ``r`` of a row-block matrix times the vector ``x`` (length 3 nb)."""
    s = 0.0
    for side in range(2):
        b = row_body[r, side]
        if b >= 0:
            for d in range(3):
                s += coef[r, 3 * side + d] * x[3 * b + d]
    return s


@kernel
def schur_pattern(row_body, pattern, count):
    """List the couplings of ``S = Phi_q M^-1 Phi_q^T``: ``pattern[p] = (i, j, ci, cj)`` for
    rows i >= j whose blocks at columns ci, cj act on the same body.

    Which body a row acts on depends on the topology only, so this is built once per case
    and the RHS then touches only the non-zero products.
    """
    p = 0
    for i in range(row_body.shape[0]):
        for j in range(i + 1):
            for si in range(2):
                b = row_body[i, si]
                if b < 0:
                    continue
                for sj in range(2):
                    if row_body[j, sj] == b:
                        pattern[p, 0], pattern[p, 1] = i, j
                        pattern[p, 2], pattern[p, 3] = 3 * si, 3 * sj
                        p += 1
    count[0] = p


@kernel(inline="always")
def schur_solve(row_coef, weighted, schur, rhs, pattern, count):
    """Solve ``(Phi_q M^-1 Phi_q^T) x = rhs`` in place; False if singular."""
    m = schur.shape[0]
    for i in range(m):
        for j in range(m):
            schur[i, j] = 0.0
    for p in range(count[0]):
        i, j, ci, cj = pattern[p, 0], pattern[p, 1], pattern[p, 2], pattern[p, 3]
        s = (
            weighted[i, ci] * row_coef[j, cj]
            + weighted[i, ci + 1] * row_coef[j, cj + 1]
            + weighted[i, ci + 2] * row_coef[j, cj + 2]
        )
        schur[i, j] += s
        if i != j:
            schur[j, i] += s
    return cholesky_solve(schur, rhs)


@kernel(inline="always")
def subtract_transpose(row_body, coef, lam, out):
    """``out -= Phi_q^T lam`` (``coef`` the row blocks of Phi_q, or of Phi_q M^-1)."""
    for r in range(row_body.shape[0]):
        for side in range(2):
            b = row_body[r, side]
            if b >= 0:
                for d in range(3):
                    out[3 * b + d] -= coef[r, 3 * side + d] * lam[r]


@kernel
def inverse_mass(mass, inertia, out):
    """Fill ``out`` (length 3 nb) with the diagonal of M^-1."""
    for b in range(mass.shape[0]):
        out[3 * b] = 1.0 / mass[b]
        out[3 * b + 1] = 1.0 / mass[b]
        out[3 * b + 2] = 1.0 / inertia[b]


@kernel(inline="always")
def derivative(t, y, model, in_contact, approach_velocity, alpha, beta, probe, inv_mass, ws, dydt):
    """Fill ``dydt`` with the time derivative of the state ``y`` at time ``t`` [s].

    ``model`` is the case's tuple ``(joint_int, joint_par, load_int, load_par, clear_int,
    clear_par, mass, inertia, gravity)``; ``alpha``, ``beta`` the Baumgarte gains [1/s]
    (0 for none). Returns False if the constraint equations are singular. The multipliers
    stay in ``ws[WS_LAMBDA]`` and the contact diagnostics in ``ws[WS_DIAG]`` for the caller.
    """
    joint_int, joint_par, load_int, load_par, clear_int, clear_par, mass, inertia, gravity = model
    row_body, row_coef, weighted, schur = ws[0], ws[1], ws[2], ws[3]
    phi, gamma, phi_t, lam, Q, diag, rot = ws[4], ws[5], ws[6], ws[7], ws[8], ws[9], ws[11]
    pattern, count = ws[12], ws[13]
    n = inv_mass.shape[0]
    m = phi.shape[0]
    q = y[:n]
    v = y[n : 2 * n]
    rotations(q, rot)
    spring_damping = applied_forces(q, v, rot, mass, gravity, load_int, load_par, Q)
    damping, friction = clearance_forces(
        q, v, rot, clear_int, clear_par, in_contact, approach_velocity, Q, diag
    )
    constraint_rows(q, v, rot, joint_int, joint_par, row_body, row_coef, gamma, phi_t)
    if count[0] == 0 and m > 0:
        schur_pattern(row_body, pattern, count)
    stabilize = alpha != 0.0 or beta != 0.0
    if stabilize:
        constraint_values_rot(q, rot, t, joint_int, joint_par, phi)
    weigh_rows(row_body, row_coef, inv_mass, weighted)
    for r in range(m):
        g = gamma[r]
        if stabilize:
            rate = phi_t[r] + row_dot(row_body, row_coef, r, v)
            g -= 2.0 * alpha * rate + beta * beta * phi[r]
        lam[r] = row_dot(row_body, weighted, r, Q) - g
    # single exit (see constraints.body_point): a singular system leaves dydt untouched
    ok = schur_solve(row_coef, weighted, schur, lam, pattern, count)
    if ok:
        for k in range(n):
            dydt[k] = v[k]
            dydt[n + k] = Q[k]
        for r in range(m):
            for side in range(2):
                b = row_body[r, side]
                if b >= 0:
                    for d in range(3):
                        dydt[n + 3 * b + d] -= row_coef[r, 3 * side + d] * lam[r]
        driver_power = 0.0
        for r in range(m):
            driver_power += lam[r] * phi_t[r]
        for k in range(n):
            dydt[n + k] *= inv_mass[k]
        dydt[2 * n + AUX_DRIVER_WORK] = driver_power
        dydt[2 * n + AUX_DAMPING] = damping + spring_damping
        dydt[2 * n + AUX_FRICTION] = friction
        a = dydt[n + probe] if probe >= 0 else 0.0
        dydt[2 * n + AUX_ACCEL2] = a * a
    return ok
