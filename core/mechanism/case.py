"""The ``mechanism`` model: one case of a mechanism described as data (design.md 4.7).

A case's parameters are the ``[mechanism]`` table (key ``mechanism``), values for its
sweepable dotted paths (``variables.rod_mm``, ``joints.piston_pin.clearance_mm`` ...) and
the solver and output names the slider-crank has (``t_end``, ``rtol``, ``ideal``,
``initial`` ...). Expressions, assembly and the kinematic sweep happen here, once per case
(cached on the geometry), outside the compiled loop; every case then runs through
:func:`solver.run_jobs` with the built-in models' batch.

Metrics. The compiled loop follows one *probe* coordinate per run; a case runs one job per
distinct measured body coordinate (the first measure's is the main run, whose series are
stored; a point moving with a body, or a magnitude, combines the body's x, y and angle runs
on the output grid) and, with
several clearance joints, one more per further joint with that joint first, whose series
give its own metrics. Each measure ``m`` gets ``peak_m``, ``rms_m`` and ``peak_m_steady``:
accelerations from the loop (every accepted step, peaks refined between steps), positions
and velocities (smooth) from the uniform output grid. Over all clearance joints:
``peak_contact_force``, ``max_penetration``, ``impacts`` (and ``_steady``) from the loop;
per joint ``j`` the same names with ``.j`` appended - from the loop when the mechanism has
one clearance joint, else read off the joint's output grid (a peak read there under-reads
an impact by up to ~2 %, design.md 1.3).
"""

from __future__ import annotations

import dataclasses
import functools
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any

import numpy as np

from ..cases import _coerce, fields_dict
from ..errors import InputError
from ..journal_bearing import film_grid_metrics
from ..metrics import per_joint
from ..model import Probe
from ..result import CaseResult
from ..solver import ROSENBROCK_CONTACT, Job, Progress, SolverOptions, run_jobs
from .build import STARTS, build_mechanism, initial_state, kinematics
from .table import MechanismSpec, parse_table, sweepable, with_overrides

MODEL = "mechanism"
INITIAL = tuple(STARTS)  # centred, wall, run-up (design.md 4.10)
_PROBE_METRICS = ("peak_slider_accel", "rms_slider_accel", "peak_slider_accel_steady",
                  "rms_slider_accel_steady")
_JOINT_METRICS = ("peak_contact_force", "max_penetration", "impacts", "peak_contact_force_steady",
                  "max_penetration_steady", "impacts_steady")
_SERIES_OF = {"position": "slider_position", "velocity": "slider_velocity",
              "acceleration": "slider_acceleration"}


