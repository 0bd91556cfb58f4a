"""A calibration study's stages (design.md 4.9): the staged search of
:mod:`.calibration_cost` as :class:`~.search.Stage` planners for :mod:`.adaptive`.

Stage k searches :data:`gapsweep.study.calibration_cost.STAGES` [k]'s cost in a box of
``box_fraction`` of the study's box per axis, centred on the best case of stage k-1 (by
that stage's cost, clipped to the study's box) and seeded with it; its budget is its
``budget_fraction`` of the study's. Everything a stage needs is in the stored cases of the
stages before it, so the replay rebuilds it exactly.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gapsweep.core.api import get_model

from .calibration_cost import STAGES, CostStage, calibration_metrics
from .measurements import Measurement, parse_measurement
from .schema import StudySpec
from .search import Stage, StageResult
from .search_box import axis_bounds, integer_axes
from .search_rules import DEFAULT_FIT_SERIES
from .signal_match import crank_deg_to_time


def _planner(k: int, cost: CostStage):
    def plan(spec: StudySpec, before: list[tuple[Stage, StageResult, list]]) -> Stage:
        box = axis_bounds(spec)
        budget = max(10, int(spec.budget * cost.budget_fraction))
        seed = int(spec.seed or 0) + k
        if not before or before[-1][1].best_index is None:
            return Stage(tuple(box), cost.metric, budget, seed, integer_axes(spec))
        prev_stage, prev, prev_cases = before[-1]
        centre = [float(prev_cases[prev.best_index]["params"][n]) for n in spec.axes]
        bounds = []
        for (lo, hi), c in zip(box, centre, strict=True):
            half = 0.5 * cost.box_fraction * (hi - lo)
            a, b = max(lo, c - half), min(hi, c + half)
            bounds.append((a, b) if b > a else (lo, hi))
        return Stage(tuple(bounds), cost.metric, budget, seed, integer_axes(spec),
                     start=tuple(centre))

    return plan


CALIBRATION_STAGES = tuple(_planner(k, cost) for k, cost in enumerate(STAGES))
#: what the best case of a calibration is the least of
BEST_METRIC = STAGES[-1].metric


def best_case_index(cases: list[dict[str, Any]]) -> int | None:
    """The done case with the least last-stage cost (:data:`BEST_METRIC`: the mean relative
    RMS error over the record's first impacts and the whole record - where the whole record
    is chaotic, the first impacts still tell the cases apart)."""
    best, best_cost = None, float("inf")
    for i, c in enumerate(cases):
        value = (c.get("metrics") or {}).get(BEST_METRIC) if c.get("status") == "done" else None
        if isinstance(value, (int, float)) and value < best_cost:
            best, best_cost = i, float(value)
    return best


def target_record(spec: StudySpec, stored: dict[str, Any] | None = None):
    """The measurement a calibration fits: its embedded CSV, or ``stored`` (the JSON of
    the stored measurement its ``id`` names, read by the caller)."""
    if spec.measurement is not None and spec.measurement.csv is not None:
        return parse_measurement(spec.measurement.csv, model=spec.model)
    if stored is None:
        raise LookupError(f"measurement {spec.measurement.id if spec.measurement else None}"
                          " is not stored")
    return Measurement.from_json(stored)


def case_calibration_metrics(spec: StudySpec, record: Any, result: Any) -> dict[str, float]:
    """The calibration metrics (:func:`.calibration_cost.calibration_metrics`) of
    a solved case against ``record``, on the series the study fits."""
    name = spec.fit_series or DEFAULT_FIT_SERIES
    t_meas = np.asarray(record.time, dtype=float)
    if record.time_base == "crank_deg":
        speed = float(get_model(spec.model).parse(result.params).speed_rpm)
        t_meas = crank_deg_to_time(t_meas, speed)
    return calibration_metrics(result.series["t"], result.series[name], t_meas,
                               record.series[name])
