"""Run any mechanism: solver options, and a batch of jobs through the compiled stepping loop.

This is the generic layer under the case APIs (:mod:`simulation` for the slider-crank): a
:class:`Job` is a mechanism, its initial state and its :class:`SolverOptions`; jobs that
share a topology and integrator are integrated together by
:func:`stepping.integrate_batch`, spread over the cores, each case on its own.
"""

from __future__ import annotations

import itertools
import logging
import math
import os
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from . import step_budget
from .assembly import CP_CLR, CP_LUB, CP_RB, CP_RJ, DRIVER, ROWS, CaseArrays, Topology, assemble
from .dynamics import AUX_ACCEL2, N_AUX, film_columns
from .errors import CompileError, InputError, require_finite
from .integrators import KIND_RADAU, case_kind, get_integrator
from .jit import cached_signatures, is_compile_failure
from .journal_bearing import film_grid_metrics
from .metrics import per_joint
from .model import Mechanism
from .motion import DRIFT_HORIZON, JITTER_CAP, JITTER_FACTOR, classify
from .peak_refinement import COMPONENTS, PROBE_FIELDS, QUANTITIES
from .result import CaseResult
from .series import SOLVER_SERIES
from .settled import (
    Revolutions,
    analyse,
    last_revolution,
    poincare_series,
    settle_window_length,
    settled_window,
)
from .step_budget import N_BUDGET
from .stepping import (
    M_A2_AT_TS,
    M_CONTACT_TIME,
    M_CONTACT_TIME_S,
    M_FREE_PEN,
    M_IMPACTS,
    M_IMPACTS_S,
    M_MAX_DRIFT,
    M_MAX_PEN,
    M_MAX_PEN_S,
    M_MAX_RESIDUAL,
    M_NACCEPT,
    M_NFEV,
    M_NREFINE,
    M_NREJECT,
    M_ONSET_ERR,
    M_PEAK_ACC,
    M_PEAK_ACC_S,
    M_PEAK_FN,
    M_PEAK_FN_S,
    M_PEAK_KE,
    M_PEAK_TORQUE,
    M_PEAK_TORQUE_S,
    M_SECTIONS,
    M_SETTLED_AT,
    M_SETTLED_N,
    M_T_REACHED,
    MJ_IMPACTS,
    MJ_IMPACTS_S,
    MJ_MAX_PEN,
    MJ_MAX_PEN_S,
    MJ_PEAK_FN,
    MJ_PEAK_FN_S,
    MP_PEAK,
    MP_PEAK_S,
    MP_SQ,
    MP_SQ_S,
    N_MET,
    N_MJ,
    N_MP,
    N_OPT,
    N_REV,
    N_RJ,
    N_RP,
    N_SER,
    N_SJ,
    OK,
    OPT_ALPHA,
    OPT_ATOL_Q,
    OPT_ATOL_V,
    OPT_BETA,
    OPT_BISECT,
    OPT_BUDGET,
    OPT_CONTACT_HMAX,
    OPT_DRIVER_ROW,
    OPT_DT_OUT,
    OPT_EPS_EVENT,
    OPT_EPS_ONSET,
    OPT_H0,
    OPT_HMAX,
    OPT_HMIN,
    OPT_IMPACT_TIME,
    OPT_MAX_STEPS,
    OPT_N_HEAD,
    OPT_N_JOINTS,
    OPT_N_OUT,
    OPT_N_PROBES,
    OPT_N_TRACES,
    OPT_PEN_BOUND,
    OPT_PERIOD,
    OPT_PROBE,
    OPT_PROJECT,
    OPT_REFINE,
    OPT_RTOL,
    OPT_SETTLE_CAP,
    OPT_SETTLE_FROM,
    OPT_SETTLE_HORIZON,
    OPT_SETTLE_JITTER,
    OPT_SETTLE_TOL,
    OPT_T_END,
    OPT_T_STEADY,
    R_TIME,
    RJ_IMPACTS,
    RJ_MAX_PEN,
    RJ_PEAK_FN,
    RP_PEAK,
    RP_SQ,
    STATUS_TEXT,
    integrate_batch,
)

_log = logging.getLogger(__name__)

SERIES_NAMES = SOLVER_SERIES  # the series registry's, in the output grid's column order
assert len(SERIES_NAMES) == N_SER
# an observed joint's series (design.md 4.7: named ``<name>.<joint>``, core.metrics.per_joint),
# in the order of the loop's SJ_* columns; ``impact_count`` its impacts up to each sample
JOINT_SERIES = ("contact_normal_force", "penetration", "eccentricity_x", "eccentricity_y",
                "contact_state", "impact_count")
assert len(JOINT_SERIES) == N_SJ

ONSET_THRESHOLD = 1e-12  # [m] penetration that starts a contact (design.md 1.4)
EVENT_BAND = 1e-9  # [m] accepted overshoot of the seed-003 step-halving event scheme
PENETRATION_BOUND = 1.0  # a case stops when penetration exceeds this fraction of c: the
# contact law has then left any validity (at c = 0.02 mm the first impact reaches ~0.6 c);
# of c + h_max on a worn hole, the gap the journal crosses (stepping._step_end_peaks)
MAX_STEPS = 5_000_000
# [s] the first part of every contact that counts as impact, the rest as continuous contact
# (share_impact / share_contact): 4x the ~50 us an impact lasts on the reference mechanism
# (design.md 1.3), so a rebound is an impact and a journal riding the wall is in contact
IMPACT_TIME = 2e-4

