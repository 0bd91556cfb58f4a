"""Adaptive studies (``optimize``, ``calibrate``): which cases to run next, from the costs of
the cases run so far - and nothing else (design.md 4.9).

The optimizer is scipy's :func:`~scipy.optimize.differential_evolution`, chosen because
three of its properties make the database the optimizer's whole state:

- it is deterministic for a seed (its random stream is drawn in the same order every run);
- with ``updating="deferred"`` it evaluates one whole generation (the initial population,
  then each generation's trial vectors) per call of its map-like ``workers`` argument - a
  generation is exactly one batch of cases for the workers;
- it needs nothing but the costs: no gradients, no state beyond the population, which it
  rebuilds from the costs.

So :func:`replay` runs it from the start with a ``workers`` map that answers each
evaluation with the stored cost of the case at that position; at the first generation with
no stored costs it stops and returns that generation's parameter vectors (the cases to
create). A process killed anywhere costs nothing: the next :func:`replay`, in any process,
rebuilds the same population from the same costs and asks for the same cases (the replay
also checks that the stored cases are the ones it asks for). CMA-ES (``cma``, ``pycma``)
would do as well but adds a dependency for no gain on 1-4 bounded parameters; a Bayesian
optimizer's state (a Gaussian process refitted each step) is neither cheap to replay nor
exactly reproducible across BLAS builds.

A **stage** is one such search over a box with its own cost metric and case budget;
``calibrate`` runs three stages (:mod:`.calibration_cost` says why), ``optimize`` one.
Stage k+1's box and cases depend only on stage k's stored results, so the replay covers
them too.
Failed cases cost ``inf`` (an infeasible point; DE's selection simply never keeps it).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

#: the population: this many members per parameter, at least 5 (scipy's own minimum)
MEMBERS_PER_PARAMETER = 5
MIN_POPULATION = 10


@dataclass(frozen=True)
class Stage:
    """One DE search: ``bounds`` per parameter (parameter units), the stored metric it
    minimises (``cost_metric``), its case ``budget`` and its ``seed``."""

    bounds: tuple[tuple[float, float], ...]
    cost_metric: str
    budget: int
    seed: int
    #: per parameter: integer-valued (the case holds the rounded value)
    integer: tuple[bool, ...] = ()
    #: a point the initial population starts from (replaces its first member)
    start: tuple[float, ...] | None = None
    #: members per parameter (None: :data:`MEMBERS_PER_PARAMETER`)
    members: int | None = None

    @property
    def population(self) -> int:
        return population_size(len(self.bounds), self.budget, self.members)

    @property
    def generations(self) -> int:
        """Generations after the initial population the budget pays for."""
        return max(0, self.budget // self.population - 1)

    @property
    def cases(self) -> int:
        return self.population * (self.generations + 1)


def population_size(d: int, budget: int, members: int | None = None) -> int:
    """DE's population for ``d`` parameters within ``budget`` cases (at least 2 generations
    when the budget allows)."""
    n = max(MIN_POPULATION, (members or MEMBERS_PER_PARAMETER) * d)
    return max(5, min(n, budget // 2))


class NeedCases(Exception):  # noqa: N818 - a signal that stops the replay, not an error
    """The replay reached a generation with no stored costs: ``vectors`` are its cases."""

    def __init__(self, vectors: list[np.ndarray]) -> None:
        super().__init__(f"{len(vectors)} cases to run")
        self.vectors = vectors


class SearchConflictError(RuntimeError):
    """A stored case is not the one the replay asks for (the seed, bounds or the code's
    optimizer changed since the study started)."""


@dataclass
class StageResult:
    """What a stage's replay found: ``next_vectors`` (the generation to create, or None when
    the stage is complete), ``generation`` (complete generations, initial population = 0),
    ``best_index`` (into the stage's evaluations) and ``best_cost``, ``history`` (best cost
    after each complete generation), and each generation's best vector (``trace``)."""

    next_vectors: list[np.ndarray] | None
    generation: int
    best_index: int | None
    best_cost: float
    history: list[float] = field(default_factory=list)
    trace: list[list[float]] = field(default_factory=list)
    used: int = 0  # stored evaluations the stage consumed


