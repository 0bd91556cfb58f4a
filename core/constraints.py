"""Compiled kernels for the ideal joints: ``Phi(q, t)``, ``Phi_q``, ``Phi_t`` and ``gamma``.

``gamma`` is the right-hand side of the acceleration equation ``Phi_q q'' = gamma``
(``gamma = -(Phi_q q')_q q' - 2 Phi_qt q' - Phi_tt``). Row order follows the joint table of
:mod:`assembly`. Body index -1 is the ground: position 0, angle 0, its "local" point is a
global point.

Every row of ``Phi_q`` touches at most two bodies, so the equations of motion use it in
*row-block* form: ``row_body[r] = (a, b)`` and ``row_coef[r] = (3 coefficients on body a's
x, y, phi, 3 on body b's)``, -1 for no body. :func:`constraint_jacobian` expands the blocks
into the dense matrix for the analyses that want one. ``rot`` is the ``[nb, 3]`` table of
each body's ``(cos phi, sin phi, phi)`` (:func:`rotations`), computed once per state.
"""

from __future__ import annotations

import math

import numpy as np

from .assembly import FIXED, REVOLUTE, ROWS, SLIDE, TRANSLATIONAL
from .jit import kernel


@kernel
def rotation_table(n_bodies):
    """An empty table for :func:`rotations`, shape ``[n_bodies, 3]``."""
    return np.full((n_bodies, 3), np.nan)


@kernel(runtime=False)  # a call LLVM inlines: numba's own inlining was slow
def rotations(q, rot):
    """Fill ``rot[b] = (cos phi_b, sin phi_b, phi_b)`` for every body.

    A body whose angle equals the one the table holds keeps its entries: cos and sin were a
    seventh of the run time, and the same state is rotated by the RHS, the events, the
    projection and the energy in turn (a slider never turns at all).
    """
    for b in range(rot.shape[0]):
        phi = q[3 * b + 2]
        if phi != rot[b, 2]:  # NaN at first: always computed
            rot[b, 0] = math.cos(phi)
            rot[b, 1] = math.sin(phi)
            rot[b, 2] = phi


@kernel(runtime=False)  # a call LLVM inlines: numba's own inlining was slow
def body_point(q, rot, body, sx, sy):
    """Global position of local point ``s`` of ``body`` and ``B s = dA/dphi s``.

    Returns ``(px, py, bx, by)``; for the ground ``(sx, sy, 0, 0)``. Note ``A s = (by, -bx)``.
    """
    if body < 0:
        return sx, sy, 0.0, 0.0
    c, s = rot[body, 0], rot[body, 1]
    ax = c * sx - s * sy
    ay = s * sx + c * sy
    return q[3 * body] + ax, q[3 * body + 1] + ay, -ay, ax


@kernel(inline="always")
def driver_motion(omega, ramp, t):
    """A driver's prescribed angle past ``phi0`` [rad], its rate [rad/s] and acceleration
    [rad/s^2] at ``t`` [s].

    ``ramp = 0``: constant speed ``omega``. ``ramp > 0`` (the run-up start): the speed rises
    from rest as ``omega s^2 (3 - 2 s)``, ``s = t / ramp`` (smooth: the acceleration is zero
    at both ends, so the ramp itself excites no impact), then stays at ``omega``; the ramp
    turns ``omega ramp / 2`` radians, and from its end on the angle is ``omega (t - ramp/2)``.
    """
    if ramp <= 0.0:
        return omega * t, omega, 0.0
    if t >= ramp:
        return omega * (t - 0.5 * ramp), omega, 0.0
    s = t / ramp
    return (
        omega * ramp * s**3 * (1.0 - 0.5 * s),
        omega * s * s * (3.0 - 2.0 * s),
        (6.0 * omega * s * (1.0 - s) / ramp),
    )


