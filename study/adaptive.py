"""An adaptive study's next step, from its spec and its cases so far (design.md 4.9).

:func:`advance` reads the study's design cases in index order (each ``{"params", "status",
"metrics"}``) and answers with the cases to create next (one generation), or that the search
is finished, or that it waits (a case still queued or running, or lost to a crash: a retry
decides its cost). Pure: the rows, the queue and the lock are :mod:`gapsweep.workers.search`'s.

Costs, per case:

- ``optimize``: the objective's metric ``m``: ``m`` (goal min), ``-m`` (max), or
  ``|m - value| / |value|`` (target; ``|m - value|`` for a target of 0);
- ``calibrate``: the metrics :mod:`.calibration_cost` adds to each case (the
  worker computes them against the study's measurement), one per stage.

A case the solver failed (a deterministic verdict) costs ``inf``: an infeasible point the
search moves away from. A case that failed by a crash (its attempts used up) has no cost yet
- the search waits for ``retry`` rather than read a machine's failure as the model's.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .calibration import BEST_METRIC, CALIBRATION_STAGES, best_case_index
from .schema import StudySpec
from .search import Stage, StageResult, replay
from .search_box import axis_bounds, case_params, integer_axes

#: the reasons db/leases.py gives a case a machine lost (not the solver's verdict)
CRASH_REASONS = ("worker error", "lease expired")


@dataclass(frozen=True)
class Advance:
    """What to do now. ``new_cases``: params of the generation to create (empty: none);
    ``finished``: the search is over; ``waiting``: cases are still running or lost;
    ``state``: the summary stored on the study (generation, best, history ...)."""

    new_cases: list[dict[str, Any]]
    finished: bool
    waiting: bool
    state: dict[str, Any] = field(default_factory=dict)


def objective_cost(spec: StudySpec, metrics: Mapping[str, Any]) -> float:
    """The optimize cost of a case's metrics (inf when the metric is missing or not finite)."""
    obj = spec.objective
    value = metrics.get(obj.metric)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return math.inf
    if obj.goal == "min":
        return float(value)
    if obj.goal == "max":
        return -float(value)
    scale = abs(obj.value) or 1.0
    return abs(float(value) - obj.value) / scale


def stages_of(spec: StudySpec) -> list[Any]:
    """The stage planners of the design: each maps (spec, results of the stages before) to
    its :class:`Stage`."""
    if spec.design == "calibrate":
        return list(CALIBRATION_STAGES)
    return [_optimize_stage]


def _optimize_stage(spec: StudySpec, before: list[tuple[Stage, StageResult, list]]) -> Stage:
    return Stage(tuple(axis_bounds(spec)), "objective", int(spec.budget), int(spec.seed or 0),
                 integer_axes(spec))



def case_cost(spec: StudySpec, stage: Stage, case: Mapping[str, Any]) -> float | None:
    """The cost of a case for ``stage``; None while it has none (queued, running, lost)."""
    status = case.get("status")
    if status == "done":
        metrics = case.get("metrics") or {}
        if stage.cost_metric == "objective":
            return objective_cost(spec, metrics)
        value = metrics.get(stage.cost_metric)
        return float(value) if isinstance(value, (int, float)) and math.isfinite(value) \
            else math.inf
    if status == "failed" and not str(case.get("reason") or "").startswith(CRASH_REASONS):
        return math.inf
    return None


def advance(spec: StudySpec, cases: Sequence[Mapping[str, Any]]) -> Advance:
    """The next step of the search over the stored ``cases`` (design cases, index order)."""
    names = list(spec.axes)
    vectors = [[float((c.get("params") or {})[n]) for n in names] for c in cases]
    done_stages: list[tuple[Stage, StageResult, list]] = []
    offset = 0
    state: dict[str, Any] = {"design": spec.design, "budget": spec.budget, "axes": names,
                             "stages": [], "history": []}
    for planner in stages_of(spec):
        stage = planner(spec, done_stages)
        mine = cases[offset:]
        costs: list[float] = []
        for c in mine:
            cost = case_cost(spec, stage, c)
            if cost is None:
                break
            costs.append(cost)
        # a generation is answered whole or not at all: replay over the complete prefix
        result = replay(stage, vectors[offset:offset + len(costs)], costs)
        state["stages"].append(_stage_state(stage, result, offset))
        for g, (best, x) in enumerate(zip(result.history, result.trace, strict=True)):
            state["history"].append({"stage": len(done_stages), "generation": g,
                                     "best_cost": best, "best_params": dict(zip(names, x,
                                                                                strict=True))})
        if result.next_vectors is not None:
            if len(mine) > result.used:  # the generation asked for exists: its cases run
                return Advance([], False, True, _finish_state(state, spec, cases, False))
            params = [case_params(spec, x) for x in result.next_vectors]
            if len(cases) + len(params) > spec.budget:  # never past the budget
                break
            return Advance(params, False, False, _finish_state(state, spec, cases, False))
        done_stages.append((stage, result, list(cases[offset:offset + result.used])))
        offset += result.used
    return Advance([], True, False, _finish_state(state, spec, cases, True))


def _stage_state(stage: Stage, result: StageResult, offset: int) -> dict[str, Any]:
    return {"cost_metric": stage.cost_metric, "bounds": [list(b) for b in stage.bounds],
            "budget": stage.budget, "population": stage.population, "first_index": offset,
            "generations": result.generation, "best_index": None if result.best_index is None
            else offset + result.best_index, "best_cost": result.best_cost}


def _finish_state(state: dict[str, Any], spec: StudySpec, cases, finished: bool) -> dict:
    last = next((s for s in reversed(state["stages"]) if s["best_index"] is not None), None)
    if spec.design == "calibrate" and last is not None:
        index = best_case_index(list(cases))
        if index is not None:
            cost = cases[index]["metrics"][BEST_METRIC]
            last = {"best_index": index, "best_cost": cost, "cost_metric": BEST_METRIC}
    state["generation"] = sum(s["generations"] for s in state["stages"])
    state["generations"] = planned_generations(spec)
    state["stage"] = len(state["stages"]) - 1
    state["cases"] = len(cases)
    state["finished"] = finished
    state["best"] = None if last is None else {
        "index": last["best_index"], "cost": last["best_cost"],
        "cost_metric": last["cost_metric"],
        "params": dict(cases[last["best_index"]].get("params") or {})}
    state["best_cost"] = [h["best_cost"] for h in state["history"]]
    return _finite(state)


def planned_generations(spec: StudySpec) -> int:
    """The generations the search runs to its end: each stage's initial population and the
    generations its budget pays for, stopping where the next would pass the study's budget
    (the stopping rule of :func:`advance`). A stage's population and budget depend on the
    spec alone (its box, not its size, on the stages before), so the count is known at the
    start."""
    total_cases, generations = 0, 0
    for planner in stages_of(spec):
        stage = planner(spec, [])
        for _ in range(stage.generations + 1):
            if total_cases + stage.population > spec.budget:
                return generations
            total_cases += stage.population
            generations += 1
    return generations


def _finite(value: Any) -> Any:
    """inf/NaN -> None (JSON has neither)."""
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    if isinstance(value, (float, np.floating)) and not math.isfinite(value):
        return None
    return value


def first_generation(spec: StudySpec) -> list[dict[str, Any]]:
    """The cases an adaptive study starts with (its first stage's initial population)."""
    return advance(spec, []).new_cases
