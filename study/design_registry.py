"""The design registry: every study design, once (built like the metric registry).

Each :class:`Design` says what a design is: how it plans its cases (``plan``: spec ->
(cases, design matrix)), how many it makes (``count``), how its results are analysed
(``analyse``), whether it draws samples within the axes' bounds (``samples``) or chooses
its cases as the study runs (``adaptive``), which top-level fields it reads, its help text
in the form, and its trends' defaults (``trends``: lines per level, a panel per factor, or
scattered samples). The lists other layers need are derived from it - the schema's design
names, the sampling and adaptive designs, the form's design list and help, the trends'
layout - so a new design is one :class:`Design` line in :data:`REGISTRY`.

The callables are named here as ``"module:function"`` of this package and imported on first
use: the schema at the bottom of the study package's chain (schema <- design_rules <- checks
<- spec <- designs <- analysis) reads the names without importing the designs.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

#: the design a study file or the form means when it names none (design.md 4.2)
DEFAULT_DESIGN = "grid"

# how the trends tab draws a design's cases (web/figures/trends.py)
TREND_LINES = "lines"  # the metric against one axis, one line per level of a second
TREND_PANELS = "panels"  # a panel per factor, the others at their nominal
TREND_SCATTER = "scatter"  # every case against one factor, coloured by a second


@dataclass(frozen=True)
class Design:
    """One design.

    ``plan``, ``count``, ``analyse``: ``"module:function"`` of this package (see the module
    doc), called through :meth:`make_plan`, :meth:`case_count`, :meth:`analysis`
    (``analyse`` None: nothing beyond the trends, or an analysis on request);
    ``samples``: draws within the axes' bounds (the axes may be bounds without a count);
    ``adaptive``: cases chosen as the study runs (design.md 4.9); ``fields``: the top-level
    spec fields it reads beyond the common ones; ``help``/``axes_help``/``samples_help``:
    the form's words; ``trends``: :data:`TREND_LINES`, :data:`TREND_PANELS` or
    :data:`TREND_SCATTER`; ``in_form``: offered by the new-study form."""

    name: str
    plan: str
    count: str
    analyse: str | None
    help: str
    axes_help: str
    samples: bool = False
    adaptive: bool = False
    fields: tuple[str, ...] = ()
    samples_help: str = ""
    trends: str = TREND_LINES
    in_form: bool = True

    def _get(self, ref: str) -> Callable[..., Any]:
        module, _, attr = ref.partition(":")
        return getattr(importlib.import_module(f".{module}", __package__), attr)

    def make_plan(self, spec: Any) -> Any:
        """``(cases, design matrix or None)`` of a validated spec."""
        return self._get(self.plan)(spec)

    def case_count(self, spec: Any) -> int:
        """The cases it makes (ideal twins not counted; an adaptive design's at most)."""
        return int(self._get(self.count)(spec))

    def analysis(self, spec: Any, plan: Any, rows: Any) -> dict[str, Any]:
        """Its analysis of the cases' metric rows (JSON-ready; ``{}`` for none)."""
        return {} if self.analyse is None else self._get(self.analyse)(spec, plan, rows)


_BOUNDS = "Axes (the bounds the samples are drawn within)"
_SAMPLED = ("samples", "seed")

_ENTRIES: tuple[Design, ...] = (
    Design("grid", "designs:grid_cases", "design_rules:grid_count", None,
           "every combination of the axes' levels, the first axis outermost",
           "Axes (every combination; the first is the outermost loop)"),
    Design("one-at-a-time", "designs:one_at_a_time_cases", "design_rules:one_at_a_time_count",
           "analysis:one_at_a_time_analysis",
           "the nominal case, then each axis moved alone to each of its other levels "
           "(1 + Σ(levels − 1) cases); each axis needs its nominal",
           "Axes (each moved alone from its nominal)", trends=TREND_PANELS),
    Design("latin-hypercube", "designs:latin_hypercube_cases", "design_rules:samples_count",
           "analysis:lhs_analysis",
           "Samples cases drawn within each axis's bounds (start-stop, or nominal ± %), one "
           "per stratum of every axis", _BOUNDS, samples=True, fields=_SAMPLED,
           samples_help="the number of cases (one per sample)", trends=TREND_SCATTER),
    Design("sobol", "designs:sobol_cases", "design_rules:sobol_count", "analysis:sobol_analysis",
           "Saltelli's Sobol' sampling within each axis's bounds: Samples × (2 × axes + 2) "
           "cases, for first, total and second-order indices", _BOUNDS, samples=True,
           fields=_SAMPLED,
           samples_help="the base count N: the study runs N × (2 × axes + 2) cases",
           trends=TREND_SCATTER),
    Design("morris", "designs:morris_cases", "design_rules:morris_count",
           "analysis:morris_analysis",
           "Morris elementary effects within each axis's bounds: Samples × (axes + 1) cases "
           "on a grid of Morris levels", "Axes (the bounds the trajectories move within)",
           samples=True, fields=(*_SAMPLED, "morris_levels"),
           samples_help="the number of trajectories N: the study runs N × (axes + 1) cases",
           trends=TREND_SCATTER),
    Design("convergence", "designs:convergence_cases", "design_rules:convergence_count",
           "analysis:convergence_analysis",
           "one refinement axis (rtol, stiffness_scale, elements, dt ...) and the metric "
           "judged: the observed order and a verdict",
           "Axis (the one refinement, coarse to fine)", fields=("metric",)),
    # drawn from distributions, not within bounds: not a sampling design of the schema's
    # rules, but its trends scatter as theirs do; its analysis is on request
    # (study/variation.py: it takes a metric and a limit)
    Design("monte-carlo", "variation_design:monte_carlo", "design_rules:samples_count", None,
           "a variation study: Samples cases, each axis drawn from its distribution (normal "
           "with 3σ, uniform, or an ISO 286 fit on a clearance axis), seeded",
           "Axes (each a distribution: normal (3σ), uniform or ISO 286 fit)",
           fields=_SAMPLED, samples_help="the number of cases (one per draw)",
           trends=TREND_SCATTER),
    # adaptive: the plan is the first generation; the rest follow as the study runs
    Design("optimize", "designs:adaptive_cases", "design_rules:budget_count", None,
           "a search: cases chosen generation by generation within the axes' bounds "
           "(start-stop) to minimise, maximise or reach a target of the objective metric, "
           "at most Budget cases, seeded",
           "Axes (the search box: start-stop bounds)", adaptive=True,
           fields=("seed", "objective", "budget"), trends=TREND_SCATTER),
    Design("calibrate", "designs:adaptive_cases", "design_rules:budget_count", None,
           "a fit to a measurement: cases chosen generation by generation within the axes' "
           "bounds to minimise the RMS difference between a case's series and the measured "
           "one, at most Budget cases, seeded",
           "Axes (the parameters fitted: start-stop bounds)", adaptive=True,
           fields=("seed", "budget", "measurement", "fit_series"), trends=TREND_SCATTER),
)

#: design name -> its entry, in the order the form lists them
REGISTRY: dict[str, Design] = {d.name: d for d in _ENTRIES}
if len(REGISTRY) != len(_ENTRIES):  # pragma: no cover - a duplicated name is a typo
    raise ValueError("a design is registered twice")

NAMES: tuple[str, ...] = tuple(REGISTRY)
#: designs that draw within the axes' bounds (SALib's and the Latin hypercube)
SAMPLING_DESIGNS: tuple[str, ...] = tuple(d.name for d in _ENTRIES if d.samples)
#: designs whose cases are chosen as the study runs (design.md 4.9)
ADAPTIVE_DESIGNS: tuple[str, ...] = tuple(d.name for d in _ENTRIES if d.adaptive)
#: the designs the new-study form offers
FORM_DESIGNS: tuple[str, ...] = tuple(d.name for d in _ENTRIES if d.in_form)
#: designs whose trends scatter the cases (no two share a level)
SCATTERED_DESIGNS: tuple[str, ...] = tuple(d.name for d in _ENTRIES
                                           if d.trends == TREND_SCATTER)


def get_design(name: str | None) -> Design:
    """The entry of ``name`` (the default design's for None or a name nothing knows: a page
    shows a study whatever its spec says)."""
    return REGISTRY.get(name or DEFAULT_DESIGN) or REGISTRY[DEFAULT_DESIGN]


def uses(design: str | None, field: str) -> bool:
    """Whether ``design`` reads top-level ``field`` (``samples``, ``seed``, ``metric`` ...)."""
    return field in get_design(design).fields
