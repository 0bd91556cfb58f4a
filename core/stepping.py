"""The compiled stepping loop: one case from t = 0 to t_end, and a batch of cases in parallel.

Per accepted step it locates contact onset/exit events, keeps the constraints (projection
or Baumgarte), takes the metrics at full resolution - refining peaks on the dense output
between steps - and writes the uniform output grid. Everything a case needs lives in its own
arrays, so cases are independent: ``integrate_batch`` runs them with ``prange``, each with
its own step size, contact state and end time, and a failing case stops alone.

Options (``opts[case, OPT_*]``), metrics (``metrics[case, M_*]``) and series columns
(``series[case, k, S_*]``) are indexed by the constants below; :mod:`simulation` names them.
"""

from __future__ import annotations

import math

import numpy as np

from .constraints import constraint_jacobian, constraint_rates, constraint_values
from .dynamics import (
    AUX_ACCEL2,
    AUX_DAMPING,
    AUX_DRIVER_WORK,
    AUX_FRICTION,
    inverse_mass,
    make_workspace,
    schur_solve,
)
from .forces import D_DELTA, D_EX, D_EY, D_FN, D_FT, contact_energy, spring_energy
from .forces import clearance_kinematics as _ckin
from .integrators import KIND_EXPLICIT, erk_step, error_norm, hermite, rhs, rosenbrock23_step
from .jit import kernel, prange

# options
(
    OPT_T_END,
    OPT_T_STEADY,
    OPT_RTOL,
    OPT_ATOL_Q,
    OPT_ATOL_V,
    OPT_H0,
    OPT_HMAX,
    OPT_HMIN,
    OPT_EPS_ONSET,
    OPT_EPS_EVENT,
    OPT_PEN_BOUND,
    OPT_ALPHA,
    OPT_BETA,
    OPT_PROJECT,
    OPT_BISECT,
    OPT_MAX_STEPS,
    OPT_DRIVER_ROW,
    OPT_REFINE,
    OPT_N_OUT,
    OPT_PROBE,
) = range(20)
N_OPT = 20

# metrics
(
    M_PEAK_ACC,
    M_PEAK_ACC_S,
    M_A2_AT_TS,
    M_PEAK_FN,
    M_PEAK_FN_S,
    M_MAX_PEN,
    M_MAX_PEN_S,
    M_IMPACTS,
    M_IMPACTS_S,
    M_PEAK_TORQUE,
    M_PEAK_TORQUE_S,
    M_CONTACT_TIME,
    M_CONTACT_TIME_S,
    M_MAX_DRIFT,
    M_MAX_RESIDUAL,
    M_PEAK_KE,
    M_ONSET_ERR,
    M_FREE_PEN,
    M_NFEV,
    M_NACCEPT,
    M_NREJECT,
    M_NREFINE,
    M_T_FAIL,
    M_T_REACHED,
) = range(24)
N_MET = 24

# series columns (clearance joint 0 for the contact columns)
(
    S_T,
    S_POS,
    S_VEL,
    S_ACC,
    S_TORQUE,
    S_FN,
    S_FT,
    S_DELTA,
    S_EX,
    S_EY,
    S_CONTACT,
    S_KINETIC,
    S_POTENTIAL,
    S_CONTACT_ENERGY,
    S_DAMPING,
    S_FRICTION,
    S_DRIVER_WORK,
    S_RESIDUAL,
    S_DRIFT,
) = range(19)
N_SER = 19

# case status
OK, FAIL_NONFINITE, FAIL_PENETRATION, FAIL_STEP, FAIL_MAX_STEPS, FAIL_SINGULAR = range(6)
STATUS_TEXT = (
    "ok",
    "the state became non-finite (NaN or infinity)",
    "penetration exceeded its bound",
    "step size fell below the minimum",
    "maximum number of steps exceeded",
    "constraint equations became singular (the mechanism locked or cannot assemble)",
)

GOLDEN = 0.6180339887498949


