"""The compiled stepping loop: one case from t = 0 to t_end, and a range of cases of a batch.

Per accepted step it locates contact onset/exit events (:mod:`events`), keeps the
constraints (:mod:`projection`, or Baumgarte inside the RHS), takes the metrics at full
resolution - refining peaks on the dense output between steps (:mod:`peak_refinement`) - and
writes the uniform output grid. With a driver period ``T`` it also keeps a record per
revolution (its peaks, impacts, times in free flight / impact / continuous contact, and the
Poincare section at t = k T, exact on the dense output) and, with a settling tolerance,
stops once the section repeats (:func:`_settled_period`): the run of adaptive length.
Everything a case needs lives in its own arrays, so cases are independent:
``integrate_batch`` runs a range of them (the solver hands ranges to threads: every kernel
releases the GIL), each with its own step size, contact state and end time, and a failing
case stops alone.

Options (``opts[case, OPT_*]``), metrics (``metrics[case, M_*]``) and series columns
(``series[case, k, S_*]``) are indexed by the constants below; :mod:`simulation` names them.
The loop reads its options once, by name (:class:`RunSettings`), works in the arrays of one
constructor (:class:`StepBuffers`, :func:`make_step_buffers`: the warm-up builds its arguments
with it too) and hands its pieces these objects rather than their fields one by one.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from .assembly import CP_RB, CP_RJ, CP_WMAX, ROWS, CaseModel
from .dynamics import (
    AUX_ACCEL2,
    AUX_DAMPING,
    AUX_DRIVER_WORK,
    AUX_FILM,
    AUX_FRICTION,
    N_UNCONTROLLED,
    UNCONTROLLED_ATOL,
    WS_DIAG,
    WS_LAMBDA,
    WS_ROT,
    inverse_mass,
    make_workspace,
)
from .energy import balance_residual, state_energy
from .events import EXIT, NONE, ONSET, eccentricity_at, find_event, locate_event, penetration_at
from .forces import D_DELTA, D_EX, D_EY, D_FN, D_FT
from .integrators import (
    KIND_EXPLICIT,
    KIND_RADAU,
    CaseContext,
    Tableau,
    dense_output,
    erk_step,
    error_norm,
    evaluate,
    rosenbrock23_step,
)
from .jit import kernel
from .motion import DRIFT_SIGNIFICANCE
from .peak_refinement import (
    PROBE_FIELDS,
    measure_value,
    observation,
    observe,
    refine_observation,
    refine_peak,
)
from .projection import drift, project
from .radau import (
    RADAU_ORDER,
    auto_kind,
    hold_step,
    make_radau_work,
    radau5_step,
    radau_enter,
    radau_reject,
    radau_report,
)
from .step_budget import (
    N_BUDGET,
    RADAU_BASE,
    budget_accept,
    budget_phase,
    budget_reject,
    budget_rhs,
    contact_hlambda,
    hairer_hlambda,
)

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
    OPT_CONTACT_HMAX,
    OPT_PERIOD,
    OPT_SETTLE_TOL,
    OPT_SETTLE_FROM,
    OPT_IMPACT_TIME,
    OPT_DT_OUT,
    OPT_N_HEAD,
    OPT_SETTLE_JITTER,
    OPT_SETTLE_CAP,
    OPT_SETTLE_HORIZON,
    OPT_N_PROBES,
    OPT_N_JOINTS,
    OPT_N_TRACES,
    OPT_BUDGET,
) = range(34)
N_OPT = 34
# From ``opts[N_OPT]`` on: ``OPT_N_PROBES`` measures (vector probes), then ``OPT_N_TRACES``
# quantities kept as series only, ``PROBE_FIELDS`` numbers each (:mod:`peak_refinement`).
# ``OPT_N_JOINTS``: the clearance joints observed one by one (0: none). ``OPT_BUDGET`` != 0:
# the step budget (:mod:`step_budget`) in the last ``N_BUDGET`` columns of the metric row.

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
    M_SETTLED_N,
    M_SETTLED_AT,
    M_SECTIONS,
) = range(27)
N_MET = 27
# then per measure p, at N_MET + N_MP p: its peak, steady peak, the integral of its square
# over the run and over the steady window [unit^2 s]
(MP_PEAK, MP_PEAK_S, MP_SQ, MP_SQ_S) = range(4)
N_MP = 4
# then per observed joint j, at N_MET + N_MP n_probes + N_MJ j
(MJ_PEAK_FN, MJ_PEAK_FN_S, MJ_MAX_PEN, MJ_MAX_PEN_S, MJ_IMPACTS, MJ_IMPACTS_S) = range(6)
N_MJ = 6

# per-revolution record ``revs[case, k, R_*]``: row k >= 1 holds revolution k, the interval
# ((k-1) T, k T], and the Poincare section at t = k T; row 0 the section at t = 0
(
    R_PEAK_ACC,
    R_PEAK_FN,
    R_MAX_PEN,
    R_PEAK_TORQUE,
    R_IMPACTS,
    R_FREE,
    R_IMPACT,
    R_CONTACT,
    R_ACCEL2,
    R_TIME,
    R_PROBE,
    R_SECTION,
) = range(12)
N_REV = 12  # + 2 per clearance joint: its eccentricity (x, y) at the section, from R_SECTION
# then, from N_REV + 2 n_clear: per measure (N_RP: its peak, the integral of its square over
# the revolution), then per observed joint (N_RJ: peak contact force, largest penetration,
# impacts)
(RP_PEAK, RP_SQ) = range(2)
N_RP = 2
(RJ_PEAK_FN, RJ_MAX_PEN, RJ_IMPACTS) = range(3)
N_RJ = 3
MAX_PERIOD = 8  # the longest period the settling test and the classifier look for
SETTLE_CONFIRM = 4  # consecutive sections that must each find a period before a run stops

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
# then one column per measure and per trace (its signed value), then per observed joint N_SJ
# columns
(SJ_FN, SJ_DELTA, SJ_EX, SJ_EY, SJ_CONTACT, SJ_IMPACTS) = range(6)
N_SJ = 6

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


@kernel(inline="always")
def _copy(dst, src):
    """``dst[:] = src`` without the temporary numba's slice copy may allocate."""
    for i in range(dst.shape[0]):
        dst[i] = src[i]


@kernel(runtime=False)
def _step(kind, t, h, tableau, ctx, v, k, wmat, piv, rw):
    """One step of the chosen method from ``(t, v.y, v.f0)`` (``v``: the
    :class:`StepVectors`); fills ``v.y1``, ``v.err``, ``v.r5`` and ``v.f1 = f(t+h, y1)``
    (``k``, ``wmat``, ``piv``: the :class:`StepBuffers`' scratch; ``rw``: the Radau buffers,
    None for the explicit methods).

    Returns (success, RHS evaluations).
    """
    y, f0, y1, f1, r5, err, ystage = v.y, v.f0, v.y1, v.f1, v.r5, v.err, v.ystage
    n = ctx.inv_mass.shape[0]
    # numba prunes this branch where rw is None (make_radau_work): the explicit methods'
    # loop neither contains nor compiles the Radau step
    if rw is not None and kind == KIND_RADAU:
        good, ev = radau5_step(t, y, f0, h, ctx, rw, y1, err, f1, N_UNCONTROLLED)
        for i in range(r5.shape[0]):
            r5[i] = 0.0  # cubic Hermite dense output
        return good, ev
    if kind == KIND_EXPLICIT:
        good = erk_step(t, y, f0, h, tableau, ctx, k, ystage, y1, err, r5)
        s = tableau.b.shape[0]
        _copy(f1, k[s - 1])
        return good, s - 1
    good = rosenbrock23_step(t, y, f0, h, 2 * n, ctx, k, ystage, y1, err, wmat, piv)
    r5[:] = 0.0
    _copy(f1, k[2])
    return good, 2 * n + 3


