"""Compiled kernels for the generalized forces: gravity, applied loads, springs, and the
revolute clearance joint's contact and friction (design.md 1.2).

``rot`` is the ``[nb, 3]`` table of ``(cos phi, sin phi, phi)`` (:func:`constraints.rotations`).
Forces are projected on ``q = [x, y, phi]`` per body: a force ``F`` at global point ``p`` of
body ``b`` adds ``F`` to the body's ``(x, y)`` rows and ``(p - r_b) x F`` to its ``phi`` row.
"""

from __future__ import annotations

import math

from .assembly import (
    CP_CHI,
    CP_CLR,
    CP_CMAX,
    CP_DEPTH,
    CP_EXP,
    CP_FKIND,
    CP_K,
    CP_LEN,
    CP_LINEK,
    CP_LUB,
    CP_MU,
    CP_MUS,
    CP_RB,
    CP_RJ,
    CP_SBX,
    CP_SBY,
    CP_SHAPE,
    CP_SJX,
    CP_SJY,
    CP_SMODEL,
    CP_V0,
    CP_V1,
    CP_VISC,
    CP_WMAX,
    CP_WN,
    CP_WPROF,
    LP_FRAME,
    LP_TABLE,
    N_TABLE,
    POINT_FORCE,
    SPRING,
    TABLE_FORCE,
    TABLE_TORQUE,
    TORQUE,
)
from .constraints import body_point
from .contact_laws import dissipative_force
from .contact_stiffness import elastic_energy, elastic_force
from .friction_laws import friction_force
from .jit import kernel
from .journal_bearing import film_force
from .worn_contact import worn_contact

# the oil film's force law, compiled from the one Python source the CLI runs too (a call
# LLVM inlines)
_film_force = kernel(runtime=False)(film_force)

# columns of the per-joint contact diagnostics written by ``clearance_forces``
D_DELTA, D_DELTA_DOT, D_FN, D_FT, D_EX, D_EY, D_VT, D_FEL, D_FILM = range(9)
N_DIAG = 9


@kernel(runtime=False)  # a call LLVM inlines: numba's own inlining was slow
def _apply(Q, body, px, py, fx, fy, q):
    """Add force ``(fx, fy)`` acting at global point ``(px, py)`` to body ``body``."""
    if body >= 0:
        Q[3 * body] += fx
        Q[3 * body + 1] += fy
        Q[3 * body + 2] += (px - q[3 * body]) * fy - (py - q[3 * body + 1]) * fx


@kernel(runtime=False)  # a call LLVM inlines: numba's own inlining was slow
def _point_velocity(q, v, body, px, py):
    """Velocity of the material point of ``body`` now at global ``(px, py)``."""
    if body < 0:
        return 0.0, 0.0
    w = v[3 * body + 2]
    return v[3 * body] - w * (py - q[3 * body + 1]), v[3 * body + 1] + w * (px - q[3 * body])


@kernel(runtime=False)
def table_value(q, par, driver):
    """A periodic table load's value at the driver angle of state ``q``.

    The angle is ``sign (phi_driver - phi0)`` wrapped to [0, 2 pi); the value is linear
    between the knots ``par[LP_TABLE:]`` and wraps from the last knot to the first plus
    2 pi (a table of one knot is a constant). A bisection finds the interval.
    """
    n = int(par[6])
    two_pi = 2.0 * math.pi
    a = (par[5] * (q[3 * driver + 2] - par[4])) % two_pi
    v0 = LP_TABLE + N_TABLE
    if n == 1:
        return par[v0]
    first, last = par[LP_TABLE], par[LP_TABLE + n - 1]
    if a < first or a >= last:  # the wrap-around interval
        lo_a, hi_a = last, first + two_pi
        lo_v, hi_v = par[v0 + n - 1], par[v0]
        if a < first:
            a += two_pi
    else:
        lo, hi = 0, n - 1
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if par[LP_TABLE + mid] <= a:
                lo = mid
            else:
                hi = mid
        lo_a, hi_a = par[LP_TABLE + lo], par[LP_TABLE + hi]
        lo_v, hi_v = par[v0 + lo], par[v0 + hi]
    return lo_v + (hi_v - lo_v) * (a - lo_a) / (hi_a - lo_a)


