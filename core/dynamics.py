r"""The equations of motion: accelerations and multipliers of one case at one instant.

Index-1 form of the constrained equations (ADAMS style, design.md 1.1)::

    M q'' + Phi_q^T lambda = Q,      Phi_q q'' = gamma - 2 alpha Phi' - beta^2 Phi

``M = diag(m, m, J)`` per body is diagonal, so the augmented system is solved through its
Schur complement ``S = Phi_q M^-1 Phi_q^T`` (m x m, symmetric positive definite for
independent constraints) with a small in-place Cholesky. A *prescribed* body (a driven
crank, a fixed body; :mod:`assembly`) is eliminated first: its own three rows give its
acceleration, the rows that couple it to free bodies take that acceleration to their
right-hand side, and the Schur complement is built over the free rows only, with
``M^-1`` zero on prescribed bodies (``inv_mass``). Its multipliers follow from its own
equations of motion. The result is the same solution of the same equations, at a third
less cost per evaluation for the slider-crank (4 Schur rows instead of 7).

``Phi_q`` stays in row-block form (each row touches at most two bodies,
:mod:`constraints`), so building S costs only the entries between rows that share a body:
no dense augmented matrix, no allocation, no LAPACK call per evaluation. The Baumgarte
terms are zero unless chosen; the default keeps the constraints by projection after each
step (:mod:`projection`).

The ODE state of a case is ``y = [q (n), v (n), W_driver, E_damping, E_friction, I_a2,
E_film, W_film]``: the last six are quadratures integrated with the motion under the same
error control - external work [J] (the driver's and the applied forces' and torques'), energy
dissipated by contact damping and by friction [J], the integral of the squared probe
acceleration [m^2/s^3] for its RMS, the energy the oil films dissipate [J] and the work the
turning surfaces feed into the films' wedges [J] (:func:`forces.film_forces`; zero on a dry
case, whose steps they then leave unchanged). A case with a lubricated joint carries one more
quadrature per clearance joint after them, ``E_film`` of joint k alone [J] (``y[2 n + N_AUX +
k]``, :func:`film_columns`; their sum is ``E_film``), also out of the error control.
"""

from __future__ import annotations

import math

import numpy as np

from .constraints import constraint_rows, constraint_values_rot, rotation_table, rotations
from .forces import D_FILM, N_DIAG, applied_forces, clearance_forces
from .jit import inlined, kernel

N_AUX = 6
AUX_DRIVER_WORK, AUX_DAMPING, AUX_FRICTION, AUX_ACCEL2, AUX_FILM, AUX_FILM_WORK = range(N_AUX)
# the film's quadratures (AUX_FILM on, and the per-joint ones after N_AUX) stay out of the
# step's error norm (:func:`integrators.error_norm`, through ``UNCONTROLLED_ATOL``): they feed
# nothing back into the motion, and leaving them out keeps every dry case's steps exactly
# what they were before the film existed. N_UNCONTROLLED: how many of the N_AUX those are
N_UNCONTROLLED = 2
# a component whose absolute tolerance is this is a quadrature outside the error control
UNCONTROLLED_ATOL = math.inf


def film_columns(n_clear: int, lubricated: bool) -> int:
    """The per-joint film quadratures a case's state carries after the ``N_AUX`` ones: one
    per clearance joint when any is lubricated (``film_dissipated_energy.<joint>``), else
    none (a dry case's state is as it was)."""
    return n_clear if lubricated else 0


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
    WS_ACC_PRESCRIBED,
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
        np.zeros(n),  # accelerations of the prescribed bodies (zero elsewhere)
        rotation_table(n // 3),  # (cos, sin, angle) of each body
        np.zeros((2 * m * (m + 1), 4), dtype=np.int64),  # Schur sparsity (schur_pattern)
        np.zeros(1, dtype=np.int64),  # its length, 0 until built
    )