@kernel(inline="always")
def constraint_values_rot(q, rot, t, joint_int, joint_par, phi):
    """Fill ``phi`` [m or rad] with the constraint violations at ``(q, t)``."""
    row = 0
    for k in range(joint_int.shape[0]):
        kind, bi, bj = joint_int[k, 0], joint_int[k, 1], joint_int[k, 2]
        if kind == REVOLUTE:
            xi, yi, _, _ = body_point(q, rot, bi, joint_par[k, 0], joint_par[k, 1])
            xj, yj, _, _ = body_point(q, rot, bj, joint_par[k, 2], joint_par[k, 3])
            phi[row] = xi - xj - joint_par[k, 4]
            phi[row + 1] = yi - yj - joint_par[k, 5]
        elif kind == TRANSLATIONAL:
            xi, yi, _, _ = body_point(q, rot, bi, joint_par[k, 0], joint_par[k, 1])
            phi[row] = -joint_par[k, 5] * (xi - joint_par[k, 2]) + joint_par[k, 4] * (
                yi - joint_par[k, 3]
            )
            phi[row + 1] = q[3 * bi + 2] - joint_par[k, 6]
        elif kind == FIXED:
            phi[row] = q[3 * bi] - joint_par[k, 0]
            phi[row + 1] = q[3 * bi + 1] - joint_par[k, 1]
            phi[row + 2] = q[3 * bi + 2] - joint_par[k, 2]
        elif kind == SLIDE:
            nx, ny, dx, dy = slide_frame(q, rot, bi, bj, joint_par[k])
            phi[row] = nx * dx + ny * dy
            phi[row + 1] = q[3 * bj + 2] - q[3 * bi + 2] - joint_par[k, 6]
        else:  # DRIVER
            angle = driver_motion(joint_par[k, 0], joint_par[k, 2], t)[0]
            phi[row] = q[3 * bi + 2] - joint_par[k, 1] - angle
        row += ROWS[kind]


@kernel(runtime=False)  # a call LLVM inlines: numba's own inlining was slow
def slide_frame(q, rot, bi, bj, par):
    """A SLIDE joint's normal ``n = A_i n_i`` (global, unit) and the gap ``d = r_j + A_j s_j
    - r_i - A_i s_i`` [m] from the guide's line point to the slider's point: ``(nx, ny, dx,
    dy)``. ``n_i = (-dir_y, dir_x)``, ``par`` the joint's ``joint_par`` row."""
    c, s = rot[bi, 0], rot[bi, 1]
    nix, niy = -par[5], par[4]
    xi, yi, _, _ = body_point(q, rot, bi, par[0], par[1])
    xj, yj, _, _ = body_point(q, rot, bj, par[2], par[3])
    return c * nix - s * niy, s * nix + c * niy, xj - xi, yj - yi


@kernel(runtime=False)  # a call LLVM inlines: numba's own inlining was slow
def _set_row(row_body, row_coef, r, a, ca0, ca1, ca2, b, cb0, cb1, cb2):
    row_body[r, 0] = a
    row_body[r, 1] = b
    row_coef[r, 0], row_coef[r, 1], row_coef[r, 2] = ca0, ca1, ca2
    row_coef[r, 3], row_coef[r, 4], row_coef[r, 5] = cb0, cb1, cb2


