"""The compiled time loop of the flexible slider-crank (see :mod:`.flexible_slider_crank`).

One velocity-Verlet step per iteration: prescribed crank pin, ANCF rod forces, the clearance
joint's contact and friction (or the ideal pin), one banded mass solve, per-step metrics and
a thinned output record. Kept apart from the case and its set-up so each stays readable.
:func:`crank_loop` allocates the loop's arrays; the loop itself, :func:`_march`, runs without
numba's runtime and reads as its named pieces in the order of a step.

Energy balance (as the rigid solver's, :mod:`gapsweep.core.energy`):
``T + V_g + U_strain + U_contact + E_damping + E_friction - W_driver`` stays at its initial
value. ``T = 1/2 v^T M v + 1/2 m_s v_s^2`` includes the prescribed crank-pin coordinates.
The driver power is the reaction on the prescribed coordinates (rows 0, 1 of the rod's
equations, ``R_p = M_p. a - F_g,p + F_int,p``; no contact force acts there) times their
prescribed velocity; the crank itself is not modelled (its kinetic energy is constant at
constant speed), so ``W_driver`` is the work the crank pin does on the rod. The dissipation
powers are the contact damping ``(F_n - F_elastic) delta_dot``, friction ``-F_t v_t`` and the
rod's Kelvin-Voigt ``(F_int - F_elastic) . v``. Every power is evaluated with the step's
corrected velocity ``v_n`` (the forces themselves saw the predictor) and integrated with the
trapezoid rule over the Verlet steps. The residual is then ``O(dt^2)``: velocity Verlet
conserves ``T + V - dt^2/8 a^T M a`` to higher order, not ``T + V``, and each stiff impact
leaves a small net error (the ideal joint closes to ~1e-7 of the peak kinetic energy, the
default clearance case to ~3e-5). It is checked at every step.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from ..contact_laws import elastic_energy, normal_force
from ..friction_laws import friction_force
from ..jit import kernel
from .ancf_beam import internal_forces
from .central_difference import band_solve


def stable_step(omega: float, damping_rate: float) -> float:
    """Largest step [s] for which this loop is stable on the mode ``a = -omega^2 x - c v``
    (``omega`` [rad/s], ``c = damping_rate`` [1/s]).

    The damping sees the predictor ``v_{n-1/2} + dt/2 a_{n-1}``, so a step maps
    ``(x, v, a)_{n-1}`` to ``(x, v, a)_n`` linearly; the limit is where that map's spectral
    radius passes 1 (scan, then bisection). Undamped it is ``2 / omega``; damping lowers it
    more than for a lagged velocity (:func:`.central_difference.stable_time_step`): on the
    4-element rod (omega_max 1.63e6 rad/s) Kelvin-Voigt eta = 1e-6 s allows 3.4e-7 s, not
    7.5e-7 s, and damping alone (omega = 0) allows 1 / c.
    """
    if omega <= 0.0 and damping_rate <= 0.0:
        return math.inf

    def radius(dt: float) -> float:
        # a_n = -omega^2 x_n - c (v + dt a), x_n = x + dt (v + dt/2 a), v_n = v + dt/2 (a + a_n)
        x_n = np.array([1.0, dt, 0.5 * dt * dt])
        a_n = -(omega**2) * x_n - damping_rate * np.array([0.0, 1.0, dt])
        v_n = np.array([0.0, 1.0, 0.5 * dt]) + 0.5 * dt * a_n
        return float(np.max(np.abs(np.linalg.eigvals(np.array([x_n, v_n, a_n])))))

    top = 2.0 / omega if omega > 0.0 else 4.0 / damping_rate
    stable, unstable = 0.0, None
    for dt in np.linspace(top / 200.0, top, 200):
        if radius(dt) > 1.0 + 1e-9:
            unstable = dt
            break
        stable = dt
    if unstable is None:
        return top
    for _ in range(60):
        mid = 0.5 * (stable + unstable)
        stable, unstable = (mid, unstable) if radius(mid) <= 1.0 + 1e-9 else (stable, mid)
    return float(stable)


# columns of the output record
OUT_COLUMNS = (
    "slider_x",
    "slider_v",
    "slider_accel",
    "contact_force",
    "friction_force",
    "penetration",
    "ex",
    "ey",
    "rod_deflection",
    "energy_kinetic",
    "energy_strain",
    "energy_gravity",
    "energy_contact",
    "driver_work",
    "damping_dissipation",  # contact damping plus the rod's material damping
    "friction_dissipation",
    "material_dissipation",  # the rod's Kelvin-Voigt share of damping_dissipation
    "energy_residual",
)
N_OUT = len(OUT_COLUMNS)
# metric slots of the kernel's metric vector (whole run, then the last revolution)
METRICS = (
    "peak_slider_accel",
    "rms_slider_accel",
    "peak_contact_force",
    "max_penetration",
    "impacts",
)


class JointState(NamedTuple):
    """The clearance joint at one step, from the predicted state (:func:`_clearance_joint`).

    While the journal is apart the forces are 0 and the frame is left at ``n = t = 0``,
    ``s = (1, 0)``; the ideal joint is all zero (``delta = 0``: no contact energy, no power).
    """

    delta: float  # penetration |e| - c [m], negative while apart
    ex: float  # eccentricity: journal centre minus bearing centre (the rod's end node) [m]
    ey: float
    fn: float  # normal force [N], pushing the journal towards the bearing's centre
    fel: float  # its elastic part [N]
    ft: float  # friction force on the journal along t [N]
    nx: float  # contact normal e / |e|
    ny: float
    tx: float  # tangent, n turned +90 degrees
    ty: float
    sx: float  # the rod's end slope (its last node's r_x), along which the bearing turns
    sy: float
    g2: float  # |s|^2


# --------------------------------------------------------------------------------------
# the named pieces of the loop (:func:`_march`), in the order of a step. Each is inlined at
# its site (numba IR inlining, as stepping._march's per-step pieces), so the loop compiles to
# the arithmetic it had as one body: the same operations in the same order, bit for bit.
# The pieces take arrays, and numba's runtime reference-counts an array handed into an
# inlined piece; the loop runs without the runtime (see crank_loop), so it counts none.


@kernel(inline="always")
def _upper_band(m_full):
    """The rod mass matrix ``m_full`` (n, n) [kg, kg m ...] as its half-bandwidth ``bw`` and
    upper band row by row, ``mb[i, k] = M[i, i + k]`` (n, bw + 1) with the diagonal halved,
    so that ``T = v . (mb v)`` (:func:`_kinetic_energy`)."""
    n = m_full.shape[0]
    bw = 0
    for i in range(n):
        for j in range(i + 1, n):
            if m_full[i, j] != 0.0:
                bw = max(bw, j - i)
    mb = np.zeros((n, bw + 1))
    for i in range(n):
        mb[i, 0] = 0.5 * m_full[i, i]
        for k in range(1, min(bw + 1, n - i)):
            mb[i, k] = m_full[i, i + k]
    return bw, mb


@kernel(inline="always")
def _verlet_predict(u, w, acc, dt, vp):
    """Velocity Verlet's first half: half a kick and the drift of the unknowns ``u`` [m, -]
    and their rates ``w`` (nu,) with the last step's accelerations ``acc`` (nu,) over ``dt``
    [s], and the predicted rates ``vp = w + dt/2 acc`` (nu,) the forces of the step see."""
    for i in range(u.size):
        w[i] += 0.5 * dt * acc[i]
        u[i] += dt * w[i]
        vp[i] = w[i] + 0.5 * dt * acc[i]


@kernel(inline="always")
def _half_kick(w, acc, dt):
    """Velocity Verlet's second half: ``w += dt/2 acc`` (nu,) with the step's accelerations."""
    for i in range(w.size):
        w[i] += 0.5 * dt * acc[i]


@kernel(inline="always")
def _crank_pin(q, v, crank, omega, t):
    """Prescribed crank-pin motion at ``t`` [s]: its position ``r_c (cos wt, sin wt)`` [m] and
    velocity into rod coordinates and rates 0 and 1 of ``q``, ``v`` (n,); returns its
    acceleration (ax, ay) [m/s^2] (crank ``r_c`` [m], constant speed ``omega`` [rad/s])."""
    th = omega * t
    ca, sa = math.cos(th), math.sin(th)
    q[0], q[1] = crank * ca, crank * sa
    v[0], v[1] = -crank * omega * sa, crank * omega * ca
    return -crank * omega * omega * ca, -crank * omega * omega * sa


@kernel(inline="always")
def _scatter(x, y, free, xf, yf):
    """The free coordinates' values ``xf``, ``yf`` (nu,) into the rod's ``x``, ``y`` (n,) at
    the indices ``free`` (nf,) (with clearance the last unknown is the slider's, not the
    rod's, and stays out)."""
    for i in range(free.size):
        x[free[i]] = xf[i]
        y[free[i]] = yf[i]


@kernel(inline="always")
def _rod_rhs(rhs, free, fg, f, mfp, ax, ay):
    """Right-hand side [N] of the free rod equations ``rhs[:nf]``: gravity ``fg`` less the
    internal force ``f`` (n,) and the prescribed crank pin's inertia ``M_fp a_A`` (``mfp``
    (nf, 2) [kg], ``a_A = (ax, ay)`` [m/s^2])."""
    for i in range(free.size):
        j = free[i]
        rhs[i] = fg[j] - f[j] - mfp[i, 0] * ax - mfp[i, 1] * ay


@kernel(inline="always")
def _apart(delta, ex, ey):
    """The joint's state while the journal is apart (penetration ``delta`` [m] <= 0,
    eccentricity ``ex``, ``ey`` [m]), and with ``delta = ex = ey = 0`` the ideal joint's."""
    return JointState(delta, ex, ey, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 1.0)


@kernel(inline="always")
def _slip(v, ws, end, r_b, sx, sy, g2, tx, ty):
    """Velocity (vrx, vry) [m/s] of the journal (slider rate ``ws``) relative to the bearing
    surface at the contact point: less the end node's velocity (from ``v`` (n,)) and the
    bearing's turning - the rate of the end slope ``s = (sx, sy)`` (``g2 = |s|^2``) [rad/s]
    times ``R_B = r_b`` [m] along the tangent ``(tx, ty)``."""
    rate = (sx * v[end + 3] - sy * v[end + 2]) / g2
    vrx = ws - v[end] - rate * r_b * tx
    vry = -v[end + 1] - rate * r_b * ty
    return vrx, vry


@kernel(inline="always")
def _end_node_forces(rhs, free, end, js, r_b):
    """Generalized forces of the joint (``js``) on the slider (``rhs[nu - 1]`` [N]) and,
    reacted, on the rod's end node (``rhs[:nf]``): the force [N] on its position and the
    friction moment ``M = -F_t R_B`` [N m] on its slope, ``M (-sy, sx) / |s|^2`` [N]."""
    fjx = -js.fn * js.nx + js.ft * js.tx
    fjy = -js.fn * js.ny + js.ft * js.ty
    rhs[rhs.size - 1] = fjx
    moment = -js.ft * r_b  # friction on the bearing acts at R_B n from the node
    for i in range(free.size):
        j = free[i]
        if j == end:
            rhs[i] -= fjx
        elif j == end + 1:
            rhs[i] -= fjy
        elif j == end + 2:
            rhs[i] -= moment * js.sy / js.g2
        elif j == end + 3:
            rhs[i] += moment * js.sx / js.g2


@kernel(inline="always")
def _clearance_joint(
    xs, ws, q, v, rhs, free, end, clr, r_b, contact, fric, in_contact, dd0, t, t_steady, count
):
    """The clearance joint's contact from the predicted state: the gap between the slider's
    journal (at ``(xs, 0)`` [m], rate ``ws`` [m/s]) and the bearing at the rod's end node
    (``q``, ``v`` (n,)), the normal and friction forces and their generalized forces in
    ``rhs`` (nu,) (:func:`_end_node_forces`; ``rhs[nu - 1] = 0`` while apart).

    ``contact``: (shape, K, n, chi, c_max, depth), ``fric``: (kind, mu, v0, v1, mu_s). An
    impact - the first step in contact after one apart - is counted in ``count`` (2,) (whole
    run, ``t >= t_steady``) and fixes ``delta_dot0`` (``dd0`` [m/s]), which the hysteresis
    law scales its damping by until the journal separates. Returns
    ``(JointState, in_contact, dd0)``.
    """
    ex, ey = xs - q[end], -q[end + 1]
    dist = math.sqrt(ex * ex + ey * ey)
    delta = dist - clr
    if delta > 0.0:
        nx, ny = ex / dist, ey / dist
        tx, ty = -ny, nx
        sx, sy = q[end + 2], q[end + 3]
        g2 = sx * sx + sy * sy
        vrx, vry = _slip(v, ws, end, r_b, sx, sy, g2, tx, ty)
        ddot = vrx * nx + vry * ny
        if not in_contact:
            in_contact = True
            dd0 = ddot
            count[0] += 1.0
            if t >= t_steady:
                count[1] += 1.0
        fn, fel = normal_force(
            int(contact[0]), contact[1], contact[2], contact[3], contact[4], contact[5],
            delta, ddot, dd0,
        )  # fmt: skip
        ft = friction_force(
            int(fric[0]), fric[1], fric[2], fric[3], fric[4], fn, vrx * tx + vry * ty
        )
        js = JointState(delta, ex, ey, fn, fel, ft, nx, ny, tx, ty, sx, sy, g2)
        _end_node_forces(rhs, free, end, js, r_b)
        return js, in_contact, dd0
    rhs[rhs.size - 1] = 0.0
    return _apart(delta, ex, ey), False, dd0


@kernel(inline="always")
def _driver_power(f, fg, m_full, a_full, v, bw):
    """Driver power [W]: the reaction on the prescribed crank-pin rows 0 and 1,
    ``R_p = M_p. a - F_g,p + F_int,p`` [N] (``a_full`` (n,) every coordinate's acceleration,
    ``bw`` the mass matrix's half-bandwidth), times their velocity ``v[0:2]``."""
    n = v.size
    p_drv = 0.0
    for j in range(2):
        reaction = f[j] - fg[j]
        for k in range(min(n, j + bw + 1)):
            reaction += m_full[j, k] * a_full[k]
        p_drv += reaction * v[j]
    return p_drv


@kernel(inline="always")
def _joint_powers(js, v, ws, end, r_b):
    """Contact damping power ``(F_n - F_elastic) delta_dot`` and friction power
    ``-F_t v_t`` [W] with the step's corrected velocities (rod ``v`` (n,), slider ``ws``);
    0 while apart and for the ideal joint."""
    if js.delta > 0.0:
        vrx, vry = _slip(v, ws, end, r_b, js.sx, js.sy, js.g2, js.tx, js.ty)
        return (js.fn - js.fel) * (vrx * js.nx + vry * js.ny), -js.ft * (vrx * js.tx + vry * js.ty)
    return 0.0, 0.0


@kernel(inline="always")
def _material_power(f, q, v, n_el, le, ea, ei, eta, gp, gw, f_el):
    """The rod's Kelvin-Voigt dissipation power ``(F_int - F_elastic) . v`` [W]: the step's
    internal force ``f`` (n,) less its elastic part, evaluated again with eta = 0 into
    ``f_el`` (n,). 0 (and no evaluation) when the rod is undamped."""
    p_mat = 0.0
    if eta != 0.0:
        internal_forces(q, v, n_el, le, ea, ei, 0.0, gp, gw, f_el)
        for i in range(v.size):
            p_mat += (f[i] - f_el[i]) * v[i]
    return p_mat


@kernel(inline="always")
def _trapezoid(energy, p0, p, dt):
    """One trapezoid-rule step of the accumulated energies [J] (driver work, contact damping,
    friction, material damping) from their powers [W] at the step's start ``p0`` and end
    ``p``, each a 4-tuple in that order."""
    return (
        energy[0] + 0.5 * dt * (p0[0] + p[0]),
        energy[1] + 0.5 * dt * (p0[1] + p[1]),
        energy[2] + 0.5 * dt * (p0[2] + p[2]),
        energy[3] + 0.5 * dt * (p0[3] + p[3]),
    )


@kernel(inline="always")
def _kinetic_energy(mb, v, vb, ideal, m_s, ws):
    """Kinetic energy [J]: ``1/2 v^T M v`` over the band (``mb`` (n, bw + 1) from
    :func:`_upper_band`, the rod rates ``v`` (n,) copied into ``vb`` (n + bw,), whose bw
    trailing zeros spare the inner loop its bounds), plus ``1/2 m_s ws^2`` of the free slider
    (mass ``m_s`` [kg], rate ``ws`` [m/s]) when the joint has clearance."""
    n = v.size
    kin = 0.0
    for i in range(n):
        vb[i] = v[i]
    for i in range(n):
        s = 0.0
        for k in range(mb.shape[1]):
            s += mb[i, k] * vb[i + k]
        kin += vb[i] * s
    if not ideal:
        kin += 0.5 * m_s * ws * ws
    return kin


@kernel(inline="always")
def _gravity_potential(fg, q):
    """Gravity's potential energy ``-F_g . q`` [J] of the rod (``fg``, ``q`` (n,))."""
    pot = 0.0
    for i in range(q.size):
        pot -= fg[i] * q[i]
    return pot


@kernel(inline="always")
def _mid_span_deflection(q, mid, end):
    """Mid-span rod deflection [m]: the distance of the rod's mid-span point from the chord
    crank pin -> small end, positive to the chord's left. ``mid``: (offset, N1..N4), the
    element's first coordinate and the Hermite weights of its nodes' coordinates there."""
    off = int(mid[0])
    rmx = 0.0
    rmy = 0.0
    for k in range(4):
        rmx += mid[k + 1] * q[off + 2 * k]
        rmy += mid[k + 1] * q[off + 2 * k + 1]
    cx, cy = q[end] - q[0], q[end + 1] - q[1]
    return ((rmy - q[1]) * cx - (rmx - q[0]) * cy) / math.sqrt(cx * cx + cy * cy)


@kernel(inline="always")
def _step_metrics(met, t, t_steady, a_s, fn, delta, defl, resid, kin):
    """Per-step metric accumulation into ``met`` (13,): the METRICS of the whole run (slots
    0-4) and, from ``t_steady`` [s] on, of the last revolution (5-9), from the slider
    acceleration ``a_s`` [m/s^2], the normal force ``fn`` [N] and the penetration ``delta``
    [m]; the sum of ``a_s^2`` and the step count stand in the rms and impact slots until
    :func:`_finish_metrics`. Then the largest |mid-span deflection| [m] (10), |energy
    residual| [J] (11) and the peak kinetic energy [J] (12)."""
    met[11] = max(met[11], abs(resid))
    met[12] = max(met[12], kin)
    pen = max(delta, 0.0)
    for k in range(2):
        if k == 1 and t < t_steady:
            break
        b = 5 * k
        met[b] = max(met[b], abs(a_s))
        met[b + 1] += a_s * a_s
        met[b + 2] = max(met[b + 2], fn)
        met[b + 3] = max(met[b + 3], pen)
        met[b + 4] += 1.0  # samples, replaced by impacts below
    met[10] = max(met[10], abs(defl))


@kernel(inline="always")
def _finish_metrics(met, count):
    """The rms slider accelerations [m/s^2] from their sums and step counts, and the impact
    counts ``count`` (2,) into their slots of ``met`` (13,), for the whole run and the last
    revolution."""
    for k in range(2):
        samples = met[5 * k + 4]
        met[5 * k + 1] = math.sqrt(met[5 * k + 1] / max(samples, 1.0))
        met[5 * k + 4] = count[k]


@kernel(inline="always")
def _output_row(row, xs, vs, a_s, js, defl, kin, u_strain, pot, u_c, energy, resid):
    """One output record ``row`` (N_OUT,) in OUT_COLUMNS order: slider position ``xs`` [m],
    step velocity ``vs`` [m/s] and acceleration ``a_s`` [m/s^2], the joint's forces [N],
    penetration and eccentricity [m], the deflection [m], the energies [J] (``energy``: driver
    work, contact damping, friction, material damping) and the residual [J]."""
    w_drv, e_damp, e_fric, e_mat = energy
    values = (
        xs, vs, a_s, js.fn, js.ft, js.delta, js.ex, js.ey, defl, kin, u_strain, pot, u_c, w_drv,
        e_damp + e_mat, e_fric, e_mat, resid,
    )  # fmt: skip
    for c in range(N_OUT):
        row[c] = values[c]


class LoopBuffers(NamedTuple):
    """The arrays the loop (:func:`_march`) works in; :func:`crank_loop` allocates them."""

    q: np.ndarray  # (n,) rod coordinates [m, -]
    v: np.ndarray  # (n,) their rates: the predictor's while the forces are evaluated
    u: np.ndarray  # (nu,) unknowns: the free rod coordinates, then the slider x if clearance
    w: np.ndarray  # (nu,) their rates
    vp: np.ndarray  # (nu,) predicted rates w + dt/2 a
    acc: np.ndarray  # (nu,) accelerations of the unknowns
    rhs: np.ndarray  # (nu,) right-hand side of the mass solve [N]
    f: np.ndarray  # (n,) internal force of the rod [N, N m]
    f_el: np.ndarray  # (n,) its elastic part (material damping only)
    a_full: np.ndarray  # (n,) accelerations of all rod coordinates (the crank pin's prescribed)
    mb: np.ndarray  # (n, bw + 1) the mass matrix's upper band (_upper_band)
    vb: np.ndarray  # (n + bw,) the rod rates padded with bw zeros (_kinetic_energy)
    count: np.ndarray  # (2,) impacts: whole run, t >= t_steady


@kernel
def crank_loop(
    q0,
    v0,
    u_init,
    w_init,
    free,
    lb,
    m_full,
    mfp,
    fg,
    mid,
    rod,
    gp,
    gw,
    contact,
    fric,
    omega,
    dt,
    n_steps,
    out_every,
    t_steady,
):
    """Velocity-Verlet loop of the flexible slider-crank (see the module doc).

    ``q0``, ``v0``: rod coordinates and rates (n,) (prescribed entries set from the crank);
    ``u_init``, ``w_init``: unknowns and rates (rod free coordinates, then the slider x when
    the joint has clearance). ``rod``: (n_el, le, EA, EI, eta, crank, slider mass, R_B, c,
    ideal); ``gp``, ``gw`` the Gauss rule; ``contact``: (shape, K, n, chi, c_max, depth);
    ``fric``: (kind, mu, v0, v1, mu_s);
    ``mid``: (offset, N1..N4) of the rod's mid-span point. Returns (status, t_fail, out,
    metrics): ``out`` (n_out, N_OUT) in OUT_COLUMNS order; ``metrics`` (13,) METRICS for the
    whole run, then for ``t >= t_steady``, then the largest |rod deflection| [m], the largest
    |energy residual| [J] and the peak kinetic energy [J] (both over every step); status 0
    ok, 1 non-finite, 2 journal through the wall. ``m_full`` must be banded (the consistent
    mass is, half-bandwidth 7) and the prescribed coordinates are 0 and 1.

    Allocates the loop's arrays here, once, so that the loop (:func:`_march`) runs without
    numba's runtime. With it, the arrays handed into the inlined pieces were reference-counted
    inside the loop (atomic increments at 18 places the single body had none; the split ran
    2-4 % slower), as the stepping loop's were (:func:`gapsweep.core.jit.kernel`).
    """
    n = q0.size
    nu = u_init.size
    bw, mb = _upper_band(m_full)
    buffers = LoopBuffers(
        q0.copy(), v0.copy(), u_init.copy(), w_init.copy(), np.zeros(nu), np.zeros(nu),
        np.zeros(nu), np.zeros(n), np.zeros(n), np.zeros(n), mb, np.zeros(n + bw), np.zeros(2),
    )  # fmt: skip
    out = np.zeros((n_steps // out_every + 1, N_OUT))
    met = np.zeros(13)
    status, t = _march(
        buffers, free, lb, m_full, mfp, fg, mid, rod, gp, gw, contact, fric, omega, dt, n_steps,
        out_every, t_steady, out, met,
    )  # fmt: skip
    return status, t, out, met


@kernel(runtime=False)
def _march(
    buffers, free, lb, m_full, mfp, fg, mid, rod, gp, gw, contact, fric, omega, dt, n_steps,
    out_every, t_steady, out, met,
):  # fmt: skip
    """The time loop of :func:`crank_loop` on the arrays it allocated: fills ``out`` and
    ``met`` and returns (status, t_fail) as it does."""
    q, v, u, w, vp, acc = buffers.q, buffers.v, buffers.u, buffers.w, buffers.vp, buffers.acc
    rhs, f, f_el, a_full = buffers.rhs, buffers.f, buffers.f_el, buffers.a_full
    mb, vb, count = buffers.mb, buffers.vb, buffers.count
    n_el = int(rod[0])
    le, ea, ei, eta, crank, m_s, r_b, clr = (
        rod[1],
        rod[2],
        rod[3],
        rod[4],
        rod[5],
        rod[6],
        rod[7],
        rod[8],
    )
    ideal = rod[9] != 0.0
    n = q.size
    nf = free.size
    nu = u.size
    end = n - 4
    bw = mb.shape[1] - 1
    # accumulated energies [J] and the powers [W] of the previous step (trapezoid rule):
    # driver work, contact damping, friction, material damping
    energy = (0.0, 0.0, 0.0, 0.0)
    p0 = (0.0, 0.0, 0.0, 0.0)
    e0 = 0.0
    in_contact = False
    dd0 = 0.0
    i_end_x = -1  # the unknown of the end node's x (with the ideal joint: the slider's)
    for i in range(nf):
        if free[i] == end:
            i_end_x = i
    for step in range(n_steps + 1):
        t = step * dt
        if step > 0:
            _verlet_predict(u, w, acc, dt, vp)
        else:
            for i in range(nu):  # not vp[:] = w, whose overlap check needs numba's runtime
                vp[i] = w[i]
        ax, ay = _crank_pin(q, v, crank, omega, t)
        _scatter(q, v, free, u, vp)
        ua, ub = internal_forces(q, v, n_el, le, ea, ei, eta, gp, gw, f)
        _rod_rhs(rhs, free, fg, f, mfp, ax, ay)
        js = _apart(0.0, 0.0, 0.0)  # the ideal joint
        if not ideal:
            js, in_contact, dd0 = _clearance_joint(
                u[nu - 1], vp[nu - 1], q, v, rhs, free, end, clr, r_b, contact, fric,
                in_contact, dd0, t, t_steady, count,
            )  # fmt: skip
            if js.delta > clr:
                return 2, t
        band_solve(lb, rhs, acc)
        if step > 0:
            _half_kick(w, acc, dt)
        # the step's velocity and acceleration of every rod coordinate
        _scatter(v, a_full, free, w, acc)
        a_full[0], a_full[1] = ax, ay
        # the powers with the corrected velocity (the forces saw the predictor), integrated
        # by the trapezoid rule; the crank's own kinetic energy is constant and left out
        p_drv = _driver_power(f, fg, m_full, a_full, v, bw)
        p_damp, p_fric = _joint_powers(js, v, w[nu - 1], end, r_b)
        p_mat = _material_power(f, q, v, n_el, le, ea, ei, eta, gp, gw, f_el)
        p = (p_drv, p_damp, p_fric, p_mat)
        if step > 0:
            energy = _trapezoid(energy, p0, p, dt)
        p0 = p
        kin = _kinetic_energy(mb, v, vb, ideal, m_s, w[nu - 1])
        pot = _gravity_potential(fg, q)
        u_c = elastic_energy(contact[1], contact[2], js.delta)
        w_drv, e_damp, e_fric, e_mat = energy
        total = kin + pot + ua + ub + u_c + e_damp + e_mat + e_fric - w_drv
        if step == 0:
            e0 = total
        resid = total - e0
        a_s = acc[i_end_x] if ideal else acc[nu - 1]
        defl = _mid_span_deflection(q, mid, end)
        _step_metrics(met, t, t_steady, a_s, js.fn, js.delta, defl, resid, kin)
        if step % out_every == 0:
            xs = q[end] if ideal else u[nu - 1]
            vs = v[end] if ideal else w[nu - 1]  # the step's velocity, not the predictor's
            _output_row(
                out[step // out_every], xs, vs, a_s, js, defl, kin, ua + ub, pot, u_c, energy,
                resid,
            )  # fmt: skip
            if not math.isfinite(kin + ua + ub + a_s + resid):
                return 1, t
    _finish_metrics(met, count)
    return 0, 0.0