@kernel
def _energy(y, n, model, in_contact, ws):
    """Kinetic, potential (gravity + springs) and contact energy [J] of state ``y``.

    The contact diagnostics in ``ws[7]`` must belong to ``y`` (the last RHS evaluation).
    """
    joint_int, joint_par, load_int, load_par, clear_int, clear_par, mass, inertia, gravity = model
    kinetic = 0.0
    potential = 0.0
    for b in range(mass.shape[0]):
        vx, vy, w = y[n + 3 * b], y[n + 3 * b + 1], y[n + 3 * b + 2]
        kinetic += 0.5 * mass[b] * (vx * vx + vy * vy) + 0.5 * inertia[b] * w * w
        potential -= mass[b] * (gravity[0] * y[3 * b] + gravity[1] * y[3 * b + 1])
    potential += spring_energy(y[:n], load_int, load_par)
    return kinetic, potential, contact_energy(clear_par, in_contact, ws[7])


@kernel
def _drift(y, t, n, model, ws):
    """Largest constraint violation |Phi| [m or rad] at ``(t, y)``."""
    phi = ws[2]
    constraint_values(y[:n], t, model[0], model[1], phi)
    worst = 0.0
    for i in range(phi.shape[0]):
        worst = max(worst, abs(phi[i]))
    return worst


@kernel
def _project(y, t, n, model, inv_mass, ws, tol):
    """Project positions onto Phi = 0 and velocities onto Phi' = 0, M-weighted.

    Returns the drift |Phi| found before the projection, or -1 if it did not converge.
    """
    jac, schur, phi, gamma, phi_t, lam, _, _, scratch = ws
    q = y[:n]
    before = -1.0
    for _ in range(8):
        constraint_values(q, t, model[0], model[1], phi)
        worst = 0.0
        for i in range(phi.shape[0]):
            worst = max(worst, abs(phi[i]))
        if before < 0.0:
            before = worst
        if worst <= tol:
            break
        constraint_jacobian(q, model[0], model[1], jac)
        if not schur_solve(jac, inv_mass, schur, phi):
            return -1.0
        for k in range(n):
            s = 0.0
            for i in range(phi.shape[0]):
                s += jac[i, k] * phi[i]
            q[k] -= inv_mass[k] * s
    else:
        return -1.0
    constraint_jacobian(q, model[0], model[1], jac)
    constraint_rates(q, y[n : 2 * n], model[0], model[1], gamma, phi_t)
    for i in range(phi.shape[0]):
        s = phi_t[i]
        for k in range(n):
            s += jac[i, k] * y[n + k]
        lam[i] = s
    if not schur_solve(jac, inv_mass, schur, lam):
        return -1.0
    for k in range(n):
        s = 0.0
        for i in range(phi.shape[0]):
            s += jac[i, k] * lam[i]
        scratch[k] = inv_mass[k] * s
        y[n + k] -= scratch[k]
    return before


@kernel
def _penetration(y, n, model, k):
    """Penetration [m] and its rate [m/s] of clearance joint ``k`` in state ``y``."""
    c = model[5][k]
    out = _ckin(y[:n], y[n : 2 * n], model[4][k, 0], model[4][k, 1], c)
    return out[4], out[5]


@kernel
def _observe(t, y, f, n, probe, driver_row, ws, quantity):
    """One of the refined quantities at a point: |probe acceleration|, max Fn, max delta."""
    if quantity == 0:
        return abs(f[n + probe]) if probe >= 0 else 0.0
    diag = ws[7]
    best = 0.0
    for k in range(diag.shape[0]):
        best = max(best, diag[k, D_FN] if quantity == 1 else diag[k, D_DELTA])
    return best