# rosenbrock23 restarts its finite-difference Jacobian at every contact event: 763,471 RHS
# evaluations against dopri5's 13,270 on the reference case, and a failure (penetration
# bound) at 1e4 x the contact stiffness (README, "Solver choices")
ROSENBROCK_CONTACT = (
    "dopri5 or bs32 for a mechanism with a clearance joint (rosenbrock23 is not reliable "
    "with contact: it failed at 1e4 x the contact stiffness); rosenbrock23 only without one "
    "(e.g. ideal=true)"
)

STABILIZATION = ("projection", "baumgarte", "none")
EVENTS = ("root", "bisect")

Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class VectorProbe:
    """A quantity the loop observes (a mechanism's measure): ``coordinate`` the index of its
    body's x in q (3 x the body's index), ``point`` [m] in the body's frame (0, 0: the centre
    of mass), ``component`` one of x, y, angle, magnitude, ``quantity`` one of position,
    velocity, acceleration; its metrics and series are named ``name``."""

    name: str
    coordinate: int
    point: tuple[float, float] = (0.0, 0.0)
    component: str = "x"
    quantity: str = "acceleration"

    def fields(self) -> tuple[float, ...]:
        """The ``PROBE_FIELDS`` numbers the loop reads (:mod:`peak_refinement`)."""
        return (float(self.coordinate), float(self.point[0]), float(self.point[1]),
                float(COMPONENTS.index(self.component)), float(QUANTITIES.index(self.quantity)))