@kernel(inline="always")
def applied_forces(q, v, rot, mass, gravity, load_int, load_par, Q):
    """Fill ``Q`` with gravity and the applied loads.

    A force in its body's frame (``LP_FRAME``) turns with the body. Returns ``(dissipation,
    power)`` [W]: the springs' damping power, and the power of the forces and torques
    (constant or tabled) - external work, which the energy balance counts with the driver's.
    """
    nb = mass.shape[0]
    for b in range(nb):
        Q[3 * b] = mass[b] * gravity[0]
        Q[3 * b + 1] = mass[b] * gravity[1]
        Q[3 * b + 2] = 0.0
    dissipation = 0.0
    power = 0.0
    for k in range(load_int.shape[0]):
        kind, bi, bj = load_int[k, 0], load_int[k, 1], load_int[k, 2]
        if kind in (TORQUE, TABLE_TORQUE):
            tau = load_par[k, 0] if kind == TORQUE else table_value(q, load_par[k], bj)
            if bi >= 0:
                Q[3 * bi + 2] += tau
                power += tau * v[3 * bi + 2]
        elif kind in (POINT_FORCE, TABLE_FORCE):
            px, py, _, _ = body_point(q, rot, bi, load_par[k, 0], load_par[k, 1])
            if kind == POINT_FORCE:
                fx, fy = load_par[k, 2], load_par[k, 3]
            else:
                f = table_value(q, load_par[k], bj)
                fx, fy = f * load_par[k, 2], f * load_par[k, 3]
            if load_par[k, LP_FRAME] != 0.0 and bi >= 0:  # turning with the body
                c, s = rot[bi, 0], rot[bi, 1]
                fx, fy = c * fx - s * fy, s * fx + c * fy
            _apply(Q, bi, px, py, fx, fy, q)
            vx, vy = _point_velocity(q, v, bi, px, py)
            power += fx * vx + fy * vy
        elif kind == SPRING:
            xi, yi, _, _ = body_point(q, rot, bi, load_par[k, 0], load_par[k, 1])
            xj, yj, _, _ = body_point(q, rot, bj, load_par[k, 2], load_par[k, 3])
            dx, dy = xj - xi, yj - yi
            length = math.sqrt(dx * dx + dy * dy)
            ux, uy = dx / length, dy / length
            vix, viy = _point_velocity(q, v, bi, xi, yi)
            vjx, vjy = _point_velocity(q, v, bj, xj, yj)
            rate = ux * (vjx - vix) + uy * (vjy - viy)
            f = load_par[k, 4] * (length - load_par[k, 6]) + load_par[k, 5] * rate
            _apply(Q, bi, xi, yi, f * ux, f * uy, q)
            _apply(Q, bj, xj, yj, -f * ux, -f * uy, q)
            dissipation += load_par[k, 5] * rate * rate
    return dissipation, power


@kernel(runtime=False)
def spring_energy(q, rot, load_int, load_par):
    """Elastic energy [J] stored in the springs."""
    energy = 0.0
    for k in range(load_int.shape[0]):
        if load_int[k, 0] == SPRING:
            p = load_par[k]
            xi, yi, _, _ = body_point(q, rot, load_int[k, 1], p[0], p[1])
            xj, yj, _, _ = body_point(q, rot, load_int[k, 2], p[2], p[3])
            stretch = math.sqrt((xj - xi) ** 2 + (yj - yi) ** 2) - p[6]
            energy += 0.5 * p[4] * stretch * stretch
    return energy


