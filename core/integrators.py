"""Time-stepping methods, each one step of size ``h`` from ``(t, y, f)`` with an error estimate.

The registry :data:`INTEGRATORS` maps a user-facing name to an :class:`Integrator`: explicit
embedded Runge-Kutta methods are *data* - a Butcher tableau run by the one compiled
:func:`erk_step` - and the linearly implicit Rosenbrock method has its own kernel. Adding an
explicit method is one more tableau.

Measured guidance (the reference slider-crank, see README): the explicit ``dopri5`` at tight
tolerance is the default; every contact event would restart an implicit method's Jacobian,
and ``rosenbrock23`` only pays off once the contact stiffness makes the explicit step
stability-limited rather than accuracy-limited.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from .assembly import CaseModel
from .dynamics import UNCONTROLLED_ATOL, derivative, derivative_inlined
from .errors import InputError
from .jit import kernel

KIND_EXPLICIT = 0
KIND_ROSENBROCK = 1
KIND_RADAU = 2  # Radau IIA 5 (:mod:`radau`)
KIND_AUTO = 3  # dopri5, Radau IIA 5 by phase (:func:`radau.auto_kind`): dopri5-radau5
KIND_FILM = 4  # auto on a lubricated case: dopri5, Radau IIA 5 in the film (radau.auto_kind)


class Tableau(NamedTuple):
    """An explicit method's Butcher tableau as the compiled loop takes it (a numba named
    tuple; :meth:`Integrator.tableau`). The implicit methods carry placeholders."""

    a: np.ndarray  # [s, s] stage coefficients
    b: np.ndarray  # [s] solution weights
    e: np.ndarray  # [s] error weights (b - b_hat)
    c: np.ndarray  # [s] stage times
    dense: np.ndarray  # [s] weights of the 4th-order dense-output term (0: cubic Hermite)


@dataclass(frozen=True)
class Integrator:
    """A registry entry: ``order`` of the error estimator's lower method sets step control."""

    name: str
    kind: int
    order: int
    a: np.ndarray  # [s, s] stage coefficients
    b: np.ndarray  # [s] solution weights
    e: np.ndarray  # [s] error weights (b - b_hat)
    c: np.ndarray  # [s] stage times
    dense: np.ndarray  # [s] weights of the 4th-order dense-output term (0: cubic Hermite)
    fsal: bool
    reference: str

    def tableau(self) -> Tableau:
        """Its coefficients for the compiled loop."""
        return Tableau(self.a, self.b, self.e, self.c, self.dense)


def _dopri5() -> Integrator:
    a = np.zeros((7, 7))
    a[1, :1] = [1 / 5]
    a[2, :2] = [3 / 40, 9 / 40]
    a[3, :3] = [44 / 45, -56 / 15, 32 / 9]
    a[4, :4] = [19372 / 6561, -25360 / 2187, 64448 / 6561, -212 / 729]
    a[5, :5] = [9017 / 3168, -355 / 33, 46732 / 5247, 49 / 176, -5103 / 18656]
    a[6, :6] = [35 / 384, 0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84]
    b = a[6].copy()
    b_hat = np.array(
        [5179 / 57600, 0, 7571 / 16695, 393 / 640, -92097 / 339200, 187 / 2100, 1 / 40]
    )
    c = np.array([0, 1 / 5, 3 / 10, 4 / 5, 8 / 9, 1, 1])
    # Hairer's continuous extension (dopri5.f, CONTD5): 4th order at no extra evaluation
    dense = np.array(
        [
            -12715105075 / 11282082432,
            0,
            87487479700 / 32700410799,
            -10690763975 / 1880347072,
            701980252875 / 199316789632,
            -1453857185 / 822651844,
            69997945 / 29380423,
        ]
    )
    ref = "Dormand & Prince 1980, J. Comput. Appl. Math. 6:19 (MATLAB ode45)"
    return Integrator("dopri5", KIND_EXPLICIT, 4, a, b, b - b_hat, c, dense, True, ref)


def _bs32() -> Integrator:
    a = np.zeros((4, 4))
    a[1, :1] = [1 / 2]
    a[2, :2] = [0, 3 / 4]
    a[3, :3] = [2 / 9, 1 / 3, 4 / 9]
    b = a[3].copy()
    b_hat = np.array([7 / 24, 1 / 4, 1 / 3, 1 / 8])
    c = np.array([0, 1 / 2, 3 / 4, 1])
    ref = "Bogacki & Shampine 1989, Appl. Math. Lett. 2:321 (MATLAB ode23)"
    return Integrator("bs32", KIND_EXPLICIT, 2, a, b, b - b_hat, c, np.zeros(4), True, ref)


