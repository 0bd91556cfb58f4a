"""Where the steps of a run go: accepted and rejected steps and RHS evaluations by phase, and
what limits the step (issue 39's measurement; ``benchmarks/step_budget.py`` prints it).

Off by default: with ``GAPSWEEP_STEP_BUDGET=1`` in the environment the solver asks the
stepping loop for the counters (``OPT_BUDGET``) and widens each case's metric row by
:data:`N_BUDGET` columns at its end; the result's metrics then carry ``budget.<phase>.<what>``.
Off, the loop pays one predictable branch a step and nothing else.

Phases (of the step's start; the first that holds): ``impact`` (a joint in contact for less
than the impact time), ``contact`` (a joint in contact for longer: riding the wall), ``film``
(a lubricated joint, not in dry contact) and ``free`` (free flight).

What limits an explicit step: an RK method is stable while ``|h lambda|`` stays inside its
stability region, about 3.3 along the negative real axis and the imaginary axis for dopri5.
``h lambda`` is estimated two ways at every step:

- ``hl``: Hairer's stiffness detection of DOPRI5 (Hairer & Wanner, *Solving ODEs II*,
  IV.2, and dopri5.f): ``h |f(y1) - f(y6)| / |y1 - y6|`` from the last two stages (both at
  ``t + h``), the dominant local eigenvalue along the step's own direction, over the
  positions and velocities (the quadratures do not feed back);
- ``hlc``: from the contact stiffness, ``h sqrt(k_eff / m_eff)``, ``k_eff = n F_n / delta``
  (the elastic power law's slope at the current penetration) and ``1/m_eff`` the sum of the
  two bodies' inverse masses (constraints ignored: a bound, not the mode).

An accepted step with ``hl >= NEAR`` sits near the stability boundary (the controller is held
there by stability, and rejections with ``hl > STABLE`` are its stability rejections); a step
well inside it was sized by the error estimate of the motion (accuracy-limited).
"""

from __future__ import annotations

import math
import os

import numpy as np

from .assembly import CP_EXP, CP_LUB
from .dynamics import WS_DIAG
from .forces import D_DELTA, D_FN
from .jit import kernel

PHASES = ("free", "impact", "contact", "film")
P_FREE, P_IMPACT, P_CONTACT, P_FILM = range(4)
# per phase: accepted, rejected, rejected with hl > STABLE, RHS evaluations, time covered [s],
# accepted with hl >= NEAR, the sums of hl and hlc over the accepted steps
FIELDS = ("accepted", "rejected", "rejected_unstable", "rhs", "time", "near_boundary",
          "sum_hl", "sum_hlc")
(B_ACC, B_REJ, B_REJ_STAB, B_NFEV, B_TIME, B_NEAR, B_SUM_HL, B_SUM_HLC) = range(8)
N_FIELDS = 8
# the Radau IIA step's own counters (radau.R_*, in this order) after the phases' columns:
# calls, Jacobians taken (all, then by why: entering Radau or the start, a contact state
# changed, slow convergence, a failed iteration), evaluations in them, Newton iterations and
# their evaluations, the step end's evaluation, failed iterations, LU pairs, calls repeated
# from the same t (the last step rejected or cut short by an event), the evaluations of
# those lost calls, and the refreshes of the Jacobian's clearance part without an evaluation
# (contact_jacobian)
RADAU_FIELDS = ("calls", "jacobians", "jac_enter", "jac_contact", "jac_slow", "jac_fail",
                "rhs_jacobian", "newton_iterations", "rhs_newton", "rhs_end", "newton_failed",
                "lu", "repeated", "rhs_repeated", "updates")
RADAU_BASE = N_FIELDS * len(PHASES)  # the Radau columns' first
N_BUDGET = RADAU_BASE + len(RADAU_FIELDS)
STABLE = 3.3  # dopri5's stability boundary |h lambda| (real and imaginary axes, ~3.3)
NEAR = 2.5  # an accepted step this close to it is held there by stability
ENV = "GAPSWEEP_STEP_BUDGET"


def enabled() -> bool:
    """Whether the runs of this process keep the step budget (the environment switch)."""
    return os.environ.get(ENV, "") not in ("", "0")