@dataclass(frozen=True)
class MechanismCase:
    """One case of a described mechanism. ``mechanism``: the ``[mechanism]`` table with the
    case's dotted values applied; ``t_end`` None: two driver revolutions (after the ramp
    of a run-up start, ``run_up_revolutions``)."""

    mechanism: Any = None
    t_end: float | None = None
    ideal: bool = False
    initial: str = "centred"
    run_up_revolutions: float = 2.0  # driver revolutions of the run-up ramp (the slider-crank's)
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

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any]) -> MechanismCase:
        """A validated case: the table read, the dotted values applied, the mechanism
        assembled and swept. Unknown names and bad values raise :class:`InputError`."""
        known = {f.name: f for f in fields(cls)}
        table = values.get("mechanism")
        if not isinstance(table, Mapping):
            raise InputError("mechanism", table, "a [mechanism] table (design.md 4.7)")
        kwargs: dict[str, Any] = {}
        dotted: dict[str, Any] = {}
        for name, raw in values.items():
            if name == "mechanism":
                continue
            if name in known:
                if name == "t_end" and raw is None:
                    continue
                default = 0.024 if name == "t_end" else getattr(cls, name)
                kwargs[name] = _coerce(name, raw, known[name].type, default)
            elif "." in name:
                dotted[name] = raw
            else:
                allowed = sorted(n for n in known if n != "mechanism")
                raise InputError("parameter", name, "a dotted path of the mechanism "
                                 "(variables.NAME, joints.NAME.clearance_mm ...) or one of: "
                                 + ", ".join(allowed))
        resolved = with_overrides(table, dotted)
        case = cls(mechanism=resolved, **kwargs)
        try:
            case.validate()
        except InputError as exc:
            # a refused value the case set: name it as the case did (variables.rod_mm)
            path = exc.field.removeprefix("mechanism.")
            if path in dotted:
                raise InputError(path, dotted[path], exc.allowed, exc.detail) from None
            raise
        return case

    @functools.cached_property
    def spec(self) -> MechanismSpec:
        """The resolved table, read (cached on its text: a study's cases share it)."""
        return _parse(json.dumps(self.mechanism, sort_keys=True))

    def __getattr__(self, name: str) -> Any:
        # a dotted path reads the resolved table (the study checks read values back so)
        if "." in name and not name.startswith("_"):
            node: Any = self.mechanism
            for key in name.split("."):
                if not isinstance(node, Mapping) or key not in node:
                    raise AttributeError(name)
                node = node[key]
            return node
        raise AttributeError(name)

    @property
    def speed_rpm(self) -> float:
        """The driver's speed [rpm] (the crank frequency the workers' spectra use)."""
        return self.spec.speed_rpm

    @property
    def period(self) -> float:
        return self.spec.period

    @property
    def ramp_time(self) -> float:
        """Duration of the run-up [s] (0 for the other starts): as the slider-crank's, the
        speed ramp turns the driver ``run_up_revolutions`` times in twice as many periods
        (:func:`gapsweep.core.constraints.driver_motion`)."""
        return 2.0 * self.run_up_revolutions * self.period if self.initial == "run-up" else 0.0

    def validate(self) -> None:
        """Raise :class:`InputError` naming the first bad field."""
        spec = self.spec
        kinematics(spec)  # closes and sweeps: refuses what cannot turn
        if self.initial not in INITIAL:
            raise InputError("initial", self.initial, "one of " + ", ".join(INITIAL))
        runup = self.run_up_revolutions
        if not (isinstance(runup, (int, float)) and math.isfinite(runup) and 0.0 < runup <= 100.0):
            raise InputError("run_up_revolutions", runup, "in (0, 100] driver revolutions")
        self.solver_options().validate()
        if self.integrator == "rosenbrock23" and not self.ideal and spec.clearance_joints:
            raise InputError("integrator", self.integrator, ROSENBROCK_CONTACT)

    def solver_options(self) -> SolverOptions:
        """Two driver revolutions by default (after the run-up's ramp for that start), the
        last the ``_steady`` window; the driver period gives the Poincaré section."""
        period = self.spec.period
        t_end = self.ramp_time + 2.0 * period if self.t_end is None else self.t_end
        # the run-up's ramp is the start-up (its peak: ``peak_<measure>_startup``), the
        # settled window the revolutions at full speed after it, when the run has them
        ramp_revolutions = math.ceil(self.ramp_time / period - 1e-9)
        transient = ramp_revolutions if t_end > self.ramp_time + 0.5 * period else 0
        return SolverOptions(
            t_end=t_end,
            period=period,
            transient_revolutions=transient,
            t_steady=t_end - period if t_end > period else 0.0,
            integrator=self.integrator, rtol=self.rtol, atol=self.atol,
            max_step=self.max_step, contact_max_step=self.contact_max_step,
            initial_step=self.initial_step, event_location=self.event_location,
            stabilization=self.stabilization, baumgarte_alpha=self.baumgarte_alpha,
            baumgarte_beta=self.baumgarte_beta, n_output=self.n_output,
            refine_peaks=self.refine_peaks,
        )

    def to_dict(self) -> dict[str, Any]:
        return fields_dict(self)

    def overrides(self) -> dict[str, Any]:
        base = dataclasses.asdict(MechanismCase())
        return {k: v for k, v in self.to_dict().items() if v != base.get(k)}


@functools.lru_cache(maxsize=256)
def _parse(text: str) -> MechanismSpec:
    return parse_table(json.loads(text))


def joint_clearances(params: Mapping[str, Any]) -> dict[str, float]:
    """Radial clearance c [m] of every clearance joint of a mechanism case, by joint name,
    from its parameters (the ``mechanism`` table with the case's dotted values applied,
    expressions evaluated); empty when ``params`` hold no readable table. What the pages
    scale a joint's section and orbit by (the table reads once per distinct text)."""
    table = params.get("mechanism")
    if not isinstance(table, Mapping):
        return {}
    dotted = {k: v for k, v in params.items() if "." in k and k.split(".")[0] in _TABLE_KEYS}
    try:
        return dict(_clearances(json.dumps(table, sort_keys=True),
                                json.dumps(dotted, sort_keys=True, default=str)))
    except (InputError, TypeError, ValueError):
        return {}