def _rosenbrock23() -> Integrator:
    z = np.zeros(1)
    ref = "Shampine & Reichelt 1997, SIAM J. Sci. Comput. 18:1 (MATLAB ode23s)"
    return Integrator("rosenbrock23", KIND_ROSENBROCK, 2, z.reshape(1, 1), z, z, z, z, True, ref)


def _radau5() -> Integrator:
    z = np.zeros(1)
    ref = ("Hairer & Wanner, Solving ODEs II (1996), IV.8, RADAU5 (the constants of "
           "scipy.integrate.Radau)")
    # order 3: the error estimator's, which sets the controller's exponent 1/4
    return Integrator("radau5", KIND_RADAU, 3, z.reshape(1, 1), z, z, z, z, True, ref)


def _phase_switch() -> Integrator:
    d = _dopri5()
    ref = "dopri5 in free flight and through impacts, radau5 riding the wall and in the film"
    return Integrator("dopri5-radau5", KIND_AUTO, d.order, d.a, d.b, d.e, d.c, d.dense, True,
                      ref)  # fmt: skip


def _auto() -> Integrator:
    # the measured choice (AUTO_RULE): dopri5's tableau; a lubricated case runs it as
    # KIND_FILM (case_kind), every other case as the explicit method itself
    d = _dopri5()
    ref = "the measured choice per phase: dopri5, Radau IIA 5 in the film (see AUTO_RULE)"
    return Integrator("auto", KIND_EXPLICIT, d.order, d.a, d.b, d.e, d.c, d.dense, True, ref)


INTEGRATORS: dict[str, Integrator] = {
    i.name: i
    for i in (_dopri5(), _bs32(), _rosenbrock23(), _radau5(), _phase_switch(), _auto())
}


# What benchmarks/step_budget.py, radau_split.py and long_runs.py measured (docs/solver.md,
# "Long runs"): riding the wall, dopri5's steps are held by the error estimate of the motion
# (mean h|lambda| 1.3-1.9, 5-37 % of the steps near the stability boundary), so an implicit
# step is not longer: Radau IIA takes 1.5x dopri5's steps there and costs 2.5x its
# evaluations. In the film dopri5's steps sit at the boundary (95 %) and Radau IIA, with its
# Jacobian's clearance part kept current without evaluations (contact_jacobian) and
# RADAU5's Newton and step controls (radau5.f's FACCON / THETA tests, the predicted step
# cut, a Newton cap), takes 7x fewer steps and 2.25x fewer evaluations, and is faster in
# wall time too (1.28x, 30 of 30 runs side by side). So auto is Radau IIA in the film of a
# lubricated case and dopri5 elsewhere; a dry case runs the explicit loop itself (the same
# numbers as dopri5, and no Radau compile), a lubricated one the Radau loop (compiled on
# its first use, as dopri5-radau5's).
AUTO_RULE = (
    "auto: Radau IIA 5 in the film of a lubricated joint (the journal off the wall), dopri5 "
    "in every other phase and in every dry case, the measured choice (in the film dopri5's "
    "step is stability-limited and Radau IIA is 2.2x fewer evaluations and 1.3x faster; "
    "riding the wall its steps are accuracy-limited and Radau IIA costs 2.5x the "
    "evaluations: docs/solver.md, Long runs)"
)


def case_kind(method: Integrator, lubricated: bool) -> int:
    """The method kind a case runs with (the compiled loop's ``method_kind``): ``auto``'s
    rule (:data:`AUTO_RULE`) gives a case with a lubricated joint ``KIND_FILM`` (Radau IIA 5
    in the film, :func:`radau.auto_kind`), every other case and method its own kind."""
    if method.name == "auto" and lubricated:
        return KIND_FILM
    return method.kind


def get_integrator(name: str) -> Integrator:
    """Look up an integrator, or raise :class:`InputError` listing the known ones (and the
    ``auto`` rule, which ``gapsweep params`` prints from it)."""
    try:
        return INTEGRATORS[name]
    except KeyError:
        allowed = "one of " + ", ".join(INTEGRATORS) + " (" + AUTO_RULE + ")"
        raise InputError("integrator", name, allowed) from None


