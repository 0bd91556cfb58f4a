"""The compiled time loop of the flexible slider-crank (see :mod:`.flexible_slider_crank`).

One velocity-Verlet step per iteration: prescribed crank pin, ANCF rod forces, the clearance
joint's contact and friction (or the ideal pin), one banded mass solve, per-step metrics and
a thinned output record. Kept apart from the case and its set-up so each stays readable.

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
    """
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
    n = q0.size
    nf = free.size
    nu = u_init.size
    end = n - 4
    q = q0.copy()
    v = v0.copy()
    u = u_init.copy()
    w = w_init.copy()
    vp = np.zeros(nu)
    acc = np.zeros(nu)
    rhs = np.zeros(nu)
    f = np.zeros(n)
    n_out = n_steps // out_every + 1
    out = np.zeros((n_out, N_OUT))
    met = np.zeros(13)
    f_el = np.zeros(n)  # elastic part of the internal force (material damping only)
    a_full = np.zeros(n)  # accelerations of all rod coordinates (fixed ones stay 0)
    bw = 0  # half-bandwidth of the rod mass matrix
    for i in range(n):
        for j in range(i + 1, n):
            if m_full[i, j] != 0.0:
                bw = max(bw, j - i)
    # the upper band row by row, mb[i, k] = M[i, i + k] (diagonal halved), and the velocity
    # padded with bw zeros, so that T = v . (mb v) has no bounds in its inner loop
    mb = np.zeros((n, bw + 1))
    for i in range(n):
        mb[i, 0] = 0.5 * m_full[i, i]
        for k in range(1, min(bw + 1, n - i)):
            mb[i, k] = m_full[i, i + k]
    vb = np.zeros(n + bw)
    # accumulated energies [J] and the powers [W] of the previous step (trapezoid rule)
    w_drv = 0.0
    e_damp = 0.0
    e_fric = 0.0
    e_mat = 0.0
    p_drv0 = 0.0
    p_damp0 = 0.0
    p_fric0 = 0.0
    p_mat0 = 0.0
    e0 = 0.0
    count = np.zeros(2)
    in_contact = False
    dd0 = 0.0
    i_end_x = -1
    for i in range(nf):
        if free[i] == end:
            i_end_x = i
    for step in range(n_steps + 1):
        t = step * dt
        if step > 0:
            for i in range(nu):
                w[i] += 0.5 * dt * acc[i]
                u[i] += dt * w[i]
                vp[i] = w[i] + 0.5 * dt * acc[i]
        else:
            vp[:] = w
        th = omega * t
        ca, sa = math.cos(th), math.sin(th)
        q[0], q[1] = crank * ca, crank * sa
        v[0], v[1] = -crank * omega * sa, crank * omega * ca
        ax, ay = -crank * omega * omega * ca, -crank * omega * omega * sa
        for i in range(nf):
            q[free[i]] = u[i]
            v[free[i]] = vp[i]
        ua, ub = internal_forces(q, v, n_el, le, ea, ei, eta, gp, gw, f)
        for i in range(nf):
            j = free[i]
            rhs[i] = fg[j] - f[j] - mfp[i, 0] * ax - mfp[i, 1] * ay
        fn = 0.0
        fel = 0.0
        ft = 0.0
        nx, ny, tx, ty, sx, sy, g2 = 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 1.0
        delta = 0.0
        ex = 0.0
        ey = 0.0
        if not ideal:
            xs = u[nu - 1]
            ex, ey = xs - q[end], -q[end + 1]
            dist = math.sqrt(ex * ex + ey * ey)
            delta = dist - clr
            if delta > 0.0:
                nx, ny = ex / dist, ey / dist
                tx, ty = -ny, nx
                sx, sy = q[end + 2], q[end + 3]
                rate = (sx * v[end + 3] - sy * v[end + 2]) / (sx * sx + sy * sy)
                vrx = vp[nu - 1] - v[end] - rate * r_b * tx
                vry = -v[end + 1] - rate * r_b * ty
                ddot = vrx * nx + vry * ny
                if not in_contact:
                    in_contact = True
                    dd0 = ddot
                    count[0] += 1.0
                    if t >= t_steady:
                        count[1] += 1.0
                fn, fel = normal_force(
                    int(contact[0]),
                    contact[1],
                    contact[2],
                    contact[3],
                    contact[4],
                    contact[5],
                    delta,
                    ddot,
                    dd0,
                )
                ft = friction_force(
                    int(fric[0]), fric[1], fric[2], fric[3], fric[4], fn, vrx * tx + vry * ty
                )
                fjx = -fn * nx + ft * tx
                fjy = -fn * ny + ft * ty
                rhs[nu - 1] = fjx
                moment = -ft * r_b  # friction on the bearing acts at R_B n from the node
                g2 = sx * sx + sy * sy
                for i in range(nf):
                    j = free[i]
                    if j == end:
                        rhs[i] -= fjx
                    elif j == end + 1:
                        rhs[i] -= fjy
                    elif j == end + 2:
                        rhs[i] -= moment * sy / g2
                    elif j == end + 3:
                        rhs[i] += moment * sx / g2
                if delta > clr:
                    return 2, t, out, met
            else:
                in_contact = False
                rhs[nu - 1] = 0.0
        band_solve(lb, rhs, acc)
        if step > 0:
            for i in range(nu):
                w[i] += 0.5 * dt * acc[i]
        # the step's velocity and acceleration of every rod coordinate
        for i in range(nf):
            v[free[i]] = w[i]
            a_full[free[i]] = acc[i]
        a_full[0], a_full[1] = ax, ay
        # driver power: reaction on the prescribed crank-pin rows times their velocity
        p_drv = 0.0
        for j in range(2):
            reaction = f[j] - fg[j]
            for k in range(min(n, j + bw + 1)):
                reaction += m_full[j, k] * a_full[k]
            p_drv += reaction * v[j]
        p_damp = 0.0
        p_fric = 0.0
        if delta > 0.0 and not ideal:
            rate = (sx * v[end + 3] - sy * v[end + 2]) / g2
            vrx = w[nu - 1] - v[end] - rate * r_b * tx
            vry = -v[end + 1] - rate * r_b * ty
            p_damp = (fn - fel) * (vrx * nx + vry * ny)
            p_fric = -ft * (vrx * tx + vry * ty)
        p_mat = 0.0
        if eta != 0.0:
            internal_forces(q, v, n_el, le, ea, ei, 0.0, gp, gw, f_el)
            for i in range(n):
                p_mat += (f[i] - f_el[i]) * v[i]
        if step > 0:
            w_drv += 0.5 * dt * (p_drv0 + p_drv)
            e_damp += 0.5 * dt * (p_damp0 + p_damp)
            e_fric += 0.5 * dt * (p_fric0 + p_fric)
            e_mat += 0.5 * dt * (p_mat0 + p_mat)
        p_drv0, p_damp0, p_fric0, p_mat0 = p_drv, p_damp, p_fric, p_mat
        kin = 0.0  # 1/2 v^T M v over the band, plus the free slider
        for i in range(n):
            vb[i] = v[i]
        for i in range(n):
            s = 0.0
            for k in range(bw + 1):
                s += mb[i, k] * vb[i + k]
            kin += vb[i] * s
        if not ideal:
            kin += 0.5 * m_s * w[nu - 1] * w[nu - 1]
        pot = 0.0
        for i in range(n):
            pot -= fg[i] * q[i]
        u_c = elastic_energy(contact[1], contact[2], delta)
        total = kin + pot + ua + ub + u_c + e_damp + e_mat + e_fric - w_drv
        if step == 0:
            e0 = total
        resid = total - e0
        met[11] = max(met[11], abs(resid))
        met[12] = max(met[12], kin)
        a_s = acc[i_end_x] if ideal else acc[nu - 1]
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
        off = int(mid[0])
        rmx = 0.0
        rmy = 0.0
        for k in range(4):
            rmx += mid[k + 1] * q[off + 2 * k]
            rmy += mid[k + 1] * q[off + 2 * k + 1]
        cx, cy = q[end] - q[0], q[end + 1] - q[1]
        # mid-span distance from the chord crank pin -> small end, positive to the chord's left
        defl = ((rmy - q[1]) * cx - (rmx - q[0]) * cy) / math.sqrt(cx * cx + cy * cy)
        met[10] = max(met[10], abs(defl))
        if step % out_every == 0:
            k = step // out_every
            xs_now = q[end] if ideal else u[nu - 1]
            vs_now = v[end] if ideal else w[nu - 1]  # the step's velocity, not the predictor's
            row = (
                xs_now,
                vs_now,
                a_s,
                fn,
                ft,
                delta,
                ex,
                ey,
                defl,
                kin,
                ua + ub,
                pot,
                u_c,
                w_drv,
                e_damp + e_mat,
                e_fric,
                e_mat,
                resid,
            )
            for c in range(N_OUT):
                out[k, c] = row[c]
            if not math.isfinite(kin + ua + ub + a_s + resid):
                return 1, t, out, met
    for k in range(2):
        samples = met[5 * k + 4]
        met[5 * k + 1] = math.sqrt(met[5 * k + 1] / max(samples, 1.0))
        met[5 * k + 4] = count[k]
    return 0, 0.0, out, met
