"""Compiled kernels for the ideal joints: ``Phi(q, t)``, ``Phi_q``, ``Phi_t`` and ``gamma``.

``gamma`` is the right-hand side of the acceleration equation ``Phi_q q'' = gamma``
(``gamma = -(Phi_q q')_q q' - 2 Phi_qt q' - Phi_tt``). Row order follows the joint table of
:mod:`assembly`; every array is preallocated by the caller (these run inside the RHS).
Body index -1 is the ground: position 0, angle 0, its "local" point is a global point.
"""

from __future__ import annotations

import math

import numpy as np

from .assembly import FIXED, REVOLUTE, TRANSLATIONAL
from .jit import kernel


@kernel
def body_point(q: np.ndarray, body: int, sx: float, sy: float) -> tuple[float, float, float, float]:
    """Global position of local point ``s`` of ``body`` and ``B s = dA/dphi s``.

    Returns ``(px, py, bx, by)``; for the ground ``(sx, sy, 0, 0)``.
    """
    if body < 0:
        return sx, sy, 0.0, 0.0
    c = math.cos(q[3 * body + 2])
    s = math.sin(q[3 * body + 2])
    ax = c * sx - s * sy
    ay = s * sx + c * sy
    return q[3 * body] + ax, q[3 * body + 1] + ay, -ay, ax


@kernel
def constraint_values(q, t, joint_int, joint_par, phi):
    """Fill ``phi`` [m or rad] with the constraint violations at ``(q, t)``."""
    row = 0
    for k in range(joint_int.shape[0]):
        kind, bi, bj = joint_int[k, 0], joint_int[k, 1], joint_int[k, 2]
        p = joint_par[k]
        if kind == REVOLUTE:
            xi, yi, _, _ = body_point(q, bi, p[0], p[1])
            xj, yj, _, _ = body_point(q, bj, p[2], p[3])
            phi[row] = xi - xj - p[4]
            phi[row + 1] = yi - yj - p[5]
            row += 2
        elif kind == TRANSLATIONAL:
            xi, yi, _, _ = body_point(q, bi, p[0], p[1])
            phi[row] = -p[5] * (xi - p[2]) + p[4] * (yi - p[3])
            phi[row + 1] = q[3 * bi + 2] - p[6]
            row += 2
        elif kind == FIXED:
            phi[row] = q[3 * bi] - p[0]
            phi[row + 1] = q[3 * bi + 1] - p[1]
            phi[row + 2] = q[3 * bi + 2] - p[2]
            row += 3
        else:  # DRIVER
            phi[row] = q[3 * bi + 2] - p[1] - p[0] * t
            row += 1


@kernel
def constraint_jacobian(q, joint_int, joint_par, jac):
    """Fill ``jac`` (``[m, 3 nb]``, zeroed here) with ``Phi_q``."""
    jac[:, :] = 0.0
    row = 0
    for k in range(joint_int.shape[0]):
        kind, bi, bj = joint_int[k, 0], joint_int[k, 1], joint_int[k, 2]
        p = joint_par[k]
        if kind == REVOLUTE:
            for body, s0, s1, sign in ((bi, p[0], p[1], 1.0), (bj, p[2], p[3], -1.0)):
                if body >= 0:
                    _, _, bx, by = body_point(q, body, s0, s1)
                    jac[row, 3 * body] += sign
                    jac[row + 1, 3 * body + 1] += sign
                    jac[row, 3 * body + 2] += sign * bx
                    jac[row + 1, 3 * body + 2] += sign * by
            row += 2
        elif kind == TRANSLATIONAL:
            _, _, bx, by = body_point(q, bi, p[0], p[1])
            jac[row, 3 * bi] = -p[5]
            jac[row, 3 * bi + 1] = p[4]
            jac[row, 3 * bi + 2] = -p[5] * bx + p[4] * by
            jac[row + 1, 3 * bi + 2] = 1.0
            row += 2
        elif kind == FIXED:
            for d in range(3):
                jac[row + d, 3 * bi + d] = 1.0
            row += 3
        else:
            jac[row, 3 * bi + 2] = 1.0
            row += 1


@kernel
def constraint_rates(q, v, joint_int, joint_par, gamma, phi_t):
    """Fill ``gamma`` (acceleration right-hand side) and ``phi_t`` (explicit time rate)."""
    row = 0
    for k in range(joint_int.shape[0]):
        kind, bi, bj = joint_int[k, 0], joint_int[k, 1], joint_int[k, 2]
        p = joint_par[k]
        if kind == REVOLUTE:
            gx = 0.0
            gy = 0.0
            # d2/dt2 (A s) = B s phi'' - A s phi'^2: the centripetal part moves to gamma
            for body, s0, s1, sign in ((bi, p[0], p[1], 1.0), (bj, p[2], p[3], -1.0)):
                if body >= 0:
                    _, _, bx, by = body_point(q, body, s0, s1)
                    w2 = v[3 * body + 2] ** 2
                    gx += sign * by * w2  # A s = (by, -bx)
                    gy -= sign * bx * w2
            gamma[row] = gx
            gamma[row + 1] = gy
            phi_t[row] = 0.0
            phi_t[row + 1] = 0.0
            row += 2
        elif kind == TRANSLATIONAL:
            _, _, bx, by = body_point(q, bi, p[0], p[1])
            w2 = v[3 * bi + 2] ** 2
            gamma[row] = -p[5] * by * w2 - p[4] * bx * w2
            gamma[row + 1] = 0.0
            phi_t[row] = 0.0
            phi_t[row + 1] = 0.0
            row += 2
        elif kind == FIXED:
            for d in range(3):
                gamma[row + d] = 0.0
                phi_t[row + d] = 0.0
            row += 3
        else:
            gamma[row] = 0.0
            phi_t[row] = -p[0]
            row += 1