@kernel(runtime=False)
def _sample(row, tk, ystage, fst, n, probe, driver_row, in_contact, model, ws, e0, ctx, opts,
            metrics):
    """One row of the uniform output grid from the state ``ystage`` at time ``tk``: the
    columns ``S_*``, each measure's value and each observed joint's ``SJ_*`` (its impacts so
    far from ``metrics``)."""
    # a call, not the inlined rhs: one more inlined copy of the RHS was 18 % of the cold
    # compile, for a call overhead of a few ns per sample
    evaluate(tk, ystage, ctx, fst)
    row[S_T] = tk
    if probe >= 0:
        row[S_POS] = ystage[probe]
        row[S_VEL] = ystage[n + probe]
        row[S_ACC] = fst[n + probe]
    if driver_row >= 0:
        row[S_TORQUE] = -ws[WS_LAMBDA][driver_row]
    if in_contact.shape[0] > 0:
        dg = ws[WS_DIAG][0]
        row[S_FN], row[S_FT], row[S_DELTA] = dg[D_FN], dg[D_FT], dg[D_DELTA]
        row[S_EX], row[S_EY], row[S_CONTACT] = dg[D_EX], dg[D_EY], in_contact[0]
    kin, pot, ucon = state_energy(ystage, n, model, in_contact, ws)
    row[S_KINETIC], row[S_POTENTIAL], row[S_CONTACT_ENERGY] = kin, pot, ucon
    row[S_DAMPING] = ystage[2 * n + AUX_DAMPING]
    row[S_FRICTION] = ystage[2 * n + AUX_FRICTION]
    row[S_DRIVER_WORK] = ystage[2 * n + AUX_DRIVER_WORK]
    row[S_RESIDUAL] = balance_residual(ystage, n, kin, pot, ucon, e0)
    row[S_DRIFT] = drift(ystage, tk, n, model, ws)
    n_probe, n_joint = int(opts[OPT_N_PROBES]), int(opts[OPT_N_JOINTS])
    n_values = n_probe + int(opts[OPT_N_TRACES])
    for p in range(n_values):
        row[N_SER + p] = measure_value(ystage, fst, n, opts, N_OPT + PROBE_FIELDS * p)
    dg = ws[WS_DIAG]
    for j in range(n_joint):
        c = N_SER + n_values + N_SJ * j
        row[c + SJ_FN], row[c + SJ_DELTA] = dg[j, D_FN], dg[j, D_DELTA]
        row[c + SJ_EX], row[c + SJ_EY] = dg[j, D_EX], dg[j, D_EY]
        row[c + SJ_CONTACT] = in_contact[j]
        row[c + SJ_IMPACTS] = metrics[N_MET + N_MP * n_probe + N_MJ * j + MJ_IMPACTS]


@kernel(inline="always")
def _revolution(t, period, n_rev):
    """Revolution index of time ``t`` (``k`` for ``t`` in ``((k-1) T, k T]``), 0 when no
    sections are kept or past the last row."""
    if n_rev == 0:
        return 0
    k = int(math.ceil(t / period - 1e-9))
    return min(max(k, 1), n_rev)


@kernel(runtime=False)
def _section(row, ts, ystage, n, model, rot, probe):
    """One Poincare section: the time, the accel^2 quadrature, the probe coordinate (the
    slider's position) and each joint's eccentricity."""
    row[R_TIME] = ts
    row[R_ACCEL2] = ystage[2 * n + AUX_ACCEL2]
    row[R_PROBE] = ystage[probe] if probe >= 0 else 0.0
    for j in range(model.clear_int.shape[0]):
        ex, ey = eccentricity_at(ystage, n, model, rot, j)
        row[R_SECTION + 2 * j] = ex
        row[R_SECTION + 2 * j + 1] = ey


@kernel(inline="always")
def _coord(revs, i, j, a, n_clear):
    """Section coordinate ``a`` (0: x, 1: y) of joint ``j`` at section ``i`` [m]; the probe
    coordinate without a clearance joint."""
    if n_clear == 0:
        return revs[i, R_PROBE]
    return revs[i, R_SECTION + 2 * j + a]


@kernel(runtime=False)
def _phase_jitter2(revs, lo, k, period, n_clear):
    """The square of :func:`motion.section_jitter` for one period on sections ``[lo, k]``:
    the mean square second difference of sections ``period`` apart over 6, per joint
    [m^2]; inf for no triple."""
    total = 0.0
    count = 0
    dims = 2 if n_clear > 0 else 1
    for i in range(lo, k - 2 * period + 1):
        for j in range(max(n_clear, 1)):
            for a in range(dims):
                d = (_coord(revs, i + 2 * period, j, a, n_clear)
                     - 2.0 * _coord(revs, i + period, j, a, n_clear)
                     + _coord(revs, i, j, a, n_clear))
                total += d * d / max(n_clear, 1)
        count += 1
    return total / (6.0 * count) if count > 0 else math.inf


@kernel(runtime=False)
def _drift_exceeds(revs, lo, k, period, n_clear, tol, horizon):
    """:func:`motion.drift_exceeds` on sections ``[lo, k]``: some phase of the N-cycle
    slides significantly (DRIFT_SIGNIFICANCE standard errors of its least-squares slope,
    residual variance pooled over the phases) at a rate that leaves ``tol`` [m] within
    ``horizon`` revolutions."""
    dims = 2 if n_clear > 0 else 1
    for j in range(max(n_clear, 1)):
        # pass 1: the pooled residual variance of the phases' straight lines
        rss = 0.0
        dof = 0
        for phase in range(period):
            m = (k - phase - lo) // period + 1
            if k - phase < lo or m < 3:
                continue
            i0 = k - phase - (m - 1) * period
            ibar = i0 + 0.5 * (m - 1) * period
            sxx = 0.0
            for r in range(m):
                x = i0 + r * period - ibar
                sxx += x * x
            for a in range(dims):
                ybar = 0.0
                for r in range(m):
                    ybar += _coord(revs, i0 + r * period, j, a, n_clear)
                ybar /= m
                sxy = 0.0
                for r in range(m):
                    x = i0 + r * period - ibar
                    sxy += x * (_coord(revs, i0 + r * period, j, a, n_clear) - ybar)
                beta = sxy / sxx
                for r in range(m):
                    x = i0 + r * period - ibar
                    res = _coord(revs, i0 + r * period, j, a, n_clear) - ybar - beta * x
                    rss += res * res
                dof += m - 2
        if dof == 0:
            continue
        var = rss / dof
        # pass 2: each phase's slope against its standard error and the horizon
        for phase in range(period):
            m = (k - phase - lo) // period + 1
            if k - phase < lo or m < 3:
                continue
            i0 = k - phase - (m - 1) * period
            ibar = i0 + 0.5 * (m - 1) * period
            sxx = 0.0
            for r in range(m):
                x = i0 + r * period - ibar
                sxx += x * x
            b2 = 0.0
            for a in range(dims):
                ybar = 0.0
                for r in range(m):
                    ybar += _coord(revs, i0 + r * period, j, a, n_clear)
                ybar /= m
                sxy = 0.0
                for r in range(m):
                    x = i0 + r * period - ibar
                    sxy += x * (_coord(revs, i0 + r * period, j, a, n_clear) - ybar)
                beta = sxy / sxx
                b2 += beta * beta
            significant = b2 > DRIFT_SIGNIFICANCE * DRIFT_SIGNIFICANCE * var / sxx
            if significant and b2 * horizon * horizon > tol * tol:
                return True
    return False


@kernel(runtime=False)
def _settled_period(revs, k, first, tol, n_clear, factor, cap, horizon):
    """The period N the motion has settled to at section ``k`` (0: not settled): the one
    :func:`_period_at` finds at ``k``, where it found a period at each of the
    SETTLE_CONFIRM - 1 sections before as well. A single window can pass on a cycle that
    is still decaying within its noise (c = 0.1 mm after its capture: a 2-cycle at section
    38, a fixed point from 42 on); a period found at consecutive sections has stopped
    changing."""
    found = 0
    for back in range(SETTLE_CONFIRM):
        n_found = _period_at(revs, k - back, first, tol, n_clear, factor, cap, horizon)
        if n_found == 0:
            return 0
        if back == 0:
            found = n_found
    return found


