"""An adaptive study run in this process, straight through the core: generation after
generation of :func:`gapsweep.core.api.run_cases`, the same :func:`.adaptive.advance` the
workers' driver uses (:mod:`gapsweep.workers.search`). For tests and benchmarks, where the
workers are not the point; the cases and their costs are the ones a study would store."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .adaptive import Advance, advance
from .calibration import case_calibration_metrics, target_record
from .schema import StudySpec


@dataclass
class SearchRun:
    """Every case run (``{"params", "status", "reason", "metrics"}``, index order) and the
    search's last step (its ``state``: best, history, generation ...)."""

    cases: list[dict[str, Any]]
    last: Advance

    @property
    def best(self) -> dict[str, Any] | None:
        best = self.last.state.get("best")
        return None if best is None else self.cases[best["index"]]


def run_search(
    spec: StudySpec,
    *,
    threads: int | None = None,
    on_generation: Callable[[Advance], None] | None = None,
) -> SearchRun:
    """Run the adaptive ``spec`` to its end in this process."""
    from gapsweep.core.api import run_cases

    record = None
    if spec.design == "calibrate":
        record = target_record(spec)
    cases: list[dict[str, Any]] = []
    while True:
        step = advance(spec, cases)
        if on_generation is not None:
            on_generation(step)
        if not step.new_cases:
            return SearchRun(cases, step)
        for params, result in zip(step.new_cases, run_cases(spec.model, step.new_cases,
                                                            threads=threads), strict=True):
            cases.append(case_entry(spec, record, params, result))


def case_entry(spec: StudySpec, record: Any, params: dict, result: Any) -> dict[str, Any]:
    """A solved case as the replay reads it (calibration metrics added for a calibration)."""
    metrics = dict(result.metrics)
    if result.ok and record is not None:
        metrics.update(case_calibration_metrics(spec, record, result))
    return {"params": params, "status": "done" if result.ok else "failed",
            "reason": result.reason, "metrics": metrics}