@kernel(inline="always")
def clearance_kinematics(q, v, rot, bearing, journal, clear_par, k):
    """Eccentricity, penetration and contact-point velocities of clearance joint ``k``.

    Returns ``(ex, ey, nx, ny, delta, delta_dot, vt, qbx, qby, qjx, qjy)``: ``e = r_J - r_B``
    [m], the contact's direction ``n`` (``e/|e|`` on the circular hole), the signed penetration
    ``delta = |e| - c`` [m] on the circular hole, on a worn one the Winkler contact's
    (:mod:`worn_contact`: the equivalent penetration of the pressure's resultant in contact,
    the deepest overlap out of it, ``n`` along the resultant or to the deepest point), its
    rate [m/s], the tangential slip ``vt = (v_QJ - v_QB) . t`` with ``t = (-ny, nx)`` [m/s]
    (including the bodies' rotation), the contact points Q_B, Q_J [m] on the two surfaces
    in direction ``n``, and ``scale``: the normal force is ``scale`` x the contact law's at
    ``delta`` (1 on the circular hole; on a worn one ``|W| / W_circle(delta)``, so that the
    force is the gradient of the law's energy at ``delta``, :mod:`worn_contact`).
    """
    bx, by, _, _ = body_point(q, rot, bearing, clear_par[k, CP_SBX], clear_par[k, CP_SBY])
    jx, jy, _, _ = body_point(q, rot, journal, clear_par[k, CP_SJX], clear_par[k, CP_SJY])
    ex, ey = jx - bx, jy - by
    dist = math.sqrt(ex * ex + ey * ey)
    if dist > 1e-300:
        nx, ny = ex / dist, ey / dist
    else:  # journal exactly centred: the direction is irrelevant, the force is zero
        nx, ny = 1.0, 0.0
    rb = clear_par[k, CP_RB]
    n_nodes = int(clear_par[k, CP_WN])
    worn = n_nodes > 0 and clear_par[k, CP_WMAX] > 0.0
    if worn:
        # a worn hole (a profile of zeros is the circular one, bit for bit): the resultant of
        # the Winkler pressure over the overlap arc (core/worn_contact.py), in the bearing's
        # frame, its direction the force's, its size the law's at an equivalent penetration
        if bearing >= 0:
            c, s = rot[bearing, 0], rot[bearing, 1]
            w_b = v[3 * bearing + 2]
        else:
            c, s, w_b = 1.0, 0.0, 0.0
        delta, wx, wy, h, scale, _ = worn_contact(
            clear_par[k, CP_WPROF : CP_WPROF + n_nodes],
            rb - clear_par[k, CP_RJ],
            c * ex + s * ey,
            -s * ex + c * ey,
        )
        nx, ny = c * wx - s * wy, s * wx + c * wy
        rb += h
    else:
        delta = dist - (rb - clear_par[k, CP_RJ])
        scale, w_b = 1.0, 0.0
    qbx, qby = bx + rb * nx, by + rb * ny
    qjx, qjy = jx + clear_par[k, CP_RJ] * nx, jy + clear_par[k, CP_RJ] * ny
    vbx, vby = _point_velocity(q, v, bearing, qbx, qby)
    vjx, vjy = _point_velocity(q, v, journal, qjx, qjy)
    rx, ry = vjx - vbx, vjy - vby
    delta_dot = rx * nx + ry * ny
    if worn:
        # the worn contact's penetration is a function of e in the bearing's frame: its rate
        # is the resultant's (scale n) . de/dt there, the frame turning at w_B
        delta_dot = scale * (delta_dot - w_b * (ex * ny - ey * nx))
    vt = -rx * ny + ry * nx
    return ex, ey, nx, ny, delta, delta_dot, vt, qbx, qby, qjx, qjy, scale


@kernel(runtime=False)
def film_forces(q, v, rot, bearing, journal, clear_par, k, Q):
    """Add the oil film's force of lubricated joint ``k`` to ``Q``, at the joint's centres
    (design.md 4.16: the film's viscous torque is left out, as Flores et al. 2009), and
    return ``(dissipation, drive)`` [W].

    ``dissipation`` = minus the film's power on the journal's motion relative to the bearing
    seen from the frame turning at the mean surface speed ``(w_J + w_B)/2``: >= 0
    (:mod:`journal_bearing`). ``drive`` = ``(w_J + w_B)/2 (e x F)``: what the turning
    surfaces pass through the wedge into the journal's orbit (in a real bearing drawn by the
    left-out torque). The film's power on the bodies is ``drive - dissipation``.
    """
    bx, by, _, _ = body_point(q, rot, bearing, clear_par[k, CP_SBX], clear_par[k, CP_SBY])
    jx, jy, _, _ = body_point(q, rot, journal, clear_par[k, CP_SJX], clear_par[k, CP_SJY])
    ex, ey = jx - bx, jy - by
    vbx, vby = _point_velocity(q, v, bearing, bx, by)
    vjx, vjy = _point_velocity(q, v, journal, jx, jy)
    vx, vy = vjx - vbx, vjy - vby
    w_sum = (v[3 * bearing + 2] if bearing >= 0 else 0.0) + (
        v[3 * journal + 2] if journal >= 0 else 0.0
    )
    fx, fy = _film_force(
        int(clear_par[k, CP_LUB]),
        clear_par[k, CP_VISC],
        clear_par[k, CP_RJ],
        clear_par[k, CP_LEN],
        clear_par[k, CP_CLR],
        ex,
        ey,
        vx,
        vy,
        w_sum,
    )
    _apply(Q, journal, jx, jy, fx, fy, q)
    _apply(Q, bearing, bx, by, -fx, -fy, q)
    half = 0.5 * w_sum
    dissipation = -(fx * (vx + half * ey) + fy * (vy - half * ex))
    return dissipation, half * (ex * fy - ey * fx)


