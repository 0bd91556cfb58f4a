"""The ``mechanism`` model: one case of a mechanism described as data (design.md 4.7).

A case's parameters are the ``[mechanism]`` table (key ``mechanism``), values for its
sweepable dotted paths (``variables.rod_mm``, ``joints.piston_pin.clearance_mm`` ...) and
the solver and output names the slider-crank has (``t_end``, ``rtol``, ``ideal``,
``initial`` ...). Expressions, assembly and the kinematic sweep happen here, once per case
(cached on the geometry), outside the compiled loop; every case then runs through
:func:`solver.run_jobs` with the built-in models' batch.

Metrics. One case is one integration (design.md 4.14): the compiled loop observes every
measure (a vector probe: a body coordinate, a point moving with a body, a magnitude) and
every clearance joint at every accepted step of that run. The first measure, as the table
gives them, is the headline: its body coordinate is the loop's probe, whose acceleration's
quadrature the step control weighs as the built-in slider's (so the reference mechanism steps
as ``model = "slider-crank"``); the other measures do not change the motion. Each measure ``m`` gets
``peak_m``, ``rms_m``, ``peak_m_steady`` (peaks refined on the dense output between steps,
the RMS integrated over the steps) and its settled metrics (``peak_m_settled``, ``p95_``,
``mean_``, ``rms_m_settled``, ``peak_m_startup``) and series; over all clearance joints
``peak_contact_force``, ``max_penetration``, ``impacts`` (and ``_steady``, ``_settled``);
per joint ``j`` the same names with ``.j`` appended, ``motion.j`` its section's class, and
its series (``penetration.j`` ...). ``impacts`` is the sum of the joints' ``impacts.j``.

With no ``t_end`` a case runs until its Poincaré section has settled - every clearance
joint's - or to ``max_revolutions``, as the built-in models do (design.md 4.10, 4.16).
"""

from __future__ import annotations

import dataclasses
import functools
import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any

import numpy as np

from ..cases import (
    MAX_REVOLUTIONS,
    SAMPLES_PER_REVOLUTION_DIVISOR,
    SETTLE_TOLERANCE,
    SPECTRUM_REVOLUTIONS,
    _coerce,
    fields_dict,
)
from ..errors import InputError
from ..journal_bearing import film_grid_metrics
from ..metrics import per_joint
from ..result import CaseResult
from ..solver import (
    ROSENBROCK_CONTACT,
    Job,
    Progress,
    SolverOptions,
    VectorProbe,
    case_options,
    option_default,
    run_jobs,
)
from ..wear import WearParams
from ..wear_life import run_life
from .build import STARTS, build_mechanism, initial_state, kinematics
from .table import MechanismSpec, parse_table, sweepable, with_overrides

MODEL = "mechanism"
INITIAL = tuple(STARTS)  # centred, wall, run-up (design.md 4.10)
_JOINT_METRICS = ("peak_contact_force", "max_penetration", "impacts", "peak_contact_force_steady",
                  "max_penetration_steady", "impacts_steady")
_JOINT_SERIES = ("contact_normal_force", "penetration", "eccentricity_x", "eccentricity_y",
                 "contact_state")


