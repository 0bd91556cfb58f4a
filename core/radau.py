"""Radau IIA of order 5: the L-stable implicit step for riding the wall and the oil film.

The method and its implementation follow Hairer & Wanner, *Solving Ordinary Differential
Equations II* (2nd ed., Springer 1996), IV.8 (RADAU5): three collocation stages at the
Radau points, the simplified Newton iteration on the transformed system (one real and one
complex linear system of the state's size, from the eigen-decomposition of the coefficient
matrix), the embedded error estimate ``(gamma0/h - J)^-1 (f0 + sum_i e_i Z_i / h)``; the
constants are those of SciPy's ``scipy.integrate.Radau`` (the same algorithm). The Newton
iteration's rules are radau5.f's (Hairer's Fortran code of the book, its loop at label 40):
the contraction rate ``theta`` and ``FACCON = theta / (1 - theta)`` carried from step to
step (a step may stop after one iteration), a predicted non-convergence stopping the
iteration at once with the step cut by the predicted factor HHFAC, and here a cap on the
steps after such a cut (:func:`radau_reject`, :func:`hold_step`).

Two things are particular to gapsweep's state ``y = [q, v, quadratures]``:

- the quadratures (driver work, dissipated energies, the acceleration's square, ...) never
  feed back, so the Jacobian's columns of them are zero: ``J = [[J_dd, 0], [J_ad, 0]]``. Its
  linear systems are block-triangular: an LU of the dynamic states only, and the
  quadratures' rows by substitution. And ``q' = v`` makes the position rows exact, so the
  dynamic block reduces to an ``n x n`` system (:func:`_block_solve`). The method is the
  full Radau IIA on every component at the cost of an ``n x n`` LU.
- the Jacobian is taken by forward differences over the dynamic states (``2 n``
  evaluations) and kept over steps, its clearance part refreshed in between without an
  evaluation (:mod:`contact_jacobian`: ``J = J_0 + P_0 (G(y) - G_0)``, ``G`` the clearance
  forces' own Jacobian). RADAU5 keeps J while the simplified Newton iteration converges fast
  (its rate ``theta`` below THET) and retakes it otherwise (Hairer & Wanner IV.8: the
  simplified Newton iteration converges with an approximate Jacobian, only more slowly);
  here a slow iteration (more than two iterations at a rate
  above :data:`THET`) or a changed contact state first refreshes the clearance part, and
  the whole of J is taken again only when that did not help (slow again on the next step,
  or a failed iteration). The two LUs are kept while J and the step size stay the same:
  :func:`hold_step` (RADAU5's step size control) keeps ``h`` when it would grow by less
  than 1.2, so a smooth stretch of continuous contact reuses them.

Dense output for events, sections and peaks is the stepping loop's cubic Hermite from the
step's ends (``r5 = 0``).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from .contact_jacobian import (
    clearance_force_jacobian,
    constrained_response,
    update_clearance_part,
)
from .forces import N_DIAG
from .integrators import (
    KIND_AUTO,
    KIND_EXPLICIT,
    KIND_FILM,
    KIND_RADAU,
    evaluate,
    lu_factor,
    lu_solve,
)
from .jit import kernel
from .step_budget import P_CONTACT, P_FILM, budget_phase

S6 = 6.0**0.5
C = np.array([(4.0 - S6) / 10.0, (4.0 + S6) / 10.0, 1.0])
E = np.array([-13.0 - 7.0 * S6, -13.0 + 7.0 * S6, -1.0]) / 3.0
# eigenvalues of the inverse of the coefficient matrix: one real, one complex pair
MU_REAL = 3.0 + 3.0 ** (2.0 / 3.0) - 3.0 ** (1.0 / 3.0)
MU_COMPLEX = complex(3.0 + 0.5 * (3.0 ** (1.0 / 3.0) - 3.0 ** (2.0 / 3.0)),
                     -0.5 * (3.0 ** (5.0 / 6.0) + 3.0 ** (7.0 / 6.0)))
# the transformation to and from its eigenbasis
T = np.array([
    [0.09443876248897524, -0.14125529502095421, 0.03002919410514742],
    [0.25021312296533332, 0.20412935229379994, -0.38294211275726192],
    [1.0, 1.0, 0.0]])
TI = np.array([
    [4.17871859155190428, 0.32768282076106237, 0.52337644549944951],
    [-4.17871859155190428, -0.32768282076106237, 0.47662355450055044],
    [0.50287263494578682, -2.57192694985560522, 0.59603920482822492]])
# radau5.f's NIT: Newton iterations a step, at most
NEWTON_MAXITER = 7
# RADAU5's THET: retake J after a step whose iteration converged slower than this. Its
# default 0.001 is for cheap Jacobians; ours costs 2 n evaluations (Hairer: "increase to
# 0.1 when Jacobian evaluations are costly")
THET = 0.1
RADAU_ORDER = 3  # the error estimate's order: the step controller's exponent 1/4
HOLD = 1.2  # a step the controller would grow by less than this is kept (the LUs with it)
UROUND = 2.2e-16
# the step after a failed Newton iteration that gave no prediction (radau5.f, label 78: a
# rate above 0.99, or NIT iterations)
NEWTON_CUT = 0.5
# the Newton step cap's growth per accepted step (hold_step): a step that failed Newton is
# not tried again at once, but the cap relaxes by this factor each accepted step, so a
# stretch the iteration was only briefly past its reach in is soon left behind
CAP_GROWTH = 1.2

# state slots of RadauWork.state
(ST_JAC, ST_H, ST_ITER, ST_RATE, ST_CONTACT, ST_RTOL, ST_WHY, ST_TLAST, ST_FEVLAST, ST_AGE,
 ST_SPLIT, ST_TEND, ST_HP, ST_TPEND, ST_HPEND, ST_HACC, ST_ERRACC, ST_UPDATE, ST_REJ,
 ST_FACCON, ST_HFAC, ST_CAP, ST_NEWTFAIL) = range(23)
N_STATE = 23
# why the Jacobian is (re)taken (ST_WHY): a switch from dopri5 or the run's start, a contact
# state changed, the last Newton iteration converged slowly, the iteration failed
WHY_ENTER, WHY_CONTACT, WHY_SLOW, WHY_FAIL = range(4)
# the counters of RadauWork.stats (issue 39: where the Radau step's evaluations go; reported
# with the step budget, step_budget.RADAU_FIELDS, in this order)
(R_CALLS, R_JAC, R_JAC_ENTER, R_JAC_CONTACT, R_JAC_SLOW, R_JAC_FAIL, R_FEV_JAC, R_NEWTON_IT,
 R_FEV_NEWTON, R_FEV_END, R_NEWTON_FAIL, R_LU, R_REPEAT, R_FEV_REPEAT, R_UPDATE) = range(15)
N_STATS = 15


class RadauWork(NamedTuple):
    """One case's Radau buffers (``ny`` states, ``m`` of them dynamic); an explicit run has
    None in their place (:func:`make_radau_work`)."""

    jac: np.ndarray  # [ny, m] d f / d y over the dynamic states
    lu_r: np.ndarray  # [m/2, m/2] LU of g^2 I - g A_v - A_q, g = MU_REAL / h (_factor)
    piv_r: np.ndarray  # int64 [m/2]
    lu_c: np.ndarray  # complex [m/2, m/2] the same with g = MU_COMPLEX / h
    piv_c: np.ndarray  # int64 [m/2]
    z: np.ndarray  # [3, ny] stage increments Z_i = Y_i - y
    w: np.ndarray  # [3, ny] the same in the eigenbasis
    fz: np.ndarray  # [3, ny] f at the stages
    ys: np.ndarray  # [ny] scratch state
    fd: np.ndarray  # [ny] scratch derivative
    xr: np.ndarray  # [ny] real right-hand side / solution
    xc: np.ndarray  # complex [ny]
    scale_atol: np.ndarray  # [ny] absolute tolerances
    state: np.ndarray  # [N_STATE] ST_*: J valid, h of the LUs, Newton iterations and rate,
    # the contact pattern J was taken in, rtol, why J is to be taken, the last call's t and
    # evaluations
    stats: np.ndarray  # [N_STATS] R_*: counters (step_budget.RADAU_FIELDS)
    # the clearance part kept current between full Jacobians (contact_jacobian): J_0, P_0,
    # G, G_0, the columns G touches, and scratch
    jac0: np.ndarray  # [ny, m] the last full (finite-difference) Jacobian
    p0: np.ndarray  # [m/2, m/2] P at its q
    g: np.ndarray  # [m/2, m] d Q_c / d y now
    g0: np.ndarray  # [m/2, m] the same with J_0
    mask: np.ndarray  # [m] 1 on the columns of the clearance joints' bodies
    ysj: np.ndarray  # [ny] scratch state
    rotj: np.ndarray  # [m/6, 3] scratch rotation table
    qa: np.ndarray  # [m/2] scratch forces
    qb: np.ndarray  # [m/2]
    diagj: np.ndarray  # [ny, N_DIAG] scratch diagnostics (one row per clearance joint)
    lam: np.ndarray  # [ny] scratch multipliers
    zp: np.ndarray  # [3, ny] the stages of the last accepted step (the predictor's source)
    zpend: np.ndarray  # [3, ny] the last converged step's, until it is known accepted


@kernel
def make_radau_work(
    ny: int, m: int, atol: np.ndarray, rtol: float, used: object
) -> RadauWork | None:
    """The buffers of a Radau run (``used`` not None), else None.

    ``used`` is None for every explicit method, and numba prunes the branch on it while
    compiling (a None-typed argument): the stepping loop of those methods is a
    specialisation without the Radau type or kernels, which compile on the first Radau run
    instead of at the warm-up (a call, not inlined: the pruning reads its own arguments).
    """
    if used is None:
        return None
    work = RadauWork(
        np.zeros((ny, m)), np.zeros((m // 2, m // 2)), np.zeros(m // 2, dtype=np.int64),
        np.zeros((m // 2, m // 2), dtype=np.complex128), np.zeros(m // 2, dtype=np.int64),
        np.zeros((3, ny)), np.zeros((3, ny)), np.zeros((3, ny)), np.zeros(ny), np.zeros(ny),
        np.zeros(ny), np.zeros(ny, dtype=np.complex128), atol.copy(), np.zeros(N_STATE),
        np.zeros(N_STATS), np.zeros((ny, m)), np.zeros((m // 2, m // 2)), np.zeros((m // 2, m)),
        np.zeros((m // 2, m)), np.zeros(m), np.zeros(ny), np.full((m // 6, 3), np.nan),
        np.zeros(m // 2), np.zeros(m // 2), np.zeros((ny, N_DIAG)), np.zeros(ny),
        np.zeros((3, ny)), np.zeros((3, ny)),
    )  # fmt: skip
    work.state[ST_RTOL] = rtol
    work.state[ST_TLAST] = -1.0
    work.state[ST_TEND] = -1.0
    work.state[ST_TPEND] = -1.0
    work.state[ST_FACCON] = 1.0
    return work


@kernel(runtime=False)
def _block_solve(lu, piv, jac, gamma, x):
    """Solve ``(gamma I - J) x = b`` in place (``x`` holds ``b``), ``J = [[0, I, 0], [A_q,
    A_v, 0], [J_aq, J_av, 0]]`` over ``[q, v, quadratures]``: ``q' = v`` makes the position
    rows exact, so ``x_v = gamma x_q - b_q`` and ``(gamma^2 I - gamma A_v - A_q) x_q = b_v +
    gamma b_q - A_v b_q`` (``lu``: that n x n matrix, :func:`_factor`); the quadratures'
    rows by substitution ``x_a = (b_a + J_ad x_d) / gamma``."""
    n = lu.shape[0]
    for i in range(n):  # the right-hand side over b_v (b_q still whole in x[:n])
        r = x[n + i] + gamma * x[i]
        for c in range(n):
            r -= jac[n + i, n + c] * x[c]
        x[n + i] = r
    for i in range(n):  # b_q kept in x[n:] while x_q is solved for in x[:n]
        x[i], x[n + i] = x[n + i], x[i]
    lu_solve(lu, piv, x)
    for i in range(n):
        x[n + i] = gamma * x[i] - x[n + i]
    for i in range(2 * n, x.shape[0]):
        s = x[i]
        for c in range(2 * n):
            s += jac[i, c] * x[c]
        x[i] = s / gamma


@kernel(runtime=False)
def _jacobian(t, y, f0, ctx, work):
    """Forward differences of f over the dynamic states into ``work.jac``; False if an
    evaluation failed. Costs ``m`` evaluations."""
    jac, ys, fd = work.jac, work.ys, work.fd
    ny, m = jac.shape[0], jac.shape[1]
    for c in range(m):
        for i in range(ny):
            ys[i] = y[i]
        d = 1e-8 * max(abs(y[c]), 1e-3)
        ys[c] += d
        if not evaluate(t, ys, ctx, fd):
            return False
        for i in range(ny):
            jac[i, c] = (fd[i] - f0[i]) / d
    return True


@kernel(runtime=False)
def _split_start(y, ctx, work):
    """With a full Jacobian just taken at ``y`` (its last difference moved a velocity only,
    so the Schur factor in ``ctx.ws`` is of this ``q``): keep it as ``J_0`` with ``P_0`` and
    ``G_0`` (:mod:`contact_jacobian`). False when the split cannot be kept (scratch too
    small for this mechanism): the full Jacobian is then retaken as before."""
    if ctx.model.clear_int.shape[0] > work.diagj.shape[0]:
        return False
    for i in range(work.jac.shape[0]):
        for c in range(work.jac.shape[1]):
            work.jac0[i, c] = work.jac[i, c]
    for c in range(work.mask.shape[0]):
        work.mask[c] = 0.0
    clearance_force_jacobian(y, ctx.model, ctx.in_contact, ctx.approach, work.g0, work.mask,
                             work.ysj, work.rotj, work.qa, work.qb, work.diagj)  # fmt: skip
    return constrained_response(ctx, work.p0, work.lam, work.qa)


@kernel(runtime=False)
def _extrapolate(zp, ratio, z):
    """``z`` = the stages of a step ``ratio`` times as long as the last accepted one, read
    off that step's collocation polynomial (through ``0`` at ``s = 0`` and its stages
    ``zp`` at ``s = C``; ``s`` in units of its step) at ``s = 1 + C_i ratio``, less its end
    value ``zp[2]`` (the new step starts there)."""
    for i in range(3):
        s = 1.0 + C[i] * ratio
        # Lagrange weights of the nodes C[0], C[1], C[2] = 1 (node 0 carries the value 0)
        l0 = s * (s - C[1]) * (s - C[2]) / (C[0] * (C[0] - C[1]) * (C[0] - C[2]))
        l1 = s * (s - C[0]) * (s - C[2]) / (C[1] * (C[1] - C[0]) * (C[1] - C[2]))
        l2 = s * (s - C[0]) * (s - C[1]) / (C[2] * (C[2] - C[0]) * (C[2] - C[1]))
        for j in range(z.shape[1]):
            z[i, j] = l0 * zp[0, j] + l1 * zp[1, j] + (l2 - 1.0) * zp[2, j]


@kernel(runtime=False)
def _factor(h, work):
    """The two LUs for step ``h``, of ``gamma^2 I - gamma A_v - A_q`` (n x n, ``gamma`` =
    MU_REAL / h and MU_COMPLEX / h; :func:`_block_solve`: a quarter of the size of the 2n x 2n
    ``gamma I - J``, an eighth of the LU's work); False if singular."""
    jac, lu_r, lu_c = work.jac, work.lu_r, work.lu_c
    n = lu_r.shape[0]
    gr = MU_REAL / h
    gc = MU_COMPLEX / h
    for i in range(n):
        for c in range(n):
            a_q = jac[n + i, c]
            a_v = jac[n + i, n + c]
            lu_r[i, c] = -gr * a_v - a_q
            lu_c[i, c] = -gc * a_v - a_q
        lu_r[i, i] += gr * gr
        lu_c[i, i] += gc * gc
    return lu_factor(lu_r, work.piv_r) and lu_factor(lu_c, work.piv_c)


@kernel(inline="always")
def _contact_pattern(in_contact):
    p = 0.0
    for j in range(in_contact.shape[0]):
        p = 2.0 * p + in_contact[j]
    return p


@kernel(runtime=False)
def _begin_call(t, work):
    """The call's bookkeeping at ``t`` [s]: a repeat of the last call's ``t`` is a step not
    taken (rejected or cut short, counted with its evaluations); the arrival at the last
    converged step's end makes that step the predictor's source (:func:`_starting_values`)."""
    state, stats = work.state, work.stats
    state[ST_REJ] = 0.0
    if t == state[ST_TLAST]:  # the last call's step was not taken: rejected or cut short
        stats[R_REPEAT] += 1.0
        stats[R_FEV_REPEAT] += state[ST_FEVLAST]
        state[ST_REJ] = 1.0
    state[ST_TLAST] = t
    state[ST_FEVLAST] = 0.0
    if t == state[ST_TPEND]:  # the last converged step was taken: the predictor's source
        for i in range(3):
            for j in range(work.zp.shape[1]):
                work.zp[i, j] = work.zpend[i, j]
        state[ST_TEND] = t
        state[ST_HP] = state[ST_HPEND]
        state[ST_TPEND] = -1.0


@kernel(runtime=False)
def _keep_or_retake(pattern, work):
    """Whether the kept Jacobian is refreshed in its clearance part (True) or dropped
    (``ST_JAC`` cleared, to be taken afresh) before this step, as the module docstring says:
    a changed contact ``pattern`` or a slow last iteration (more than two iterations at a
    rate above :data:`THET`, RADAU5's rule) refreshes it, the whole of it taken afresh when
    that did not help (a refresh pending from a failed iteration is honoured as such)."""
    state = work.state
    update = state[ST_UPDATE] != 0.0 and state[ST_JAC] != 0.0
    state[ST_UPDATE] = 0.0
    state[ST_AGE] += 1.0
    if state[ST_JAC] != 0.0 and not update:
        changed = state[ST_CONTACT] != pattern
        if changed or (state[ST_ITER] > 2 and state[ST_RATE] > THET):
            if state[ST_SPLIT] != 0.0 and (changed or state[ST_AGE] > 1.0):
                update = True
            else:
                state[ST_JAC] = 0.0
                state[ST_WHY] = WHY_CONTACT if changed else WHY_SLOW
    return update


@kernel(runtime=False)
def _jacobian_and_lus(t, y, f0, h, ctx, work, pattern):
    """The Jacobian and the two LUs for step ``h`` [s] from ``(t, y, f0)``: J taken afresh
    (``m`` evaluations, :func:`_jacobian`), its clearance part refreshed without an
    evaluation (:mod:`contact_jacobian`), or kept (:func:`_keep_or_retake`); the LUs made
    again when J or ``h`` changed (:func:`_factor`). Returns ``(ok, evaluations, kept)``,
    ``kept`` False when J was just taken or refreshed (:func:`_newton_failure`'s rule)."""
    state, stats = work.state, work.stats
    update = _keep_or_retake(pattern, work)
    nfev = 0
    kept = True
    if state[ST_JAC] == 0.0:
        m = work.jac.shape[1]
        stats[R_JAC] += 1.0
        stats[R_JAC_ENTER + int(state[ST_WHY])] += 1.0
        stats[R_FEV_JAC] += m
        nfev += m
        state[ST_WHY] = WHY_FAIL  # unless set otherwise before the next
        if not _jacobian(t, y, f0, ctx, work):
            return False, nfev, kept
        state[ST_SPLIT] = 1.0 if _split_start(y, ctx, work) else 0.0
        state[ST_JAC] = 1.0
        state[ST_CONTACT] = pattern
        state[ST_H] = 0.0
        state[ST_AGE] = 0.0
        kept = False
    elif update:
        stats[R_UPDATE] += 1.0
        clearance_force_jacobian(y, ctx.model, ctx.in_contact, ctx.approach, work.g,
                                 work.mask, work.ysj, work.rotj, work.qa, work.qb,
                                 work.diagj)  # fmt: skip
        update_clearance_part(work.jac, work.jac0, work.p0, work.g, work.g0, work.mask)
        state[ST_CONTACT] = pattern
        state[ST_H] = 0.0
        state[ST_AGE] = 0.0
        kept = False
    if state[ST_H] != h:
        stats[R_LU] += 1.0
        if not _factor(h, work):
            state[ST_JAC] = 0.0
            return False, nfev, kept
        state[ST_H] = h
    return True, nfev, kept


@kernel(runtime=False)
def _starting_values(t, f0, h, work):
    """The iteration's start, ``work.z`` and its eigenbasis image ``work.w = TI z``:
    RADAU5's extrapolated collocation polynomial of the last accepted step (Hairer & Wanner
    IV.8, its starting values), which ends where this one starts; else ``Z_i = c_i h f0``
    (an Euler predictor: from Z = 0 the iteration took a third iteration, and the rate rule
    then retook J every step)."""
    z, w = work.z, work.w
    ny = z.shape[1]
    if t == work.state[ST_TEND]:
        _extrapolate(work.zp, h / work.state[ST_HP], z)
    else:
        for j in range(ny):
            for i in range(3):
                z[i, j] = C[i] * h * f0[j]
    for j in range(ny):
        for i in range(3):
            w[i, j] = TI[i, 0] * z[0, j] + TI[i, 1] * z[1, j] + TI[i, 2] * z[2, j]


# the Newton iteration's per-iteration pieces are inlined where _newton calls them (numba IR):
# as calls the film case measured 1.27x against dopri5 instead of 1.30-1.31x
@kernel(inline="always")
def _stage_derivatives(t, y, h, ctx, z, ys, fz, stats):
    """``fz[i] = f(t + c_i h, y + Z_i)`` for the three stages. Returns ``(finite,
    evaluations)``: False at the first evaluation that failed (counted)."""
    nfev = 0
    for i in range(3):
        for j in range(y.shape[0]):
            ys[j] = y[j] + z[i, j]
        nfev += 1
        stats[R_FEV_NEWTON] += 1.0
        if not evaluate(t + C[i] * h, ys, ctx, fz[i]):
            return False, nfev
    return True, nfev


@kernel(inline="always")
def _transformed_residual(gr, gc, fz, w, xr, xc):
    """The simplified Newton iteration's right-hand sides in the eigenbasis: ``xr = (TI
    F)_0 - gr W_0`` (real) and ``xc = (TI F)_1 + i (TI F)_2 - gc (W_1 + i W_2)``
    (complex), ``gr``, ``gc`` = MU_REAL / h, MU_COMPLEX / h [1/s]; False if not finite."""
    finite = True
    for j in range(xr.shape[0]):
        sr = 0.0
        sc = 0j
        for i in range(3):
            sr += TI[0, i] * fz[i, j]
            sc += complex(TI[1, i], TI[2, i]) * fz[i, j]
        xr[j] = sr - gr * w[0, j]
        xc[j] = sc - gc * complex(w[1, j], w[2, j])
        if not (math.isfinite(xr[j]) and math.isfinite(sc.real)
                and math.isfinite(sc.imag)):
            finite = False
    return finite


@kernel(inline="always")
def _increment_norm(xr, xc, y, atol, rtol, nm):
    """The RMS norm of the Newton increment ``(xr, xc)`` over the ``nm`` controlled states,
    scaled by ``atol + rtol |y|`` (dimensionless)."""
    s = 0.0
    for j in range(nm):
        sc_j = atol[j] + rtol * abs(y[j])
        s += (xr[j] / sc_j) ** 2 + (xc[j].real / sc_j) ** 2 + (xc[j].imag / sc_j) ** 2
    return math.sqrt(s / (3.0 * nm))


@kernel(inline="always")
def _apply_increment(xr, xc, w, z):
    """``W += (xr, Re xc, Im xc)`` and the stages back from the eigenbasis, ``Z = T W``."""
    for j in range(xr.shape[0]):
        w[0, j] += xr[j]
        w[1, j] += xc[j].real
        w[2, j] += xc[j].imag
    for i in range(3):
        for j in range(z.shape[1]):
            z[i, j] = T[i, 0] * w[0, j] + T[i, 1] * w[1, j] + T[i, 2] * w[2, j]


@kernel(runtime=False)
def _newton(t, y, h, ctx, work, nm):
    """RADAU5's simplified Newton iteration on the transformed system (radau5.f, the loop
    at label 40; Hairer & Wanner IV.8, "Stopping criterion"), from ``work.z``/``work.w``
    (:func:`_starting_values`), with the LUs of :func:`_factor`: per iteration the three
    stage derivatives, one real and one complex block solve (:func:`_block_solve`).

    FACCON = theta / (1 - theta) is carried over from the last step (relaxed to
    FACCON^0.8), so a step whose first increment is already small enough stops after one
    iteration; from the second on, the rate theta predicts the increment left after the
    iterations still allowed, and a prediction above the tolerance stops the iteration at
    once with the step cut by the predicted factor (HHFAC, ``ST_HFAC``) instead of a fixed
    one. Returns ``(converged, finite, iterations, theta, evaluations)``; ``nm``: the
    controlled states.
    """
    state, stats = work.state, work.stats
    z, w, fz, xr, xc = work.z, work.w, work.fz, work.xr, work.xc
    rtol = state[ST_RTOL]
    newton_tol = max(10.0 * 2.2e-16 / rtol, min(0.03, math.sqrt(rtol)))
    gr = MU_REAL / h
    gc = MU_COMPLEX / h
    faccon = max(state[ST_FACCON], UROUND) ** 0.8
    theta = THET
    thq_old = 0.0
    dw_old = 0.0
    converged = False
    finite = True
    nfev = 0
    state[ST_HFAC] = NEWTON_CUT
    newt = 0
    while newt < NEWTON_MAXITER:
        stats[R_NEWTON_IT] += 1.0
        finite, k = _stage_derivatives(t, y, h, ctx, z, work.ys, fz, stats)
        nfev += k
        if not finite:
            break
        finite = _transformed_residual(gr, gc, fz, w, xr, xc)
        if not finite:
            break
        _block_solve(work.lu_r, work.piv_r, work.jac, gr, xr)
        _block_solve(work.lu_c, work.piv_c, work.jac, gc, xc)
        newt += 1
        dw_norm = _increment_norm(xr, xc, y, work.scale_atol, rtol, nm)
        if 1 < newt < NEWTON_MAXITER:
            thq = dw_norm / dw_old
            theta = thq if newt == 2 else math.sqrt(thq * thq_old)
            thq_old = thq
            if theta >= 0.99:
                break  # diverging: NEWTON_CUT
            faccon = theta / (1.0 - theta)
            dyth = faccon * dw_norm * theta ** (NEWTON_MAXITER - 1 - newt) / newton_tol
            if dyth >= 1.0:  # predicted not to converge in the iterations left
                qnewt = max(1e-4, min(20.0, dyth))
                state[ST_HFAC] = 0.8 * qnewt ** (-1.0 / (4.0 + NEWTON_MAXITER - 1 - newt))
                break
        dw_old = max(dw_norm, UROUND)
        _apply_increment(xr, xc, w, z)
        if faccon * dw_norm <= newton_tol:
            converged = True
            break
    state[ST_FACCON] = faccon
    return converged, finite, newt, theta, nfev


@kernel(runtime=False)
def _newton_failure(finite, kept, work):
    """The Jacobian after a failed iteration; the step is rejected and shrunk by the loop
    (by ``ST_HFAC``: :func:`radau_reject`). Measured (docs/solver.md, "The Radau step's
    evaluations"): retaking J at the same h cost half the film's evaluations and seldom
    rescued the step (6,108 failed iterations for 3,161 rejected steps) - it was past
    Newton's reach, not J stale - so as RADAU5 a fresh (or just refreshed) J is kept for the
    smaller step (``kept`` False); a kept one has its clearance part refreshed at the next
    call (cheap), or is retaken there. A non-finite state drops J, and the loop's own cut
    applies."""
    state = work.state
    work.stats[R_NEWTON_FAIL] += 1.0
    if not finite:
        state[ST_JAC] = 0.0
        state[ST_WHY] = WHY_FAIL
        state[ST_NEWTFAIL] = 0.0  # a non-finite state: the loop's own cut
    elif kept:
        if state[ST_SPLIT] != 0.0:
            state[ST_UPDATE] = 1.0
        else:
            state[ST_JAC] = 0.0
            state[ST_WHY] = WHY_FAIL


@kernel(runtime=False)
def _converged(t, h, newt, theta, work):
    """Record a converged iteration (``newt`` iterations at rate ``theta``, for
    :func:`_keep_or_retake` and :func:`hold_step`), and its stages as the predictor's source
    once the loop has taken this step (seen at the next call: it starts at ``t + h``)."""
    state = work.state
    state[ST_ITER] = newt
    state[ST_RATE] = theta if newt > 1 else 0.0
    for i in range(3):
        for j in range(work.z.shape[1]):
            work.zpend[i, j] = work.z[i, j]
    state[ST_TPEND] = t + h
    state[ST_HPEND] = h


@kernel(runtime=False)
def _error_estimate(y, f0, h, work, y1, err):
    """The step's end ``y1 = y + Z_3`` and its embedded error estimate (Hairer & Wanner
    IV.8, radau5.f's ESTRAD) ``err = (MU_REAL / h - J)^-1 (f0 + sum_i E_i Z_i / h)``
    (order 3: the controller's exponent 1/4), in the state's units."""
    z, xr = work.z, work.xr
    for j in range(y.shape[0]):
        xr[j] = f0[j] + (E[0] * z[0, j] + E[1] * z[1, j] + E[2] * z[2, j]) / h
    _block_solve(work.lu_r, work.piv_r, work.jac, MU_REAL / h, xr)
    for j in range(y.shape[0]):
        err[j] = xr[j]
        y1[j] = y[j] + z[2, j]


@kernel(runtime=False)
def radau5_step(t, y, f0, h, ctx, work, y1, err, f1, n_uncontrolled):
    """One Radau IIA (order 5) step of size ``h`` [s] from ``(t, y, f0 = f(t, y))``
    (Hairer & Wanner IV.8, radau5.f's step).

    Writes ``y1``, the error estimate ``err`` (order 3: the controller's exponent 1/4) and
    ``f1 = f(t + h, y1)``. Returns ``(converged, evaluations)``; not converged (or an
    evaluation failed), the loop rejects the step and shrinks it (the Jacobian kept or
    refreshed by :func:`_newton_failure`'s rule). The step's evaluations are kept in
    ``ST_FEVLAST`` (a repeat at the same ``t`` counts them, :func:`_begin_call`).
    """
    state = work.state
    work.stats[R_CALLS] += 1.0
    _begin_call(t, work)
    # the Jacobian kept, refreshed or retaken, and the LUs for h
    ok, nfev, kept = _jacobian_and_lus(t, y, f0, h, ctx, work, _contact_pattern(ctx.in_contact))
    if not ok:
        state[ST_FEVLAST] = nfev
        return False, nfev
    _starting_values(t, f0, h, work)
    converged, finite, newt, theta, k = _newton(t, y, h, ctx, work, y.shape[0] - n_uncontrolled)
    nfev += k
    state[ST_NEWTFAIL] = 0.0 if converged else 1.0
    if not converged:
        _newton_failure(finite, kept, work)
        state[ST_FEVLAST] = nfev
        return False, nfev
    _converged(t, h, newt, theta, work)
    _error_estimate(y, f0, h, work, y1, err)
    nfev += 1
    work.stats[R_FEV_END] += 1.0
    state[ST_FEVLAST] = nfev
    if not evaluate(t + h, y1, ctx, f1):
        return False, nfev
    return True, nfev


@kernel(inline="always")
def hold_step(h, enorm, work):
    """The step after an accepted Radau step of size ``h`` [s] and error norm ``enorm``:
    RADAU5's controller (Hairer & Wanner IV.8, its step size selection, as radau5.f): the
    safety factor falls with the Newton iterations the step took, ``fac = 0.9 (1 + 2 k_max)
    / (k + 2 k_max)``; the step is the smaller of the standard ``fac h err^(-1/4)`` and
    Gustafsson's predictive ``0.9 h (h / h_prev) (err_prev / err^2)^(1/4)`` (fewer
    rejections where the error grows step by step, as along a film orbit); its change stays
    within [1/5, 8], and it does not grow right after a rejection; and ``h`` is kept (with
    the LUs) when it would grow by less than :data:`HOLD`."""
    state = work.state
    k = state[ST_ITER]
    fac = min(0.9, 0.9 * (1.0 + 2.0 * NEWTON_MAXITER) / (k + 2.0 * NEWTON_MAXITER))
    err = max(enorm, 1e-10)
    quot = max(1.0 / 8.0, min(5.0, err**0.25 / fac))
    if state[ST_HACC] > 0.0:
        gus = (state[ST_HACC] / h) * (err * err / state[ST_ERRACC]) ** 0.25 / 0.9
        quot = max(quot, max(1.0 / 8.0, min(5.0, gus)))
    state[ST_HACC] = h
    state[ST_ERRACC] = max(1e-2, err)
    h_new = h / quot
    if state[ST_REJ] != 0.0:  # no growth right after a rejection (radau5.f)
        h_new = min(h_new, h)
    cap = state[ST_CAP]
    if cap > 0.0:  # the Newton cap (radau_reject), relaxed by CAP_GROWTH a step
        h_new = min(h_new, max(cap, h))
        state[ST_CAP] = cap * CAP_GROWTH
    if h <= h_new < HOLD * h:
        return h
    return h_new


@kernel(inline="always")
def radau_reject(h, work):
    """The step after a rejected Radau step of size ``h`` [s], or 0 when the loop's own rule
    applies (a too large error estimate, a non-finite state). After a failed Newton
    iteration it is RADAU5's (radau5.f, HHFAC; Hairer & Wanner IV.8): ``h`` times the
    factor the iteration's rate predicted (``0.8 q^(-1/(4 + NIT - 1 - k))``, ``q`` the
    predicted last increment over the tolerance), or times 1/2 when the iteration
    diverged; and that step becomes a cap the next accepted steps grow past only by
    :data:`CAP_GROWTH` a step (:func:`hold_step`), so the controller does not return at
    once to the size Newton just failed at (a third of the film's tries were rejected so,
    docs/solver.md)."""
    state = work.state
    if state[ST_NEWTFAIL] == 0.0:
        return 0.0
    h_new = h * state[ST_HFAC]
    state[ST_CAP] = h_new
    return h_new


@kernel(inline="always")
def auto_kind(method_kind, t, in_contact, onset_t, impact_time, clear_par):
    """The method of the next step: ``method_kind`` itself, or by the phase of
    :func:`step_budget.budget_phase`: for ``dopri5-radau5`` (``KIND_AUTO``) Radau IIA riding
    the wall (in contact past the impact time) and in the film, for ``auto`` on a
    lubricated case (``KIND_FILM``, integrators.AUTO_RULE) in the film only; dopri5
    otherwise."""
    if method_kind != KIND_AUTO and method_kind != KIND_FILM:
        return method_kind
    phase = budget_phase(t, in_contact, onset_t, impact_time, clear_par)
    if phase == P_FILM or (phase == P_CONTACT and method_kind == KIND_AUTO):
        return KIND_RADAU
    return KIND_EXPLICIT


@kernel(inline="always")
def radau_enter(work):
    """A switch from the explicit method: the kept Jacobian is of another state, drop it."""
    work.state[ST_JAC] = 0.0
    work.state[ST_WHY] = WHY_ENTER
    work.state[ST_TEND] = -1.0  # no predictor from a step before the switch
    work.state[ST_TPEND] = -1.0
    work.state[ST_HACC] = 0.0  # nor a predictive step size
    work.state[ST_FACCON] = 1.0  # nor a convergence rate (radau5.f's start)
    work.state[ST_CAP] = 0.0  # nor a Newton cap


@kernel(runtime=False)
def radau_report(work, row):
    """Add the Radau counters (``work.stats``) to the step budget's Radau columns ``row``
    (:data:`step_budget.RADAU_FIELDS`)."""
    for i in range(work.stats.shape[0]):
        row[i] += work.stats[i]