@kernel(runtime=False)
def _period_at(revs, k, first, tol, n_clear, factor, cap, horizon):
    """The smallest period N <= MAX_PERIOD for which the sections of the last
    ``max(8, 3 N)`` revolutions up to section ``k`` repeat: every two sections of the same
    phase (k - i a multiple of N) within the tolerance of each other, for every joint (so a
    slow drift over the window fails too); without a clearance joint, the probe coordinate.
    0 if none; sections before ``first`` never count.

    The tolerance sits above the section's own jitter (:mod:`motion`): ``factor`` x
    :func:`motion.section_jitter` (the smallest over N of the rms second difference of
    sections N apart, over sqrt 6, each N on its own window: a window reaching back into
    the transient reads large, a settled one the noise), at least ``tol`` [m] (the
    settling tolerance) and at most ``cap`` x ``tol``. A period
    whose phases still slide (the journal creeping along the wall after a capture) does not
    stop the run (:func:`_drift_exceeds`, over the last ``max(16, 6 N)`` sections since
    ``first``; ``horizon`` <= 0: no drift test).
    """
    jitter2 = math.inf
    for period in range(1, MAX_PERIOD + 1):
        lo = k - max(8, 3 * period) + 1
        if lo < first:
            break
        jitter2 = min(jitter2, _phase_jitter2(revs, lo, k, period, n_clear))
    if jitter2 == math.inf:
        return 0
    tol = min(max(tol, factor * math.sqrt(jitter2)), cap * tol)
    for period in range(1, MAX_PERIOD + 1):
        window = max(8, 3 * period)
        lo = k - window + 1
        if lo < first:
            return 0
        ok = True
        for i in range(lo, k + 1):
            for i2 in range(i + period, k + 1, period):
                if n_clear == 0 and abs(revs[i, R_PROBE] - revs[i2, R_PROBE]) > tol:
                    ok = False
                for j in range(n_clear):
                    dx = revs[i, R_SECTION + 2 * j] - revs[i2, R_SECTION + 2 * j]
                    dy = revs[i, R_SECTION + 2 * j + 1] - revs[i2, R_SECTION + 2 * j + 1]
                    if dx * dx + dy * dy > tol * tol:
                        ok = False
                        break
                if not ok:
                    break
            if not ok:
                break
        if ok and horizon > 0.0:
            lo_drift = max(first, k - max(16, 6 * period) + 1)
            if _drift_exceeds(revs, lo_drift, k, period, n_clear, tol, horizon):
                ok = False
        if ok:
            return period
    return 0


# --------------------------------------------------------------------------------------
# the loop's state as objects (numba named tuples): what the options row asks of the run
# (:class:`RunSettings`, read once), the arrays the case works in (:class:`StepBuffers`,
# its state vectors :class:`StepVectors` and peak histories :class:`LastThree`). The loop's
# pieces take these instead of their fields one by one; :func:`make_step_buffers` is the one
# constructor, used by :func:`integrate_case` and by the warm-up (:mod:`warm`).


class RunSettings(NamedTuple):
    """The options row (``opts[OPT_*]``) as the stepping loop reads it (:func:`read_settings`),
    SI units."""

    t_end: float  # end of the run [s]
    t_s: float  # start of the steady window [s]
    rtol: float  # relative tolerance of the error norm
    h_max: float  # largest step [s]
    h_min: float  # smallest step before the run fails [s]
    contact_hmax: float  # largest step while a joint is in contact [s]
    eps_on: float  # penetration of a contact onset [m]
    eps_ev: float  # overshoot of a contact exit past separation [m]
    pen_bound: float  # the penetration bound, as a multiple of the joint's gap
    impact_time: float  # the first part of a contact that counts as its impact [s]
    period: float  # the driver's period T [s], 0: no revolutions kept
    dt_out: float  # spacing of the output grid [s]
    settle_tol: float  # the settling tolerance [m], 0: a run of fixed length
    project: bool  # project the state onto the constraints after each step
    bisect: bool  # locate events by bisection (seed 003) instead of root finding
    refine: bool  # refine the peaks on the dense output
    budget: bool  # keep the step budget (:mod:`step_budget`)
    max_steps: int  # most steps tried
    driver_row: int  # the driver's constraint row (its torque), -1: none
    probe: int  # the output coordinate (index into q), -1: none
    n_out: int  # rows of the output grid
    n_head: int  # rows kept from the start when the grid becomes a ring
    n_rev: int  # revolutions kept (rows of ``revs`` after row 0)
    settle_from: int  # the first section the settling test may use
    n_probe: int  # the vector probes' measures


@kernel(inline="always")
def read_settings(opts, n_revs):
    """The :class:`RunSettings` of the options row ``opts``; ``n_revs`` the rows of the
    per-revolution record."""
    t_end, n_out, period = opts[OPT_T_END], int(opts[OPT_N_OUT]), opts[OPT_PERIOD]
    dt_out = opts[OPT_DT_OUT]
    if dt_out <= 0.0:
        dt_out = t_end / (n_out - 1) if n_out > 1 else t_end
    return RunSettings(
        t_end, opts[OPT_T_STEADY], opts[OPT_RTOL], opts[OPT_HMAX], opts[OPT_HMIN],
        opts[OPT_CONTACT_HMAX], opts[OPT_EPS_ONSET], opts[OPT_EPS_EVENT], opts[OPT_PEN_BOUND],
        opts[OPT_IMPACT_TIME], period, dt_out, opts[OPT_SETTLE_TOL], opts[OPT_PROJECT] != 0.0,
        opts[OPT_BISECT] != 0.0, opts[OPT_REFINE] != 0.0, opts[OPT_BUDGET] != 0.0,
        int(opts[OPT_MAX_STEPS]), int(opts[OPT_DRIVER_ROW]), int(opts[OPT_PROBE]), n_out,
        int(opts[OPT_N_HEAD]), n_revs - 1 if period > 0.0 else 0, int(opts[OPT_SETTLE_FROM]),
        int(opts[OPT_N_PROBES]),
    )  # fmt: skip


class StepVectors(NamedTuple):
    """The loop's state-length vectors, ``[ny]`` each (the rows of one block:
    :func:`make_step_vectors`). A step goes from ``(t, y, f0)`` to ``(t1, y1, f1)``; the
    step before it (for peak refinement) started at ``(tp2, yp2, fp2)`` and ended at y."""

    ystage: np.ndarray  # scratch state: RK stages, dense-output points
    fst: np.ndarray  # scratch derivative: f at ystage
    err: np.ndarray  # the step's error estimate
    y: np.ndarray  # the state at the step's start
    y1: np.ndarray  # ... at its end
    f0: np.ndarray  # f(t, y)
    f1: np.ndarray  # f(t1, y1)
    r5: np.ndarray  # the step's dense-output term (:func:`integrators.dense_output`)
    yp2: np.ndarray  # the step before: its start
    fp2: np.ndarray  # ... f there
    rp: np.ndarray  # ... its dense-output term


@kernel(inline="always")
def make_step_vectors(ny):
    """The :class:`StepVectors` of a state of length ``ny``, zeros, rows of one block."""
    v = np.zeros((11, ny))
    return StepVectors(v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], v[10])


class LastThree(NamedTuple):
    """Observed quantities at the last three step ends, ``[width]`` each (peak detection: a
    local maximum at ``p1``)."""

    p2: np.ndarray  # at the end of the step before last
    p1: np.ndarray  # at the end of the last step (this step's start)
    c: np.ndarray  # at this step's end


@kernel(inline="always")
def make_last_three(width):
    """A :class:`LastThree` of zeros, rows of one block."""
    v = np.zeros((3, width))
    return LastThree(v[0], v[1], v[2])


class StepBuffers(NamedTuple):
    """The arrays one case's stepping loop works in (:func:`make_step_buffers`); ``ny`` the
    state length, ``n`` the coordinates."""

    atol: np.ndarray  # [ny] absolute tolerance per state component
    inv_mass: np.ndarray  # [n] diagonal of M^-1, prescribed bodies zero
    ws: tuple  # the RHS workspace (dynamics.make_workspace)
    in_contact: np.ndarray  # int64 [n_clearance]: 0/1 per clearance joint
    approach: np.ndarray  # [n_clearance] approach velocity of the current impact [m/s]
    k: np.ndarray  # [max(stages, 7), ny] stage derivatives (+ scratch)
    vec: StepVectors  # the state vectors
    peaks: LastThree  # [3] the observed peak quantities (acceleration, force, penetration)
    wmat: np.ndarray  # [ny, ny] Rosenbrock matrix
    piv: np.ndarray  # int64 [ny] its pivots
    onset_t: np.ndarray  # [n_clearance] onset time of each joint's current contact [s]
    vpeaks: LastThree  # [n_observed] the vector probes' values
    vlast: np.ndarray  # [1 + n_probes] the last point of the squares' integral: t, |values|
    was: np.ndarray  # int64 [n_clearance]: the contact state at the step's start