@dataclass(frozen=True)
class MechanismCase:
    """One case of a described mechanism. ``mechanism``: the ``[mechanism]`` table with the
    case's dotted values applied; ``t_end`` None (or 0): until the section settles, at most
    ``max_revolutions`` driver revolutions, as the slider-crank's ``t_end = 0``."""

    mechanism: Any = None
    t_end: float | None = None
    ideal: bool = False
    initial: str = "centred"
    run_up_revolutions: float = 2.0  # driver revolutions of the run-up ramp (the slider-crank's)
    max_revolutions: int = MAX_REVOLUTIONS  # the cap of a run until settled
    # revolutions before the settled window; 0: found
    transient_revolutions: int = option_default("transient_revolutions")
    settle_tolerance: float = SETTLE_TOLERANCE  # of the smallest clearance
    starts: str = ""  # other starts to run the case from as well ("wall,run-up", or "all")
    # CASE_OPTIONS, handed to SolverOptions as they are (defaults and units there)
    integrator: str = option_default("integrator")
    rtol: float = option_default("rtol")
    atol: float = option_default("atol")  # positions [m]
    max_step: float = option_default("max_step")  # [s]
    contact_max_step: float = option_default("contact_max_step")  # [s]
    initial_step: float = option_default("initial_step")  # [s]
    event_location: str = option_default("event_location")
    stabilization: str = option_default("stabilization")
    baumgarte_alpha: float = option_default("baumgarte_alpha")  # [1/s]
    baumgarte_beta: float = option_default("baumgarte_beta")  # [1/s]
    n_output: int = option_default("n_output")
    refine_peaks: bool = option_default("refine_peaks")

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
        """The resolved table, read (cached on its text with sorted keys: a study's cases
        share it, and bodies, joints and points keep the name order the state is laid out
        in). Its measures in the order the table gives them: the first is the headline,
        the loop's probe (:func:`_mechanism`), whatever the others' names."""
        spec = _parse(json.dumps(self.mechanism, sort_keys=True))
        written = list(self.mechanism.get("measures") or {})
        measures = sorted(spec.measures, key=lambda m: written.index(m.name))
        return dataclasses.replace(spec, measures=tuple(measures))

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

    @property
    def adaptive(self) -> bool:
        """No ``t_end``: the run lasts until its section settles, up to ``max_revolutions``."""
        return self.t_end is None or self.t_end == 0.0

    def other_starts(self) -> tuple[str, ...]:
        """The starts of ``starts`` other than ``initial`` (``all``: every start)."""
        text = self.starts.strip()
        names = INITIAL if text == "all" else [s.strip() for s in text.split(",") if s.strip()]
        return tuple(dict.fromkeys(s for s in names if s != self.initial))

    def validate(self) -> None:
        """Raise :class:`InputError` naming the first bad field."""
        spec = self.spec
        kinematics(spec)  # closes and sweeps: refuses what cannot turn
        if self.initial not in INITIAL:
            raise InputError("initial", self.initial, "one of " + ", ".join(INITIAL))
        runup = self.run_up_revolutions
        if not (isinstance(runup, (int, float)) and math.isfinite(runup) and 0.0 < runup <= 100.0):
            raise InputError("run_up_revolutions", runup, "in (0, 100] driver revolutions")
        if not 2 <= self.max_revolutions <= 10_000:
            raise InputError("max_revolutions", self.max_revolutions, "an integer in [2, 10000]")
        if self.adaptive and self.initial == "run-up" and self.max_revolutions <= 2 * runup + 8:
            raise InputError("max_revolutions", self.max_revolutions,
                             f"> 2 x run_up_revolutions + 8 = {2 * runup + 8:g} (the run-up "
                             "takes 2 x run_up_revolutions periods, the settling test 8 more)")
        if not 0 <= self.transient_revolutions < self.max_revolutions:
            raise InputError("transient_revolutions", self.transient_revolutions,
                             f"an integer in [0, max_revolutions = {self.max_revolutions}) "
                             "(0: found)")
        if self.adaptive and self.max_revolutions * self.period > 100.0:
            allowed = f"<= {math.floor(100.0 / self.period)} at {self.speed_rpm:g} rpm (100 s)"
            raise InputError("max_revolutions", self.max_revolutions, allowed)
        tol = self.settle_tolerance
        if not (isinstance(tol, (int, float)) and math.isfinite(tol) and 0.0 < tol < 1.0):
            raise InputError("settle_tolerance", tol, "in (0, 1) of the smallest clearance")
        for start in self.other_starts():
            if start not in INITIAL:
                allowed = "a comma-separated list of " + ", ".join(INITIAL) + ", or all"
                raise InputError("starts", self.starts, allowed)
        if self.adaptive and self.output_rows > 1_000_000:
            most = 4 * (1_000_000 - 1) // (1 + min(SPECTRUM_REVOLUTIONS, self.max_revolutions)) + 1
            raise InputError("n_output", self.n_output, f"in [2, {most}] for a run until settled")
        self.solver_options().validate()
        if self.integrator == "rosenbrock23" and not self.ideal and spec.clearance_joints:
            raise InputError("integrator", self.integrator, ROSENBROCK_CONTACT)
        worn = _wear_settings(spec)
        for name, wear in worn[1:]:  # one machine, one life: the worn joints share it
            for key in ("wear_cycles", "wear_steps"):
                mine, first = getattr(wear, key), getattr(worn[0][1], key)
                if mine != first:
                    raise InputError(f"mechanism.joints.{name}.{key}", mine,
                                     f"= joints.{worn[0][0]}.{key} = {first:g}: the worn joints "
                                     "of a case wear over one life")

    @property
    def samples_per_revolution(self) -> int:
        """Output samples a driver revolution of a run until settled: ``(n_output - 1) / 4``."""
        return max((self.n_output - 1) // SAMPLES_PER_REVOLUTION_DIVISOR, 1)

    @property
    def output_rows(self) -> int:
        """Rows of the output grid a run until settled holds: the first revolution and a ring
        of the last ``min(SPECTRUM_REVOLUTIONS, max_revolutions)`` (as the slider-crank's)."""
        if not self.adaptive:
            return self.n_output
        ring = min(SPECTRUM_REVOLUTIONS, self.max_revolutions)
        return self.samples_per_revolution * (1 + ring) + 1

    def probes(self) -> tuple[VectorProbe, ...]:
        """The measures as the loop's vector probes (:class:`solver.VectorProbe`)."""
        order = [b.name for b in self.spec.bodies]
        return tuple(VectorProbe(m.name, 3 * order.index(m.body), m.point, m.component,
                                 m.quantity) for m in self.spec.measures)

    def traces(self) -> tuple[VectorProbe, ...]:
        """Series only: the first measure's body coordinate (x for a magnitude) as the
        built-in models' ``slider_position``, ``_velocity``, ``_acceleration``, which the
        spectra and the pages read."""
        if not self.spec.measures:
            return ()
        m = self.spec.measures[0]
        body = 3 * [b.name for b in self.spec.bodies].index(m.body)
        component = ("x", "y", "angle")[m.coordinate]
        return tuple(VectorProbe(f"slider_{q}", body, (0.0, 0.0), component, quantity)
                     for q, quantity in (("position", "position"), ("velocity", "velocity"),
                                         ("acceleration", "acceleration")))

    def solver_options(self) -> SolverOptions:
        """Until settled without ``t_end`` (the slider-crank's rule, core/cases.py: the section
        at every driver period, the run-up's ramp not counted, the output grid the first
        revolution and a ring of the last); with ``t_end`` that long, the last revolution the
        ``_steady`` window. Every measure and clearance joint is observed in the one run."""
        period = self.spec.period
        observed = {"probes": self.probes(), "traces": self.traces(),
                    "observe_joints": not self.ideal and bool(self.spec.clearance_joints)}
        # n_output: as given, or re-gridded by a run until settled (below)
        common = {k: v for k, v in case_options(self).items() if k != "n_output"}
        common.update(observed)
        if math.isnan(period):  # no driver (design.md 4.13): it moves for t_end, no sections
            if self.adaptive:
                raise InputError("t_end", self.t_end, "a duration > 0 s: a mechanism without a "
                                 "driver moves under its loads for t_end")
            if self.initial == "run-up":
                raise InputError("initial", self.initial, "centred or wall: a run-up ramps a "
                                 "driver, and this mechanism has none")
            return SolverOptions(t_end=self.t_end, period=0.0, t_steady=0.0,
                                 n_output=self.n_output, **common)
        # the run-up's ramp is the start-up (its peak: ``peak_<measure>_startup``), the
        # settled window the revolutions at full speed after it, when the run has them
        ramp_revolutions = math.ceil(self.ramp_time / period - 1e-9)
        if self.adaptive:
            per_rev = self.samples_per_revolution
            return SolverOptions(
                t_end=self.max_revolutions * period, period=period,
                settle_tolerance=self.settle_tolerance,
                transient_revolutions=self.transient_revolutions,
                stop_when_settled=True, settle_from=ramp_revolutions or 1,
                output_step=period / per_rev, n_output=self.output_rows, output_head=per_rev,
                **common,
            )
        t_end = self.t_end
        transient = self.transient_revolutions or (
            ramp_revolutions if t_end > self.ramp_time + 0.5 * period else 0)
        return SolverOptions(
            t_end=t_end,
            period=period,
            settle_tolerance=self.settle_tolerance,
            transient_revolutions=transient,
            t_steady=t_end - period if t_end > period else 0.0,
            n_output=self.n_output,
            **common,
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
    """The jobs of one case: its one run (``jobs[0]``, every measure and joint observed in
    it) and one more per other start of ``starts`` (their settled peak and class only)."""

    case: MechanismCase
    params: dict[str, Any]
    jobs: tuple[Job, ...]
    starts: tuple[str, ...] = ()


def _mechanism(case: MechanismCase):
    # The loop's probe is the headline measure's body coordinate - the first measure as the
    # table gives it - as the built-in models' is the slider's x: the quadrature of its
    # acceleration squared is part of the state the step control weighs (core/stepping.py),
    # so a mechanism steps as the built-in model it describes does (design.md 4.15's
    # 1e-6). The other measures are observations of that run (vector probes, 4.16): adding
    # or removing one leaves the motion as it is. Taking the first in name order instead
    # (the table's keys once were sorted) moved the probe to whichever measure sorts first.
    return build_mechanism(case.spec, ideal=case.ideal, probe=0, ramp=case.ramp_time)


def _plan(case: MechanismCase, params: dict[str, Any]) -> _Plan:
    spec = case.spec
    jobs = [Job(_mechanism(case), initial_state(spec, ideal=case.ideal, initial=case.initial),
                case.solver_options(), params, MODEL)]
    starts = case.other_starts() if spec.measures else ()
    for start in starts:
        other = dataclasses.replace(case, initial=start, starts="")
        jobs.append(Job(_mechanism(other), initial_state(spec, ideal=case.ideal, initial=start),
                        other.solver_options(), {}, MODEL))
    return _Plan(case, params, tuple(jobs), starts)


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
    case_progress: Callable[[int, int, int], None] | None = None,
) -> list[CaseResult]:
    """Run many cases together (one compiled batch per topology); results in order. An
    invalid case comes back failed with its message. ``case_progress(case, runs, total)``
    hears of each settled run of a wear life as it ends."""
    plans: list[_Plan | CaseResult] = []
    for raw in cases:
        try:
            plans.append(_plan(MechanismCase.from_mapping(raw), dict(raw)))
        except InputError as exc:
            plans.append(CaseResult(MODEL, dict(raw), status="failed", reason=str(exc)))
    return _run(plans, threads=threads, progress=progress, case_progress=case_progress)


def _run(plans, *, threads, progress, case_progress=None) -> list[CaseResult]:
    jobs: list[Job | CaseResult] = []
    for p in plans:
        jobs.extend(p.jobs if isinstance(p, _Plan) else (p,))
    n_cases = len(plans)

    def scaled(done: int, total: int) -> None:
        if progress is not None:
            progress(round(done * n_cases / max(total, 1)), n_cases)

    # a case with worn joints is a run per profile update (core/wear_life.py): its main job
    # goes through the life, one step after another, the rest as one batch
    lives = {}
    k = 0
    for i, p in enumerate(plans):
        if isinstance(p, _Plan) and (worn := _worn_joints(p)):
            lives[k] = (i, p.jobs[0], worn)
            jobs[k] = CaseResult(MODEL, {})
        k += len(p.jobs) if isinstance(p, _Plan) else 1
    results = run_jobs(jobs, threads=threads, progress=scaled if progress else None)
    for k, (i, job, worn) in lives.items():
        heard = None if case_progress is None else functools.partial(case_progress, i)
        results[k] = run_life(job, worn, lambda js: run_jobs(list(js), threads=1), heard)
    out: list[CaseResult] = []
    k = 0
    for p in plans:
        if not isinstance(p, _Plan):
            out.append(results[k])
            k += 1
            continue
        out.append(_finish(p, results[k : k + len(p.jobs)]))
        k += len(p.jobs)
    return out


def _worn_joints(plan: _Plan) -> list[tuple[int, WearParams]]:
    """The index (in the mechanism's clearance joints) and wear settings of each of the
    case's joints with a wear coefficient (design.md 4.12: all wear in one life); none for
    an ideal case."""
    if plan.case.ideal:
        return []
    names = [cj.name for cj in plan.jobs[0].mechanism.clearance_joints]
    return [(names.index(name), wear) for name, wear in _wear_settings(plan.case.spec)
            if name in names]


def _wear_settings(spec: MechanismSpec) -> list[tuple[str, WearParams]]:
    """(name, wear settings) of each clearance joint of ``spec`` with a wear coefficient."""
    out = []
    for j in spec.clearance_joints:
        c = dict(j.contact or ())
        wear = WearParams(*(c.get(f, d) for f, d in (
            ("wear_coefficient_m2_per_n", 0.0), ("wear_cycles", 0.0), ("wear_steps", 20),
            ("wear_nodes", 360))))
        if wear.on:
            out.append((j.name, wear))
    return out


def _finish(plan: _Plan, results: list[CaseResult]) -> CaseResult:
    """The case's result from its one run: the loop's probe metrics (its ``slider_accel``,
    the first measure's coordinate) give way to the measures'; a single clearance joint's
    figures are the extremes'; an ideal case's joints read zero; other starts add the start
    dependence of the first measure's settled peak."""
    from ..simulation import _spectral, crank_hz, start_dependence

    main = results[0]
    spec = plan.case.spec
    names = {m.name for m in spec.measures}
    if "slider_accel" not in names:  # the loop's own probe, not a measure of this mechanism
        main.metrics = {k: v for k, v in main.metrics.items() if "slider_accel" not in k}
    metrics, series = main.metrics, main.series
    for j in spec.clearance_joints:
        if plan.case.ideal:
            for key in _JOINT_METRICS:
                metrics[per_joint(key, j.name)] = 0
            for key in _JOINT_SERIES:
                series[per_joint(key, j.name)] = np.zeros(len(series["t"]))
    metrics.update(_film_metrics(spec, series))
    if main.ok:
        main.rotation_hz = crank_hz(plan.jobs[0])
        main.metrics.update(_spectral(plan.jobs[0], main))
    if plan.starts and main.ok:
        key = f"peak_{spec.measures[0].name}_settled"
        extra = dict(zip(plan.starts, results[1:], strict=True))
        metrics.update(start_dependence(plan.case.initial, main, extra, key=key))
    metrics["wall_time_s"] = sum(r.metrics.get("wall_time_s", 0.0) for r in results)
    return main


def _film_metrics(spec: MechanismSpec, series: Mapping[str, Any]) -> dict[str, Any]:
    """Each lubricated joint's ``max_eccentricity_ratio`` and ``min_film_thickness`` from its
    eccentricity on the output grid, named per joint, the unsuffixed ones the extremes over
    the joints (design.md 4.15). The film's dissipated energy per joint comes from the solver
    (one quadrature per joint, :func:`core.solver._film_energies`)."""
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
    return out


_CHOICES = ("contact_law", "friction_law", "stiffness_model", "lubrication", "integrator",
            "initial", "event_location", "stabilization", "starts")
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
        elif key in ("n_output", "max_revolutions", "transient_revolutions"):
            out[name] = "int"
        else:
            out[name] = "float"
    return out
