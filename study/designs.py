"""Designs: a validated spec -> the list of cases to run (and their ideal twins).

Each design's plan is a function ``spec -> (cases, design matrix)`` named by its entry in the
design registry (:mod:`.design_registry`, which also counts and analyses).
Every design is deterministic (sampling designs draw from ``seed``, 0 when unset), so a
plan can be rebuilt from the stored spec. A case's ``params`` are the base overrides, then
its axis values, in the spec's order (design.md 4.5).
"""

from __future__ import annotations

import contextlib
import itertools
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from .adaptive import first_generation
from .design_registry import ADAPTIVE_DESIGNS, get_design
from .design_registry import REGISTRY as DESIGN_REGISTRY
from .design_rules import count_cases, max_cases
from .errors import FieldError, SpecError
from .mechanism import parsed
from .spec import StudySpec, typed
from .twins import twin_key, twin_params


@dataclass(frozen=True)
class StudyPlan:
    """The cases of a study, in run order.

    ``cases``: params of each case. ``twins``: params of each distinct ideal twin
    (``"ideal": True``). ``twin_of``: per case, its twin's index in ``twins`` (None without
    one). ``design_matrix``: for sampling designs, the sample matrix (one row per case, one
    column per axis, parameter units, before integer parameters are rounded) that the
    analyses read; None for the other designs.
    """

    cases: list[dict[str, Any]]
    twins: list[dict[str, Any]]
    twin_of: list[int | None]
    design_matrix: list[list[float]] | None = None


Cases = tuple[list[dict[str, Any]], np.ndarray | None]


def _grid(spec: StudySpec) -> Cases:
    names = list(spec.axes)
    combos = itertools.product(*(spec.levels(n) for n in names))  # first axis outermost
    return [{**spec.base, **dict(zip(names, c, strict=True))} for c in combos], None


def _one_at_a_time(spec: StudySpec) -> Cases:
    kinds = spec.param_kinds()
    nominal = {n: typed(kinds[n], a.nominal_level()) for n, a in spec.axes.items()}
    cases = [{**spec.base, **nominal}]
    for name in spec.axes:
        levels = spec.levels(name)
        levels.remove(nominal[name])  # one occurrence: that case is the nominal one
        cases += [{**spec.base, **nominal, name: v} for v in levels]
    return cases, None


def _convergence(spec: StudySpec) -> Cases:
    (name,) = spec.axes
    return [{**spec.base, name: v} for v in spec.levels(name)], None  # coarse to fine


def problem(spec: StudySpec) -> dict[str, Any]:
    """SALib's problem dict of a sampling spec: axis names and (lower, upper) bounds."""
    bounds = [list(a.bounds()) for a in spec.axes.values()]
    return {"num_vars": len(bounds), "names": list(spec.axes), "bounds": bounds}


def lhs_matrix(bounds: list[list[float]], n: int, seed: int) -> np.ndarray:
    """``n`` Latin-hypercube samples within ``bounds`` (one stratum per sample per axis)."""
    d = len(bounds)
    try:
        sampler = qmc_lhs(d, rng=seed)
    except TypeError:  # scipy < 1.15 names it seed
        sampler = qmc_lhs(d, seed=seed)
    lo, hi = np.array(bounds, dtype=float).T
    return lo + sampler.random(n) * (hi - lo)


def qmc_lhs(d: int, **kw: Any) -> Any:
    from scipy.stats import qmc

    return qmc.LatinHypercube(d, **kw)


def sobol_matrix(bounds: list[list[float]], n: int, seed: int) -> np.ndarray:
    """Saltelli's N(2D+2) samples (second order on) through SALib."""
    from SALib.sample import sobol

    prob = {"num_vars": len(bounds), "names": [f"x{i}" for i in range(len(bounds))],
            "bounds": bounds}
    with warnings.catch_warnings():  # N not a power of 2 only weakens convergence
        warnings.simplefilter("ignore")
        return sobol.sample(prob, n, calc_second_order=True, seed=seed)


def morris_matrix(bounds: list[list[float]], n: int, seed: int, levels: int) -> np.ndarray:
    """Morris's N(D+1) trajectory samples on a ``levels``-level grid through SALib."""
    from SALib.sample import morris

    prob = {"num_vars": len(bounds), "names": [f"x{i}" for i in range(len(bounds))],
            "bounds": bounds}
    return morris.sample(prob, n, num_levels=levels, seed=seed)


def _sampled(make: Callable[[StudySpec, list[list[float]], int], np.ndarray]) -> Callable:
    def design(spec: StudySpec) -> Cases:
        bounds = problem(spec)["bounds"]
        matrix = make(spec, bounds, spec.seed or 0)
        kinds = spec.param_kinds()
        names = list(spec.axes)
        cases = [
            {**spec.base, **{n: typed(kinds[n], float(x)) for n, x in zip(names, row,
                                                                          strict=True)}}
            for row in matrix
        ]
        return cases, matrix

    return design