@kernel(inline="always")
def constraint_rows(q, v, rot, joint_int, joint_par, row_body, row_coef, gamma, phi_t, t):
    """Fill the row blocks of ``Phi_q``, ``gamma`` and ``phi_t`` at time ``t`` [s] in one pass
    over the joints (only a driver's run-up reads ``t``)."""
    row = 0
    for k in range(joint_int.shape[0]):
        kind, bi, bj = joint_int[k, 0], joint_int[k, 1], joint_int[k, 2]
        if kind == REVOLUTE:
            _, _, bxi, byi = body_point(q, rot, bi, joint_par[k, 0], joint_par[k, 1])
            _, _, bxj, byj = body_point(q, rot, bj, joint_par[k, 2], joint_par[k, 3])
            _set_row(row_body, row_coef, row, bi, 1.0, 0.0, bxi, bj, -1.0, 0.0, -bxj)
            _set_row(row_body, row_coef, row + 1, bi, 0.0, 1.0, byi, bj, 0.0, -1.0, -byj)
            # d2/dt2 (A s) = B s phi'' - A s phi'^2: the centripetal part moves to gamma
            wi2 = v[3 * bi + 2] ** 2 if bi >= 0 else 0.0
            wj2 = v[3 * bj + 2] ** 2 if bj >= 0 else 0.0
            gamma[row] = byi * wi2 - byj * wj2
            gamma[row + 1] = -bxi * wi2 + bxj * wj2
            phi_t[row] = 0.0
            phi_t[row + 1] = 0.0
        elif kind == TRANSLATIONAL:
            _, _, bx, by = body_point(q, rot, bi, joint_par[k, 0], joint_par[k, 1])
            nx, ny = -joint_par[k, 5], joint_par[k, 4]
            _set_row(row_body, row_coef, row, bi, nx, ny, nx * bx + ny * by, -1, 0.0, 0.0, 0.0)
            _set_row(row_body, row_coef, row + 1, bi, 0.0, 0.0, 1.0, -1, 0.0, 0.0, 0.0)
            gamma[row] = (nx * by - ny * bx) * v[3 * bi + 2] ** 2
            gamma[row + 1] = 0.0
            phi_t[row] = 0.0
            phi_t[row + 1] = 0.0
        elif kind == FIXED:
            for d in range(3):
                _set_row(row_body, row_coef, row + d, bi, 0.0, 0.0, 0.0, -1, 0.0, 0.0, 0.0)
                row_coef[row + d, d] = 1.0
                gamma[row + d] = 0.0
                phi_t[row + d] = 0.0
        elif kind == SLIDE:
            # f = n.(r_j + A_j s_j - r_i) - n_i.s_i (n.A_i s_i is constant), n' = -u w_i with
            # u = A_i u_i the direction, u' = n w_i: f_phi_i = -u.D, D = r_j + A_j s_j - r_i
            nx, ny, dx, dy = slide_frame(q, rot, bi, bj, joint_par[k])
            ux, uy = ny, -nx
            _, _, bxi, byi = body_point(q, rot, bi, joint_par[k, 0], joint_par[k, 1])
            _, _, bxj, byj = body_point(q, rot, bj, joint_par[k, 2], joint_par[k, 3])
            big_dx, big_dy = dx + byi, dy - bxi  # d + A_i s_i (A s = (by, -bx))
            wi, wj = v[3 * bi + 2], v[3 * bj + 2]
            _set_row(row_body, row_coef, row, bi, -nx, -ny, -(ux * big_dx + uy * big_dy),
                     bj, nx, ny, nx * bxj + ny * byj)
            _set_row(row_body, row_coef, row + 1, bi, 0.0, 0.0, -1.0, bj, 0.0, 0.0, 1.0)
            # f'' = n.D'' - 2 w_i u.D' - w_i^2 n.D - alpha_i u.D: the terms without an
            # acceleration, with D'' = a_j + B_j s_j alpha_j - A_j s_j w_j^2, go to gamma
            ddx = v[3 * bj] + bxj * wj - v[3 * bi]
            ddy = v[3 * bj + 1] + byj * wj - v[3 * bi + 1]
            gamma[row] = (wi * wi * (nx * big_dx + ny * big_dy)
                          + 2.0 * wi * (ux * ddx + uy * ddy)
                          + wj * wj * (nx * byj - ny * bxj))
            gamma[row + 1] = 0.0
            phi_t[row] = 0.0
            phi_t[row + 1] = 0.0
        else:  # DRIVER: phi - phi0 - f(t) = 0, so phi_t = -f' and gamma = f''
            _set_row(row_body, row_coef, row, bi, 0.0, 0.0, 1.0, -1, 0.0, 0.0, 0.0)
            _, rate, accel = driver_motion(joint_par[k, 0], joint_par[k, 2], t)
            gamma[row] = accel
            phi_t[row] = -rate
        row += ROWS[kind]


# ---- dense forms for the analyses (kinematics, statics, linearisation) --------------------


@kernel
def _dense(row_body, row_coef, jac):
    jac[:, :] = 0.0
    for r in range(row_body.shape[0]):
        for side in range(2):
            b = row_body[r, side]
            if b >= 0:
                for d in range(3):
                    jac[r, 3 * b + d] += row_coef[r, 3 * side + d]


@kernel
def constraint_values(q, t, joint_int, joint_par, phi):
    """Fill ``phi`` [m or rad] with the constraint violations at ``(q, t)``."""
    rot = rotation_table(q.shape[0] // 3)
    rotations(q, rot)
    constraint_values_rot(q, rot, t, joint_int, joint_par, phi)


@kernel
def constraint_jacobian(q, joint_int, joint_par, jac):
    """Fill the dense ``Phi_q`` (``[m, 3 nb]``)."""
    m = jac.shape[0]
    rot = rotation_table(q.shape[0] // 3)
    rotations(q, rot)
    row_body = np.empty((m, 2), dtype=np.int64)
    row_coef = np.empty((m, 6))
    scratch = np.empty(m)
    constraint_rows(q, q, rot, joint_int, joint_par, row_body, row_coef, scratch, scratch, 0.0)
    _dense(row_body, row_coef, jac)


@kernel
def constraint_rates(q, v, joint_int, joint_par, gamma, phi_t):
    """Fill ``gamma`` (acceleration right-hand side) and ``phi_t`` (explicit time rate) at
    t = 0 (where the analyses and the initial state read them)."""
    m = gamma.shape[0]
    rot = rotation_table(q.shape[0] // 3)
    rotations(q, rot)
    row_body = np.empty((m, 2), dtype=np.int64)
    row_coef = np.empty((m, 6))
    constraint_rows(q, v, rot, joint_int, joint_par, row_body, row_coef, gamma, phi_t, 0.0)