@kernel(inline="always")
def make_step_buffers(model, opts, tableau, ny):
    """The :class:`StepBuffers` of one case: ``model`` its :class:`assembly.CaseModel`,
    ``opts`` its options row (the tolerances, the observed probes and joints), ``tableau``
    the explicit method's (its stage count), ``ny`` the state length. The stepping loop and
    the warm-up (:mod:`warm`, uncompiled through ``py_func``) both build theirs here."""
    n = 3 * model.mass.shape[0]
    m = 0
    for r in range(model.joint_int.shape[0]):
        m += ROWS[model.joint_int[r, 0]]
    n_clear = model.clear_int.shape[0]
    atol = np.empty(ny)
    for i in range(ny):
        atol[i] = opts[OPT_ATOL_Q] if i < n else (opts[OPT_ATOL_V] if i < 2 * n else 1e-12)
        if i >= 2 * n + AUX_FILM:  # the film's quadratures: outside the error control
            atol[i] = UNCONTROLLED_ATOL
    inv_mass = np.empty(n)
    inverse_mass(model.mass, model.inertia, model.prescribed, inv_mass)
    return StepBuffers(
        atol,
        inv_mass,
        make_workspace(n, m, n_clear),
        np.zeros(n_clear, dtype=np.int64),
        np.zeros(n_clear),
        np.zeros((max(tableau.b.shape[0], 7), ny)),
        make_step_vectors(ny),
        make_last_three(3),
        np.zeros((ny, ny)),
        np.zeros(ny, dtype=np.int64),
        np.full(n_clear, -1e300),
        make_last_three(int(opts[OPT_N_PROBES]) + 2 * int(opts[OPT_N_JOINTS])),
        np.zeros(1 + int(opts[OPT_N_PROBES])),
        np.zeros(n_clear, dtype=np.int64),
    )


# --------------------------------------------------------------------------------------
# the named pieces of the stepping loop (:func:`_march`). Those on every step are inlined at
# their one site (numba IR inlining), so the loop compiles to what it was as one body. The
# event location and the peak refinement, whose work falls on few steps (0.04 % and 3 % of
# the 15-case study's c = 0.05 mm case), are calls: inlined as well, the batch ran 8 %
# slower.


@kernel(inline="always")
def _limit_step(h, t, have_ts, run, in_contact):
    """Step control: the next step [s] capped by ``h_max``, the run's end, seed 002's cap
    inside contact (``contact_hmax``; off: t_end) and the steady window's start ``t_s``
    (until ``have_ts``)."""
    h = min(h, run.h_max, run.t_end - t)
    for j in range(in_contact.shape[0]):
        if in_contact[j]:
            h = min(h, run.contact_hmax)
    if not have_ts and t + h > run.t_s:
        h = run.t_s - t
    return h


@kernel(inline="always")
def _next_step(h, enorm, order, finite, accepted):
    """Step control: the step after one of error norm ``enorm`` (rejected: shrink, by 4 if
    the state was not finite; accepted: grow by at most 10)."""
    if not accepted:
        return h * (max(0.2, 0.9 * enorm ** (-1.0 / (order + 1))) if finite else 0.25)
    factor = 10.0 if enorm == 0.0 else min(10.0, 0.9 * enorm ** (-1.0 / (order + 1)))
    return h * max(0.2, factor)


@kernel(inline="always")
def _attempt(step_kind, t, h, tableau, run, buf, ctx, rw):
    """One try of the step ``h`` from ``t`` (:func:`_step`) and its error norm (1e10 for a
    failed or non-finite step). Returns ``(finite, error norm, evaluations, h lambda)``, the
    last the step budget's (0 unless kept: :func:`step_budget.hairer_hlambda`)."""
    v = buf.vec
    good, ev = _step(step_kind, t, h, tableau, ctx, v, buf.k, buf.wmat, buf.piv, rw)
    finite = good
    for i in range(v.y1.shape[0]):
        if not math.isfinite(v.y1[i]):
            finite = False
    enorm = error_norm(v.err, v.y, v.y1, run.rtol, buf.atol) if finite else 1e10
    hl = 0.0
    if run.budget and step_kind == KIND_EXPLICIT and finite:
        hl = hairer_hlambda(h, v.y, buf.k, tableau.a, 2 * ctx.inv_mass.shape[0], v.ystage)
    return finite, enorm, ev, hl


MAX_RELOCATE = 6  # event steps cut again at an earlier joint's event, at most


@kernel(runtime=False)  # a call (see above)
def _event_step(kind, joint, lo, hi, t, h, h_resume, have_ts, method_kind, tableau, run, buf,
                ctx, rw):  # fmt: skip
    """Event location: the step that ends on the earliest contact event, ``kind`` of
    ``joint`` bracketed in ``[lo, hi]`` (:func:`events.find_event`). Returns ``(retry, h,
    h_resume, evaluations, joint, kind)``: ``retry`` when the step is to be taken again with
    the shorter ``h`` (bisection), else ``y1``, ``f1``, ``r5`` hold the step of length ``h``
    that ends at the event of ``joint`` (``kind`` NONE: at none).

    Every other joint is checked again on the step cut at the event: one whose crossing
    falls inside it, earlier, becomes the event and the step is cut there instead; one whose
    crossing coincides (its end past the target by at most 0.1 % of the onset threshold, or
    2 ``eps_ev`` for an exit) flips with it; one a hair later gets its own event at the
    start of the next (short) step. A coincident onset is marked here, before the
    step-end metrics read the contact states, as ``in_contact = 1`` with ``onset_t = t + h``
    (:func:`_contact_bookkeeping` counts it); a coincident exit is found there (in contact,
    ``delta < 0``). A free joint is never left past the onset threshold."""
    v, model, in_contact, onset_t = buf.vec, ctx.model, buf.in_contact, buf.onset_t
    y, f0, y1, f1, r5, ystage = v.y, v.f0, v.y1, v.f1, v.r5, v.ystage
    n, rot = buf.inv_mass.shape[0], buf.ws[WS_ROT]
    bisect, eps_on, eps_ev, t_end, t_s = run.bisect, run.eps_on, run.eps_ev, run.t_end, run.t_s
    nfev = 0
    # a coincident onset's overshoot is its onset error: 0.1 % of the threshold keeps it at
    # the located one's level (~1e-15 m; twin joints differ by round-off, ~1e-16 m)
    slack_on, slack_ex = 1e-3 * eps_on, 2.0 * eps_ev
    if bisect:
        # seed 003: halve the step until delta(t + h) of every joint crossing in it lands in
        # the band past its target, never below the minimum event step
        # np.int64(-1) and not bisect (False here), not the literals -1 and False: numba
        # compiles a kernel once per literal argument, and find_event's three copies (one
        # per call site) cost ~5 s of the warm-up; now the one the warm-up's helper compiles
        j2, k2, lo2, hi2 = find_event(t, y, f0, t + h, y1, f1, r5, n, model, in_contact, eps_on,
                                      rot, ystage, np.int64(-1), eps_ev, eps_ev,
                                      not bisect)  # fmt: skip
        if k2 != NONE and h > 1e-7:
            if h_resume == 0.0:
                h_resume = h
            # a crossing the end has left again (grazing): end the next try past it
            h_new = 0.5 * h if hi2 >= t + h else min(0.5 * h, hi2 - t)
            return True, max(h_new, 1e-7), h_resume, nfev, joint, kind
    else:
        h_resume = h
        for attempt in range(MAX_RELOCATE):
            target = eps_on if kind == ONSET else 0.0
            t1 = t + h
            t_hit = locate_event(t, y, f0, t1, y1, f1, r5, lo, hi, n, model, joint, target, rot,
                                 ystage)  # fmt: skip
            # Redo the step exactly to the event, so the state there is a true RK solution,
            # then polish the step length by Newton on that step's own end state (delta_dot
            # the slope): the dense output's root is off by its error. An exit aims 1 nm past
            # separation (no force acts at delta <= 0) so the projection that follows cannot
            # leave a free journal above the threshold.
            goal = target if kind == ONSET else -eps_ev
            h = max(t_hit - t, 16.0 * 2.2e-16 * max(1.0, abs(t)))
            # a grazing separation may not dip as deep as the exit's goal: Newton then runs
            # past the dip. The exit ends on the iterate closest to its goal among those
            # that have separated (delta below half the onset threshold), else the lowest.
            h_best, miss_best, sep_best = h, math.inf, False
            for it in range(5):
                _, ev = _step(method_kind, t, h, tableau, ctx, v, buf.k, buf.wmat, buf.piv, rw)
                nfev += ev
                d1, dd1 = penetration_at(y1, n, model, rot, joint)
                sep = d1 <= 0.5 * eps_on
                miss = abs(d1 - goal) if sep else d1
                if (sep and not sep_best) or (sep == sep_best and miss < miss_best):
                    h_best, miss_best, sep_best = h, miss, sep
                if it == 4 or abs(d1 - goal) <= 0.1 * eps_on or dd1 == 0.0:
                    break
                h_new = h - (d1 - goal) / dd1
                if not 0.0 < h_new <= t_end - t or (not have_ts and t + h_new > t_s):
                    break  # keep the steady window's start and t_end exact
                h = h_new
            if kind == EXIT and h_best != h:
                h = h_best
                _, ev = _step(method_kind, t, h, tableau, ctx, v, buf.k, buf.wmat, buf.piv, rw)
                nfev += ev
            if attempt == MAX_RELOCATE - 1:
                break
            # another joint's crossing inside the cut step comes first: cut there (not
            # bisect: True here, as a bool, see above)
            j2, k2, lo2, hi2 = find_event(t, y, f0, t + h, y1, f1, r5, n, model, in_contact,
                                          eps_on, rot, ystage, joint, slack_on, slack_ex,
                                          not bisect)  # fmt: skip
            if k2 == NONE:
                break
            joint, kind, lo, hi = j2, k2, lo2, hi2
    # coincident onsets flip with the event (see above); a free joint past the threshold at
    # this step's end flips in any case, with its overshoot as its onset error
    t1 = t + h
    for j in range(in_contact.shape[0]):
        if j == joint or in_contact[j] != 0:
            continue
        d1, dd1 = penetration_at(y1, n, model, rot, j)
        if d1 > eps_on or (d1 > eps_on - slack_on and dd1 > 0.0):
            if kind == NONE:
                joint, kind = j, ONSET
            else:
                in_contact[j] = 1
                onset_t[j] = t1
    return False, h, h_resume, nfev, joint, kind