# each design's plan, named by its entry in the design registry (study/design_registry.py)
grid_cases = _grid
one_at_a_time_cases = _one_at_a_time
latin_hypercube_cases = _sampled(lambda s, b, seed: lhs_matrix(b, s.samples, seed))
sobol_cases = _sampled(lambda s, b, seed: sobol_matrix(b, s.samples, seed))
morris_cases = _sampled(lambda s, b, seed: morris_matrix(b, s.samples, seed, s.morris_levels))
convergence_cases = _convergence


def adaptive_cases(spec: StudySpec) -> Cases:
    """An adaptive design's first generation; the rest follow as the study runs (.adaptive)."""
    return first_generation(spec), None


#: design name -> its plan (the design registry's, for callers that index by name)
DESIGNS: dict[str, Callable[[StudySpec], Cases]] = {
    name: design.make_plan for name, design in DESIGN_REGISTRY.items()}


def plan_study(spec: StudySpec) -> StudyPlan:
    """The cases (and ideal twins) of a validated spec; over the case limit -> SpecError."""
    n, limit = count_cases(spec), max_cases()
    if n > limit:
        raise SpecError([FieldError("design", n, f"at most {limit} cases (GAPSWEEP_MAX_CASES)")])
    # a mechanism study's [mechanism] table stays the study's (its spec): a case's params are
    # what varies (design.md 4.5), and the worker joins the table in when it claims the case
    # (db.case_reads.case_inputs) - not 2 kB repeated in each of 100,000 rows
    cases, matrix = get_design(spec.design).make_plan(spec)
    twins, twin_of = _twins(spec, cases)
    return StudyPlan(cases, twins, twin_of, None if matrix is None else matrix.tolist())


def _twins(spec: StudySpec, cases: list[dict[str, Any]]) -> tuple[list, list]:
    if not spec.ideal_twin or "ideal" not in spec.param_kinds() or spec.design in (
            ADAPTIVE_DESIGNS):  # an adaptive study's cases come later than its twins would
        return [], [None] * len(cases)
    twins: list[dict[str, Any]] = []
    index: dict[str, int] = {}
    twin_of: list[int | None] = []
    for params in cases:
        if params.get("ideal") is True:  # an ideal case is its own twin
            twin_of.append(None)
            continue
        twin = twin_params(params, spec.model)
        key = twin_key(twin)
        if key not in index:
            index[key] = len(twins)
            twins.append(twin)
        twin_of.append(index[key])
    return twins, twin_of


# Measured per-case solver time at the model's default t_end (2 threads, batch path);
# scaled by t_end. The flexible models integrate explicitly with microsecond steps.
CASE_SECONDS = {
    "slider-crank": (0.004, 0.024),
    "flexible-slider-crank": (2.0, 0.024),
    "cantilever": (2.0, 0.5),
    "mechanism": (0.004, 0.024),  # as the slider-crank, per two driver revolutions
}


def estimate_seconds(spec: StudySpec, n_cases: int) -> float:
    """Rough solver time [s] of ``n_cases`` cases of ``spec`` (twins included if counted)."""
    per_case, t_ref = CASE_SECONDS.get(spec.model, (1.0, 1.0))
    if spec.mechanism is not None:  # in driver revolutions: two by default
        # the spec's check parsed the table; a refused one is reported there, and one
        # without a driver has no period (it moves for its t_end)
        with contextlib.suppress(Exception):
            if "driver" in spec.mechanism:
                t_ref = 2.0 * parsed(spec.mechanism).period
        if "t_end" not in spec.axes and spec.base.get("t_end") is None:
            return float(n_cases * per_case)
    if "t_end" in spec.axes:
        t_end = float(np.mean(spec.levels("t_end")))
    else:
        from gapsweep.core.api import get_model

        defaults = get_model(spec.model).defaults()
        t_end = float(spec.base.get("t_end", defaults.get("t_end", t_ref)))
        if t_end == 0.0 and "max_revolutions" in defaults:
            # no t_end: until settled, at most max_revolutions (an upper bound: most cases
            # of the user's study settle in 10-40 revolutions)
            revs = float(spec.base.get("max_revolutions", defaults["max_revolutions"]))
            speed = (float(np.mean(spec.levels("speed_rpm"))) if "speed_rpm" in spec.axes
                     else float(spec.base.get("speed_rpm", defaults.get("speed_rpm", 5000.0))))
            t_end = revs * 60.0 / speed
    return float(n_cases * per_case * t_end / t_ref) * _wear_runs(spec)


def _wear_runs(spec: StudySpec) -> float:
    """Settled runs a case costs: ``wear_steps`` + 1 where a joint wears (design.md 4.12:
    a life is a settled run per profile update), else 1."""
    def values(suffix: str) -> list[float]:
        out = [float(v) for k, v in spec.base.items() if k.endswith(suffix)
               and isinstance(v, (int, float))]
        for k in spec.axes:
            if k.endswith(suffix):
                with contextlib.suppress(Exception):
                    out.extend(float(v) for v in spec.levels(k))
        return out

    if not any(v > 0 for v in values("wear_coefficient_m2_per_n")):
        return 1.0
    steps = values("wear_steps") or [20.0]
    return float(np.mean(steps)) + 1.0