class _StoredMap:
    """DE's ``workers``: answers a generation from ``costs`` (checking ``vectors``), or stops
    the run with :class:`NeedCases` at the first generation beyond them."""

    def __init__(self, vectors: Sequence[Sequence[float]], costs: Sequence[float],
                 integer: Sequence[bool] = ()) -> None:
        self.vectors, self.costs, self.used = vectors, costs, 0
        self.integer = np.array(integer, dtype=bool) if len(integer) else None
        self.generations: list[tuple[int, int]] = []  # (start, stop) of each batch

    def __call__(self, func: Callable, iterable: Any) -> list[float]:
        xs = [np.array(x, dtype=float) for x in iterable]
        lo, hi = self.used, self.used + len(xs)
        if hi > len(self.costs):  # not stored, or not all of it done yet
            raise NeedCases(xs)
        for k, x in enumerate(xs):
            stored = np.asarray(self.vectors[lo + k], dtype=float)
            if self.integer is not None:
                x = np.where(self.integer, np.round(x), x)
            if not np.allclose(stored, x, rtol=1e-12, atol=0.0):
                raise SearchConflictError(
                    f"case {lo + k} is {stored.tolist()}, the replay asks for {x.tolist()}")
        self.used = hi
        self.generations.append((lo, hi))
        return [c if math.isfinite(c) else math.inf for c in self.costs[lo:hi]]


def replay(
    stage: Stage, vectors: Sequence[Sequence[float]], costs: Sequence[float]
) -> StageResult:
    """Run the stage's DE from its start over the stored evaluations (``vectors`` [i]: the
    parameter vector of the stage's i-th case, ``costs`` [i]: its cost, inf if it failed)."""
    from scipy.optimize import differential_evolution

    mapper = _StoredMap(vectors, costs, stage.integer)
    kwargs = dict(
        strategy="best1bin", maxiter=stage.generations,
        popsize=1, tol=0.0, atol=0.0, polish=False, init="latinhypercube",
        updating="deferred", workers=mapper,
    )
    # popsize is a multiplier of the parameter count in scipy; an explicit initial
    # population of the chosen size is drawn by scipy's own Latin hypercube instead
    kwargs["init"] = _lhs(stage)
    pending = None
    try:
        try:
            differential_evolution(_never_called, stage.bounds, rng=stage.seed, **kwargs)
        except TypeError:  # scipy < 1.15 names it seed
            differential_evolution(_never_called, stage.bounds, seed=stage.seed, **kwargs)
    except NeedCases as need:
        pending = need.vectors
    return _summary(stage, mapper, vectors, costs, pending)


def _never_called(x: np.ndarray) -> float:  # pragma: no cover - the map answers instead
    raise AssertionError("the stored map evaluates every case")


def _lhs(stage: Stage) -> np.ndarray:
    """The initial population: a seeded Latin hypercube of ``stage.population`` points."""
    from scipy.stats import qmc

    d = len(stage.bounds)
    try:
        sampler = qmc.LatinHypercube(d, rng=stage.seed)
    except TypeError:
        sampler = qmc.LatinHypercube(d, seed=stage.seed)
    lo, hi = np.array(stage.bounds, dtype=float).T
    population = lo + sampler.random(stage.population) * (hi - lo)
    if stage.start is not None:
        population[0] = np.clip(stage.start, lo, hi)
    return population


def _summary(stage, mapper, vectors, costs, pending) -> StageResult:
    history, trace = [], []
    best_index, best_cost = None, math.inf
    for start, stop in mapper.generations:
        for i in range(start, stop):
            if costs[i] < best_cost:  # strict: the first of equal costs stays best
                best_index, best_cost = i, float(costs[i])
        history.append(best_cost)
        trace.append([float(v) for v in vectors[best_index]] if best_index is not None else [])
    return StageResult(pending, len(mapper.generations), best_index, best_cost, history, trace,
                       mapper.used)