@dataclass(frozen=True)
class SolverOptions:
    """How to integrate one case.

    ``t_end`` [s]; metrics with the suffix ``_steady`` cover ``[t_steady, t_end]``.
    ``rtol`` relative tolerance; ``atol`` absolute tolerance of positions [m] (velocities get
    ``atol`` x 1e3 [m/s]). ``event_location``: ``root`` (Illinois root finding on the dense
    output, then a step exactly to the event) or ``bisect`` (seed 003: halve the step until
    the penetration lands within 1 nm past the threshold, never below 0.1 us).
    ``stabilization``: ``projection`` (positions and velocities projected on the constraint
    manifold after every step), ``baumgarte`` (gains ``alpha``, ``beta`` [1/s]) or ``none``.
    ``n_output`` uniform samples are stored; metrics use every accepted step regardless.
    ``max_step`` caps every step [s]; ``contact_max_step`` only steps taken while a clearance
    joint is in contact (seed 002 caps them at 1/20-1/50 of the contact period; measured on
    the reference case, error control alone was as accurate and cheaper).

    Revolutions: with ``period`` ``T`` > 0 [s] (the driver's) the loop keeps a record per
    revolution and the Poincare section at t = k T (:mod:`stepping`), and the result the settled
    metrics (:mod:`settled`) with ``settle_tolerance`` x ``section_length`` [m] as the
    periodicity tolerance of the section (the length: the clearance; 0 = the smallest clearance
    of the mechanism, 1 mm without one) and ``transient_revolutions`` (0: found by the settling)
    the revolutions before the settled window. ``stop_when_settled``: the loop stops at the
    first section where the last revolutions repeat (periodic-N) within the tolerance, counting
    sections from ``settle_from`` on - ``t_end`` is then the cap. The tolerance is the
    floor under ``settle_jitter_factor`` x the section's measured jitter, itself capped at
    ``settle_jitter_cap`` x the tolerance, and a period whose phases slide out of it within
    ``settle_horizon`` revolutions does not count (:mod:`motion`; 0: no drift test).
    ``output_step`` [s] > 0 sets the output grid's step (else ``t_end / (n_output - 1)``);
    ``output_head`` > 0 keeps that many rows from the start and the rest of the ``n_output``
    rows as a ring of the latest samples (memory bounded for any length).

    Vector probes (design.md 4.14): each of ``probes`` (:class:`VectorProbe`) is observed at
    every accepted step of the run - peaks refined between steps, RMS, steady, per-revolution and
    settled peaks, a series - as ``peak_<name>`` ...; with ``observe_joints`` every clearance
    joint's contact force, penetration and impacts likewise (``peak_contact_force.<joint>``
    ...), beside their extremes over the joints. ``traces`` are kept as series only.
    """

    t_end: float
    t_steady: float = 0.0
    integrator: str = "dopri5"
    rtol: float = 1e-6
    atol: float = 1e-10
    max_step: float = math.inf
    contact_max_step: float = math.inf
    initial_step: float = 1e-6
    event_location: str = "root"
    stabilization: str = "projection"
    baumgarte_alpha: float = 5.0
    baumgarte_beta: float = 5.0
    n_output: int = 2401
    refine_peaks: bool = True
    period: float = 0.0
    # of the section length: 20 nm at c = 0.02 mm; measured: a settled spread of
    # 4e-7 c at 0.02 mm and a scattered 4e-2 c at 0.1 mm
    settle_tolerance: float = 1e-3
    settle_jitter_factor: float = JITTER_FACTOR
    settle_jitter_cap: float = JITTER_CAP
    settle_horizon: float = DRIFT_HORIZON  # [revolutions]
    section_length: float = 0.0
    stop_when_settled: bool = False
    settle_from: int = 1
    transient_revolutions: int = 0
    impact_time: float = IMPACT_TIME
    output_step: float = 0.0
    output_head: int = 0
    probes: tuple[VectorProbe, ...] = ()
    traces: tuple[VectorProbe, ...] = ()
    observe_joints: bool = False

    def validate(self) -> None:
        """Raise :class:`InputError` naming the first option outside its range."""
        get_integrator(self.integrator)
        if self.event_location not in EVENTS:
            raise InputError("event_location", self.event_location, "one of " + ", ".join(EVENTS))
        if self.stabilization not in STABILIZATION:
            allowed = "one of " + ", ".join(STABILIZATION)
            raise InputError("stabilization", self.stabilization, allowed)
        t_end = require_finite("t_end", self.t_end)
        if not 0.0 < t_end <= 100.0:
            raise InputError("t_end", self.t_end, "in (0, 100] s")
        if not 0.0 <= require_finite("t_steady", self.t_steady) < t_end:
            raise InputError("t_steady", self.t_steady, f"in [0, t_end = {t_end:g}) s")
        if not 1e-13 <= require_finite("rtol", self.rtol) <= 1e-2:
            raise InputError("rtol", self.rtol, "in [1e-13, 1e-2]")
        for name in ("atol", "initial_step", "baumgarte_alpha", "baumgarte_beta"):
            if not require_finite(name, getattr(self, name)) > 0.0:
                raise InputError(name, getattr(self, name), "> 0")
        for name in ("max_step", "contact_max_step"):
            cap = getattr(self, name)
            if math.isnan(cap) or not cap > 0.0:
                raise InputError(name, cap, "> 0 s (inf for no cap)")
        if not 2 <= self.n_output <= 1_000_000:
            raise InputError("n_output", self.n_output, "an integer in [2, 1000000]")
        if not require_finite("period", self.period) >= 0.0:
            raise InputError("period", self.period, ">= 0 s (0: no revolutions)")
        if not 0 <= self.output_head < self.n_output:
            raise InputError("output_head", self.output_head, f"in [0, {self.n_output})")
        if not require_finite("settle_jitter_factor", self.settle_jitter_factor) >= 0.0:
            raise InputError("settle_jitter_factor", self.settle_jitter_factor, ">= 0")
        if not require_finite("settle_jitter_cap", self.settle_jitter_cap) >= 1.0:
            raise InputError("settle_jitter_cap", self.settle_jitter_cap, ">= 1")
        if not require_finite("settle_horizon", self.settle_horizon) >= 0.0:
            raise InputError("settle_horizon", self.settle_horizon, ">= 0 revolutions")

    def as_array(self, topo: Topology) -> np.ndarray:
        """The ``OPT_*`` row the compiled loop reads, then the probes' fields."""
        values = (*self.probes, *self.traces)
        opts = np.zeros(N_OPT + PROBE_FIELDS * len(values))
        opts[OPT_T_END] = self.t_end
        opts[OPT_T_STEADY] = self.t_steady
        opts[OPT_RTOL] = self.rtol
        opts[OPT_ATOL_Q] = self.atol
        opts[OPT_ATOL_V] = self.atol * 1e3
        opts[OPT_H0] = self.initial_step
        opts[OPT_HMAX] = min(self.max_step, self.t_end)
        opts[OPT_CONTACT_HMAX] = min(self.contact_max_step, self.t_end)
        opts[OPT_HMIN] = 1e-14 * max(1.0, self.t_end)
        opts[OPT_EPS_ONSET] = ONSET_THRESHOLD
        opts[OPT_EPS_EVENT] = EVENT_BAND
        opts[OPT_PEN_BOUND] = PENETRATION_BOUND
        baumgarte = self.stabilization == "baumgarte"
        opts[OPT_ALPHA] = self.baumgarte_alpha if baumgarte else 0.0
        opts[OPT_BETA] = self.baumgarte_beta if baumgarte else 0.0
        opts[OPT_PROJECT] = 1.0 if self.stabilization == "projection" else 0.0
        opts[OPT_BISECT] = 1.0 if self.event_location == "bisect" else 0.0
        opts[OPT_MAX_STEPS] = MAX_STEPS
        kinds = topo.joint_int[:, 0]
        drivers = [constraint_row(topo, j) for j in range(len(kinds)) if kinds[j] == DRIVER]
        opts[OPT_DRIVER_ROW] = drivers[0] if drivers else -1
        opts[OPT_REFINE] = 1.0 if self.refine_peaks else 0.0
        opts[OPT_N_OUT] = self.n_output
        opts[OPT_PROBE] = topo.probe
        opts[OPT_PERIOD] = self.period
        # in metres: the solver fills in the clearance of each case (_run_group)
        opts[OPT_SETTLE_TOL] = self.settle_tolerance if self.stop_when_settled else 0.0
        opts[OPT_SETTLE_FROM] = self.settle_from
        opts[OPT_SETTLE_JITTER] = self.settle_jitter_factor
        opts[OPT_SETTLE_CAP] = self.settle_jitter_cap
        opts[OPT_SETTLE_HORIZON] = self.settle_horizon
        opts[OPT_IMPACT_TIME] = self.impact_time
        opts[OPT_DT_OUT] = self.output_step
        opts[OPT_N_HEAD] = self.output_head if self.output_head > 0 else self.n_output
        opts[OPT_N_PROBES] = len(self.probes)
        opts[OPT_N_JOINTS] = topo.clear_int.shape[0] if self.observe_joints else 0
        opts[OPT_N_TRACES] = len(self.traces)
        for p, probe in enumerate(values):
            opts[N_OPT + PROBE_FIELDS * p : N_OPT + PROBE_FIELDS * (p + 1)] = probe.fields()
        return opts

    @property
    def revolutions(self) -> int:
        """Revolutions the per-revolution record can hold (0 without a period)."""
        if self.period <= 0.0:
            return 0
        return int(math.ceil(self.t_end / self.period - 1e-9))


