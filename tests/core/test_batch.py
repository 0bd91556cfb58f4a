"""The batch path (issue 3): every case of a batch is its own single-case run.

Cases are short (a few ms of motion, several impacts) so the module runs in seconds on a
warm numba cache. Results are compared bit for bit: the batch and the single-case path are
the same compiled code on the same per-case arrays, threads only choose who runs a case.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from gapsweep.core.cases import SliderCrankCase
from gapsweep.core.errors import InputError
from gapsweep.core.simulation import simulate, simulate_batch
from gapsweep.core.stepping import STATUS_TEXT

T_END = 0.006  # [s] about half a crank revolution at 5000 rpm: the first impacts and more
ROBUST = ("peak_slider_accel", "peak_contact_force", "max_penetration", "impacts")

# one mechanism, parameters differing in every axis a study sweeps; the ideal case has
# another topology and goes through its own group of the same call
MIXED = [
    {"clearance_mm": 0.02, "stiffness_scale": 0.7},
    {"clearance_mm": 0.1, "stiffness_scale": 1.3, "restitution": 0.5, "contact_law": "flores"},
    {"clearance_mm": 0.05, "contact_law": "hunt-crossley", "speed_rpm": 3000.0},
    {
        "clearance_mm": 0.08,
        "contact_law": "gonthier",
        "restitution": 0.7,
        "friction_law": "ambrosio",
    },
    {
        "clearance_mm": 0.035,
        "contact_law": "hertz",
        "restitution": 1.0,
        "friction": 0.0,
        "speed_rpm": 6000.0,
    },
    {"clearance_mm": 0.05, "contact_law": "impact", "impact_damping": 50.0},
    {"clearance_mm": 0.05, "ideal": True},
]


def _case(**values) -> SliderCrankCase:
    return SliderCrankCase.from_mapping({"t_end": T_END, **values})


def _assert_same(batch, single) -> None:
    """Bit-identical metrics (all but the wall time) and series."""
    assert batch.status == single.status
    assert batch.reason == single.reason
    assert batch.params == single.params
    keys = set(single.metrics) - {"wall_time_s"}
    assert set(batch.metrics) - {"wall_time_s"} == keys
    for key in sorted(keys):
        a, b = batch.metrics[key], single.metrics[key]
        assert a == b or (math.isnan(a) and math.isnan(b)), key
    assert set(batch.series) == set(single.series)
    for name, values in single.series.items():
        np.testing.assert_array_equal(batch.series[name], values, err_msg=name)


@pytest.fixture(scope="module")
def mixed_cases():
    return [_case(**values) for values in MIXED]


@pytest.fixture(scope="module")
def mixed_single(mixed_cases):
    return [simulate(case) for case in mixed_cases]


def test_every_case_of_a_mixed_batch_equals_its_single_run(mixed_cases, mixed_single):
    batch = simulate_batch(mixed_cases, threads=2)
    assert len(batch) == len(mixed_cases)
    for case, b, s in zip(mixed_cases, batch, mixed_single, strict=True):
        assert s.ok, s.reason
        assert b.params == case.overrides()  # results keep the input order
        for key in ROBUST:  # the criterion: robust metrics to 1e-9 relative ...
            assert b.metrics[key] == pytest.approx(s.metrics[key], rel=1e-9, abs=0.0)
        _assert_same(b, s)  # ... and in fact bit for bit, series included
    # the clearance cases really differ (a batch that ran one case 7 times would pass above)
    peaks = {round(r.metrics["peak_contact_force"], 6) for r in mixed_single[:-1]}
    assert len(peaks) == len(mixed_single) - 1
    assert mixed_single[-1].metrics["peak_contact_force"] == 0.0  # ideal joint
    assert all(r.metrics["impacts"] >= 1 for r in mixed_single[:-1])


def test_one_thread_and_two_threads_give_identical_results(mixed_cases):
    one = simulate_batch(mixed_cases, threads=1)
    two = simulate_batch(mixed_cases, threads=2)
    for a, b in zip(one, two, strict=True):
        _assert_same(a, b)


def test_mappings_and_cases_give_the_same_batch(mixed_cases, mixed_single):
    batch = simulate_batch([{"t_end": T_END, **values} for values in MIXED[:3]])
    for b, s in zip(batch, mixed_single[:3], strict=True):
        _assert_same(b, s)


@pytest.mark.parametrize(
    ("bad", "field"),
    [
        ({"clearance_mm": -1.0}, "clearance_mm"),
        ({"clearance_mm": 0.05, "no_such_parameter": 1.0}, "no_such_parameter"),
        ({"clearance_mm": "abc"}, "clearance_mm"),
        (SliderCrankCase(clearance_mm=-1.0, t_end=T_END), "clearance_mm"),
        ({"clearance_mm": 0.05, "restitution": math.nan}, "restitution"),
    ],
)
def test_an_invalid_case_fails_alone_with_its_reason(bad, field, mixed_cases, mixed_single):
    batch = simulate_batch([mixed_cases[0], bad, mixed_cases[1]], threads=2)
    assert [r.status for r in batch] == ["ok", "failed", "ok"]
    assert field in batch[1].reason
    assert "not allowed" in batch[1].reason
    assert batch[1].metrics == {}
    _assert_same(batch[0], mixed_single[0])
    _assert_same(batch[2], mixed_single[1])
    with pytest.raises(InputError, match=field):
        simulate(bad)


# a contact stiffness so low the journal sinks through the bearing wall at the first impact,
# and one so high the first contact force overflows to inf and the state to NaN
SINKS = {"clearance_mm": 0.05, "stiffness_scale": 1e-9}
OVERFLOWS = {"clearance_mm": 0.05, "stiffness": 1e300}


@pytest.mark.parametrize("bad", [SINKS, OVERFLOWS], ids=["penetration", "overflow"])
def test_a_failing_case_fails_alone_with_its_reason(bad, mixed_cases, mixed_single):
    batch = simulate_batch([mixed_cases[0], _case(**bad), mixed_cases[1]], threads=2)
    assert [r.status for r in batch] == ["ok", "failed", "ok"]
    failed = batch[1]
    assert any(failed.reason.startswith(text) for text in STATUS_TEXT[1:]), failed.reason
    t_fail = float(failed.reason.rsplit("t = ", 1)[1].split()[0])
    assert 0.0 < t_fail < T_END  # it stopped where it failed, after the first impact
    assert np.all(np.isfinite(failed.series["final_state"]))  # the last good state
    for key in ("peak_slider_accel", "peak_contact_force", "max_penetration", "rhs_evaluations"):
        assert math.isfinite(failed.metrics[key]), key
    _assert_same(batch[0], mixed_single[0])
    _assert_same(batch[2], mixed_single[1])
    single = simulate(_case(**bad))  # solver failures come back as results, not raised
    assert single.status == "failed"
    assert single.reason == failed.reason


def test_the_sinking_case_names_the_penetration():
    result = simulate(_case(**SINKS))
    assert result.reason.startswith("penetration exceeded its bound")


def test_the_overflowing_case_names_the_non_finite_state():
    # regression: a non-finite trial step used to be reported as "step size fell below the
    # minimum" after the step had been shrunk away
    result = simulate(_case(**OVERFLOWS))
    assert result.reason.startswith(STATUS_TEXT[1])


def test_cases_with_different_end_times_finish_independently():
    ends = (0.002, 0.0045, 0.007)
    cases = [_case(clearance_mm=c, t_end=t) for c, t in zip((0.05, 0.08, 0.02), ends, strict=True)]
    batch = simulate_batch(cases, threads=2)
    for case, result in zip(cases, batch, strict=True):
        assert result.ok, result.reason
        t = result.series["t"]
        assert t[-1] == pytest.approx(case.t_end, rel=1e-12)
        assert t.shape == (case.n_output,)
        assert np.all(np.diff(t) > 0.0)
        _assert_same(result, simulate(case))
    # the short case stopped early: fewer steps than the long one with the same settings
    assert batch[0].metrics["accepted_steps"] < batch[2].metrics["accepted_steps"]


def test_progress_is_reported_up_to_n_of_n():
    cases = [_case(clearance_mm=0.02 + 0.01 * k, t_end=0.001) for k in range(9)]
    cases.insert(3, {"clearance_mm": -1.0})  # already failed before the batch runs
    calls: list[tuple[int, int]] = []
    results = simulate_batch(cases, threads=1, progress=lambda d, n: calls.append((d, n)))
    n = len(cases)
    assert len(results) == n
    assert calls[-1] == (n, n)
    assert all(total == n for _, total in calls)
    done = [d for d, _ in calls]
    assert done == sorted(done) and done[0] >= 1
    assert len(calls) >= 2  # reported as chunks end, not only once at the end


def test_stored_series_are_bounded_by_n_output_whatever_the_step_count():
    default = _case(clearance_mm=0.05, t_end=0.004, max_step=1e-7)  # >= 40000 steps
    small = default.replace(n_output=11)
    results = simulate_batch([default, small], threads=2)
    for case, result in zip((default, small), results, strict=True):
        assert result.ok, result.reason
        assert result.metrics["accepted_steps"] >= 40_000
        for name, values in result.series.items():
            # the Poincare section (issue 23): one point per revolution, on its own time base
            if name != "final_state" and not name.startswith("poincare_"):
                assert values.shape == (case.n_output,), name
    assert default.n_output == 2401
    # the metrics come from every step, not from the stored samples
    for key in ROBUST:
        assert results[1].metrics[key] == results[0].metrics[key]
    a = results[0].series["slider_acceleration"]
    assert results[0].metrics["peak_slider_accel"] >= np.max(np.abs(a))


def test_a_valid_case_with_few_stored_samples_does_not_break_the_batch(mixed_cases, mixed_single):
    # regression: the spectral post-processing raised out of the whole batch for a case
    # storing fewer samples than a spectrum needs
    batch = simulate_batch([mixed_cases[0], _case(clearance_mm=0.05, n_output=2)], threads=2)
    _assert_same(batch[0], mixed_single[0])
    assert batch[1].ok
    assert math.isnan(batch[1].metrics["dominant_frequency_accel_hz"])


def test_initial_state_is_shared_only_where_the_start_cannot_differ():
    from gapsweep.core.simulation import _initial_state, initial_state

    _initial_state.cache_clear()
    base = initial_state(_case(initial="wall", clearance_mm=0.05))
    # contact and solver settings do not move the start: one assembly serves them all
    same = initial_state(_case(initial="wall", clearance_mm=0.05, stiffness_scale=1.3, rtol=1e-8))
    assert np.array_equal(base, same)
    assert _initial_state.cache_info().hits == 1
    # the clearance and the start angle do (the wall start sits at e = c)
    for changed in ({"clearance_mm": 0.1}, {"clearance_mm": 0.05, "crank_angle_deg": 30}):
        other = _case(initial="wall", **changed)
        assert not np.allclose(initial_state(other), base, rtol=0, atol=1e-9)
    # each caller gets its own array: the cached one cannot be edited through it
    base[:] = 0.0
    assert np.array_equal(initial_state(_case(initial="wall", clearance_mm=0.05)), same)
