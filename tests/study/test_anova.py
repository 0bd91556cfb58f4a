"""The grid's analysis of variance against sums of squares worked by hand."""

from __future__ import annotations

import itertools

import pytest
from gapsweep.study.anova import grid_anova


def grid(a_levels, b_levels, f):
    cases = list(itertools.product(a_levels, b_levels))
    return ({"a": [a for a, _ in cases], "b": [b for _, b in cases]},
            [f(a, b) for a, b in cases])


def test_an_additive_response_splits_into_its_main_effects_with_no_interaction():
    # y = alpha_i + beta_j on a 3 x 3 grid: alpha = (0, 1, 2), beta = (0, 0, 3)
    # SS_a = 3 * ((0-1)^2 + 0 + (2-1)^2) = 6, SS_b = 3 * (1 + 1 + 4) = 18, total 24
    alpha, beta = {0.1: 0.0, 0.2: 1.0, 0.3: 2.0}, {"x": 0.0, "y": 0.0, "z": 3.0}
    levels, y = grid(alpha, beta, lambda a, b: 5.0 + alpha[a] + beta[b])
    out = grid_anova(levels, y)
    assert out["shares"]["a"] == pytest.approx(6 / 24) and out["shares"]["b"] == pytest.approx(
        18 / 24)
    assert out["interactions"] == pytest.approx(0.0, abs=1e-12)
    assert out["grand_mean"] == pytest.approx(5.0 + 1.0 + 1.0)
    effects = out["main_effects"]["a"]
    assert [lv for lv, _ in effects] == [0.1, 0.2, 0.3]
    assert [m for _, m in effects] == pytest.approx([6.0, 7.0, 8.0])
    assert [lv for lv, _ in out["main_effects"]["b"]] == ["x", "y", "z"]
    assert out["balanced"] is True and out["n"] == 9


def test_a_pure_interaction_has_no_main_effect():
    # y = a * b with a, b = -1, +1: each level's mean is 0, all the variance is interaction
    levels, y = grid((-1, 1), (-1, 1), lambda a, b: a * b)
    out = grid_anova(levels, y)
    assert out["shares"] == {"a": 0.0, "b": 0.0}
    assert out["interactions"] == pytest.approx(1.0)


def test_a_missing_case_is_reported_unbalanced_and_a_constant_has_no_shares():
    levels, y = grid((1, 2), (1, 2, 3), lambda a, b: a + b)
    partial = grid_anova({k: v[:-1] for k, v in levels.items()}, y[:-1])
    assert partial["balanced"] is False and partial["n"] == 5
    flat = grid_anova(levels, [2.0] * 6)
    assert flat["shares"] == {"a": None, "b": None} and flat["interactions"] is None
    with pytest.raises(ValueError):
        grid_anova({"a": [1, 2]}, [1.0])


def _loop_anova(levels, values):
    """grid_anova as it was before issue 41's numpy grouping (a Python loop per case): the
    reference the grouped one must match to the last bit."""
    import numpy as np
    from gapsweep.study.anova import _order

    y = np.asarray(values, dtype=float)
    grand = float(np.mean(y)) if len(y) else float("nan")
    total = float(np.sum((y - grand) ** 2))
    effects, sums, counts = {}, {}, []
    for factor, lv in levels.items():
        groups = {}
        for level, value in zip(lv, y, strict=True):
            groups.setdefault(level, []).append(value)
        ordered = sorted(groups, key=_order)
        effects[factor] = [(level, float(np.mean(groups[level]))) for level in ordered]
        sums[factor] = float(sum(len(groups[g]) * (np.mean(groups[g]) - grand) ** 2
                                 for g in groups))
        counts.append({len(g) for g in groups.values()})
    combos = {tuple(lv[k] for lv in levels.values()) for k in range(len(y))}
    size = int(np.prod([len(e) for e in effects.values()])) if effects else 0
    balanced = len(combos) == len(y) == size and all(len(c) == 1 for c in counts)
    shares = {f: (ss / total if total > 0 else None) for f, ss in sums.items()}
    rest = (1.0 - sum(shares.values())) if total > 0 else None
    return {"n": len(y), "grand_mean": grand, "main_effects": effects, "shares": shares,
            "interactions": rest, "balanced": balanced}


def _same(a, b):
    """Equal to the last bit, level objects' types included (1 and 1.0 differ here)."""
    assert a == b
    for f in a["main_effects"]:
        assert [type(lv) for lv, _ in a["main_effects"][f]] == \
            [type(lv) for lv, _ in b["main_effects"][f]]


@pytest.mark.parametrize("seed", range(6))
def test_the_grouped_anova_is_the_loops_to_the_last_bit(seed):
    # shuffled grids of float, int and mixed levels, cases missing, a text and a boolean
    # factor, a level given as 2 and 2.0: what a large study's Sensitivity reads (issue 41)
    import random

    rng = random.Random(seed)
    a = [round(rng.uniform(0.01, 0.1), 4) for _ in range(rng.randrange(2, 30))]
    b = list(range(rng.randrange(2, 12)))
    cases = [(x, k) for x in a for k in b]
    rng.shuffle(cases)
    cases = cases[:len(cases) - rng.randrange(0, 5)]
    y = [rng.lognormvariate(8, 1.5) for _ in cases]
    levels = {"a": [x for x, _ in cases], "b": [k for _, k in cases]}
    _same(grid_anova(levels, y), _loop_anova(levels, y))
    mixed = {"b": [float(k) if i % 3 == 0 else k for i, (_, k) in enumerate(cases)],
             "t": [rng.choice(["steel", "bronze", "ptfe"]) for _ in cases],
             "on": [rng.random() < 0.5 for _ in cases],
             "n": [None if i % 7 == 0 else 1.5 for i in range(len(cases))]}
    _same(grid_anova(mixed, y), _loop_anova(mixed, y))
    _same(grid_anova({}, y), _loop_anova({}, y))
    _same(grid_anova(levels, [3.0] * len(y)), _loop_anova(levels, [3.0] * len(y)))


def test_a_full_grid_grouped_by_numpy_is_balanced_and_its_shares_sum_to_one():
    levels, y = grid([0.01 * i for i in range(1, 41)], list(range(25)), lambda a, b: a * (b + 1))
    out = grid_anova(levels, y)
    assert out["balanced"] is True and out["n"] == 1000
    assert sum(out["shares"].values()) + out["interactions"] == pytest.approx(1.0)
    assert [lv for lv, _ in out["main_effects"]["b"]] == list(range(25))
    assert all(type(lv) is int for lv, _ in out["main_effects"]["b"])