# The options a case type (the slider-crank's SliderCrankCase, the described mechanism's
# MechanismCase) carries under the same name as a field of its own - a ``gapsweep params``
# name, a study's ``[base]`` key - and hands to the loop as it is; ``n_output`` is also
# re-gridded by a run until settled. Their defaults are SolverOptions': the cases read them
# with option_default, core/parameters.py lists them in this order.
CASE_OPTIONS = ("integrator", "rtol", "atol", "max_step", "contact_max_step", "initial_step",
                "event_location", "stabilization", "baumgarte_alpha", "baumgarte_beta",
                "n_output", "refine_peaks")


def option_default(name: str) -> Any:
    """The default of :class:`SolverOptions` field ``name`` (a case field's default)."""
    return SolverOptions.__dataclass_fields__[name].default


def case_options(case: Any) -> dict[str, Any]:
    """``CASE_OPTIONS`` read off a case: the keyword arguments of its :class:`SolverOptions`."""
    return {name: getattr(case, name) for name in CASE_OPTIONS}


@dataclass(frozen=True)
class Job:
    """One case for the solver: a mechanism, its initial state ``y0 = [q, v]`` (or with the
    four quadratures appended, zero), options, and the parameters to report it under."""

    mechanism: Mechanism
    y0: np.ndarray
    options: SolverOptions
    params: dict[str, Any] = field(default_factory=dict)
    model: str = "mechanism"


def constraint_row(topo: Topology, joint: int) -> int:
    """Index of the first constraint row of joint ``joint``."""
    return sum(ROWS[int(k)] for k in topo.joint_int[:joint, 0])


def default_threads() -> int:
    """Threads for a batch: the cores this process may use, or ``GAPSWEEP_THREADS``."""
    env = os.environ.get("GAPSWEEP_THREADS")
    if env:
        return max(1, int(env))
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not on Linux
        return os.cpu_count() or 1


def run_jobs(
    jobs: Sequence[Job | CaseResult],
    *,
    threads: int | None = None,
    progress: Progress | None = None,
) -> list[CaseResult]:
    """Integrate the jobs; a :class:`CaseResult` in the input (a case that already failed
    validation) passes through in its place. Results keep the input order."""
    results: list[CaseResult | None] = [j if isinstance(j, CaseResult) else None for j in jobs]
    groups: dict[tuple, list[tuple[int, Job, Topology, CaseArrays]]] = {}
    for i, job in enumerate(jobs):
        if isinstance(job, CaseResult):
            continue
        job.options.validate()
        in_contact = any(not cj.ideal for cj in job.mechanism.clearance_joints)
        if job.options.integrator == "rosenbrock23" and in_contact:
            raise InputError("integrator", "rosenbrock23", ROSENBROCK_CONTACT)
        topo, arrays = assemble(job.mechanism)
        key = (topo.key(), job.options.integrator)
        groups.setdefault(key, []).append((i, job, topo, arrays))

    n_threads = max(1, threads or default_threads())
    total = len(jobs)
    done = sum(r is not None for r in results)
    if progress is not None and done:
        progress(done, total)
    for (_, integrator), members in groups.items():
        chunk = len(members) if progress is None else max(4 * n_threads, 1)
        for lo in range(0, len(members), chunk):
            part = members[lo : lo + chunk]
            t0 = time.perf_counter()
            _run_group(part, integrator, n_threads, results)
            share = (time.perf_counter() - t0) / len(part)
            for i, *_ in part:
                results[i].metrics["wall_time_s"] = share  # type: ignore[union-attr]
            done += len(part)
            if progress is not None:
                progress(done, total)
    return [r for r in results if r is not None]


