"""The compiled time loop of the flexible slider-crank (see :mod:`.flexible_slider_crank`).

One velocity-Verlet step per iteration: prescribed crank pin, ANCF rod forces, the clearance
joint's contact and friction (or the ideal pin), one banded mass solve, per-step metrics and
a thinned output record. Kept apart from the case and its set-up so each stays readable.
"""

from __future__ import annotations

import math

import numpy as np

from ..contact_laws import elastic_energy, normal_force
from ..friction_laws import friction_force
from ..jit import kernel
from .ancf_beam import internal_forces
from .central_difference import band_solve

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
)
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
    metrics): ``out`` (n_out, 13) in OUT_COLUMNS order; ``metrics`` (11,) METRICS for the
    whole run, then for ``t >= t_steady``, then the largest |rod deflection| [m]; status 0
    ok, 1 non-finite, 2 journal through the wall.
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
    out = np.zeros((n_out, 13))
    met = np.zeros(11)
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
        ft = 0.0
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
                fn, _ = normal_force(
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
            for i in range(nf):  # the stored velocity is the step's, not the predictor's
                v[free[i]] = w[i]
            kin = 0.0
            for i in range(n):
                s = 0.0
                for j in range(n):
                    s += m_full[i, j] * v[j]
                kin += 0.5 * v[i] * s
            pot = 0.0
            for i in range(n):
                pot -= fg[i] * q[i]
            xs_now = q[end] if ideal else u[nu - 1]
            vs_now = v[end] if ideal else w[nu - 1]
            if not ideal:
                kin += 0.5 * m_s * vs_now * vs_now
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
                elastic_energy(contact[1], contact[2], delta),
            )
            for c in range(13):
                out[k, c] = row[c]
            if not math.isfinite(kin + ua + ub + a_s):
                return 1, t, out, met
    for k in range(2):
        samples = met[5 * k + 4]
        met[5 * k + 1] = math.sqrt(met[5 * k + 1] / max(samples, 1.0))
        met[5 * k + 4] = count[k]
    return 0, 0.0, out, met