@kernel(runtime=False)
def budget_phase(t, in_contact, onset_t, impact_time, clear_par):
    """The phase (``P_*``) of a step starting at ``t`` [s]."""
    phase = P_FREE
    for j in range(in_contact.shape[0]):
        if in_contact[j]:
            if t - onset_t[j] < impact_time:
                return P_IMPACT
            phase = P_CONTACT
        elif phase == P_FREE and clear_par[j, CP_LUB] > 0.0:
            phase = P_FILM
    return phase


@kernel(runtime=False)
def hairer_hlambda(h, y, k, a, n_dynamic, ystage):
    """Hairer's ``h |lambda|`` of the explicit step just taken from ``y``: ``k[s-1] = f(y1)``
    and ``k[s-2]`` the stage at ``t + h`` before it (dopri5: both at ``c = 1``); ``ystage``
    holds ``y1`` (the FSAL stage's argument) and is left so. 0 if undefined."""
    s = a.shape[0]
    num = 0.0
    den = 0.0
    for i in range(n_dynamic):
        y6 = y[i]
        for m in range(s - 2):
            y6 += h * a[s - 2, m] * k[m, i]
        num += (k[s - 1, i] - k[s - 2, i]) ** 2
        den += (ystage[i] - y6) ** 2
    if den <= 0.0:
        return 0.0
    return h * math.sqrt(num / den)


@kernel(runtime=False)
def contact_hlambda(h, in_contact, model, inv_mass, ws):
    """``h sqrt(k_eff / m_eff)`` of the stiffest joint in contact (0 with none), from the
    forces of the last evaluation (``ws``'s diagnostics)."""
    diag = ws[WS_DIAG]
    best = 0.0
    for j in range(in_contact.shape[0]):
        delta = diag[j, D_DELTA]
        if not in_contact[j] or delta <= 0.0:
            continue
        k_eff = model.clear_par[j, CP_EXP] * diag[j, D_FN] / delta
        w = 0.0
        for b in range(2):
            body = model.clear_int[j, b]
            if body >= 0:
                w += inv_mass[3 * body]
        best = max(best, k_eff * w)
    return h * math.sqrt(best)


@kernel(runtime=False)
def budget_accept(row, phase, h, hl, hlc):
    """Count an accepted step of length ``h`` [s] in ``row`` (the budget's columns)."""
    c = N_FIELDS * phase
    row[c + B_ACC] += 1.0
    row[c + B_TIME] += h
    row[c + B_SUM_HL] += hl
    row[c + B_SUM_HLC] += hlc
    if hl >= NEAR:
        row[c + B_NEAR] += 1.0


@kernel(runtime=False)
def budget_rhs(row, phase, count):
    """Count ``count`` RHS evaluations spent on a step of ``phase``."""
    row[N_FIELDS * phase + B_NFEV] += count


@kernel(runtime=False)
def budget_reject(row, phase, hl):
    """Count a rejected step (``hl`` its ``h |lambda|``)."""
    c = N_FIELDS * phase
    row[c + B_REJ] += 1.0
    if hl > STABLE:
        row[c + B_REJ_STAB] += 1.0


def budget_metrics(row: np.ndarray) -> dict[str, float]:
    """The budget's columns (``row[N_BUDGET]``) as ``budget.<phase>.<field>`` metrics, with the
    means ``mean_hl`` and ``mean_hlc`` over the accepted steps."""
    out: dict[str, float] = {}
    for p, phase in enumerate(PHASES):
        vals = row[N_FIELDS * p : N_FIELDS * (p + 1)]
        for f, field in enumerate(FIELDS):
            if not field.startswith("sum_"):
                out[f"budget.{phase}.{field}"] = float(vals[f])
        acc = max(vals[B_ACC], 1.0)
        out[f"budget.{phase}.mean_hl"] = float(vals[B_SUM_HL] / acc)
        out[f"budget.{phase}.mean_hlc"] = float(vals[B_SUM_HLC] / acc)
    for f, field in enumerate(RADAU_FIELDS):
        out[f"budget.radau.{field}"] = float(row[RADAU_BASE + f])
    return out