def _run_group(part, integrator: str, n_threads: int, results: list) -> None:
    method = get_integrator(integrator)
    topo: Topology = part[0][2]
    n = topo.n_coordinates
    arrays = CaseArrays.stack([p[3] for p in part])
    lubricated = arrays.clear_par.shape[1] > 0 and bool(np.any(arrays.clear_par[:, :, CP_LUB] > 0))
    ny = 2 * n + N_AUX + film_columns(arrays.clear_par.shape[1], lubricated)
    y0 = np.zeros((len(part), ny))
    for k, (_, job, _, _) in enumerate(part):
        y = np.asarray(job.y0, dtype=float)
        if y.shape not in ((2 * n,), (ny,), (2 * n + N_AUX,)):
            raise InputError("y0", f"shape {y.shape}", f"({2 * n},) = [q, v] for this mechanism")
        y0[k, : y.shape[0]] = y
    # cases may differ in probes: every case's probes at the same columns, the widest's
    n_probe = max(len(job.options.probes) for _, job, _, _ in part)
    n_trace = max(len(job.options.traces) for _, job, _, _ in part)
    opts = np.zeros((len(part), N_OPT + PROBE_FIELDS * (n_probe + n_trace)))
    for k, (_, job, _, _) in enumerate(part):
        row = job.options.as_array(topo)
        p, q = len(job.options.probes), len(job.options.traces)
        opts[k, : N_OPT + PROBE_FIELDS * p] = row[: N_OPT + PROBE_FIELDS * p]
        opts[k, N_OPT + PROBE_FIELDS * n_probe : N_OPT + PROBE_FIELDS * (n_probe + q)] = row[
            N_OPT + PROBE_FIELDS * p :]
        opts[k, OPT_N_PROBES], opts[k, OPT_N_TRACES] = n_probe, n_trace
    for k, (_, job, _, _) in enumerate(part):
        opts[k, OPT_SETTLE_TOL] *= section_length(job.options, arrays.clear_par[k])
    n_out = int(opts[:, OPT_N_OUT].max())
    n_joint = int(opts[:, OPT_N_JOINTS].max())
    n_clear = topo.clear_int.shape[0]
    # the step budget (issue 39's measurement, off by default) takes the row's last columns
    n_budget = N_BUDGET if step_budget.enabled() else 0
    opts[:, OPT_BUDGET] = 1.0 if n_budget else 0.0
    metrics = np.zeros((len(part), N_MET + N_MP * n_probe + N_MJ * n_joint + n_budget))
    series = np.zeros((len(part), n_out, N_SER + n_probe + n_trace + N_SJ * n_joint))
    n_rev = max(job.options.revolutions for _, job, _, _ in part)
    revs = np.zeros((len(part), n_rev + 1,
                     N_REV + 2 * n_clear + N_RP * n_probe + N_RJ * n_joint))
    y_end = np.zeros_like(y0)
    status = np.zeros(len(part), dtype=np.int64)
    try:
        _integrate(y0, topo, arrays, opts, method, metrics, series, revs, y_end, status, n_threads)
    except Exception as exc:
        if is_compile_failure(exc):
            raise CompileError(
                f"the solver kernels could not be compiled here ({type(exc).__name__}: "
                f"{str(exc).splitlines()[0]}); check the numba/llvmlite install, or set "
                "GAPSWEEP_NO_JIT=1 to run them uncompiled (very slow)"
            ) from exc
        raise
    for k, (i, job, _, _) in enumerate(part):
        rows = _output_rows(job.options, series[k], metrics[k, M_T_REACHED])
        record = revs[k, : int(metrics[k, M_SECTIONS]) + 1] if job.options.period > 0 else None
        result = CaseResult(
            job.model,
            dict(job.params),
            metrics=named_metrics(job.options, metrics[k], y_end[k], n),
            # views into the batch array: a copy per column would double the memory per case
            series={name: rows[:, j] for j, name in enumerate(SERIES_NAMES)},
        )
        result.series["final_state"] = y_end[k].copy()
        if n_budget:
            result.metrics.update(step_budget.budget_metrics(metrics[k, -n_budget:]))
        observed = _Observed(job, n_probe, n_trace, n_clear, int(opts[k, OPT_N_JOINTS]))
        observed.add_run(result, metrics[k], rows)
        if arrays.clear_par.shape[1] > 0 and np.any(arrays.clear_par[k, :, CP_LUB] > 0.0):
            result.metrics.update(_film_energies(job, arrays.clear_par[k], y_end[k], n))
            # the series hold the first clearance joint's eccentricity (a mechanism's own
            # joints' grids are read per joint: mechanism.case)
            result.metrics.update(film_grid_metrics(
                result.series["eccentricity_x"], result.series["eccentricity_y"],
                float(arrays.clear_par[k, 0, CP_CLR]),
            ))
        if record is not None and status[k] == OK:
            _add_settled(result, job, record.copy(), metrics[k], arrays.clear_par[k])
            observed.add_settled(result, record, metrics[k], arrays.clear_par[k])
        if status[k] != OK:
            result.status = "failed"
            result.reason = f"{STATUS_TEXT[status[k]]} at t = {metrics[k, M_T_REACHED]:.6g} s"
        results[i] = result


def _film_energies(job: Job, clear_par: np.ndarray, y_end: np.ndarray, n: int) -> dict:
    """``film_dissipated_energy.<joint>`` [J] of each lubricated joint from its own quadrature
    (``y_end[2 n + N_AUX + k]``), and unsuffixed the largest over the joints (design.md 4.15's
    per-joint rule; their sum is the energy balance's film term)."""
    names = [cj.name for cj in job.mechanism.clearance_joints if not cj.ideal]
    out: dict[str, float] = {}
    for k, name in enumerate(names):
        if clear_par[k, CP_LUB] > 0.0:
            energy = float(y_end[2 * n + N_AUX + k])
            out[per_joint("film_dissipated_energy", name)] = energy
            out["film_dissipated_energy"] = max(energy, out.get("film_dissipated_energy", energy))
    return out