@kernel
def _refine_peak(ta, ya, fa, tb, yb, fb, tc, yc, fc, lo, quantity, ctx, n, probe, ystage, fst):
    """Golden-section search for the maximum of ``quantity`` on [max(ta, lo), tc].

    The state between the three step ends a < b < c comes from the Hermite dense output of
    whichever step holds the point, and the RHS is evaluated there - so the peak of an
    impact lasting a few steps is found to ~1e-5 of a step instead of read off the grid.
    Returns (peak value, RHS evaluations).
    """
    ws = ctx[7]
    x0 = max(ta, lo)
    x3 = tc
    best = 0.0
    evals = 0
    xa = x3 - GOLDEN * (x3 - x0)
    xb = x0 + GOLDEN * (x3 - x0)
    vals = np.zeros(2)
    pts = np.array([xa, xb])
    for j in range(2):
        x = pts[j]
        if x <= tb:
            hermite(ta, ya, fa, tb, yb, fb, x, ystage)
        else:
            hermite(tb, yb, fb, tc, yc, fc, x, ystage)
        rhs(x, ystage, ctx, fst)
        evals += 1
        vals[j] = _observe(x, ystage, fst, n, probe, -1, ws, quantity)
    for _ in range(18):
        if vals[0] > vals[1]:
            x3 = pts[1]
            pts[1] = pts[0]
            vals[1] = vals[0]
            pts[0] = x3 - GOLDEN * (x3 - x0)
            j = 0
        else:
            x0 = pts[0]
            pts[0] = pts[1]
            vals[0] = vals[1]
            pts[1] = x0 + GOLDEN * (x3 - x0)
            j = 1
        x = pts[j]
        if x <= tb:
            hermite(ta, ya, fa, tb, yb, fb, x, ystage)
        else:
            hermite(tb, yb, fb, tc, yc, fc, x, ystage)
        rhs(x, ystage, ctx, fst)
        evals += 1
        vals[j] = _observe(x, ystage, fst, n, probe, -1, ws, quantity)
    best = max(vals[0], vals[1])
    return best, evals


@kernel
def _find_event(t0, y0, f0, t1, y1, f1, n, model, in_contact, eps_onset, ystage):
    """Earliest contact event inside the step, by the signs of delta (seed 003's classes).

    Returns ``(joint, kind, t_lo, t_hi)`` with kind 1 = onset, -1 = exit, 0 = none, and a
    bracket ``[t_lo, t_hi]`` of the crossing. A free joint is also checked at mid-step so a
    grazing contact that enters and leaves within one step is not missed.
    """
    best_joint = -1
    best_kind = 0
    best_lo = t0
    best_hi = t1
    n_clear = model[4].shape[0]
    if n_clear == 0:
        return -1, 0, t0, t1
    tm = 0.5 * (t0 + t1)
    hermite(t0, y0, f0, t1, y1, f1, tm, ystage)
    for k in range(n_clear):
        d1, _ = _penetration(y1, n, model, k)
        dm, _ = _penetration(ystage, n, model, k)
        kind = 0
        hi = t1
        lo = t0
        if in_contact[k] == 0:
            if dm > eps_onset:
                kind, hi = 1, tm
            elif d1 > eps_onset:
                kind, lo = 1, tm
        else:
            if dm < 0.0:
                kind, hi = -1, tm
            elif d1 < 0.0:
                kind, lo = -1, tm
        if kind != 0 and (best_kind == 0 or hi < best_hi):
            best_joint, best_kind, best_lo, best_hi = k, kind, lo, hi
    return best_joint, best_kind, best_lo, best_hi


@kernel
def _locate(t0, y0, f0, t1, y1, f1, lo, hi, n, model, joint, target, ystage):
    """Illinois root finding of ``delta(t) = target`` on the step's dense output."""
    hermite(t0, y0, f0, t1, y1, f1, lo, ystage)
    glo = _penetration(ystage, n, model, joint)[0] - target
    hermite(t0, y0, f0, t1, y1, f1, hi, ystage)
    ghi = _penetration(ystage, n, model, joint)[0] - target
    side = 0
    for _ in range(60):
        if ghi == glo:
            break
        x = hi - ghi * (hi - lo) / (ghi - glo)
        hermite(t0, y0, f0, t1, y1, f1, x, ystage)
        g = _penetration(ystage, n, model, joint)[0] - target
        if (g > 0.0) == (ghi > 0.0):
            hi, ghi = x, g
            if side == 1:
                glo *= 0.5
            side = 1
        else:
            lo, glo = x, g
            if side == -1:
                ghi *= 0.5
            side = -1
        if abs(g) < 1e-15:
            return x  # converged from either side: ``hi`` may be a stale bracket end
        if hi - lo <= 1e-15 * max(1.0, abs(hi)):
            break
    # end on the far side of the crossing so the new contact state holds from here on
    return hi