@kernel(inline="always")
def _step_end_peaks(t1, steady, kind, joint, kr, e0, run, buf, model, metrics, revs):
    """Metric accumulation at an accepted step end, from the evaluation at ``(t1, y1)``:
    the observed peaks ``peaks.c`` (acceleration, contact force, penetration), the driver torque,
    the kinetic energy and the balance residual, into ``metrics`` and revolution ``kr``'s
    row of ``revs``. Returns False, recording nothing, if a joint in contact has sunk past
    the penetration bound: ``OPT_PEN_BOUND`` times the joint's worn clearance c + h_max (c
    for the circular hole; design.md 4.12). The penetration is the one the contact law
    reads, into the worn wall under the line of centres; the bound is a guard against a
    journal passing through the wall, not a validity test of Hertz (the new joint's first
    impact at c = 0.02 mm is already 0.6 c deep), and its scale is the free flight the hole
    allows, which sets how hard the journal arrives: a worn hole's whole gap, c + h_max,
    wherever on the wall it lands (docs/wear.md, "The penetration bound on a worn hole")."""
    clear_par, ws, in_contact, xc = model.clear_par, buf.ws, buf.in_contact, buf.peaks.c
    y1, f1, n, probe = buf.vec.y1, buf.vec.f1, buf.inv_mass.shape[0], run.probe
    xc[0] = observe(f1, n, probe, ws, 0)
    xc[1] = observe(f1, n, probe, ws, 1)
    xc[2] = 0.0
    diag = ws[WS_DIAG]
    ok = True
    for j in range(in_contact.shape[0]):
        # a joint whose onset ends this step is in contact from here on
        if in_contact[j] or (kind == ONSET and joint == j):
            xc[2] = max(xc[2], diag[j, D_DELTA])
            gap = clear_par[j, CP_RB] - clear_par[j, CP_RJ] + clear_par[j, CP_WMAX]
            if diag[j, D_DELTA] > run.pen_bound * gap:
                ok = False
        else:
            metrics[M_FREE_PEN] = max(metrics[M_FREE_PEN], diag[j, D_DELTA])
    if not ok:
        return False
    for qi in range(3):
        mi = (M_PEAK_ACC, M_PEAK_FN, M_MAX_PEN)[qi]
        metrics[mi] = max(metrics[mi], xc[qi])
        if steady:
            metrics[mi + 1] = max(metrics[mi + 1], xc[qi])
        if kr > 0:
            revs[kr, qi] = max(revs[kr, qi], xc[qi])  # R_PEAK_ACC, R_PEAK_FN, R_MAX_PEN
    if run.driver_row >= 0:
        tq = abs(ws[WS_LAMBDA][run.driver_row])
        metrics[M_PEAK_TORQUE] = max(metrics[M_PEAK_TORQUE], tq)
        if steady:
            metrics[M_PEAK_TORQUE_S] = max(metrics[M_PEAK_TORQUE_S], tq)
        if kr > 0:
            revs[kr, R_PEAK_TORQUE] = max(revs[kr, R_PEAK_TORQUE], tq)
    kin, pot, ucon = state_energy(y1, n, model, in_contact, ws)
    metrics[M_PEAK_KE] = max(metrics[M_PEAK_KE], kin)
    resid = balance_residual(y1, n, kin, pot, ucon, e0)
    metrics[M_MAX_RESIDUAL] = max(metrics[M_MAX_RESIDUAL], abs(resid))
    return True


@kernel(inline="always")
def _sample_grid(k_out, t, t1, e0, run, buf, ctx, opts, series, metrics, revs):
    """Output sampling: the uniform grid's rows inside ``(t, t1]`` from the step's dense
    output, with the contact state of this step. Past ``n_out`` rows the rows from
    ``n_head`` on are a ring. Returns the next grid index and the evaluations spent."""
    v, in_contact, vlast = buf.vec, buf.in_contact, buf.vlast
    dt_out, t_end, n_out, n_head = run.dt_out, run.t_end, run.n_out, run.n_head
    samples = 0
    while k_out * dt_out <= t1 + 1e-12 * t_end:
        if k_out < n_out:
            row = k_out
        elif n_head < n_out:
            row = n_head + (k_out - n_head) % (n_out - n_head)
        else:
            break
        tk = min(k_out * dt_out, t1)
        dense_output(t, v.y, v.f0, t1, v.y1, v.f1, v.r5, tk, v.ystage)
        _sample(series[row], tk, v.ystage, v.fst, buf.inv_mass.shape[0], run.probe,
                run.driver_row, in_contact, ctx.model, buf.ws, e0, ctx, opts,
                metrics)  # fmt: skip
        if vlast.shape[0] > 1:
            # the measures' squares integrated through the grid's samples too (finer than
            # the steps in free flight)
            _add_squares(tk, series[row], N_SER, vlast, run.t_s, run.period, run.n_rev, opts,
                         in_contact.shape[0], metrics, revs)  # fmt: skip
        samples += 1
        k_out += 1
    return k_out, samples


@kernel(inline="always")
def _sample_sections(k_sec, stop, t, t1, run, buf, model, opts, metrics, revs):
    """Output sampling: the Poincare sections at ``t = k T`` inside ``(t, t1]``, exact on the
    dense output, and the settled test after each (``stop``: settled before). Returns the
    next section index and whether the motion has settled (the run stops at this step's
    end)."""
    v, n_clear, period = buf.vec, model.clear_int.shape[0], run.period
    while k_sec <= run.n_rev and k_sec * period <= t1 + 1e-12 * period:
        ts = min(k_sec * period, t1)
        dense_output(t, v.y, v.f0, t1, v.y1, v.f1, v.r5, ts, v.ystage)
        _section(revs[k_sec], ts, v.ystage, buf.inv_mass.shape[0], model, buf.ws[WS_ROT],
                 run.probe)  # fmt: skip
        metrics[M_SECTIONS] = k_sec
        if run.settle_tol > 0.0 and not stop:
            found = _settled_period(
                revs, k_sec, run.settle_from, run.settle_tol, n_clear, opts[OPT_SETTLE_JITTER],
                opts[OPT_SETTLE_CAP], opts[OPT_SETTLE_HORIZON],
            )
            if found > 0:
                metrics[M_SETTLED_N] = found
                metrics[M_SETTLED_AT] = k_sec
                stop = True
        k_sec += 1
    return k_sec, stop