@dataclass(frozen=True)
class _Observed:
    """Names the vector probes' columns of one case's rows (``n_probe`` the batch's probe
    columns, ``n_joint`` the joints this case observed) and turns them into metrics."""

    job: Job
    n_probe: int
    n_trace: int
    n_clear: int
    n_joint: int

    @property
    def joint_names(self) -> list[str]:
        return [cj.name for cj in self.job.mechanism.clearance_joints if not cj.ideal]

    def _metric(self, j: int, key: int) -> int:
        return N_MET + N_MP * self.n_probe + N_MJ * j + key

    def add_run(self, result: CaseResult, m: np.ndarray, rows: np.ndarray) -> None:
        """Whole-run and steady metrics and the series of every probe and observed joint."""
        options = self.job.options
        metrics, series = result.metrics, result.series
        t_end, t_s = options.t_end, options.t_steady
        if options.stop_when_settled and m[M_T_REACHED] > t_s:
            t_end = float(m[M_T_REACHED])
        for p, probe in enumerate(options.probes):
            col = N_MET + N_MP * p
            metrics[f"peak_{probe.name}"] = float(m[col + MP_PEAK])
            metrics[f"peak_{probe.name}_steady"] = float(m[col + MP_PEAK_S])
            metrics[f"rms_{probe.name}"] = math.sqrt(max(m[col + MP_SQ], 0.0) / t_end)
            metrics[f"rms_{probe.name}_steady"] = math.sqrt(
                max(m[col + MP_SQ_S], 0.0) / (t_end - t_s))
            series[probe.name] = rows[:, N_SER + p]
        for q, trace in enumerate(options.traces):
            series[trace.name] = rows[:, N_SER + self.n_probe + q]
        keys = {"peak_contact_force": (MJ_PEAK_FN, float), "max_penetration": (MJ_MAX_PEN, float),
                "impacts": (MJ_IMPACTS, int), "peak_contact_force_steady": (MJ_PEAK_FN_S, float),
                "max_penetration_steady": (MJ_MAX_PEN_S, float),
                "impacts_steady": (MJ_IMPACTS_S, int)}
        for j, name in enumerate(self.joint_names[: self.n_joint]):
            for key, (col, kind) in keys.items():
                metrics[per_joint(key, name)] = kind(m[self._metric(j, col)])
            base = N_SER + self.n_probe + self.n_trace + N_SJ * j
            for c, key in enumerate(JOINT_SERIES):
                series[per_joint(key, name)] = rows[:, base + c]

    def add_settled(self, result: CaseResult, record: np.ndarray, m: np.ndarray,
                    clear_par: np.ndarray) -> None:
        """Per probe the settled metrics (``peak_<name>_settled``, p95, mean, RMS, the
        start-up peak) over the settled window of :func:`settled.settled_window`; per observed
        joint its settled contact figures and ``motion.<joint>``, and, with several joints,
        ``motion`` the worst joint's class (design.md 4.15: chaotic > irregular > periodic-N
        with the largest N) and ``settled`` only when every joint's section has."""
        options = self.job.options
        rec = record
        k = rec.shape[0] - 1
        out = result.metrics
        if k < 1:  # shorter than a revolution: no settled window, the run is all there is
            for probe in options.probes:
                whole = out[f"peak_{probe.name}"]
                for stat in ("peak", "p95", "mean"):
                    out[f"{stat}_{probe.name}_settled"] = whole
                out[f"rms_{probe.name}_settled"] = out[f"rms_{probe.name}"]
                out[f"peak_{probe.name}_startup"] = whole
            for name in self.joint_names[: self.n_joint]:
                for key in ("peak_contact_force", "max_penetration", "impacts"):
                    out[per_joint(f"{key}_settled", name)] = out[per_joint(key, name)]
                out[per_joint("motion", name)] = "irregular"
                out[per_joint("motion_period", name)] = 0
            return
        rev = Revolutions(rec, self.n_clear, int(m[M_SETTLED_N]), int(m[M_SETTLED_AT]))
        first = settled_window(rev, options.transient_revolutions, settle_window_length)
        window = rec[first + 1 : k + 1]
        if len(window) == 0:
            window = rec[k : k + 1]
        before = rec[1 : first + 1] if first >= 1 else rec[1:2]
        span = rec[k, R_TIME] - rec[first, R_TIME]
        rbase = N_REV + 2 * self.n_clear
        for p, probe in enumerate(options.probes):
            peak, sq = rbase + N_RP * p + RP_PEAK, rbase + N_RP * p + RP_SQ
            peaks = window[:, peak]
            out[f"peak_{probe.name}_settled"] = float(np.max(peaks))
            out[f"p95_{probe.name}_settled"] = float(np.percentile(peaks, 95))
            out[f"mean_{probe.name}_settled"] = float(np.mean(peaks))
            total = float(rec[first + 1 : k + 1, sq].sum())
            out[f"rms_{probe.name}_settled"] = math.sqrt(total / span) if span > 0 else math.nan
            out[f"peak_{probe.name}_startup"] = float(np.max(before[:, peak]))
            if options.stop_when_settled:  # the last revolution is the steady window
                out[f"peak_{probe.name}_steady"] = float(rec[k, peak])
                last = rec[k, R_TIME] - rec[k - 1, R_TIME]
                out[f"rms_{probe.name}_steady"] = (math.sqrt(rec[k, sq] / last) if last > 0
                                                   else 0.0)
        jbase = rbase + N_RP * self.n_probe
        length = section_length(options, clear_par)
        classes = []
        for j, name in enumerate(self.joint_names[: self.n_joint]):
            col = jbase + N_RJ * j
            out[per_joint("peak_contact_force_settled", name)] = float(
                np.max(window[:, col + RJ_PEAK_FN]))
            out[per_joint("max_penetration_settled", name)] = float(
                np.max(window[:, col + RJ_MAX_PEN]))
            out[per_joint("impacts_settled", name)] = int(window[:, col + RJ_IMPACTS].sum())
            if options.stop_when_settled:
                out[per_joint("peak_contact_force_steady", name)] = float(rec[k, col + RJ_PEAK_FN])
                out[per_joint("max_penetration_steady", name)] = float(rec[k, col + RJ_MAX_PEN])
                out[per_joint("impacts_steady", name)] = int(rec[k, col + RJ_IMPACTS])
            section = rev.sections(j)[first:] / length
            motion = classify(section, options.settle_tolerance)
            out[per_joint("motion", name)] = motion.name
            out[per_joint("motion_period", name)] = motion.period
            classes.append(motion)
        if len(classes) > 1:
            worst = max(classes, key=_severity)
            out["motion"] = worst.name
            out["motion_period"] = worst.period
            out["settled"] = 1 if all(c.period > 0 for c in classes) else 0
            if not out["settled"]:
                out["settled_after_revolutions"] = -1


