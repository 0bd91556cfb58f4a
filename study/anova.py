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
    codes = []
    for factor, lv in levels.items():
        found, code = _groups(lv, y)  # level -> (count, mean), in the order first seen
        ordered = sorted(found, key=_order)
        effects[factor] = [(level, float(found[level][1])) for level in ordered]
        sums[factor] = float(sum(n * (mean - grand) ** 2 for n, mean in found.values()))
        counts.append({n for n, _ in found.values()})
        codes.append(code)
    # a full grid: each combination once, so each level of a factor holds n / levels cases
    # (no factor: every case is the one empty combination)
    combos = (len(np.unique(np.stack(codes, axis=1), axis=0)) if codes and len(y)
              else min(len(y), 1))
    size = int(np.prod([len(e) for e in effects.values()])) if effects else 0
    balanced = combos == len(y) == size and all(len(c) == 1 for c in counts)
    shares = {f: (ss / total if total > 0 else None) for f, ss in sums.items()}
    rest = (1.0 - sum(shares.values())) if total > 0 else None
    return {"n": len(y), "grand_mean": grand, "main_effects": effects, "shares": shares,
            "interactions": rest, "balanced": balanced}


def _groups(levels: Sequence[Any], y: np.ndarray) -> tuple[dict[Any, tuple[int, Any]],
                                                             np.ndarray]:
    """A factor's levels as a dict ``level -> (count, mean of y)`` in the order first seen
    (a level is its first case's value), and each case's level as an integer code.

    Finite plain numbers (a grid's usual axis) are grouped by numpy - a sort, not a Python
    loop over 100,000 cases (issue 41) - each level's mean taken over its values in case
    order, as the loop below does, so the figures are the same to the last bit; anything
    else (text, booleans, None, NaN) is grouped by a dict, equal values as one level."""
    if len(levels) and set(map(type, levels)) <= {int, float}:
        x = np.asarray(levels, dtype=float)
        if np.isfinite(x).all() and np.abs(x).max() < 2.0 ** 53:  # ints exact as floats
            _, first, code = np.unique(x, return_index=True, return_inverse=True)
            code = code.reshape(-1)
            order = np.argsort(code, kind="stable")  # case order kept within a level
            n = np.bincount(code, minlength=len(first))
            ends = np.cumsum(n)
            means = [np.mean(y[order[e - k:e]]) for k, e in zip(n, ends, strict=True)]
            return ({levels[first[i]]: (int(n[i]), means[i]) for i in np.argsort(first)},
                    code)
    groups: dict[Any, list[float]] = {}
    index: dict[Any, int] = {}
    code = np.empty(len(levels), dtype=np.int64)
    for k, (level, value) in enumerate(zip(levels, y, strict=True)):
        groups.setdefault(level, []).append(value)
        code[k] = index.setdefault(level, len(index))
    return {g: (len(v), np.mean(v)) for g, v in groups.items()}, code


def _order(level: Any) -> tuple[int, Any]:
    number = isinstance(level, (int, float)) and not isinstance(level, bool)
    return (0, level) if number else (1, str(level))