_TABLE_KEYS = ("variables", "points", "bodies", "joints", "driver", "loads", "measures")


@functools.lru_cache(maxsize=256)
def _clearances(table: str, dotted: str) -> tuple[tuple[str, float], ...]:
    spec = parse_table(with_overrides(json.loads(table), json.loads(dotted)))
    return tuple((j.name, dict(j.contact)["clearance_mm"] * 1e-3)
                 for j in spec.clearance_joints)


def sweepable_names(table: Mapping[str, Any]) -> dict[str, str]:
    """Every name a study of ``table`` may set: its dotted paths (with units) and the
    solver and output names."""
    from ..parameters import find

    out = dict(sweepable(table))
    for f in fields(MechanismCase):
        if f.name != "mechanism":
            p = find(f.name, "slider-crank")
            out[f.name] = p.unit if p else ""
    return out


# --- running ------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Plan:
    """The jobs of one case: ``probes[k]`` the measure index of job k's probe (-1: none),
    ``joint_jobs[j]`` the job whose first clearance joint is joint j."""

    case: MechanismCase
    params: dict[str, Any]
    jobs: tuple[Job, ...]
    probe_job: tuple[tuple[int, ...], ...]  # per measure: the jobs of its coordinates
    joint_job: tuple[int, ...]


def _plan(case: MechanismCase, params: dict[str, Any]) -> _Plan:
    spec = case.spec
    options = case.solver_options()
    y0 = initial_state(spec, ideal=case.ideal, initial=case.initial)
    jobs: list[Job] = []
    seen: dict[tuple[str, int], int] = {}
    probe_job = []
    main = build_mechanism(spec, ideal=case.ideal, probe=0, ramp=case.ramp_time)
    jobs.append(Job(main, y0, options, params, MODEL))  # the first measure's coordinate
    if spec.measures:
        seen[(spec.measures[0].body, spec.measures[0].coordinate)] = 0
    for m in spec.measures:
        # a direct measure needs its coordinate's run; a point or a magnitude the runs of
        # the body's x and y (and angle for a point), combined on the output grid
        coords = (m.coordinate,) if m.direct else ((0, 1, 2) if m.point != (0.0, 0.0)
                                                   else (0, 1))
        for coordinate in coords:
            key = (m.body, coordinate)
            if key not in seen:
                mech = dataclasses.replace(main, probe=Probe(m.body, coordinate))
                seen[key] = len(jobs)
                jobs.append(Job(mech, y0, options, params, MODEL))
        probe_job.append(tuple(seen[(m.body, c)] for c in coords))
    joint_job = [0] * len(spec.clearance_joints)
    if not case.ideal:
        for j in range(1, len(main.clearance_joints)):
            order = (main.clearance_joints[j], *(c for i, c in enumerate(main.clearance_joints)
                                                 if i != j))
            mech = dataclasses.replace(main, clearance_joints=order)
            joint_job[j] = len(jobs)
            jobs.append(Job(mech, y0, options, params, MODEL))
    return _Plan(case, params, tuple(jobs), tuple(probe_job), tuple(joint_job))


def simulate_mechanism(params: MechanismCase | Mapping[str, Any]) -> CaseResult:
    """Run one case; bad input raises :class:`InputError`."""
    if isinstance(params, MechanismCase):
        case, given = params, params.overrides()
    else:
        case, given = MechanismCase.from_mapping(params), dict(params)
    return _run([_plan(case, given)], threads=1, progress=None)[0]


def simulate_mechanisms(
    cases: Sequence[Mapping[str, Any]],
    *,
    threads: int | None = None,
    progress: Progress | None = None,
) -> list[CaseResult]:
    """Run many cases together (one compiled batch per topology); results in order. An
    invalid case comes back failed with its message."""
    plans: list[_Plan | CaseResult] = []
    for raw in cases:
        try:
            plans.append(_plan(MechanismCase.from_mapping(raw), dict(raw)))
        except InputError as exc:
            plans.append(CaseResult(MODEL, dict(raw), status="failed", reason=str(exc)))
    return _run(plans, threads=threads, progress=progress)