@kernel(runtime=False)  # a call (see above)
def _refine_peaks(tp2, t, t1, run, buf, ctx, metrics, revs):
    """Metric accumulation: a local maximum at the previous step end (``peaks.p1`` above
    ``p2`` and ``c``), refined on the dense output of the two steps around it (from ``tp2``
    through ``t`` to ``t1``) when it could be a whole-run, steady-window or revolution peak.
    Returns the evaluations spent."""
    v, xp2, xp1, xc = buf.vec, buf.peaks.p2, buf.peaks.p1, buf.peaks.c
    t_s, period, n_rev = run.t_s, run.period, run.n_rev
    nfev = 0
    steps3 = ((tp2, v.yp2, v.fp2, v.rp), (t, v.y, v.f0, v.r5), (t1, v.y1, v.f1))
    for qi in range(3):
        mi = (M_PEAK_ACC, M_PEAK_FN, M_MAX_PEN)[qi]
        if xp1[qi] >= xp2[qi] and xp1[qi] >= xc[qi] and xp1[qi] > 0.0:
            whole = xp1[qi] > 0.98 * metrics[mi]
            st = t >= t_s and xp1[qi] > 0.98 * metrics[mi + 1]
            kp = _revolution(t, period, n_rev)
            # the revolution's own peak, which the settled metrics take
            rv = kp > 0 and xp1[qi] > 0.98 * revs[kp, qi]
            if whole or st or rv:
                # search no earlier than the window the peak is refined for
                lo_t = 0.0
                if not whole:
                    lo_t = t_s if st else (kp - 1) * period
                lo_t = min(lo_t, t)
                peak, ev = refine_peak(steps3, lo_t, qi, ctx, buf.inv_mass.shape[0], run.probe,
                                       v.ystage, v.fst)  # fmt: skip
                nfev += ev
                metrics[M_NREFINE] += 1
                metrics[mi] = max(metrics[mi], peak)
                if t >= t_s:
                    metrics[mi + 1] = max(metrics[mi + 1], peak)
                if kp > 0:
                    revs[kp, qi] = max(revs[kp, qi], peak)
    return nfev


# --------------------------------------------------------------------------------------
# the vector probes (design.md 4.14, 4.16): every measure and every clearance joint observed
# at every accepted step of the one run, peaks refined on the dense output as the single
# probe's are. Observation w (:func:`peak_refinement.observation`): the measures, then each
# joint's contact force, then each joint's penetration.


@kernel(inline="always")
def _observed_slots(w, n_probe, n_joint, rbase):
    """Observation ``w``'s whole-run peak column in ``metrics`` (its steady peak the next
    column) and its per-revolution peak column in ``revs`` (which starts at ``rbase``)."""
    if w < n_probe:
        return N_MET + N_MP * w + MP_PEAK, rbase + N_RP * w + RP_PEAK
    j = w - n_probe
    col, rcol = MJ_PEAK_FN, RJ_PEAK_FN
    if j >= n_joint:
        j -= n_joint
        col, rcol = MJ_MAX_PEN, RJ_MAX_PEN
    return N_MET + N_MP * n_probe + N_MJ * j + col, rbase + N_RP * n_probe + N_RJ * j + rcol


@kernel(runtime=False)  # calls, these three: inlined, the loop the built-in models run
# (with no vector probes) was ~4 % slower in CPU time
def _observe_step(t1, kr, kind, joint, run, buf, opts, metrics, revs):
    """Metric accumulation of the vector probes at an accepted step end: each observation's
    value ``vpeaks.c`` at ``t1`` into its whole-run, steady and revolution peaks (a joint's
    penetration counts while it is in contact, as :func:`_step_end_peaks` counts the
    extreme's)."""
    in_contact, xcv, y1, f1 = buf.in_contact, buf.vpeaks.c, buf.vec.y1, buf.vec.f1
    n, ws = buf.inv_mass.shape[0], buf.ws
    n_probe, n_joint = int(opts[OPT_N_PROBES]), int(opts[OPT_N_JOINTS])
    rbase = N_REV + 2 * in_contact.shape[0]
    steady = t1 >= run.t_s - 1e-15
    for w in range(n_probe + 2 * n_joint):
        x = observation(w, y1, f1, n, ws, opts, N_OPT, n_probe, n_joint)
        j = w - n_probe - n_joint
        if j >= 0 and not (in_contact[j] or (kind == ONSET and joint == j)):
            x = 0.0
        xcv[w] = x
        mi, ri = _observed_slots(w, n_probe, n_joint, rbase)
        metrics[mi] = max(metrics[mi], x)
        if steady:
            metrics[mi + 1] = max(metrics[mi + 1], x)
        if kr > 0:
            revs[kr, ri] = max(revs[kr, ri], x)


@kernel(runtime=False)
def _add_squares(t_new, x, x0, vlast, t_s, period, n_rev, opts, n_clear, metrics, revs):
    """Each measure's square integrated (trapezoid) from the last point ``vlast[0]`` (a step
    end or a grid sample; its |values| in ``vlast[1:]``) to ``t_new``, where the values are
    ``x[x0 + p]``: into the run's, the steady window's and the revolutions' integrals (split
    at a section inside the piece)."""
    t0 = vlast[0]
    if t_new <= t0:
        return
    n_probe = int(opts[OPT_N_PROBES])
    rbase = N_REV + 2 * n_clear
    kr = _revolution(t_new, period, n_rev)
    split = 1.0
    if kr > 1 and t0 < (kr - 1) * period:
        split = ((kr - 1) * period - t0) / (t_new - t0)  # the share before the section
    in_steady = t0 >= t_s - 1e-14 * max(1.0, t_s)
    for p in range(n_probe):
        v = abs(x[x0 + p])
        sq = 0.5 * (t_new - t0) * (vlast[1 + p] * vlast[1 + p] + v * v)
        vlast[1 + p] = v
        mi = N_MET + N_MP * p
        metrics[mi + MP_SQ] += sq
        if in_steady:
            metrics[mi + MP_SQ_S] += sq
        if kr > 0:
            ri = rbase + N_RP * p + RP_SQ
            if split < 1.0:
                revs[kr - 1, ri] += split * sq
                revs[kr, ri] += (1.0 - split) * sq
            else:
                revs[kr, ri] += sq
    vlast[0] = t_new


@kernel(runtime=False)
def _count_onsets(t1, t_s, kr, was, in_contact, opts, metrics, revs):
    """Each observed joint's impacts: a joint that was free at the step's start (``was``)
    and is in contact after the step's bookkeeping had its onset in this step."""
    n_probe, n_joint = int(opts[OPT_N_PROBES]), int(opts[OPT_N_JOINTS])
    rbase = N_REV + 2 * in_contact.shape[0] + N_RP * n_probe
    for j in range(n_joint):
        if in_contact[j] and not was[j]:
            mi = N_MET + N_MP * n_probe + N_MJ * j
            metrics[mi + MJ_IMPACTS] += 1
            if t1 >= t_s:
                metrics[mi + MJ_IMPACTS_S] += 1
            if kr > 0:
                revs[kr, rbase + N_RJ * j + RJ_IMPACTS] += 1


@kernel(runtime=False)  # a call, as _refine_peaks
def _refine_observations(tp2, t, t1, run, buf, ctx, opts, metrics, revs):
    """:func:`_refine_peaks` for every observation of the vector probes: a local maximum at
    the previous step end refined on the dense output of the two steps around it when it
    could be a whole-run, steady-window or revolution peak. Returns the evaluations spent."""
    v, xp2v, xp1v, xcv = buf.vec, buf.vpeaks.p2, buf.vpeaks.p1, buf.vpeaks.c
    t_s, period, n_rev, n = run.t_s, run.period, run.n_rev, buf.inv_mass.shape[0]
    nfev = 0
    n_probe, n_joint = int(opts[OPT_N_PROBES]), int(opts[OPT_N_JOINTS])
    rbase = N_REV + 2 * ctx.in_contact.shape[0]
    steps3 = ((tp2, v.yp2, v.fp2, v.rp), (t, v.y, v.f0, v.r5), (t1, v.y1, v.f1))
    for w in range(n_probe + 2 * n_joint):
        if xp1v[w] >= xp2v[w] and xp1v[w] >= xcv[w] and xp1v[w] > 0.0:
            mi, ri = _observed_slots(w, n_probe, n_joint, rbase)
            whole = xp1v[w] > 0.98 * metrics[mi]
            st = t >= t_s and xp1v[w] > 0.98 * metrics[mi + 1]
            kp = _revolution(t, period, n_rev)
            rv = kp > 0 and xp1v[w] > 0.98 * revs[kp, ri]
            if whole or st or rv:
                lo_t = 0.0
                if not whole:
                    lo_t = t_s if st else (kp - 1) * period
                lo_t = min(lo_t, t)
                peak, ev = refine_observation(steps3, lo_t, w, ctx, n, opts, N_OPT, n_probe,
                                              n_joint, v.ystage, v.fst)  # fmt: skip
                nfev += ev
                metrics[M_NREFINE] += 1
                metrics[mi] = max(metrics[mi], peak)
                if t >= t_s:
                    metrics[mi + 1] = max(metrics[mi + 1], peak)
                if kp > 0:
                    revs[kp, ri] = max(revs[kp, ri], peak)
    return nfev