@kernel
def integrate_case(y0, model, opts, method_kind, a, b, e, c, order, metrics, series, y_end):
    """Integrate one case; fill ``metrics``, ``series`` ``[n_out, N_SER]`` and ``y_end``.

    Returns a status code (``OK`` or one of the ``FAIL_*``).
    """
    clear_int = model[4]
    clear_par = model[5]
    n = 3 * model[6].shape[0]
    ny = y0.shape[0]
    m = 0
    for r in range(model[0].shape[0]):
        kind = model[0][r, 0]
        m += 1 if kind == 3 else (3 if kind == 2 else 2)
    n_clear = clear_int.shape[0]
    t_end = opts[OPT_T_END]
    t_s = opts[OPT_T_STEADY]
    rtol = opts[OPT_RTOL]
    h_max = opts[OPT_HMAX]
    h_min = opts[OPT_HMIN]
    eps_on = opts[OPT_EPS_ONSET]
    eps_ev = opts[OPT_EPS_EVENT]
    project = opts[OPT_PROJECT] != 0.0
    bisect = opts[OPT_BISECT] != 0.0
    refine = opts[OPT_REFINE] != 0.0
    max_steps = int(opts[OPT_MAX_STEPS])
    driver_row = int(opts[OPT_DRIVER_ROW])
    n_out = int(opts[OPT_N_OUT])
    probe = int(opts[OPT_PROBE])
    metrics[:] = 0.0

    atol = np.empty(ny)
    for i in range(ny):
        atol[i] = opts[OPT_ATOL_Q] if i < n else opts[OPT_ATOL_V]
    for i in range(2 * n, ny):
        atol[i] = 1e-12
    inv_mass = np.empty(n)
    inverse_mass(model[6], model[7], inv_mass)
    ws = make_workspace(n, m, n_clear)
    in_contact = np.zeros(n_clear, dtype=np.int64)
    approach = np.zeros(n_clear)
    ctx = (model, in_contact, approach, opts[OPT_ALPHA], opts[OPT_BETA], probe, inv_mass, ws)

    n_stage = max(b.shape[0], 6)
    k = np.zeros((n_stage, ny))
    ystage = np.zeros(ny)
    fst = np.zeros(ny)
    y = y0.copy()
    y1 = np.zeros(ny)
    err = np.zeros(ny)
    f0 = np.zeros(ny)
    f1 = np.zeros(ny)
    wmat = np.zeros((ny, ny))
    piv = np.zeros(ny, dtype=np.int64)
    # the two previous accepted step ends, for peak refinement
    tp2, tp1 = 0.0, 0.0
    yp2, yp1 = np.zeros(ny), np.zeros(ny)
    fp2, fp1 = np.zeros(ny), np.zeros(ny)
    xp2 = np.zeros(3)
    xp1 = np.zeros(3)
    xc = np.zeros(3)
    ev_p1 = True  # an event at the previous step end (no refinement across it)
    history = 0

    # contact state at the start: a joint already touching starts in contact
    for j in range(n_clear):
        d, dd = _penetration(y, n, model, j)
        if d > eps_on:
            in_contact[j] = 1
            approach[j] = dd
    nfev = 1
    if not rhs(0.0, y, ctx, f0):
        metrics[M_T_FAIL] = 0.0
        return FAIL_SINGULAR
    kin, pot, ucon = _energy(y, n, model, in_contact, ws)
    e0 = kin + pot + ucon
    metrics[M_PEAK_KE] = kin

    dt_out = t_end / (n_out - 1) if n_out > 1 else t_end
    k_out = 0
    t = 0.0
    h = opts[OPT_H0]
    status = OK
    steps = 0
    a2_ts = 0.0
    have_ts = t_s <= 0.0
    h_resume = 0.0  # the step to resume with after an event shortened one

    while t < t_end:
        if steps >= max_steps:
            status = FAIL_MAX_STEPS
            break
        h = min(h, h_max, t_end - t)
        if not have_ts and t + h > t_s:
            h = t_s - t
        if h < h_min:
            status = FAIL_STEP
            break
        if method_kind == KIND_EXPLICIT:
            good = erk_step(t, y, f0, h, a, b, e, c, ctx, k, ystage, y1, err)
            nfev += b.shape[0] - 1
            f1[:] = k[b.shape[0] - 1]
        else:
            good = rosenbrock23_step(t, y, f0, h, 2 * n, ctx, k, ystage, y1, err, wmat, piv)
            nfev += 2 * n + 3
            f1[:] = k[2]
        steps += 1
        finite = good
        for i in range(ny):
            if not math.isfinite(y1[i]):
                finite = False
        enorm = error_norm(err, y, y1, rtol, atol) if finite else 1e10
        if not finite or enorm > 1.0:
            metrics[M_NREJECT] += 1
            h *= max(0.2, 0.9 * enorm ** (-1.0 / (order + 1))) if finite else 0.25
            continue

        t1 = t + h
        joint, kind, lo, hi = _find_event(
            t, y, f0, t1, y1, f1, n, model, in_contact, eps_on, ystage
        )
        if kind != 0:
            target = eps_on if kind == 1 else 0.0
            if bisect:
                # seed 003: halve the step until delta(t + h) lands in the band past the
                # threshold, never below the minimum event step
                d1 = _penetration(y1, n, model, joint)[0]
                miss = (d1 - target) if kind == 1 else (target - d1)
                if miss > eps_ev and h > 1e-7:
                    if h_resume == 0.0:
                        h_resume = h
                    h *= 0.5
                    continue
            else:
                t_hit = _locate(t, y, f0, t1, y1, f1, lo, hi, n, model, joint, target, ystage)
                # redo the step exactly to the event: the state at the event is a true RK
                # solution, not an interpolation
                h_resume = h
                h = t_hit - t
                if method_kind == KIND_EXPLICIT:
                    erk_step(t, y, f0, h, a, b, e, c, ctx, k, ystage, y1, err)
                    nfev += b.shape[0] - 1
                    f1[:] = k[b.shape[0] - 1]
                else:
                    rosenbrock23_step(t, y, f0, h, 2 * n, ctx, k, ystage, y1, err, wmat, piv)
                    nfev += 2 * n + 3
                    f1[:] = k[2]
                t1 = t + h
                # The redone step lands on the interpolant's root only to the cubic dense
                # output's accuracy (~1e-7 m on a long free-flight step, so an onset could
                # start at delta < 0): polish the step length by Newton on the RK step's own
                # end state, with delta_dot as the slope (one or two extra steps per event).
                # An exit aims 1 nm past separation (no force acts at delta <= 0) so the
                # projection that follows cannot leave a free journal above the threshold.
                goal = target if kind == 1 else -eps_ev
                for _ in range(4):
                    d1, dd1 = _penetration(y1, n, model, joint)
                    if abs(d1 - goal) <= 0.1 * eps_on or dd1 == 0.0:
                        break
                    h_new = h - (d1 - goal) / dd1
                    if not 0.0 < h_new <= t_end - t or (not have_ts and t + h_new > t_s):
                        break  # keep the steady window's start and t_end exact
                    h = h_new
                    if method_kind == KIND_EXPLICIT:
                        erk_step(t, y, f0, h, a, b, e, c, ctx, k, ystage, y1, err)
                        nfev += b.shape[0] - 1
                        f1[:] = k[b.shape[0] - 1]
                    else:
                        rosenbrock23_step(t, y, f0, h, 2 * n, ctx, k, ystage, y1, err, wmat, piv)
                        nfev += 2 * n + 3
                        f1[:] = k[2]
                    t1 = t + h

        # uniform output grid inside (t, t1], with the contact state of this step
        while k_out < n_out and k_out * dt_out <= t1 + 1e-12 * t_end:
            tk = min(k_out * dt_out, t1)
            if k_out == 0:
                ystage[:] = y
            else:
                hermite(t, y, f0, t1, y1, f1, tk, ystage)
            rhs(tk, ystage, ctx, fst)
            nfev += 1
            row = series[k_out]
            row[S_T] = tk
            if probe >= 0:
                row[S_POS] = ystage[probe]
                row[S_VEL] = ystage[n + probe]
                row[S_ACC] = fst[n + probe]
            if driver_row >= 0:
                row[S_TORQUE] = -ws[5][driver_row]
            if n_clear > 0:
                dg = ws[7][0]
                row[S_FN], row[S_FT], row[S_DELTA] = dg[D_FN], dg[D_FT], dg[D_DELTA]
                row[S_EX], row[S_EY], row[S_CONTACT] = dg[D_EX], dg[D_EY], in_contact[0]
            kin, pot, ucon = _energy(ystage, n, model, in_contact, ws)
            row[S_KINETIC], row[S_POTENTIAL], row[S_CONTACT_ENERGY] = kin, pot, ucon
            row[S_DAMPING] = ystage[2 * n + AUX_DAMPING]
            row[S_FRICTION] = ystage[2 * n + AUX_FRICTION]
            row[S_DRIVER_WORK] = ystage[2 * n + AUX_DRIVER_WORK]
            row[S_RESIDUAL] = (
                kin + pot + ucon + row[S_DAMPING] + row[S_FRICTION] - row[S_DRIVER_WORK] - e0
            )
            row[S_DRIFT] = _drift(ystage, tk, n, model, ws)
            k_out += 1

        event_here = kind != 0
        if event_here:
            in_contact[joint] = 1 if kind == 1 else 0
            d_ev, dd_ev = _penetration(y1, n, model, joint)
            if kind == 1:
                approach[joint] = dd_ev
                metrics[M_IMPACTS] += 1
                if t1 >= t_s:
                    metrics[M_IMPACTS_S] += 1
                metrics[M_ONSET_ERR] = max(metrics[M_ONSET_ERR], abs(d_ev - eps_on))
        # contact time of this step: the state *during* the step, i.e. before the event at
        # its end flipped it (an onset step was free flight, an exit step was in contact)
        for j in range(n_clear):
            during = in_contact[j]
            if event_here and joint == j:
                during = 1 if kind == -1 else 0
            if during:
                metrics[M_CONTACT_TIME] += t1 - t
                if t >= t_s:
                    metrics[M_CONTACT_TIME_S] += t1 - t

        if project:
            drift = _project(y1, t1, n, model, inv_mass, ws, 1e-13)
            if drift < 0.0:
                status = FAIL_SINGULAR
                t = t1
                break
        else:
            drift = _drift(y1, t1, n, model, ws)
        metrics[M_MAX_DRIFT] = max(metrics[M_MAX_DRIFT], drift)
        if event_here or project:
            if not rhs(t1, y1, ctx, f1):
                status = FAIL_SINGULAR
                t = t1
                break
            nfev += 1
        else:
            rhs(t1, y1, ctx, f1)  # refresh the diagnostics of (t1, y1) for the metrics
            nfev += 1

        # --- metrics at the accepted step end -------------------------------------------
        steady = t1 >= t_s - 1e-15
        xc[0] = abs(f1[n + probe]) if probe >= 0 else 0.0
        xc[1] = 0.0
        xc[2] = 0.0
        for j in range(n_clear):
            dg = ws[7][j]
            xc[1] = max(xc[1], dg[D_FN])
            if in_contact[j]:
                xc[2] = max(xc[2], dg[D_DELTA])
                if dg[D_DELTA] > opts[OPT_PEN_BOUND] * (clear_par[j, 4] - clear_par[j, 5]):
                    status = FAIL_PENETRATION
            else:
                metrics[M_FREE_PEN] = max(metrics[M_FREE_PEN], dg[D_DELTA])
        if status != OK:
            t = t1
            break
        for qi in range(3):
            mi = (M_PEAK_ACC, M_PEAK_FN, M_MAX_PEN)[qi]
            metrics[mi] = max(metrics[mi], xc[qi])
            if steady:
                metrics[mi + 1] = max(metrics[mi + 1], xc[qi])
        if driver_row >= 0:
            tq = abs(ws[5][driver_row])
            metrics[M_PEAK_TORQUE] = max(metrics[M_PEAK_TORQUE], tq)
            if steady:
                metrics[M_PEAK_TORQUE_S] = max(metrics[M_PEAK_TORQUE_S], tq)
        kin, pot, ucon = _energy(y1, n, model, in_contact, ws)
        metrics[M_PEAK_KE] = max(metrics[M_PEAK_KE], kin)
        resid = (
            kin
            + pot
            + ucon
            + y1[2 * n + AUX_DAMPING]
            + y1[2 * n + AUX_FRICTION]
            - y1[2 * n + AUX_DRIVER_WORK]
            - e0
        )
        metrics[M_MAX_RESIDUAL] = max(metrics[M_MAX_RESIDUAL], abs(resid))

        # a local maximum at the previous step end: refine it on the dense output
        if refine and history >= 2 and not ev_p1 and not event_here:
            for qi in range(3):
                mi = (M_PEAK_ACC, M_PEAK_FN, M_MAX_PEN)[qi]
                if xp1[qi] >= xp2[qi] and xp1[qi] >= xc[qi] and xp1[qi] > 0.0:
                    whole = xp1[qi] > 0.98 * metrics[mi]
                    st = tp1 >= t_s and xp1[qi] > 0.98 * metrics[mi + 1]
                    if whole or st:
                        lo_t = t_s if (st and not whole) else 0.0
                        peak, ev = _refine_peak(
                            tp2,
                            yp2,
                            fp2,
                            tp1,
                            yp1,
                            fp1,
                            t1,
                            y1,
                            f1,
                            lo_t,
                            qi,
                            ctx,
                            n,
                            probe,
                            ystage,
                            fst,
                        )
                        nfev += ev
                        metrics[M_NREFINE] += 1
                        metrics[mi] = max(metrics[mi], peak)
                        if tp1 >= t_s:
                            metrics[mi + 1] = max(metrics[mi + 1], peak)
            rhs(t1, y1, ctx, fst)  # restore the workspace of (t1, y1)
            nfev += 1

        if not have_ts and abs(t1 - t_s) <= 1e-14 * max(1.0, t_s):
            a2_ts = y1[2 * n + AUX_ACCEL2]
            have_ts = True

        # shift history and advance
        tp2, tp1 = tp1, t1
        yp2[:] = yp1
        yp1[:] = y1
        fp2[:] = fp1
        fp1[:] = f1
        xp2[:] = xp1
        xp1[:] = xc
        ev_p1 = event_here
        history += 1
        y[:] = y1
        f0[:] = f1
        t = t1
        metrics[M_NACCEPT] += 1
        if event_here:
            # resume with the step taken before the event cut it short (seed 003): an event
            # right at a step's start would otherwise leave a vanishing step behind
            h = max(h, h_resume)
            h_resume = 0.0
        else:
            factor = 10.0 if enorm == 0.0 else min(10.0, 0.9 * enorm ** (-1.0 / (order + 1)))
            h *= max(0.2, factor)

    metrics[M_A2_AT_TS] = a2_ts
    metrics[M_NFEV] = nfev
    metrics[M_T_REACHED] = t
    metrics[M_T_FAIL] = t if status != OK else -1.0
    y_end[:] = y
    return status


@kernel(parallel=True)
def integrate_batch(
    y0,
    topo,
    joint_par,
    load_par,
    clear_par,
    mass,
    inertia,
    gravity,
    opts,
    method_kind,
    a,
    b,
    e,
    c,
    order,
    metrics,
    series,
    y_end,
    status,
):
    """Integrate ``n_cases`` cases (leading axis of every per-case array) in parallel.

    ``topo = (joint_int, load_int, clear_int)`` is shared. Each case writes only its own
    rows of ``metrics``, ``series``, ``y_end`` and ``status``.
    """
    joint_int, load_int, clear_int = topo
    for i in prange(y0.shape[0]):
        model = (
            joint_int,
            joint_par[i],
            load_int,
            load_par[i],
            clear_int,
            clear_par[i],
            mass[i],
            inertia[i],
            gravity[i],
        )
        status[i] = integrate_case(
            y0[i], model, opts[i], method_kind, a, b, e, c, order, metrics[i], series[i], y_end[i]
        )