def _severity(motion) -> tuple[int, int]:
    """Order of the classes, worst last (design.md 4.15)."""
    rank = {"chaotic": 3, "irregular": 2}.get(motion.name, 1)
    return rank, motion.period


def section_length(options: SolverOptions, clear_par: np.ndarray) -> float:
    """The length [m] the section's tolerance and drift are relative to: the options', else
    the smallest clearance of the case (``clear_par`` ``[n_clearance, ...]``), else 1 mm."""
    if options.section_length > 0.0:
        return options.section_length
    if clear_par.shape[0] > 0:
        return float(np.min(clear_par[:, CP_RB] - clear_par[:, CP_RJ]))
    return 1e-3


def _add_settled(result: CaseResult, job: Job, record, m: np.ndarray, clear_par) -> None:
    """The settled metrics and the Poincare series of a case with a per-revolution record."""
    options = job.options
    rev = Revolutions(record, clear_par.shape[0], int(m[M_SETTLED_N]), int(m[M_SETTLED_AT]))
    names = [cj.name for cj in job.mechanism.clearance_joints if not cj.ideal]
    if options.stop_when_settled:
        result.metrics.update(last_revolution(rev, options.period))
    length = section_length(options, clear_par)
    result.metrics.update(
        analyse(
            rev,
            length,
            tolerance=options.settle_tolerance,
            transient=options.transient_revolutions,
            factor=options.settle_jitter_factor,
            cap=options.settle_jitter_cap,
            horizon=options.settle_horizon,
        )
    )
    result.series.update(poincare_series(rev, names))
    if "peak_slider_accel_settled" not in result.metrics:
        # shorter than a revolution: no settled window, the run is all there is
        m = result.metrics
        for stem in ("slider_accel", "contact_force", "driving_torque"):
            whole = m.get(f"peak_{stem}", math.nan)
            for stat in ("peak", "p95", "mean"):
                m[f"{stat}_{stem}_settled"] = whole
        m["rms_slider_accel_settled"] = m.get("rms_slider_accel", math.nan)
        m["max_penetration_settled"] = m.get("max_penetration", math.nan)
        m["impacts_settled"] = m.get("impacts", 0)
        m["peak_slider_accel_startup"] = m.get("peak_slider_accel", math.nan)
        m.update(settled=0, settled_after_revolutions=-1, motion="irregular", motion_period=0)


def _output_rows(options: SolverOptions, rows: np.ndarray, t_reached: float) -> np.ndarray:
    """The output grid's rows in time order: all written rows of a run that fit, else the
    head followed by the ring (oldest first). A view where no reordering is needed."""
    n_out = options.n_output
    dt = options.output_step if options.output_step > 0.0 else options.t_end / max(n_out - 1, 1)
    written = int(t_reached / dt * (1.0 + 1e-12)) + 1
    if written <= n_out:
        return rows[:written] if options.output_step > 0.0 else rows[:n_out]
    head = options.output_head if options.output_head > 0 else n_out
    if head >= n_out:
        return rows[:n_out]
    ring = n_out - head
    start = head + (written - head) % ring  # the oldest sample still in the ring
    order = np.concatenate([np.arange(head), np.arange(start, n_out), np.arange(head, start)])
    return rows[order]