@kernel(inline="always")
def cholesky_factor(a, m):
    """Factor the leading ``m x m`` block of a small SPD ``a`` in place: ``L`` below the
    diagonal, ``1 / L_jj`` on it (the substitutions then multiply: one division per column
    instead of one per entry). False when it is not positive definite (redundant or
    singular constraints)."""
    ok = True
    for j in range(m):
        d = a[j, j]
        for k in range(j):
            d -= a[j, k] * a[j, k]
        if d <= 0.0:
            ok = False
            break
        inv = 1.0 / math.sqrt(d)
        a[j, j] = inv
        for i in range(j + 1, m):
            s = a[i, j]
            for k in range(j):
                s -= a[i, k] * a[j, k]
            a[i, j] = s * inv
    return ok


@kernel(inline="always")
def cholesky_substitute(a, b, m):
    """Solve ``L L^T x = b`` in place (``b`` becomes x) with ``a`` from
    :func:`cholesky_factor`."""
    for i in range(m):
        s = b[i]
        for k in range(i):
            s -= a[i, k] * b[k]
        b[i] = s * a[i, i]
    for i in range(m - 1, -1, -1):
        s = b[i]
        for k in range(i + 1, m):
            s -= a[k, i] * b[k]
        b[i] = s * a[i, i]


@kernel(inline="always")
def weigh_rows(row_body, row_coef, inv_mass, weighted, m_rows):
    """``weighted = Phi_q M^-1`` in row-block form, for the first ``m_rows`` rows (the free
    rows: a prescribed body's own rows never enter the Schur complement)."""
    for r in range(m_rows):
        for side in range(2):
            b = row_body[r, side]
            for d in range(3):
                c = 3 * side + d
                weighted[r, c] = row_coef[r, c] * inv_mass[3 * b + d] if b >= 0 else 0.0


@kernel(runtime=False)  # a call LLVM inlines: numba's own inlining was slow
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
def schur_pattern(row_body, prescribed, pattern, count):
    """List the couplings of ``S = Phi_q M^-1 Phi_q^T`` over the free rows (all but the
    last three per prescribed body): ``pattern[p] = (i, j, ci, cj)`` for rows i >= j whose
    blocks at columns ci, cj act on the same free body.

    Which body a row acts on depends on the topology only, so this is built once per case
    and the RHS then touches only the non-zero products.
    """
    m_free = row_body.shape[0] - 3 * prescribed.shape[0]
    p = 0
    for i in range(m_free):
        for j in range(i + 1):
            for si in range(2):
                b = row_body[i, si]
                if b < 0 or _is_prescribed(prescribed, b):
                    continue
                for sj in range(2):
                    if row_body[j, sj] == b:
                        pattern[p, 0], pattern[p, 1] = i, j
                        pattern[p, 2], pattern[p, 3] = 3 * si, 3 * sj
                        p += 1
    count[0] = p


@kernel(runtime=False)  # a call LLVM inlines: numba's own inlining was slow
def _is_prescribed(prescribed, body):
    found = False
    for k in range(prescribed.shape[0]):
        found = found or prescribed[k] == body
    return found


@kernel(inline="always")
def schur_factor(row_coef, weighted, schur, pattern, count, m_free):
    """Assemble ``S = Phi_q M^-1 Phi_q^T`` over the first ``m_free`` rows and factor it in
    place; False if singular."""
    for i in range(m_free):
        for j in range(i + 1):
            schur[i, j] = 0.0
    for p in range(count[0]):
        i, j, ci, cj = pattern[p, 0], pattern[p, 1], pattern[p, 2], pattern[p, 3]
        schur[i, j] += (
            weighted[i, ci] * row_coef[j, cj]
            + weighted[i, ci + 1] * row_coef[j, cj + 1]
            + weighted[i, ci + 2] * row_coef[j, cj + 2]
        )
    return cholesky_factor(schur, m_free)


@kernel(inline="always")
def subtract_transpose(row_body, coef, lam, out, m_rows):
    """``out -= Phi_q^T lam`` over the first ``m_rows`` rows (``coef`` the row blocks of
    Phi_q, or of Phi_q M^-1)."""
    for r in range(m_rows):
        for side in range(2):
            b = row_body[r, side]
            if b >= 0:
                for d in range(3):
                    out[3 * b + d] -= coef[r, 3 * side + d] * lam[r]