@kernel(inline="always")
def clearance_forces(q, v, rot, clear_int, clear_par, in_contact, approach_velocity, Q, diag):
    """Add the contact forces of joints in contact, and the oil film of lubricated joints, to
    ``Q``; fill ``diag`` ``[n_joints, 8]``.

    A joint that is not ``in_contact`` (free flight) carries no force even if its penetration
    is momentarily positive: onset is an event located by the integrator, which then sets
    ``in_contact`` and captures ``approach_velocity`` (delta_dot0 of this impact).
    Returns ``(damping power, friction power, film dissipation, film drive)`` [W]: the first
    three dissipated (>= 0), the last the power the turning surfaces feed the film's wedge
    (:func:`film_forces`).
    """
    damping_power = 0.0
    friction_power = 0.0
    film_dissipation = 0.0
    film_drive = 0.0
    for k in range(clear_int.shape[0]):
        bearing, journal = clear_int[k, 0], clear_int[k, 1]
        diag[k, D_FILM] = 0.0
        if clear_par[k, CP_LUB] > 0.0:
            dissipation, drive = film_forces(q, v, rot, bearing, journal, clear_par, k, Q)
            film_dissipation += dissipation
            film_drive += drive
            diag[k, D_FILM] = dissipation
        ex, ey, nx, ny, delta, ddot, vt, qbx, qby, qjx, qjy, scale = clearance_kinematics(
            q, v, rot, bearing, journal, clear_par, k
        )
        fn = 0.0
        fel = 0.0
        ft = 0.0
        if in_contact[k] and delta > 0.0:
            fel = elastic_force(
                int(clear_par[k, CP_SMODEL]),
                clear_par[k, CP_K],
                clear_par[k, CP_EXP],
                clear_par[k, CP_LINEK],
                clear_par[k, CP_CLR],
                delta,
            )
            law = dissipative_force(
                int(clear_par[k, CP_SHAPE]),
                clear_par[k, CP_CHI],
                clear_par[k, CP_CMAX],
                clear_par[k, CP_DEPTH],
                fel,
                delta,
                ddot,
                approach_velocity[k],
            )
            fn = scale * law  # the worn contact's resultant (1 x on the circular hole)
            ft = friction_force(
                int(clear_par[k, CP_FKIND]),
                clear_par[k, CP_MU],
                clear_par[k, CP_V0],
                clear_par[k, CP_V1],
                clear_par[k, CP_MUS],
                fn,
                vt,
            )
            # on the journal: normal push back towards the bearing centre plus friction
            fx = -fn * nx - ft * ny
            fy = -fn * ny + ft * nx
            _apply(Q, journal, qjx, qjy, fx, fy, q)
            _apply(Q, bearing, qbx, qby, -fx, -fy, q)
            damping_power += (law - fel) * ddot
            friction_power -= ft * vt
        diag[k, D_DELTA], diag[k, D_DELTA_DOT], diag[k, D_FN], diag[k, D_FT] = delta, ddot, fn, ft
        diag[k, D_EX], diag[k, D_EY], diag[k, D_VT], diag[k, D_FEL] = ex, ey, vt, fel
    return damping_power, friction_power, film_dissipation, film_drive


@kernel(runtime=False)
def contact_energy(clear_par, in_contact, diag):
    """Elastic energy [J] stored in the contacts described by ``diag``."""
    energy = 0.0
    for k in range(clear_par.shape[0]):
        if in_contact[k]:
            energy += elastic_energy(
                int(clear_par[k, CP_SMODEL]),
                clear_par[k, CP_K],
                clear_par[k, CP_EXP],
                clear_par[k, CP_LINEK],
                clear_par[k, CP_CLR],
                diag[k, D_DELTA],
            )
    return energy