def _integrate(
    y0, topo, arrays, opts, method, metrics, series, revs, y_end, status, threads
) -> None:
    """All cases of one group through :func:`stepping.integrate_batch`: in one call on one
    thread, else case by case from ``threads`` threads taking the next case as they finish
    (the compiled loop releases the GIL; a call costs ~20 us against ~4 ms a case)."""
    # Radau's loop is a specialisation of its own (stepping.integrate_batch's ``implicit``),
    # left out of the warm-up: its first use compiles it. auto's kind is per case
    # (integrators.case_kind: Radau IIA in the film of a lubricated case only), so a dry
    # case on auto runs the explicit loop, as dopri5
    clear_par = arrays.clear_par
    kinds = [
        case_kind(method, clear_par.shape[1] > 0 and bool(np.any(clear_par[k, :, CP_LUB] > 0.0)))
        for k in range(y0.shape[0])
    ]
    if any(kind >= KIND_RADAU for kind in kinds):
        _note_implicit_compile(method.name)
    topology = (topo.joint_int, topo.load_int, topo.clear_int, topo.prescribed)
    tableau = method.tableau()

    def run(lo: int, hi: int) -> None:  # cases lo .. hi - 1, all of kinds[lo]
        kind = kinds[lo]
        implicit = True if kind >= KIND_RADAU else None
        integrate_batch(y0, topology, arrays.joint_par, arrays.load_par, clear_par, arrays.mass,
                        arrays.inertia, arrays.gravity, opts, kind, implicit, tableau,
                        method.order, metrics, series, revs, y_end, status, lo, hi)  # fmt: skip

    n_cases = y0.shape[0]
    threads = min(threads, n_cases)
    if threads <= 1:
        lo = 0
        while lo < n_cases:  # one call per run of cases of one kind
            hi = lo + 1
            while hi < n_cases and kinds[hi] == kinds[lo]:
                hi += 1
            run(lo, hi)
            lo = hi
        return
    counter = itertools.count()  # next() on it is atomic under the GIL

    def work() -> None:
        while (i := next(counter)) < n_cases:
            run(i, i + 1)

    with ThreadPoolExecutor(threads) as pool:
        for future in [pool.submit(work) for _ in range(threads)]:
            future.result()


RADAU_COMPILE_TIME = "45 s"  # measured: docs/solver.md, Cold compile (44 s of CPU)
_IMPLICIT_READY = False  # this process has run (so compiled or loaded) Radau's loop


def _note_implicit_compile(name: str) -> None:
    """Log once when Radau's stepping loop is about to compile: ``gapsweep warmup`` compiles
    the explicit methods' loop only (issue 34: warm-up under a minute), so the first radau5
    or dopri5-radau5 run on a machine waits for its own compile."""
    global _IMPLICIT_READY
    if _IMPLICIT_READY:
        return
    _IMPLICIT_READY = True
    # argument 10 of integrate_batch is ``implicit``: None in the explicit loop's signature
    if any(len(sig) > 10 and str(sig[10]) != "none" for sig in cached_signatures(integrate_batch)):
        return
    _log.warning(
        "%s: compiling the Radau IIA stepping loop on its first use (not part of "
        "`gapsweep warmup`; about %s on 2 cores, once per machine, then cached)",
        name, RADAU_COMPILE_TIME,
    )  # fmt: skip


def named_metrics(options: SolverOptions, m: np.ndarray, y_end: np.ndarray, n: int) -> dict:
    """The compiled loop's metric row as named scalars (design.md 2 and 4), SI units.

    A run that stopped once settled ends where it stopped (``t_end`` was its cap).
    """
    t_end, t_s = options.t_end, options.t_steady
    if options.stop_when_settled and m[M_T_REACHED] > t_s:
        t_end = float(m[M_T_REACHED])
    a2 = y_end[2 * n + AUX_ACCEL2]
    peak_ke = m[M_PEAK_KE]
    return {
        "peak_slider_accel": float(m[M_PEAK_ACC]),
        "rms_slider_accel": math.sqrt(max(a2, 0.0) / t_end),
        "peak_contact_force": float(m[M_PEAK_FN]),
        "max_penetration": float(m[M_MAX_PEN]),
        "impacts": int(m[M_IMPACTS]),
        "peak_slider_accel_steady": float(m[M_PEAK_ACC_S]),
        "rms_slider_accel_steady": math.sqrt(max(a2 - m[M_A2_AT_TS], 0.0) / (t_end - t_s)),
        "peak_contact_force_steady": float(m[M_PEAK_FN_S]),
        "max_penetration_steady": float(m[M_MAX_PEN_S]),
        "impacts_steady": int(m[M_IMPACTS_S]),
        "peak_driving_torque": float(m[M_PEAK_TORQUE]),
        "peak_driving_torque_steady": float(m[M_PEAK_TORQUE_S]),
        "contact_time_fraction": float(m[M_CONTACT_TIME] / t_end),
        "contact_time_fraction_steady": float(m[M_CONTACT_TIME_S] / (t_end - t_s)),
        "max_constraint_drift": float(m[M_MAX_DRIFT]),
        "energy_balance_error": float(m[M_MAX_RESIDUAL] / peak_ke) if peak_ke > 0 else 0.0,
        "peak_kinetic_energy": float(peak_ke),
        "onset_penetration_error": float(m[M_ONSET_ERR]),
        "max_free_flight_penetration": float(m[M_FREE_PEN]),
        "rhs_evaluations": int(m[M_NFEV]),
        "accepted_steps": int(m[M_NACCEPT]),
        "rejected_steps": int(m[M_NREJECT]),
        "peak_refinements": int(m[M_NREFINE]),
    }