class CaseContext(NamedTuple):
    """What the right-hand side needs of a case besides ``(t, y)``: the arguments of
    :func:`dynamics.derivative` after ``y`` (a numba named tuple)."""

    model: CaseModel
    in_contact: np.ndarray  # int64 [n_clearance]: 0/1 per clearance joint
    approach: np.ndarray  # [n_clearance] approach velocity of the current impact [m/s]
    alpha: float  # Baumgarte gains [1/s], 0 for none
    beta: float
    probe: int  # index into q of the output coordinate, -1 if none
    inv_mass: np.ndarray  # [n] diagonal of M^-1, prescribed bodies zero
    ws: tuple  # the workspace (dynamics.make_workspace)


@kernel(runtime=False)
def evaluate(t, y, ctx, out):
    """``out = f(t, y)`` for the case context ``ctx`` (:class:`CaseContext`); False if the
    constraints are singular. A plain call for the paths off the stage loop (events, output
    samples, peak refinement, the implicit methods): inlining the RHS at every site
    multiplied the compile time, for no gain where it runs a few times per step. The stage
    loop (:func:`erk_step`) has its own inlined copy."""
    return derivative(
        t, y, ctx.model, ctx.in_contact, ctx.approach, ctx.alpha, ctx.beta, ctx.probe,
        ctx.inv_mass, ctx.ws, out,
    )  # fmt: skip


@kernel(inline="always")
def error_norm(err, y0, y1, rtol, atol):
    """RMS of the error scaled by ``atol_i + rtol max(|y0_i|, |y1_i|)`` (Hairer's norm), over
    every component whose ``atol`` is finite: the oil film's quadratures carry
    ``UNCONTROLLED_ATOL`` (infinite) and stay out of it."""
    s = 0.0
    m = 0
    for i in range(err.shape[0]):
        if atol[i] == UNCONTROLLED_ATOL:
            continue
        sc = atol[i] + rtol * max(abs(y0[i]), abs(y1[i]))
        s += (err[i] / sc) ** 2
        m += 1
    return np.sqrt(s / m)


@kernel(runtime=False)
def erk_step(t, y, f0, h, tableau, ctx, k, ystage, y1, err, r5):
    """One explicit embedded RK step; ``tableau`` the method's :class:`Tableau`, ``k[s, ny]``
    stage derivatives with ``k[0] = f0``.

    Writes ``y1``, ``err`` and the dense-output term ``r5`` (see :func:`dense_output`); for
    FSAL tableaux ``k[-1]`` is ``f(t + h, y1)``. Returns False if an evaluation failed.
    """
    a, b, e, c, dense = tableau
    s = b.shape[0]
    ny = y.shape[0]
    for j in range(ny):  # element-wise: a slice copy may allocate (no NRT here)
        k[0, j] = f0[j]
    # stage by stage, each previous stage added as a contiguous row: it vectorises and
    # skips the tableau's zeros (a strided sum per component did neither)
    for i in range(1, s):
        for j in range(ny):
            ystage[j] = y[j]
        for m in range(i):
            w = h * a[i, m]
            if w != 0.0:
                for j in range(ny):
                    ystage[j] += w * k[m, j]
        # the RHS inlined here, where a call costs ~10 % of the batch, and straight from
        # dynamics rather than through a wrapper: numba copies an inlined body once per
        # level it is inlined through, and that copy was ~10 % of the cold compile
        if not derivative_inlined(t + c[i] * h, ystage, ctx.model, ctx.in_contact,
                                  ctx.approach, ctx.alpha, ctx.beta, ctx.probe, ctx.inv_mass,
                                  ctx.ws, k[i]):  # fmt: skip
            return False
    for j in range(ny):
        y1[j] = y[j]
        err[j] = 0.0
        r5[j] = 0.0
    for m in range(s):
        wb, we, wd = h * b[m], h * e[m], h * dense[m]
        for j in range(ny):
            km = k[m, j]
            y1[j] += wb * km
            err[j] += we * km
            r5[j] += wd * km
    return True