@kernel(inline="always")
def _revolution_times(revs, k, a, b, during, onset, impact_time):
    """Add the piece ``[a, b]`` [s] of a step to revolution ``k``'s time in free flight, or
    (``during``: in contact since ``onset``) in impact and continuous contact."""
    if during:
        # the first impact_time of a contact is the impact, the rest of it continuous contact
        hit = min(max(onset + impact_time - a, 0.0), b - a)
        revs[k, R_IMPACT] += hit
        revs[k, R_CONTACT] += b - a - hit
    else:
        revs[k, R_FREE] += b - a


@kernel(inline="always")
def _contact_bookkeeping(t, t1, kr, kind, joint, run, buf, model, metrics, revs):
    """Metric accumulation after an accepted step: the events at its end flip the joints'
    contact states (an onset counts an impact and records its approach velocity), then each
    joint's time in contact, impact and free flight over the step is added up. Besides
    ``joint``'s event (``kind``), an event step ends on the coincident events of others:
    an onset :func:`_event_step` marked (``onset_t = t1``), an exit as a joint in contact
    whose ``delta`` is below 0."""
    in_contact, approach, onset_t = buf.in_contact, buf.approach, buf.onset_t
    y1, n, rot = buf.vec.y1, buf.inv_mass.shape[0], buf.ws[WS_ROT]
    t_s, period, eps_on, impact_time = run.t_s, run.period, run.eps_on, run.impact_time
    event_here = kind != NONE
    for j in range(in_contact.shape[0]):
        # contact time of this step: the state *during* the step, i.e. before the event at
        # its end flipped it (an onset step was free flight, an exit step was in contact)
        during = in_contact[j]
        if event_here:
            flip = NONE
            if j == joint:
                flip = kind
            elif in_contact[j] and onset_t[j] == t1:
                flip = ONSET
            elif in_contact[j] and penetration_at(y1, n, model, rot, j)[0] < 0.0:
                flip = EXIT
            if flip == EXIT:
                in_contact[j] = 0
                during = 1
            elif flip == ONSET:
                in_contact[j] = 1
                during = 0
                d_ev, dd_ev = penetration_at(y1, n, model, rot, j)
                approach[j] = dd_ev
                onset_t[j] = t1
                if kr > 0:
                    revs[kr, R_IMPACTS] += 1
                metrics[M_IMPACTS] += 1
                if t1 >= t_s:
                    metrics[M_IMPACTS_S] += 1
                metrics[M_ONSET_ERR] = max(metrics[M_ONSET_ERR], abs(d_ev - eps_on))
        if during:
            metrics[M_CONTACT_TIME] += t1 - t
            if t >= t_s:
                metrics[M_CONTACT_TIME_S] += t1 - t
        if kr > 0:
            # a step across a section belongs to two revolutions: the share before the
            # section to the one it ends (given all to kr, a revolution's times summed to
            # more than its period and the one before it to less)
            tb = t
            if kr > 1 and t < (kr - 1) * period:
                tb = (kr - 1) * period
                _revolution_times(revs, kr - 1, t, tb, during, onset_t[j], impact_time)
            _revolution_times(revs, kr, tb, t1, during, onset_t[j], impact_time)


@kernel(inline="always")  # one site: compiled apart it re-optimised the whole loop (4 s)
def integrate_case(
    y0, model, opts, method_kind, implicit, tableau, order, metrics, series, revs, y_end
):
    """Integrate one case; fill ``metrics``, ``series`` ``[n_out, N_SER]``, ``revs``
    ``[n_rev + 1, N_REV + 2 n_clear]`` (with ``OPT_PERIOD > 0``) and ``y_end``.

    Returns a status code (``OK`` or one of the ``FAIL_*``). Allocates the case's buffers
    here, once, so that the stepping loop (:func:`_march`) can run without numba's runtime.
    """
    ny = y0.shape[0]
    buffers = make_step_buffers(model, opts, tableau, ny)
    # the Radau buffers, or None: the explicit methods' loop is compiled without them
    rw = make_radau_work(ny, 2 * buffers.inv_mass.shape[0], buffers.atol, opts[OPT_RTOL],
                         implicit)  # fmt: skip
    # copies: the topology and tableau are shared by the batch, and cases running on other
    # cores would otherwise share their cache lines
    model = CaseModel(
        model.joint_int.copy(), model.joint_par, model.load_int, model.load_par,
        model.clear_int.copy(), model.clear_par, model.mass, model.inertia, model.gravity,
        model.prescribed.copy(),
    )  # fmt: skip
    tableau = Tableau(tableau.a.copy(), tableau.b.copy(), tableau.e.copy(), tableau.c.copy(),
                      tableau.dense.copy())  # fmt: skip
    return _march(
        y0, model, opts, method_kind, tableau, order, metrics, series, revs, y_end, buffers, rw
    )


@kernel(inline="always")
def _start(y0, run, buf, ctx, opts, metrics, series, revs):
    """The run's first point: the state ``y0`` at t = 0, its contact states (a joint already
    touching starts in contact), ``f0``, the measures' first values, the output grid's
    first row and section 0. Returns ``(ok, e0, evaluations)``: ``e0`` the energy at t = 0
    (the balance's reference), not ok if the constraints are singular."""
    v, model, in_contact, ws = buf.vec, ctx.model, buf.in_contact, buf.ws
    y, f0, n, rot = v.y, v.f0, buf.inv_mass.shape[0], ws[WS_ROT]
    xp1v, vlast = buf.vpeaks.p1, buf.vlast
    _copy(y, y0)
    for j in range(in_contact.shape[0]):
        d, dd = penetration_at(y, n, model, rot, j)
        if d > run.eps_on:
            in_contact[j] = 1
            buf.approach[j] = dd
    if not evaluate(0.0, y, ctx, f0):
        return False, 0.0, 1
    kin, pot, ucon = state_energy(y, n, model, in_contact, ws)
    e0 = kin + pot + ucon
    metrics[M_PEAK_KE] = kin
    for p in range(run.n_probe):  # the measures at t = 0 (the trapezoid's first end, a peak)
        xp1v[p] = observation(p, y, f0, n, ws, opts, N_OPT, run.n_probe, 0)
        vlast[1 + p] = xp1v[p]
        mi = N_MET + N_MP * p
        metrics[mi + MP_PEAK] = xp1v[p]
        if run.t_s <= 0.0:
            metrics[mi + MP_PEAK_S] = xp1v[p]
    _sample(series[0], 0.0, y, v.fst, n, run.probe, run.driver_row, in_contact, model, ws, e0,
            ctx, opts, metrics)  # fmt: skip
    if run.n_rev > 0:
        revs[:, :] = 0.0
        _section(revs[0], 0.0, y, n, model, rot, run.probe)
    return True, e0, 2


@kernel(inline="always")
def _constrain(t1, event_here, run, buf, ctx, metrics):
    """After an accepted step's bookkeeping: ``y1`` projected onto the constraints (or their
    drift measured) and, after a contact event, ``f1`` evaluated afresh. Returns
    ``(ok, evaluations)``: not ok if the constraints are singular."""
    y1, f1, n, model, ws = buf.vec.y1, buf.vec.f1, buf.inv_mass.shape[0], ctx.model, buf.ws
    if run.project:
        found = project(y1, t1, n, model, buf.inv_mass, ws, 1e-13)
        if found < 0.0:
            return False, 0
    else:
        found = drift(y1, t1, n, model, ws)
    metrics[M_MAX_DRIFT] = max(metrics[M_MAX_DRIFT], found)
    # The projection moves y1 by ~1e-9 m: f1 from the step stays accurate to that, so
    # the next step reuses it. A contact event changes the forces: evaluate afresh.
    if event_here:
        if not evaluate(t1, y1, ctx, f1):
            return False, 0
        return True, 1
    return True, 0


@kernel(inline="always")
def _shift_history(buf, observing):
    """Advance to the next step: this step becomes the one before (its start, derivative,
    dense-output term, observed peaks), its end the next one's start."""
    v, peaks, vpeaks = buf.vec, buf.peaks, buf.vpeaks
    _copy(v.yp2, v.y)
    _copy(v.fp2, v.f0)
    _copy(v.rp, v.r5)
    _copy(peaks.p2, peaks.p1)
    _copy(peaks.p1, peaks.c)
    if observing:
        _copy(vpeaks.p2, vpeaks.p1)
        _copy(vpeaks.p1, vpeaks.c)
    _copy(v.y, v.y1)
    _copy(v.f0, v.f1)