def _run(plans, *, threads, progress) -> list[CaseResult]:
    jobs: list[Job | CaseResult] = []
    for p in plans:
        jobs.extend(p.jobs if isinstance(p, _Plan) else (p,))
    n_cases = len(plans)

    def scaled(done: int, total: int) -> None:
        if progress is not None:
            progress(round(done * n_cases / max(total, 1)), n_cases)

    results = run_jobs(jobs, threads=threads, progress=scaled if progress else None)
    out: list[CaseResult] = []
    k = 0
    for p in plans:
        if not isinstance(p, _Plan):
            out.append(results[k])
            k += 1
            continue
        out.append(_merge(p, results[k : k + len(p.jobs)]))
        k += len(p.jobs)
    return out


def _merge(plan: _Plan, results: list[CaseResult]) -> CaseResult:
    from ..simulation import _spectral

    main = results[0]
    failed = next((r for r in results if not r.ok), None)
    if failed is not None:
        main.status, main.reason = "failed", failed.reason
    metrics = _probe_named(plan.case.spec, {k: v for k, v in main.metrics.items()
                                            if k not in _PROBE_METRICS})
    metrics["wall_time_s"] = sum(r.metrics.get("wall_time_s", 0.0) for r in results)
    spec = plan.case.spec
    options = plan.jobs[0].options
    t_s = options.t_steady
    series = main.series
    for m, ks in zip(spec.measures, plan.probe_job, strict=True):
        r = results[ks[0]]
        if m.direct:
            column = np.asarray(r.series[_SERIES_OF[m.quantity]])
        else:
            column = _combined(m, [results[k].series for k in ks])
        series[m.name] = column
        if m.direct and m.quantity == "acceleration":
            metrics[f"peak_{m.name}"] = r.metrics["peak_slider_accel"]
            metrics[f"rms_{m.name}"] = r.metrics["rms_slider_accel"]
            metrics[f"peak_{m.name}_steady"] = r.metrics["peak_slider_accel_steady"]
        else:
            t = np.asarray(r.series["t"])
            metrics.update(_grid_metrics(m.name, t, column, t_s))
    names = [j.name for j in spec.clearance_joints]
    for j, name in enumerate(names):
        r = results[plan.joint_job[j]]
        for key in ("contact_normal_force", "penetration", "eccentricity_x", "eccentricity_y",
                    "contact_state"):
            series[per_joint(key, name)] = np.asarray(r.series[key])
        if len(names) == 1 or plan.case.ideal:
            for key in _JOINT_METRICS:
                metrics[per_joint(key, name)] = main.metrics[key] if not plan.case.ideal else 0
        else:
            metrics.update(_joint_grid_metrics(name, r.series, t_s))
    metrics.update(_film_metrics(spec, series, main.metrics))
    main.metrics = metrics
    if main.ok:
        main.metrics.update(_spectral(plan.jobs[0], main))
    return main


def _film_metrics(spec: MechanismSpec, series: Mapping[str, Any],
                  main: Mapping[str, Any]) -> dict[str, Any]:
    """Each lubricated joint's ``max_eccentricity_ratio`` and ``min_film_thickness`` from its
    eccentricity on the output grid, named per joint, the unsuffixed ones the extremes over
    the joints (design.md 4.15). The film's dissipated energy is one quadrature over the
    joints: a joint's own only where it is the one lubricated joint."""
    out: dict[str, Any] = {}
    wet = [j for j in spec.clearance_joints
           if dict(j.contact or ()).get("lubrication", "none") != "none"]
    for j in wet:
        key = per_joint("eccentricity_x", j.name)
        if key not in series:
            continue
        clearance = dict(j.contact)["clearance_mm"] * 1e-3
        for k, v in film_grid_metrics(series[key], series[per_joint("eccentricity_y", j.name)],
                                      clearance).items():
            out[per_joint(k, j.name)] = v
            if k == "min_film_thickness":
                out[k] = min(v, out.get(k, math.inf))
            else:
                out[k] = max(v, out.get(k, -math.inf))
    if len(wet) == 1 and "film_dissipated_energy" in main:
        out[per_joint("film_dissipated_energy", wet[0].name)] = main["film_dissipated_energy"]
    return out