@kernel(runtime=False)
def lu_factor(a, piv):
    """In-place LU of ``a`` with partial pivoting (real or complex: numba compiles one per
    dtype), the row swaps in ``piv``; False if singular."""
    n = a.shape[0]
    for j in range(n):
        p = j
        for i in range(j + 1, n):
            if abs(a[i, j]) > abs(a[p, j]):
                p = i
        piv[j] = p
        if a[p, j] == 0.0:
            return False
        if p != j:
            for m in range(n):
                a[j, m], a[p, m] = a[p, m], a[j, m]
        for i in range(j + 1, n):
            a[i, j] /= a[j, j]
            for m in range(j + 1, n):
                a[i, m] -= a[i, j] * a[j, m]
    return True


@kernel(runtime=False)
def lu_solve(a, piv, b):
    """Solve ``a x = b`` in place over ``b``'s first ``a.shape[0]`` entries, ``a`` and ``piv``
    from :func:`lu_factor`."""
    n = a.shape[0]
    for j in range(n):
        p = piv[j]
        if p != j:
            b[j], b[p] = b[p], b[j]
    for i in range(n):
        for m in range(i):
            b[i] -= a[i, m] * b[m]
    for i in range(n - 1, -1, -1):
        for m in range(i + 1, n):
            b[i] -= a[i, m] * b[m]
        b[i] /= a[i, i]


@kernel(runtime=False)
def rosenbrock23_step(t, y, f0, h, n_dynamic, ctx, k, ystage, y1, err, w, piv):
    """One step of the L-stable Rosenbrock 2(3) pair of ode23s; ``k[3:7, ny]`` scratch.

    The Jacobian is taken by forward differences over the ``n_dynamic`` first states (the
    quadratures that follow them do not feed back). Writes ``y1``, ``err`` and
    ``k[2] = f(t + h, y1)``.
    """
    ny = y.shape[0]
    d = 1.0 / (2.0 + np.sqrt(2.0))
    e32 = 6.0 + np.sqrt(2.0)
    fd = k[3]
    for j in range(ny):
        for i in range(ny):
            w[i, j] = 0.0
    for j in range(n_dynamic):
        step = 1e-8 * max(abs(y[j]), 1e-5)
        for i in range(ny):
            ystage[i] = y[i]
        ystage[j] += step
        if not evaluate(t, ystage, ctx, fd):
            return False
        for i in range(ny):
            w[i, j] = -h * d * (fd[i] - f0[i]) / step
    for i in range(ny):
        w[i, i] += 1.0
    tstep = 1e-8 * max(abs(t), 1e-5)
    if not evaluate(t + tstep, y, ctx, fd):
        return False
    dt = k[6]
    for i in range(ny):
        dt[i] = h * d * (fd[i] - f0[i]) / tstep
    if not lu_factor(w, piv):
        return False
    k1 = k[0]
    k2 = k[1]
    f2 = k[2]
    f1 = k[4]
    for i in range(ny):
        k1[i] = f0[i] + dt[i]
    lu_solve(w, piv, k1)
    for i in range(ny):
        ystage[i] = y[i] + 0.5 * h * k1[i]
    if not evaluate(t + 0.5 * h, ystage, ctx, f1):
        return False
    for i in range(ny):
        k2[i] = f1[i] - k1[i]
    lu_solve(w, piv, k2)
    for i in range(ny):
        k2[i] += k1[i]
        y1[i] = y[i] + h * k2[i]
    if not evaluate(t + h, y1, ctx, f2):
        return False
    k3 = k[5]
    for i in range(ny):
        k3[i] = f2[i] - e32 * (k2[i] - f1[i]) - 2.0 * (k1[i] - f0[i]) + dt[i]
    lu_solve(w, piv, k3)
    for i in range(ny):
        err[i] = h / 6.0 * (k1[i] - 2.0 * k2[i] + k3[i])
    return True


@kernel(inline="always")
def dense_output(t0, y0, f0, t1, y1, f1, r5, t, out):
    """The state at ``t`` inside the step ``[t0, t1]``.

    Cubic Hermite from the step's ends plus the method's 4th-order term ``r5`` (Hairer's
    form: ``y0 + s(D + (1-s)(h f0 - D + s(D - h f1 - (h f0 - D) + (1-s) r5)))`` with
    ``D = y1 - y0``); ``r5 = 0`` gives plain cubic Hermite for methods without one.
    """
    h = t1 - t0
    s = (t - t0) / h
    s1 = 1.0 - s
    for i in range(y0.shape[0]):
        d = y1[i] - y0[i]
        c3 = h * f0[i] - d
        c4 = d - h * f1[i] - c3
        out[i] = y0[i] + s * (d + s1 * (c3 + s * (c4 + s1 * r5[i])))
