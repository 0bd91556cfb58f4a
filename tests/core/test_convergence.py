"""Refinement studies against sequences with a known limit and order: f(h) = f* + C h^p."""

from __future__ import annotations

import math

import pytest
from gapsweep.core.convergence import refinement_study
from gapsweep.core.errors import InputError

F_STAR = 3.7  # the exact limit the sequences converge to


@pytest.mark.parametrize("p", [1, 2, 4])
def test_order_and_richardson_from_step_sizes(p):
    h = [0.1, 0.05, 0.025]  # decreasing levels, ratio 2
    study = refinement_study(h, [F_STAR + 0.8 * hk**p for hk in h])
    assert study.ratio == pytest.approx(2.0, rel=1e-12)
    assert study.observed_order == pytest.approx(p, abs=1e-6)
    assert study.richardson_estimate == pytest.approx(F_STAR, rel=1e-9)
    assert len(study.relative_changes) == 2


@pytest.mark.parametrize("p", [1, 2, 4])
def test_order_from_element_counts_and_tolerances(p):
    # Increasing levels (h = 1/N) and decade-spaced tolerances infer their ratio themselves.
    counts = [10, 20, 40, 80]
    study = refinement_study(counts, [F_STAR - 5.0 / n**p for n in counts])
    assert study.observed_order == pytest.approx(p, abs=1e-6)
    assert study.richardson_estimate == pytest.approx(F_STAR, rel=1e-9)
    tols = [1e-4, 1e-5, 1e-6]
    c = 0.1 / tols[0] ** p  # coarse error 0.1; finer ones must stay above rounding
    study = refinement_study(tols, [F_STAR + c * tol**p for tol in tols])
    assert study.ratio == pytest.approx(10.0, rel=1e-9)
    assert study.observed_order == pytest.approx(p, abs=1e-6)
    assert study.richardson_estimate == pytest.approx(F_STAR, rel=1e-9)


def test_relative_changes_are_measured_against_the_finer_value():
    study = refinement_study([1, 2, 4], [1.10, 1.00, 0.99])
    assert study.relative_changes == pytest.approx((0.10 / 1.00, 0.01 / 0.99), rel=1e-12)


def test_converged_both_ways():
    done = refinement_study([1, 2, 4], [1.20, 1.05, 1.045], tolerance=0.01)  # 0.48 % change
    assert done.converged
    assert done.verdict.startswith("converged: last change 0.478 % < 1 %")
    not_done = refinement_study([1, 2, 4], [1.20, 1.05, 1.02], tolerance=0.01)  # 2.9 %
    assert not not_done.converged
    assert not_done.verdict.startswith("not converged: last change 2.94 % >= 1 %")
    # Seed 002's stiffness rule: < 5 % change counts, so the same data passes at 5 %.
    assert refinement_study([1, 2, 4], [1.20, 1.05, 1.02], tolerance=0.05).converged


def test_order_undefined_when_differences_vanish():
    flat = refinement_study([1, 2, 4], [2.0, 2.0, 2.0])
    assert math.isnan(flat.observed_order) and math.isnan(flat.richardson_estimate)
    assert flat.converged and "order undefined" in flat.verdict
    half = refinement_study([1, 2, 4], [1.0, 2.0, 2.0])
    assert math.isnan(half.observed_order)
    two = refinement_study([1, 2], [1.0, 1.001])
    assert math.isnan(two.observed_order) and two.converged


def test_oscillating_sequence_has_an_order_but_no_richardson_estimate():
    study = refinement_study([1, 2, 4], [1.0, 1.2, 1.15])
    assert study.observed_order == pytest.approx(math.log(0.2 / 0.05) / math.log(2), rel=1e-12)
    assert math.isnan(study.richardson_estimate)


def test_explicit_ratio_overrides_inference():
    # Levels that are not geometric are fine when the caller states the ratio.
    study = refinement_study([1, 3, 4], [F_STAR + 1.0, F_STAR + 0.25, F_STAR + 0.0625], ratio=2)
    assert study.observed_order == pytest.approx(2.0, abs=1e-12)
    assert study.richardson_estimate == pytest.approx(F_STAR, rel=1e-12)


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"levels": [1], "values": [1.0]}, "levels"),
        ({"levels": [1, 2, 2], "values": [1.0, 2.0, 3.0]}, "levels"),
        ({"levels": [1, 4, 2], "values": [1.0, 2.0, 3.0]}, "levels"),
        ({"levels": [0, 1, 2], "values": [1.0, 2.0, 3.0]}, "levels"),
        ({"levels": [1, 2, 3], "values": [1.0, 2.0, 3.0]}, "levels"),  # ratios 2 then 1.5
        ({"levels": [1, 2, 4], "values": [1.0, 2.0]}, "values"),
        ({"levels": [1, 2, 4], "values": [1.0, math.nan, 3.0]}, "values"),
        ({"levels": [1, 2, 4], "values": [1.0, 2.0, 3.0], "tolerance": 0.0}, "tolerance"),
        ({"levels": [1, 2, 4], "values": [1.0, 2.0, 3.0], "ratio": 1.0}, "ratio"),
    ],
)
def test_bad_input_names_the_argument(kwargs, field):
    with pytest.raises(InputError) as info:
        refinement_study(**kwargs)
    assert info.value.field == field
