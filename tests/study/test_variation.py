"""The variation analysis (study/variation.py) against published and exact values."""

from __future__ import annotations

import numpy as np
import pytest
from gapsweep.study.variation import (
    exceedance,
    histogram,
    settling,
    summary,
    variance_shares,
    variation_report,
    wilson_interval,
)

# Newcombe, R. G. (1998). Two-sided confidence intervals for the single proportion:
# comparison of seven methods. Statistics in Medicine 17, 857-872, Table II, method 3
# (Wilson score interval without continuity correction), to the 4 decimals printed there.
NEWCOMBE_1998 = [((81, 263), (0.2553, 0.3662)), ((15, 148), (0.0624, 0.1605)),
                 ((0, 20), (0.0000, 0.1611)), ((1, 29), (0.0061, 0.1718))]


@pytest.mark.parametrize("kn, expected", NEWCOMBE_1998)
def test_wilson_interval_matches_newcombe_1998(kn, expected):
    lo, hi = wilson_interval(*kn)
    assert (round(lo, 4), round(hi, 4)) == expected


def test_exceedance_counts_strictly_above_the_limit():
    y = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
    e = exceedance(y, 3.0)
    assert e["probability"] == pytest.approx(2 / 5)
    assert e["ci95"] == pytest.approx(list(wilson_interval(2, 5)))
    assert exceedance(y, 10.0)["ci95"][0] == 0.0


def test_summary_uses_n_minus_1_and_type_7_percentiles():
    y = np.arange(1.0, 21.0)  # 1..20
    s = summary(y)
    assert s["n"] == 20 and s["mean"] == 10.5
    assert s["std"] == pytest.approx(np.sqrt(((y - 10.5) ** 2).sum() / 19))
    # type 7: position 1 + 0.05 * 19 = 1.95 -> 1.95; median 10.5; 1 + 0.95 * 19 = 19.05
    assert (s["p5"], s["p50"], s["p95"]) == pytest.approx((1.95, 10.5, 19.05))


def test_shares_on_a_linear_response_are_exact():
    rng = np.random.default_rng(3)
    n = 400
    sig = np.array([0.02, 0.1, 3.0])
    a = np.array([5.0e3, -40.0, 1.5])
    x = rng.normal([0.05, 1.0, 10.0], sig, size=(n, 3))
    y = 7.0 + x @ a
    shares, r2 = variance_shares(x, y, ["c", "k", "m"])
    s = x.std(axis=0, ddof=1)
    exact = (a * s) ** 2 / ((a * s) ** 2).sum()  # a_i² σ_i² / Σ a_j² σ_j², σ as sampled
    assert [shares[k] for k in "ckm"] == pytest.approx(exact, abs=1e-12)
    assert r2 == pytest.approx(1.0, abs=1e-12)
    # and against the population σ: within the sampling error of 400 draws
    population = (a * sig) ** 2 / ((a * sig) ** 2).sum()
    assert [shares[k] for k in "ckm"] == pytest.approx(population, abs=0.05)
    assert sum(shares.values()) == pytest.approx(1.0)


def test_a_factor_that_does_not_vary_has_no_share():
    x = np.column_stack([np.linspace(0, 1, 20), np.full(20, 3.0)])
    shares, _ = variance_shares(x, 2 * x[:, 0], ["a", "b"])
    assert shares == {"a": pytest.approx(1.0), "b": 0.0}


def test_a_constant_response_has_no_shares():
    x = np.random.default_rng(4).normal(size=(30, 2))
    shares, r2 = variance_shares(x, np.full(30, 7.0), ["a", "b"])
    assert shares == {"a": 0.0, "b": 0.0} and r2 == 0.0


def test_histogram_counts_every_sample_once():
    y = np.random.default_rng(0).normal(size=257)
    h = histogram(y)
    assert sum(h["counts"]) == 257 and len(h["edges"]) == len(h["counts"]) + 1
    assert h["edges"][0] == y.min() and h["edges"][-1] == y.max()


def test_settling_ends_at_the_full_sample_estimate():
    y = np.random.default_rng(1).exponential(size=300)
    s = settling(y, limit=2.0)
    assert s["n"][0] == 10 and s["n"][-1] == 300
    assert s["mean"][-1] == pytest.approx(y.mean())
    assert s["probability"][-1] == pytest.approx(np.mean(y > 2.0))
    # the interval narrows as samples grow
    assert s["ci_high"][-1] - s["ci_low"][-1] < s["ci_high"][0] - s["ci_low"][0]


def test_report_has_the_design_md_keys():
    x = np.linspace(0, 1, 30)[:, None]
    r = variation_report("m", x, 3 * x[:, 0], ["a"], limit=None)
    assert set(r) == {"metric", "n", "mean", "std", "p5", "p50", "p95", "exceedance",
                      "contributions"}
    assert r["exceedance"] is None
