"""Run slider-crank cases: one, or a batch of any size, through the same compiled path.

``simulate(case)`` is ``simulate_batch([case])[0]`` - one implementation. A case becomes a
:class:`~.solver.Job` (mechanism, initial state, options) and :func:`solver.run_jobs`
integrates every job of the batch together.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from .assembly import CaseArrays, Topology, assemble, case_model
from .cases import SliderCrankCase
from .dynamics import N_AUX, WS_LAMBDA, derivative, inverse_mass, make_workspace
from .errors import InputError
from .kinematics import initial_guess, solve_positions, solve_velocities
from .model import ContactModel, Mechanism
from .parameters import CONTACT, FRICTION, OUTPUT, SOLVER
from .parameters import names as parameter_names
from .postprocessing import SPECTRAL_METRICS, spectral_metrics
from .result import CaseResult
from .solver import Job, Progress, constraint_row, run_jobs
from .templates.slider_crank import FLORES, SEED002, slider_crank
from .wear_life import run_life

MODEL = "slider-crank"
# relative spread of the settled peak between starts above which a case's settled motion
# "depends on how the machine starts" (the issue measured 27 % between the wall and centred
# starts at c = 0.05 mm; the settled peaks of one start agree to ~1e-4 between revolutions)
START_SPREAD_TOLERANCE = 0.05


def build_mechanism(case: SliderCrankCase, *, driven: bool | None = None) -> Mechanism:
    """The mechanism a case describes (SI units from here on)."""
    contact = ContactModel(
        law=case.contact_law,
        stiffness_model=case.stiffness_model,
        axial_length=case.axial_length_mm * 1e-3,
        restitution=case.restitution,
        exponent=case.exponent,
        stiffness=case.stiffness if case.stiffness > 0.0 else None,
        stiffness_scale=case.stiffness_scale,
        youngs_bearing=case.youngs_modulus,
        poisson_bearing=case.poisson_ratio,
        youngs_journal=case.youngs_modulus,
        poisson_journal=case.poisson_ratio,
        damping_max=case.impact_damping,
        damping_depth=case.impact_depth,
        friction_law=case.friction_law,
        friction=case.friction,
        static_friction=case.static_friction,
        friction_velocity=case.friction_velocity,
        friction_velocity_full=case.friction_velocity_full,
        lubrication=case.lubrication,
        viscosity=case.viscosity_pa_s,
    )
    mech = slider_crank(
        SEED002 if case.template == "seed002" else FLORES,
        omega=case.omega,
        clearance=case.clearance_mm * 1e-3,
        bearing_radius=case.bearing_radius_mm * 1e-3,
        contact=contact,
        ideal=case.ideal,
        crank_angle=math.radians(case.crank_angle_deg),
        gravity=case.gravity,
        clearance_at="crank-pin" if case.template == "crank-rod" else "piston-pin",
        driven=(case.drive == "speed") if driven is None else driven,
        name=f"slider-crank/{case.template}",
    )
    if case.ramp_time > 0.0:
        mech = replace(mech, drivers=tuple(replace(d, ramp=case.ramp_time) for d in mech.drivers))
    return mech


def joint_reactions(topo: Topology, arrays: CaseArrays, y: np.ndarray) -> np.ndarray:
    """Lagrange multipliers of the ideal joints at state ``y = [q, v]`` (no contacts)."""
    n, m = topo.n_coordinates, topo.n_constraints
    inv_mass = np.empty(n)
    inverse_mass(arrays.mass[0], arrays.inertia[0], topo.prescribed, inv_mass)
    ws = make_workspace(n, m, 0)
    model = case_model(topo, arrays, contacts=False)
    state = np.zeros(2 * n + N_AUX)
    state[: 2 * n] = y[: 2 * n]
    dydt = np.empty_like(state)
    no_contact = np.zeros(0, np.int64)
    if not derivative(0.0, state, model, no_contact, np.zeros(0), 0.0, 0.0, -1, inv_mass, ws, dydt):
        raise InputError("mechanism", "singular constraints", "independent constraints")
    return ws[WS_LAMBDA].copy()


# Fields that cannot change the initial state: the contact model (a centred start touches
# nothing, a wall start only needs the ideal joint's reaction), the solver's settings and the
# output. A study varies these across its cases, so the assembly runs once per distinct start.
_NOT_INITIAL = parameter_names(MODEL, kinds=(CONTACT, FRICTION, SOLVER, OUTPUT))
_DEFAULT = SliderCrankCase()


def initial_state(case: SliderCrankCase) -> np.ndarray:
    """``y0 = [q, v]``: the ideal-joint configuration at the start angle at crank speed.

    ``initial="centred"``: the journal centred in the bearing and at rest relative to it
    (Flores). ``"wall"``: resting on the bearing wall, ``e = c`` opposite to the ideal joint
    reaction on the journal (seed 002). A free crank (``drive="free"``) starts the same way.
    ``"run-up"``: the whole mechanism at rest (the driver's ramp starts from standstill), the
    journal resting on the wall against the static reaction (its weight).
    """
    start = replace(case, **{name: getattr(_DEFAULT, name) for name in _NOT_INITIAL})
    return _initial_state(start).copy()


@functools.lru_cache(maxsize=256)
def _initial_state(case: SliderCrankCase) -> np.ndarray:
    ic_mech = build_mechanism(case, driven=True).with_ideal_joints()
    topo, arrays = assemble(ic_mech)
    q = solve_positions(topo, arrays, initial_guess(ic_mech))
    v = solve_velocities(topo, arrays, q)
    if case.initial in ("wall", "run-up") and not case.ideal:
        # the ideal clearance joint is the revolute appended after the template's joints
        joint = int(topo.joint_slot[len(ic_mech.joints)])
        row = constraint_row(topo, joint)
        reaction = joint_reactions(topo, arrays, np.concatenate([q, v]))[row : row + 2]
        norm = float(np.hypot(*reaction))
        direction = -reaction / norm if norm > 0.0 else np.array([1.0, 0.0])
        e = case.clearance_mm * 1e-3 * direction
        arrays.joint_par[0, joint, 4:6] = -e  # offset r_B - r_J of the revolute rows
        q = solve_positions(topo, arrays, q)
        v = solve_velocities(topo, arrays, q, v)
    return np.concatenate([q, v])


def to_job(case: SliderCrankCase, params: dict[str, Any] | None = None) -> Job:
    """The solver job of a validated case, reported under ``params`` (default: the fields
    that differ from the defaults)."""
    return Job(
        mechanism=build_mechanism(case),
        y0=initial_state(case),
        options=case.solver_options(),
        params=case.overrides() if params is None else params,
        model=MODEL,
    )


def _parse(case: SliderCrankCase | Mapping[str, Any]) -> SliderCrankCase:
    if isinstance(case, SliderCrankCase):
        case.validate()
        return case
    return SliderCrankCase.from_mapping(case)


def _params(raw: SliderCrankCase | Mapping[str, Any], case: SliderCrankCase) -> dict[str, Any]:
    """What to report a case under: the names the user gave (parsed), else the overrides."""
    if isinstance(raw, Mapping):
        return {k: getattr(case, k) for k in raw}
    return case.overrides()


def simulate(case: SliderCrankCase | Mapping[str, Any]) -> CaseResult:
    """Run one case. Bad input raises :class:`InputError`; a solver failure comes back as a
    result with ``status == "failed"`` and the reason."""
    return simulate_batch([case], threads=1, strict=True)[0]


def simulate_batch(
    cases: Sequence[SliderCrankCase | Mapping[str, Any]],
    *,
    threads: int | None = None,
    progress: Progress | None = None,
    strict: bool = False,
    case_progress: Callable[[int, int, int], None] | None = None,
) -> list[CaseResult]:
    """Run many cases together; results come back in the order given.

    An invalid case (bad parameter, a mechanism that cannot assemble) becomes a failed
    result carrying the message, unless ``strict`` (then :class:`InputError` is raised).
    ``threads`` defaults to the usable cores; ``progress(done, total)`` reports as chunks end;
    ``case_progress(case, runs, total)`` as each settled run of a wear life ends.
    """
    jobs: list[Job | CaseResult] = []
    # a case with ``starts``: the same case from each other start, run in the same batch
    others: list[tuple[int, str]] = []
    for raw in cases:
        try:
            case = _parse(raw)
            jobs.append(to_job(case, _params(raw, case)))
            for start in case.other_starts():
                others.append((len(jobs) - 1, start))
        except InputError as exc:
            if strict:
                raise
            params = dict(raw) if isinstance(raw, Mapping) else raw.overrides()
            jobs.append(CaseResult(MODEL, params, status="failed", reason=str(exc)))
    n_main = len(jobs)
    for i, start in others:
        base = _parse(cases[i])
        jobs.append(to_job(replace(base, initial=start, starts=""), {}))
    report = progress
    if progress is not None and others:

        def report(done: int, total: int) -> None:  # the extra starts count as their case
            progress(min(done, n_main), n_main)

    # a wear life is a run per profile update (core/wear_life.py): its steps go one by one,
    # the other cases as one batch
    # (an ideal joint has no hole to wear)
    life = {i: _parse(cases[i]).wear for i, job in enumerate(jobs[:n_main])
            if isinstance(job, Job) and _parse(cases[i]).wear.on and not _parse(cases[i]).ideal}
    batch = [CaseResult(MODEL, {}) if i in life else job for i, job in enumerate(jobs)]
    results = run_jobs(batch, threads=threads, progress=report) if batch else []
    for i, wear in life.items():
        heard = None if case_progress is None else functools.partial(case_progress, i)
        results[i] = run_life(jobs[i], [(0, wear)], lambda js: run_jobs(list(js), threads=1),
                              heard)
    for job, result in zip(jobs, results, strict=True):
        if isinstance(job, Job) and result.ok:
            result.rotation_hz = crank_hz(job)
            result.metrics.update(_spectral(job, result))
    by_case: dict[int, dict[str, CaseResult]] = {}
    for (i, start), result in zip(others, results[n_main:], strict=True):
        by_case.setdefault(i, {})[start] = result
    for i, extra in by_case.items():
        main = results[i]
        if main.ok:
            main.metrics.update(start_dependence(_parse(cases[i]).initial, main, extra))
    return results[:n_main]


def start_dependence(
    initial: str,
    main: CaseResult,
    others: Mapping[str, CaseResult],
    *,
    key: str = "peak_slider_accel_settled",
) -> dict[str, float | int | str]:
    """How the settled motion depends on the start (issue 23): per other start its
    ``peak_slider_accel_settled.<start>`` and ``motion.<start>``; ``start_spread`` = (max -
    min) / mean of ``peak_slider_accel_settled`` over all starts (this case's included);
    ``start_dependent`` = 1 when that spread exceeds :data:`START_SPREAD_TOLERANCE` or the
    motion's class differs between starts (a failed start counts as dependent). ``key``:
    the settled peak compared (a mechanism's: its first measure's)."""
    runs = {initial: main, **others}
    out: dict[str, float | int | str] = {}
    peaks, motions = [], set()
    failed = False
    for start, result in runs.items():
        if not result.ok or key not in result.metrics:
            failed = True
            out[f"motion.{start}"] = "failed"
            continue
        peaks.append(float(result.metrics[key]))
        motions.add(result.metrics.get("motion"))
        if start != initial:
            out[f"{key}.{start}"] = float(result.metrics[key])
            out[f"motion.{start}"] = result.metrics.get("motion", "")
    spread = (max(peaks) - min(peaks)) / (sum(peaks) / len(peaks)) if peaks else math.nan
    out["start_spread"] = spread
    dependent = failed or len(motions) > 1 or spread > START_SPREAD_TOLERANCE
    out["start_dependent"] = 1 if dependent else 0
    return out


def crank_hz(job: Job) -> float:
    """The frequency [Hz] of the job's first driver (0 without one)."""
    return abs(job.mechanism.drivers[0].omega) / (2 * math.pi) if job.mechanism.drivers else 0.0


def _spectral(job: Job, result: CaseResult) -> dict[str, float]:
    """Spectral metrics over the steady window, NaN when it holds too few samples. A run of
    adaptive length: over the settled window, as far as the output ring holds it (its last
    ``SPECTRUM_REVOLUTIONS`` revolutions, core/cases.py), a multiple of N revolutions for a
    periodic-N motion. ``spectrum_revolutions`` N: the whole revolutions the window spans,
    ``spectrum_resolution_hz`` = f1/N its bin width. The crank's frequency f1 is the
    result's ``rotation_hz``, which the caller has set (:func:`crank_hz`)."""
    rotation_hz = result.rotation_hz
    t_from = job.options.t_steady
    t = result.series["t"]
    if job.options.stop_when_settled:
        ring = job.options.n_output - job.options.output_head
        t_from = max(float(t[-1]) - (ring - 1) * job.options.output_step, 0.0)
        t_from = max(t_from, float(result.metrics.get("settled_from_s", 0.0)))
        period = job.options.period
        # a periodic-N motion: a multiple of N revolutions, so that its subharmonics k f1/N
        # fall on bins too (the settling window of 8 sections spans 7 revolutions)
        n = int(result.metrics.get("motion_period", 0) or 0)
        whole = math.floor((float(t[-1]) - t_from) / period + 1e-6)
        if n > 1 and whole >= n:
            t_from = float(t[-1]) - (whole - whole % n) * period
    try:
        out = {**spectral_metrics(result, rotation_hz, t_from), "spectrum_from_s": t_from}
    except InputError:  # e.g. n_output = 2: no spectrum, the case itself is fine
        return dict.fromkeys(SPECTRAL_METRICS, math.nan)
    if rotation_hz > 0.0 and len(t):
        span = round((float(t[-1]) - t_from) * rotation_hz, 6)  # revolutions in the window
        out["spectrum_revolutions"] = span
        out["spectrum_resolution_hz"] = rotation_hz / span if span > 0 else math.nan
    return out