@kernel(runtime=False)
def _march(
    y0, model, opts, method_kind, tableau, order, metrics, series, revs, y_end, buffers, rw
):
    """The stepping loop of :func:`integrate_case`, on the buffers it allocated; ``rw`` the
    Radau buffers, None for an explicit method (the branches on it are pruned at compile
    time, so this loop is two specialisations: :func:`radau.make_radau_work`)."""
    buf, v, in_contact, onset_t = buffers, buffers.vec, buffers.in_contact, buffers.onset_t
    run = read_settings(opts, revs.shape[0])
    t_end, t_s, n_rev = run.t_end, run.t_s, run.n_rev
    metrics[:] = 0.0
    ctx = CaseContext(model, in_contact, buf.approach, opts[OPT_ALPHA], opts[OPT_BETA],
                      run.probe, buf.inv_mass, buf.ws)  # fmt: skip
    observing = buf.vpeaks.c.shape[0] > 0
    ok, e0, nfev = _start(y0, run, buf, ctx, opts, metrics, series, revs)
    if not ok:
        metrics[M_T_FAIL] = 0.0
        return FAIL_SINGULAR
    tp2 = 0.0
    ev_p1 = True  # an event at the previous step end (no refinement across it)
    history = 0
    k_sec = 1
    stop = False
    # the uniform output grid; past n_out rows (a run of adaptive length) the rows from
    # n_head on are a ring holding the latest samples
    k_out = 1
    t = 0.0
    h = opts[OPT_H0]
    status = OK
    steps = 0
    a2_ts = 0.0
    have_ts = t_s <= 0.0
    h_resume = 0.0  # the step to resume with after an event shortened one
    nonfinite = False  # the last rejection was a non-finite state, not a large error

    # the step budget (off by default): counters by phase in the metric row's last columns
    budget = metrics[metrics.shape[0] - N_BUDGET :] if run.budget else metrics[:0]
    phase = 0
    nfev_mark = nfev
    step_kind = method_kind  # the method of this step (auto: by phase, radau.auto_kind)

    while t < t_end:
        if run.budget:
            # the evaluations since the last mark belong to the phase of the step they served
            budget_rhs(budget, phase, nfev - nfev_mark)
            nfev_mark = nfev
            phase = budget_phase(t, in_contact, onset_t, run.impact_time, model.clear_par)
        if rw is not None:  # an explicit method's step_kind stays method_kind
            kind_now = auto_kind(method_kind, t, in_contact, onset_t, run.impact_time,
                                 model.clear_par)  # fmt: skip
            if kind_now == KIND_RADAU and step_kind != KIND_RADAU:
                radau_enter(rw)
            step_kind = kind_now
        step_order = RADAU_ORDER if step_kind == KIND_RADAU else order
        if steps >= run.max_steps:
            status = FAIL_MAX_STEPS
            break
        h = _limit_step(h, t, have_ts, run, in_contact)
        if h < run.h_min:
            status = FAIL_NONFINITE if nonfinite else FAIL_STEP
            break
        finite, enorm, ev, hl = _attempt(step_kind, t, h, tableau, run, buf, ctx, rw)
        nfev += ev
        steps += 1
        if not finite or enorm > 1.0:
            if run.budget:
                budget_reject(budget, phase, hl)
            metrics[M_NREJECT] += 1
            nonfinite = not finite
            h_cut = 0.0
            if rw is not None and step_kind == KIND_RADAU:
                # a failed Newton iteration: RADAU5's predicted cut (radau.radau_reject)
                h_cut = radau_reject(h, rw)
                nonfinite = nonfinite and h_cut == 0.0
            h = h_cut if h_cut > 0.0 else _next_step(h, enorm, step_order, finite, False)
            continue
        nonfinite = False

        t1 = t + h
        joint, kind, lo, hi = find_event(
            t, v.y, v.f0, t1, v.y1, v.f1, v.r5, buf.inv_mass.shape[0], model, in_contact,
            run.eps_on, buf.ws[WS_ROT], v.ystage, np.int64(-1), 0.0, 0.0, not run.bisect,
        )  # fmt: skip
        if kind != NONE:
            retry, h, h_resume, ev, joint, kind = _event_step(
                kind, joint, lo, hi, t, h, h_resume, have_ts, step_kind, tableau, run, buf, ctx,
                rw,
            )  # fmt: skip
            nfev += ev
            if retry:
                continue
            t1 = t + h

        # the metrics at the step's end, its grid rows and sections, its refined peaks
        steady = t1 >= t_s - 1e-15
        kr = _revolution(t1, run.period, n_rev)
        if not _step_end_peaks(t1, steady, kind, joint, kr, e0, run, buf, model, metrics, revs):
            status = FAIL_PENETRATION
            t = t1
            break
        if observing:
            _observe_step(t1, kr, kind, joint, run, buf, opts, metrics, revs)
        k_out, ev = _sample_grid(k_out, t, t1, e0, run, buf, ctx, opts, series, metrics, revs)
        nfev += ev
        if observing:
            _add_squares(t1, buf.vpeaks.c, 0, buf.vlast, t_s, run.period, n_rev, opts,
                         in_contact.shape[0], metrics, revs)  # fmt: skip
        k_sec, stop = _sample_sections(k_sec, stop, t, t1, run, buf, model, opts, metrics, revs)
        event_here = kind != NONE
        if run.refine and history >= 2 and not ev_p1 and not event_here:
            nfev += _refine_peaks(tp2, t, t1, run, buf, ctx, metrics, revs)
            if observing:
                nfev += _refine_observations(tp2, t, t1, run, buf, ctx, opts, metrics, revs)
        if observing:
            _copy(buf.was, in_contact)
        _contact_bookkeeping(t, t1, kr, kind, joint, run, buf, model, metrics, revs)
        if observing:
            _count_onsets(t1, t_s, kr, buf.was, in_contact, opts, metrics, revs)

        ok, ev = _constrain(t1, event_here, run, buf, ctx, metrics)
        nfev += ev
        if not ok:
            status = FAIL_SINGULAR
            t = t1
            break
        if not have_ts and abs(t1 - t_s) <= 1e-14 * max(1.0, t_s):
            a2_ts = v.y1[2 * buf.inv_mass.shape[0] + AUX_ACCEL2]
            have_ts = True

        # shift history and advance
        tp2 = t
        _shift_history(buf, observing)
        ev_p1 = event_here
        history += 1
        t = t1
        metrics[M_NACCEPT] += 1
        if run.budget:
            hlc = contact_hlambda(h, in_contact, model, buf.inv_mass, buf.ws)
            budget_accept(budget, phase, h, hl, hlc)
        if stop:
            break
        if event_here:
            # resume with the step taken before the event cut it short (seed 003): an event
            # right at a step's start would otherwise leave a vanishing step behind
            h = max(h, h_resume)
            h_resume = 0.0
        else:
            # Radau: RADAU5's own controller (radau.hold_step)
            if rw is not None and step_kind == KIND_RADAU:
                h = hold_step(h, enorm, rw)
            else:
                h = _next_step(h, enorm, step_order, True, True)

    if run.budget:
        budget_rhs(budget, phase, nfev - nfev_mark)
        if rw is not None:
            radau_report(rw, budget[RADAU_BASE:])
    metrics[M_A2_AT_TS] = a2_ts
    metrics[M_NFEV] = nfev
    metrics[M_T_REACHED] = t
    metrics[M_T_FAIL] = t if status != OK else -1.0
    _copy(y_end, v.y)
    return status


@kernel
def integrate_batch(
    y0, topo, joint_par, load_par, clear_par, mass, inertia, gravity, opts, method_kind,
    implicit, tableau, order, metrics, series, revs, y_end, status, lo, hi,
):  # fmt: skip
    """Integrate cases ``lo`` to ``hi - 1`` (leading axis of every per-case array).

    ``topo = (joint_int, load_int, clear_int, prescribed)`` is shared, ``tableau`` the
    method's coefficients (:class:`integrators.Tableau`). ``implicit`` is None for the
    explicit methods and True for Radau's (``method_kind >= KIND_RADAU``): numba compiles the
    two as separate specialisations, the explicit one without the Radau kernels. Each case
    writes only its own rows of ``metrics``, ``series``, ``revs``, ``y_end`` and ``status``,
    so threads may run disjoint ranges at once. (A ``prange`` over the cases did the same,
    but numba's parallel transform of it was 11 % of the cold compile.)
    """
    joint_int, load_int, clear_int, prescribed = topo
    for i in range(lo, hi):
        model = CaseModel(
            joint_int,
            joint_par[i],
            load_int,
            load_par[i],
            clear_int,
            clear_par[i],
            mass[i],
            inertia[i],
            gravity[i],
            prescribed,
        )
        status[i] = integrate_case(
            y0[i],
            model,
            opts[i],
            method_kind,
            implicit,
            tableau,
            order,
            metrics[i],
            series[i],
            revs[i],
            y_end[i],
        )