def _probe_named(spec: MechanismSpec, metrics: dict[str, Any]) -> dict[str, Any]:
    """The main run's metrics with the probe's settled ones (``peak_slider_accel_settled``,
    ``..._startup`` ...: the loop calls its probe the slider) named after the first measure,
    whose coordinate the probe follows; dropped when that measure is not a body coordinate's
    acceleration (the per-revolution peaks are of the probe's acceleration)."""
    first = spec.measures[0] if spec.measures else None
    keep = first is not None and first.direct and first.quantity == "acceleration"
    out = {}
    for key, value in metrics.items():
        if "slider_accel" not in key:
            out[key] = value
        elif keep:
            out[key.replace("slider_accel", first.name)] = value
    return out


def _combined(m, runs: list) -> np.ndarray:
    """A point's or a magnitude's series from the body's x, y (and angle) runs: position
    ``r + A s``, velocity ``v + w x (A s)``, acceleration ``a + alpha x (A s) - w^2 A s``."""
    def get(k: int, level: int) -> np.ndarray:
        return np.asarray(runs[k][("slider_position", "slider_velocity",
                                   "slider_acceleration")[level]])

    level = ("position", "velocity", "acceleration").index(m.quantity)
    x, y = get(0, level), get(1, level)
    if m.point != (0.0, 0.0):
        phi, w = get(2, 0), get(2, 1)
        sx = np.cos(phi) * m.point[0] - np.sin(phi) * m.point[1]  # A s
        sy = np.sin(phi) * m.point[0] + np.cos(phi) * m.point[1]
        if level == 0:
            x, y = x + sx, y + sy
        elif level == 1:
            x, y = x - w * sy, y + w * sx
        else:
            alpha = get(2, 2)
            x, y = x - alpha * sy - w * w * sx, y + alpha * sx - w * w * sy
    if m.component == "x":
        return x
    if m.component == "y":
        return y
    return np.hypot(x, y)


def _grid_metrics(name: str, t: np.ndarray, x: np.ndarray, t_s: float) -> dict[str, float]:
    """Peak |x|, RMS (trapezoid) and steady peak of a smooth series on the output grid."""
    span = float(t[-1] - t[0]) if len(t) > 1 else 0.0
    rms = math.sqrt(float(np.trapezoid(x * x, t)) / span) if span > 0 else float(abs(x[0]))
    steady = np.abs(x[t >= t_s - 1e-15])
    return {f"peak_{name}": float(np.max(np.abs(x))), f"rms_{name}": rms,
            f"peak_{name}_steady": float(steady.max()) if steady.size else math.nan}


def _joint_grid_metrics(name: str, series: Mapping[str, Any], t_s: float) -> dict[str, Any]:
    t = np.asarray(series["t"])
    fn = np.asarray(series["contact_normal_force"])
    state = np.asarray(series["contact_state"]) > 0.5
    pen = np.where(state, np.asarray(series["penetration"]), 0.0)
    onsets = np.flatnonzero(state[1:] & ~state[:-1]) + 1
    steady = t >= t_s - 1e-15
    values = {
        "peak_contact_force": float(fn.max(initial=0.0)),
        "max_penetration": float(pen.max(initial=0.0)),
        "impacts": int(len(onsets)),
        "peak_contact_force_steady": float(fn[steady].max(initial=0.0)),
        "max_penetration_steady": float(pen[steady].max(initial=0.0)),
        "impacts_steady": int(np.sum(steady[onsets])),
    }
    return {per_joint(key, name): v for key, v in values.items()}


_CHOICES = ("contact_law", "friction_law", "stiffness_model", "lubrication", "integrator",
            "initial", "event_location", "stabilization")
_SWITCHES = ("ideal", "refine_peaks")


def sweepable_kinds(table: Mapping[str, Any]) -> dict[str, str]:
    """Name -> "float" | "int" | "str" | "bool" of everything a study of ``table`` may set
    (:func:`sweepable_names`), as the study layer's ``param_kinds`` gives them."""
    out = {}
    for name in sweepable_names(table):
        key = name.rsplit(".", 1)[-1]
        if key in _CHOICES:
            out[name] = "str"
        elif key in _SWITCHES:
            out[name] = "bool"
        elif key == "n_output":
            out[name] = "int"
        else:
            out[name] = "float"
    return out