@kernel(runtime=False)  # a call LLVM inlines: numba's own inlining was slow
def _coefs_on(row_body, row_coef, r, body):
    """The three coefficients of row ``r`` on ``body`` (x, y, phi)."""
    c = 0 if row_body[r, 0] == body else 3
    return row_coef[r, c], row_coef[r, c + 1], row_coef[r, c + 2]


@kernel(inline="always")
def prescribed_solve(row_body, row_coef, r0, body, r0_, r1_, r2_, transpose):
    """Solve the 3 x 3 block ``A`` of rows ``r0 .. r0+2`` on ``body`` (or ``A^T``) for the
    right-hand side ``(r0_, r1_, r2_)``; returns the solution as three scalars.

    The block of a revolute-to-ground plus driver is ``[[1, 0, bx], [0, 1, by], [0, 0, 1]]``
    up to sign, of a fixed joint the identity: well conditioned, so Cramer's rule.
    """
    a00, a01, a02 = _coefs_on(row_body, row_coef, r0, body)
    a10, a11, a12 = _coefs_on(row_body, row_coef, r0 + 1, body)
    a20, a21, a22 = _coefs_on(row_body, row_coef, r0 + 2, body)
    if transpose:
        a01, a10 = a10, a01
        a02, a20 = a20, a02
        a12, a21 = a21, a12
    c00 = a11 * a22 - a12 * a21
    c01 = a12 * a20 - a10 * a22
    c02 = a10 * a21 - a11 * a20
    inv_det = 1.0 / (a00 * c00 + a01 * c01 + a02 * c02)
    x0 = (r0_ * c00 + a01 * (a12 * r2_ - r1_ * a22) + a02 * (r1_ * a21 - a11 * r2_)) * inv_det
    x1 = (a00 * (r1_ * a22 - a12 * r2_) + r0_ * c01 + a02 * (a10 * r2_ - r1_ * a20)) * inv_det
    x2 = (a00 * (a11 * r2_ - r1_ * a21) + a01 * (r1_ * a20 - a10 * r2_) + r0_ * c02) * inv_det
    return x0, x1, x2


@kernel(inline="always")
def solve_prescribed(row_body, row_coef, prescribed, m_free, rhs, out):
    """Solve each prescribed body's own rows ``A_p x_p = rhs_P`` into ``out`` (zero on the
    free bodies), then move that part to the free rows' right-hand side:
    ``rhs_F -= Phi_F,p x_p``. ``rhs`` is an acceleration or a correction right-hand side."""
    for k in range(out.shape[0]):
        out[k] = 0.0
    for kp in range(prescribed.shape[0]):
        b, r0 = prescribed[kp], m_free + 3 * kp
        x0, x1, x2 = prescribed_solve(
            row_body, row_coef, r0, b, rhs[r0], rhs[r0 + 1], rhs[r0 + 2], False
        )
        out[3 * b], out[3 * b + 1], out[3 * b + 2] = x0, x1, x2
    for r in range(m_free):
        rhs[r] -= row_dot(row_body, row_coef, r, out)


@kernel
def inverse_mass(mass, inertia, prescribed, out):
    """Fill ``out`` (length 3 nb) with the diagonal of M^-1, zero on prescribed bodies
    (their motion is not an unknown of the Schur system)."""
    for b in range(mass.shape[0]):
        out[3 * b] = 1.0 / mass[b]
        out[3 * b + 1] = 1.0 / mass[b]
        out[3 * b + 2] = 1.0 / inertia[b]
    for k in range(prescribed.shape[0]):
        for d in range(3):
            out[3 * prescribed[k] + d] = 0.0


