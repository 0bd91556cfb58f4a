"""Main effects and a variance decomposition of a grid study (analysis of variance).

A full grid holds every combination of the factors' levels once, so the metric's total sum
of squares about its grand mean splits exactly (the design is balanced) into each factor's
main-effect sum of squares, ``SS_f = Σ_levels n_level (mean_level - grand_mean)²``, and the
rest: the interactions (for two factors, the interaction; with no replicate runs there is no
separate error term - a case is deterministic). Shares are ``SS_f / SS_total``; the
interactions' share is what the main effects leave. Montgomery, *Design and Analysis of
Experiments*, ch. 5 (the two-factor factorial without replication).

With cases missing (failed, not done) the grid is unbalanced and the split is no longer
exact: :func:`grid_anova` reports how many cases it used, and the page says so.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np


def grid_anova(levels: Mapping[str, Sequence[Any]], values: Sequence[float]) -> dict[str, Any]:
    """Main effects and variance shares of ``values`` (one per case) over the factors
    ``levels`` (factor -> each case's level, same length as ``values``).

    Returns ``{"n", "grand_mean", "main_effects": {factor: [(level, mean), ...]} (levels in
    order), "shares": {factor: SS_f / SS_total}, "interactions": 1 - Σ shares,
    "balanced": bool}``; shares are None when every value is the same (nothing to split)."""
    y = np.asarray(values, dtype=float)
    if y.ndim != 1 or any(len(v) != len(y) for v in levels.values()):
        raise ValueError("one level per case and factor, one value per case")
    grand = float(np.mean(y)) if len(y) else float("nan")
    total = float(np.sum((y - grand) ** 2))
    effects: dict[str, list[tuple[Any, float]]] = {}
    sums: dict[str, float] = {}
    counts = []
    for factor, lv in levels.items():
        groups: dict[Any, list[float]] = {}
        for level, value in zip(lv, y, strict=True):
            groups.setdefault(level, []).append(value)
        ordered = sorted(groups, key=_order)
        effects[factor] = [(level, float(np.mean(groups[level]))) for level in ordered]
        sums[factor] = float(sum(len(groups[g]) * (np.mean(groups[g]) - grand) ** 2
                                 for g in groups))
        counts.append({len(g) for g in groups.values()})
    # a full grid: each combination once, so each level of a factor holds n / levels cases
    combos = {tuple(lv[k] for lv in levels.values()) for k in range(len(y))}
    size = int(np.prod([len(e) for e in effects.values()])) if effects else 0
    balanced = len(combos) == len(y) == size and all(len(c) == 1 for c in counts)
    shares = {f: (ss / total if total > 0 else None) for f, ss in sums.items()}
    rest = (1.0 - sum(shares.values())) if total > 0 else None
    return {"n": len(y), "grand_mean": grand, "main_effects": effects, "shares": shares,
            "interactions": rest, "balanced": balanced}


def _order(level: Any) -> tuple[int, Any]:
    number = isinstance(level, (int, float)) and not isinstance(level, bool)
    return (0, level) if number else (1, str(level))
