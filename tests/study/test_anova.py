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
