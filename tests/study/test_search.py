"""Adaptive studies through the core directly (no workers): the optimizer's replay, its
determinism, the exact-answer objective, and what a failed case costs."""

from __future__ import annotations

import math

import pytest
from gapsweep.core.api import run_case
from gapsweep.study.adaptive import advance
from gapsweep.study.designs import plan_study
from gapsweep.study.search_run import run_search
from gapsweep.study.spec import parse_spec

IDEAL = {"ideal": True, "gravity": 0.0, "t_end": 0.024, "n_output": 241}
BOUNDS = {"start": 3000.0, "stop": 6000.0}  # t_end covers >= 1.2 revolutions at 3000 rpm


def target_spec(target: float, *, budget: int = 60, seed: int = 1):
    return parse_spec({
        "name": "speed for a target peak", "design": "optimize", "base": IDEAL,
        "axes": {"speed_rpm": BOUNDS}, "budget": budget, "seed": seed,
        "objective": {"metric": "peak_slider_accel", "goal": "target", "value": target},
    })


def test_speed_for_a_target_peak_of_the_ideal_mechanism():
    """Ideal joints, no gravity, constant crank speed: the slider's acceleration is
    omega² times a function of the crank angle, so its peak over a run of at least one
    revolution is exactly proportional to speed². The speed that gives the peak of 5000 rpm
    scaled by (4321/5000)² is 4321 rpm; the search must find it to 0.3 %."""
    peak_5000 = run_case("slider-crank", {**IDEAL, "speed_rpm": 5000.0}).metrics[
        "peak_slider_accel"]
    expected = 4321.0
    run = run_search(target_spec(peak_5000 * (expected / 5000.0) ** 2), threads=1)
    found = run.best["params"]["speed_rpm"]
    assert abs(found - expected) / expected < 0.003
    assert len(run.cases) <= 60
    # the cost history is the best so far: never increasing
    history = run.last.state["best_cost"]
    assert all(b <= a for a, b in zip(history, history[1:], strict=False))
    assert run.last.finished


def _fake_cases(spec, n_generations: int, cost) -> list[dict]:
    """Run the replay for ``n_generations`` with an analytic cost instead of the solver."""
    cases: list[dict] = []
    for _ in range(n_generations):
        step = advance(spec, cases)
        if not step.new_cases:
            break
        cases += [{"params": p, "status": "done", "reason": None,
                   "metrics": {"peak_slider_accel": cost(p["speed_rpm"])}} for p in step.new_cases]
    return cases


def quadratic(speed: float) -> float:
    return 1e-3 * speed**2


def test_same_seed_same_cases_and_a_restart_resumes_where_it_stopped():
    spec = target_spec(quadratic(4321.0), budget=100, seed=5)
    whole = _fake_cases(spec, 50, quadratic)
    again = _fake_cases(spec, 50, quadratic)
    assert [c["params"] for c in whole] == [c["params"] for c in again]
    assert len(whole) == 100  # the budget, spent whole (10 generations of 10)
    other = _fake_cases(target_spec(quadratic(4321.0), budget=100, seed=6), 50, quadratic)
    assert [c["params"] for c in other] != [c["params"] for c in whole]
    # "killed" after 3 generations, plus half of the 4th generation's cases stored: the
    # next step from the stored cases waits for that generation, then asks for the 5th
    # generation an undisturbed run asked for
    prefix = whole[:30] + [{**c, "status": "running", "metrics": {}} for c in whole[30:40]]
    assert advance(spec, prefix).waiting and not advance(spec, prefix).new_cases
    step = advance(spec, whole[:40])
    assert step.new_cases == [c["params"] for c in whole[40:50]]
    assert plan_study(spec).cases == [c["params"] for c in whole[:10]]


def test_a_failed_case_is_infeasible_a_lost_one_waits_for_retry():
    spec = target_spec(quadratic(4321.0), budget=100, seed=5)
    whole = _fake_cases(spec, 2, quadratic)
    solver_failed = [dict(c) for c in whole[:10]]
    solver_failed[3] = {**solver_failed[3], "status": "failed", "metrics": {},
                        "reason": "penetration exceeded the bound"}
    step = advance(spec, solver_failed)
    assert len(step.new_cases) == 10  # inf cost: the search goes on
    lost = [dict(c) for c in whole[:10]]
    lost[3] = {**lost[3], "status": "failed", "metrics": {},
               "reason": "lease expired 3 times (worker lost)"}
    step = advance(spec, lost)
    assert step.waiting and not step.new_cases and not step.finished


@pytest.mark.parametrize("goal,expected", [("min", 3000.0), ("max", 6000.0)])
def test_min_and_max_goals_go_to_the_bounds_of_a_monotone_metric(goal, expected):
    spec = parse_spec({
        "name": "m", "design": "optimize", "base": IDEAL, "axes": {"speed_rpm": BOUNDS},
        "budget": 40, "seed": 2, "objective": {"metric": "peak_slider_accel", "goal": goal}})
    cases = _fake_cases(spec, 10, quadratic)
    best = advance(spec, cases).state["best"]["params"]["speed_rpm"]
    assert math.isclose(best, expected, rel_tol=0.02)