@kernel(runtime=False)  # a call: numba types and lowers the RHS once for all its callers
def derivative(t, y, model, in_contact, approach_velocity, alpha, beta, probe, inv_mass, ws, dydt):
    """Fill ``dydt`` with the time derivative of the state ``y`` at time ``t`` [s].

    ``model`` is the case's :class:`~.assembly.CaseModel`; ``inv_mass`` the diagonal of M^-1 with
    prescribed bodies zero (:func:`inverse_mass`); ``alpha``, ``beta`` the Baumgarte gains
    [1/s] (0 for none). Returns False if the constraint equations are singular. The
    multipliers stay in ``ws[WS_LAMBDA]`` and the contact diagnostics in ``ws[WS_DIAG]``.
    """
    joint_int, joint_par = model.joint_int, model.joint_par
    load_int, load_par = model.load_int, model.load_par
    clear_int, clear_par = model.clear_int, model.clear_par
    mass, inertia, gravity, prescribed = model.mass, model.inertia, model.gravity, model.prescribed
    row_body, row_coef, weighted, schur = ws[0], ws[1], ws[2], ws[3]
    phi, gamma, phi_t, lam, Q, diag, rot = ws[4], ws[5], ws[6], ws[7], ws[8], ws[9], ws[11]
    acc_p, pattern, count = ws[10], ws[12], ws[13]
    n = inv_mass.shape[0]
    m = phi.shape[0]
    m_free = m - 3 * prescribed.shape[0]
    q = y[:n]
    v = y[n : 2 * n]
    rotations(q, rot)
    spring_damping, load_power = applied_forces(q, v, rot, mass, gravity, load_int, load_par, Q)
    damping, friction, film, film_work = clearance_forces(
        q, v, rot, clear_int, clear_par, in_contact, approach_velocity, Q, diag
    )
    constraint_rows(q, v, rot, joint_int, joint_par, row_body, row_coef, gamma, phi_t, t)
    if count[0] == 0 and m_free > 0:
        schur_pattern(row_body, prescribed, pattern, count)
    if alpha != 0.0 or beta != 0.0:
        constraint_values_rot(q, rot, t, joint_int, joint_par, phi)
        for r in range(m):
            rate = phi_t[r] + row_dot(row_body, row_coef, r, v)
            gamma[r] -= 2.0 * alpha * rate + beta * beta * phi[r]
    # prescribed bodies: the acceleration their own rows fix (zero for the free bodies)
    solve_prescribed(row_body, row_coef, prescribed, m_free, gamma, acc_p)
    weigh_rows(row_body, row_coef, inv_mass, weighted, m_free)
    for r in range(m_free):
        lam[r] = row_dot(row_body, weighted, r, Q) - gamma[r]
    # a singular system leaves dydt untouched
    ok = schur_factor(row_coef, weighted, schur, pattern, count, m_free)
    if ok:
        cholesky_substitute(schur, lam, m_free)
        subtract_transpose(row_body, row_coef, lam, Q, m_free)  # Q - Phi_F^T lambda_F
        for k in range(n):
            dydt[k] = v[k]
            dydt[n + k] = Q[k] * inv_mass[k] + acc_p[k]
        for kp in range(prescribed.shape[0]):
            # M_p a_p + A^T lambda_P = Q_p - (Phi_F^T lambda_F)_p for the body's own rows
            b, r0 = prescribed[kp], m_free + 3 * kp
            l0, l1, l2 = prescribed_solve(
                row_body,
                row_coef,
                r0,
                b,
                Q[3 * b] - mass[b] * acc_p[3 * b],
                Q[3 * b + 1] - mass[b] * acc_p[3 * b + 1],
                Q[3 * b + 2] - inertia[b] * acc_p[3 * b + 2],
                True,
            )
            lam[r0], lam[r0 + 1], lam[r0 + 2] = l0, l1, l2
        driver_power = 0.0
        for r in range(m):
            driver_power += lam[r] * phi_t[r]
        # the applied loads' work is external work as the driver's is (energy balance)
        dydt[2 * n + AUX_DRIVER_WORK] = driver_power + load_power
        dydt[2 * n + AUX_DAMPING] = damping + spring_damping
        dydt[2 * n + AUX_FRICTION] = friction
        dydt[2 * n + AUX_FILM] = film
        dydt[2 * n + AUX_FILM_WORK] = film_work
        for k in range(dydt.shape[0] - 2 * n - N_AUX):  # per joint, when the state has them
            dydt[2 * n + N_AUX + k] = diag[k, D_FILM]
        a = dydt[n + probe] if probe >= 0 else 0.0
        dydt[2 * n + AUX_ACCEL2] = a * a
    return ok


# the RK stage loop's own copy (integrators.erk_step): there a call to the RHS made the batch
# ~10 % slower (15-case study, 1 thread: 98 ms against 89 ms), elsewhere it is a call
derivative_inlined = inlined(derivative)
