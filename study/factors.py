"""A study's numeric factors and one metric over its done cases, as arrays.

What the variation analysis and the response surfaces read from a study's detail (``gapsweep
show --json`` / ``GET /api/studies/<id>``): the axes whose values are numbers in every done
case (a fit axis gives its clearance), the metric's values, and the case ids, in design order.
Pure: it takes the detail mapping, never a database.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np


def _number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


@dataclass(frozen=True)
class FactorData:
    """``names``: numeric axes (spec order); ``x`` ``(n, d)`` their values in the parameters'
    units; ``y`` ``(n,)`` the metric; ``case_ids`` ``(n,)``; ``n_done``: done cases, some of
    which may lack the metric (not in ``y``)."""

    metric: str
    names: tuple[str, ...]
    x: np.ndarray
    y: np.ndarray
    case_ids: tuple[int, ...]
    n_done: int


def numeric_axes(detail: Mapping[str, Any]) -> list[str]:
    """Axes of the spec whose value is a number in every done case."""
    done = [c for c in detail.get("cases", []) if c.get("status") == "done"]
    axes = list((detail.get("spec") or {}).get("axes", {}))
    return [a for a in axes if done and all(_number(c["params"].get(a)) for c in done)]


def metric_choices(detail: Mapping[str, Any]) -> list[str]:
    """Metrics that are finite numbers in at least one done case (first case's order)."""
    seen: dict[str, None] = {}
    for c in detail.get("cases", []):
        if c.get("status") == "done":
            for k, v in (c.get("metrics") or {}).items():
                if _number(v) and k != "wall_time_s":
                    seen.setdefault(k)
    return list(seen)


def factor_data(detail: Mapping[str, Any], metric: str) -> FactorData:
    """The study's numeric factors and ``metric`` over its done cases that have it."""
    names = tuple(numeric_axes(detail))
    done = [c for c in detail.get("cases", []) if c.get("status") == "done"]
    rows = [c for c in done if _number((c.get("metrics") or {}).get(metric))]
    x = np.array([[float(c["params"][n]) for n in names] for c in rows]).reshape(len(rows),
                                                                                 len(names))
    y = np.array([float(c["metrics"][metric]) for c in rows])
    return FactorData(metric, names, x, y, tuple(int(c["id"]) for c in rows), len(done))
