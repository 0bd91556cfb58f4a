"""Run cases: one, or a batch of any size through the same compiled path.

``simulate(case)`` is ``simulate_batch([case])[0]`` - one implementation. A batch is split
into groups that share a topology and integrator; each group is integrated by
:func:`stepping.integrate_batch` with the cases spread over the machine's cores.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from .assembly import ROWS, CaseArrays, Topology, assemble
from .cases import SliderCrankCase
from .dynamics import AUX_ACCEL2, N_AUX, derivative, inverse_mass, make_workspace
from .errors import InputError
from .integrators import get_integrator
from .jit import set_threads
from .kinematics import initial_guess, solve_positions, solve_velocities
from .model import ContactModel, Mechanism
from .result import CaseResult
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
    N_MET,
    N_OPT,
    N_SER,
    OK,
    OPT_ALPHA,
    OPT_ATOL_Q,
    OPT_ATOL_V,
    OPT_BETA,
    OPT_BISECT,
    OPT_DRIVER_ROW,
    OPT_EPS_EVENT,
    OPT_EPS_ONSET,
    OPT_H0,
    OPT_HMAX,
    OPT_HMIN,
    OPT_MAX_STEPS,
    OPT_N_OUT,
    OPT_PEN_BOUND,
    OPT_PROBE,
    OPT_PROJECT,
    OPT_REFINE,
    OPT_RTOL,
    OPT_T_END,
    OPT_T_STEADY,
    STATUS_TEXT,
    integrate_batch,
)
from .templates.slider_crank import FLORES, SEED002, slider_crank

SERIES_NAMES = (
    "t",
    "slider_position",
    "slider_velocity",
    "slider_acceleration",
    "driving_torque",
    "contact_normal_force",
    "contact_tangential_force",
    "penetration",
    "eccentricity_x",
    "eccentricity_y",
    "contact_state",
    "kinetic_energy",
    "potential_energy",
    "contact_energy",
    "damping_dissipation",
    "friction_dissipation",
    "driver_work",
    "energy_residual",
    "constraint_drift",
)
assert len(SERIES_NAMES) == N_SER

ONSET_THRESHOLD = 1e-12  # [m] penetration that starts a contact (design.md 1.4)
EVENT_BAND = 1e-9  # [m] accepted overshoot of the seed-003 step-halving event scheme
PENETRATION_BOUND = 0.5  # a case stops when penetration exceeds this fraction of c
MAX_STEPS = 5_000_000

Progress = Callable[[int, int], None]


def build_mechanism(case: SliderCrankCase, *, driven: bool | None = None) -> Mechanism:
    """The mechanism a case describes (SI units from here on)."""
    contact = ContactModel(
        law=case.contact_law,
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
    )
    geometry = SEED002 if case.template == "seed002" else FLORES
    omega = case.omega if case.template != "seed002" or case.speed_rpm != 5000.0 else 20.0
    return slider_crank(
        geometry,
        omega=omega,
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


def _constraint_row(topo: Topology, joint: int) -> int:
    return sum(ROWS[int(k)] for k in topo.joint_int[:joint, 0])


def _ideal_dynamics(topo: Topology, arrays: CaseArrays, y: np.ndarray) -> np.ndarray:
    """Multipliers of the ideal mechanism at state ``y`` (joint reactions)."""
    n, m = topo.n_coordinates, topo.n_constraints
    inv_mass = np.empty(n)
    inverse_mass(arrays.mass[0], arrays.inertia[0], inv_mass)
    ws = make_workspace(n, m, 0)
    model = _model_tuple(topo, arrays, 0)
    derivative(
        0.0,
        y,
        model,
        np.zeros(0, np.int64),
        np.zeros(0),
        0.0,
        0.0,
        -1,
        inv_mass,
        ws,
        np.empty_like(y),
    )
    return ws[5].copy()


def _model_tuple(topo: Topology, arrays: CaseArrays, i: int) -> tuple:
    return (
        topo.joint_int,
        arrays.joint_par[i],
        topo.load_int,
        arrays.load_par[i],
        topo.clear_int,
        arrays.clear_par[i],
        arrays.mass[i],
        arrays.inertia[i],
        arrays.gravity[i],
    )


def initial_state(case: SliderCrankCase, mech: Mechanism) -> np.ndarray:
    """``y0``: the ideal-joint configuration at the start angle, moving at crank speed.

    ``initial="centred"``: the journal centred in the bearing and at rest relative to it
    (Flores). ``"wall"``: resting on the bearing wall, ``e = c`` opposite to the ideal joint
    reaction on the journal (seed 002).
    """
    ic_mech = build_mechanism(case, driven=True).with_ideal_joints()
    topo, arrays = assemble(ic_mech)
    q = solve_positions(topo, arrays, initial_guess(ic_mech))
    v = solve_velocities(topo, arrays, q)
    if case.initial == "wall" and not case.ideal:
        n = topo.n_coordinates
        joint = len(ic_mech.joints) - len(ic_mech.clearance_joints)
        row = _constraint_row(topo, joint)
        lam = _ideal_dynamics(topo, arrays, np.concatenate([q, v, np.zeros(N_AUX)]))
        reaction = lam[row : row + 2]  # force of the bearing on the journal [N]
        norm = float(np.hypot(*reaction))
        direction = -reaction / norm if norm > 0.0 else np.array([1.0, 0.0])
        e = mech.clearance_joints[0].clearance * direction
        arrays.joint_par[0, joint, 4:6] = -e
        q = solve_positions(topo, arrays, q)
        v = solve_velocities(topo, arrays, q, v)
        assert q.shape[0] == n
    return np.concatenate([q, v, np.zeros(N_AUX)])


def _options(case: SliderCrankCase, topo: Topology, mech: Mechanism) -> np.ndarray:
    opts = np.zeros(N_OPT)
    period = case.period
    opts[OPT_T_END] = case.t_end
    opts[OPT_T_STEADY] = case.t_end - period if case.t_end > period else 0.0
    opts[OPT_RTOL] = case.rtol
    opts[OPT_ATOL_Q] = case.atol
    opts[OPT_ATOL_V] = case.atol * 1e3
    opts[OPT_H0] = case.initial_step
    opts[OPT_HMAX] = case.max_step if math.isfinite(case.max_step) else case.t_end
    opts[OPT_HMIN] = 1e-14 * max(1.0, case.t_end)
    opts[OPT_EPS_ONSET] = ONSET_THRESHOLD
    opts[OPT_EPS_EVENT] = EVENT_BAND
    opts[OPT_PEN_BOUND] = PENETRATION_BOUND
    baumgarte = case.stabilization == "baumgarte"
    opts[OPT_ALPHA] = case.baumgarte_alpha if baumgarte else 0.0
    opts[OPT_BETA] = case.baumgarte_beta if baumgarte else 0.0
    opts[OPT_PROJECT] = 1.0 if case.stabilization == "projection" else 0.0
    opts[OPT_BISECT] = 1.0 if case.event_location == "bisect" else 0.0
    opts[OPT_MAX_STEPS] = MAX_STEPS
    driver_rows = [
        _constraint_row(topo, j)
        for j in range(topo.joint_int.shape[0])
        if topo.joint_int[j, 0] == 3
    ]
    opts[OPT_DRIVER_ROW] = driver_rows[0] if driver_rows else -1
    opts[OPT_REFINE] = 1.0 if case.refine_peaks else 0.0
    opts[OPT_N_OUT] = case.n_output
    opts[OPT_PROBE] = topo.probe
    return opts


def _metrics(case: SliderCrankCase, m: np.ndarray, y_end: np.ndarray, n: int) -> dict:
    t_end = case.t_end
    t_s = t_end - case.period if t_end > case.period else 0.0
    a2 = y_end[2 * n + AUX_ACCEL2]
    peak_ke = m[M_PEAK_KE]
    return {
        "peak_slider_accel": m[M_PEAK_ACC],
        "rms_slider_accel": math.sqrt(max(a2, 0.0) / t_end),
        "peak_contact_force": m[M_PEAK_FN],
        "max_penetration": m[M_MAX_PEN],
        "impacts": int(m[M_IMPACTS]),
        "peak_slider_accel_steady": m[M_PEAK_ACC_S],
        "rms_slider_accel_steady": math.sqrt(max(a2 - m[M_A2_AT_TS], 0.0) / (t_end - t_s)),
        "peak_contact_force_steady": m[M_PEAK_FN_S],
        "max_penetration_steady": m[M_MAX_PEN_S],
        "impacts_steady": int(m[M_IMPACTS_S]),
        "peak_driving_torque": m[M_PEAK_TORQUE],
        "peak_driving_torque_steady": m[M_PEAK_TORQUE_S],
        "contact_time_fraction": m[M_CONTACT_TIME] / t_end,
        "contact_time_fraction_steady": m[M_CONTACT_TIME_S] / (t_end - t_s),
        "max_constraint_drift": m[M_MAX_DRIFT],
        "energy_balance_error": m[M_MAX_RESIDUAL] / peak_ke if peak_ke > 0 else 0.0,
        "peak_kinetic_energy": peak_ke,
        "onset_penetration_error": m[M_ONSET_ERR],
        "max_free_flight_penetration": m[M_FREE_PEN],
        "rhs_evaluations": int(m[M_NFEV]),
        "accepted_steps": int(m[M_NACCEPT]),
        "rejected_steps": int(m[M_NREJECT]),
        "peak_refinements": int(m[M_NREFINE]),
    }


def _parse(case: SliderCrankCase | Mapping[str, Any]) -> SliderCrankCase:
    if isinstance(case, SliderCrankCase):
        case.validate()
        return case
    return SliderCrankCase.from_mapping(case)


def default_threads() -> int:
    """Threads for a batch: the cores this process may use, or ``GAPSWEEP_THREADS``."""
    env = os.environ.get("GAPSWEEP_THREADS")
    if env:
        return max(1, int(env))
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not on Linux
        return os.cpu_count() or 1


def simulate(case: SliderCrankCase | Mapping[str, Any]) -> CaseResult:
    """Run one case. Bad input raises :class:`InputError`; a solver failure comes back as a
    result with ``status == "failed"`` and the reason."""
    parsed = _parse(case)
    return simulate_batch([parsed], threads=1, strict=True)[0]


def simulate_batch(
    cases: Sequence[SliderCrankCase | Mapping[str, Any]],
    *,
    threads: int | None = None,
    progress: Progress | None = None,
    strict: bool = False,
) -> list[CaseResult]:
    """Run many cases; results come back in the order given.

    An invalid case (bad parameter, mechanism that cannot assemble) becomes a failed result
    with the message, unless ``strict`` (then :class:`InputError` is raised). ``threads``
    defaults to the usable cores; ``progress(done, total)`` is called as groups finish.
    """
    results: list[CaseResult | None] = [None] * len(cases)
    groups: dict[tuple, list[tuple[int, SliderCrankCase, Topology, CaseArrays, np.ndarray]]] = {}
    start = time.perf_counter()
    for i, raw in enumerate(cases):
        params = dict(raw) if isinstance(raw, Mapping) else None
        try:
            case = _parse(raw)
            mech = build_mechanism(case)
            topo, arrays = assemble(mech)
            y0 = initial_state(case, mech)
            opts = _options(case, topo, mech)
        except InputError as exc:
            if strict:
                raise
            results[i] = CaseResult("slider-crank", params or {}, status="failed", reason=str(exc))
            continue
        key = (topo.key(), case.integrator)
        groups.setdefault(key, []).append((i, case, topo, arrays, np.concatenate([y0, opts])))
    prep_time = time.perf_counter() - start

    n_threads = max(1, threads or default_threads())
    total = len(cases)
    done = sum(r is not None for r in results)
    for (_, integrator_name), members in groups.items():
        method = get_integrator(integrator_name)
        chunk = len(members) if progress is None else max(4 * n_threads, 1)
        for lo in range(0, len(members), chunk):
            part = members[lo : lo + chunk]
            t0 = time.perf_counter()
            _run_group(part, method, n_threads, results)
            share = (time.perf_counter() - t0) / len(part) + prep_time / max(total, 1)
            for i, *_ in part:
                results[i].metrics["wall_time_s"] = share  # type: ignore[union-attr]
            done += len(part)
            if progress is not None:
                progress(done, total)
    return [r for r in results if r is not None]


def _run_group(part, method, n_threads, results) -> None:
    topo: Topology = part[0][2]
    n = topo.n_coordinates
    arrays = CaseArrays.stack([p[3] for p in part])
    packed = np.stack([p[4] for p in part])
    ny = 2 * n + N_AUX
    y0, opts = packed[:, :ny].copy(), packed[:, ny:].copy()
    n_case = len(part)
    n_out = int(opts[:, OPT_N_OUT].max())
    metrics = np.zeros((n_case, N_MET))
    series = np.zeros((n_case, n_out, N_SER))
    y_end = np.zeros_like(y0)
    status = np.zeros(n_case, dtype=np.int64)
    set_threads(min(n_threads, n_case))
    integrate_batch(
        y0,
        (topo.joint_int, topo.load_int, topo.clear_int),
        arrays.joint_par,
        arrays.load_par,
        arrays.clear_par,
        arrays.mass,
        arrays.inertia,
        arrays.gravity,
        opts,
        method.kind,
        method.a,
        method.b,
        method.e,
        method.c,
        method.order,
        metrics,
        series,
        y_end,
        status,
    )
    for k, (i, case, *_rest) in enumerate(part):
        rows = series[k, : case.n_output]
        result = CaseResult(
            "slider-crank",
            case.overrides(),
            metrics=_metrics(case, metrics[k], y_end[k], n),
            series={name: rows[:, j].copy() for j, name in enumerate(SERIES_NAMES)},
        )
        if status[k] != OK:
            result.status = "failed"
            result.reason = f"{STATUS_TEXT[status[k]]} at t = {metrics[k, -2]:.6g} s"
        results[i] = result


def with_ideal(case: SliderCrankCase) -> SliderCrankCase:
    """The same case with the clearance joint ideal (the baseline)."""
    return replace(case, ideal=True)
