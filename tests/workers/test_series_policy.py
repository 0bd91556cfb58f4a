"""What a case keeps of its series under each policy (workers/series_policy.py)."""

import numpy as np
import pytest
from gapsweep.core.api import run_case
from gapsweep.core.postprocessing import series_spectrum
from gapsweep.workers.series_policy import (
    PREVIEW_SAMPLES,
    decimate,
    decimate_indices,
    select_series,
)

RPM = 5000.0


@pytest.fixture(scope="module")
def result():
    return run_case("slider-crank", {"clearance_mm": 0.05})


def test_decimation_keeps_both_ends_and_every_extreme():
    t = np.linspace(0.0, 1.0, 10_001)
    x = np.sin(40 * t)
    x[1234] = 50.0  # a one-sample impact spike
    x[8765] = -50.0
    ts, xs = decimate(t, x, 200)
    assert xs.size <= 200
    assert ts[0] == 0.0 and ts[-1] == 1.0
    assert xs.max() == 50.0 and xs.min() == -50.0
    assert np.all(np.diff(ts) > 0)
    np.testing.assert_array_equal(xs, np.interp(ts, t, x))  # samples, not averages


def _by_bucket(x: np.ndarray, budget: int) -> np.ndarray:
    """The decimation written out: per bucket the first minimum and the first maximum
    (NaN ignored; a bucket of NaN only keeps its first sample), both ends."""
    n = x.size
    edges = np.linspace(1, n - 1, budget // 2).astype(np.int64)
    keep = {0, n - 1}
    for lo, hi in zip(edges[:-1], edges[1:], strict=True):
        part = x[lo:hi].astype(float)
        if np.isnan(part).all():
            keep.add(int(lo))
            continue
        keep.add(int(lo + np.nanargmin(part)))
        keep.add(int(lo + np.nanargmax(part)))
    return np.array(sorted(keep))


@pytest.mark.parametrize("kind", ["noise", "ties", "integers", "nan", "mostly-nan"])
@pytest.mark.parametrize(("n", "budget"), [(601, 600), (2401, 600), (10_001, 200)])
def test_decimation_keeps_each_buckets_first_extremes(kind: str, n: int, budget: int):
    rng = np.random.default_rng(n + budget)
    x = {"noise": rng.normal(size=n), "ties": np.round(rng.normal(size=n)),
         "integers": rng.integers(0, 3, size=n)}.get(kind, rng.normal(size=n))
    if kind == "nan":
        x[rng.random(n) < 0.2] = np.nan
    if kind == "mostly-nan":
        x[:] = np.nan
        x[::97] = 1.0
    np.testing.assert_array_equal(decimate_indices(x, budget), _by_bucket(x, budget))


def test_short_series_are_kept_whole():
    t = np.arange(10.0)
    ts, xs = decimate(t, t**2, 600)
    np.testing.assert_array_equal(xs, t**2)


def test_preview_is_bounded_and_keeps_the_peak(result):
    kept = select_series(result, "preview", RPM / 60)
    a = np.asarray(result.series["slider_acceleration"])
    assert kept["slider_acceleration"].size <= PREVIEW_SAMPLES < a.size
    assert np.max(np.abs(kept["slider_acceleration"])) == np.max(np.abs(a))
    assert kept["t:slider_acceleration"].shape == kept["slider_acceleration"].shape
    assert "final_state" not in kept


def test_preview_spectra_are_the_full_resolution_ones(result):
    kept = select_series(result, "preview", RPM / 60)
    # over the window the preview names (a run until settled: the whole revolutions of its
    # settled end; the stored grid has a gap before them)
    t_start = float(kept.get("spectrum_t_start", [0.0])[0])
    assert t_start > 0.0  # a run until settled: its settled end, not the start-up
    full = series_spectrum(result, "slider_acceleration", RPM / 60, t_start=t_start)
    np.testing.assert_array_equal(kept["spectrum_freq_hz"], full.spectrum.frequency_hz)
    np.testing.assert_array_equal(kept["spectrum_slider_acceleration"], full.spectrum.amplitude)


def test_preview_keeps_the_poincare_section_whole(result):
    # one point a revolution, exact: the bifurcation diagram plots these values
    kept = select_series(result, "preview", RPM / 60)
    names = [n for n in result.series if n.startswith("poincare_")]
    assert set(names) == {"poincare_time", "poincare_eccentricity_x", "poincare_eccentricity_y"}
    for name in names:
        np.testing.assert_array_equal(kept[name], result.series[name])
    assert len(kept["poincare_time"]) == result.metrics["revolutions"] + 1


def test_full_keeps_every_series_unchanged(result):
    kept = select_series(result, "full", RPM / 60)
    for name, values in result.series.items():
        if name != "final_state":
            np.testing.assert_array_equal(kept[name], values)


def test_none_keeps_nothing_and_a_bad_policy_is_named(result):
    assert select_series(result, "none", RPM / 60) == {}
    with pytest.raises(ValueError, match="'everything'"):
        select_series(result, "everything", RPM / 60)


def test_preview_orbit_pairs_x_and_y_of_the_same_instants(result):
    # the journal orbit plots eccentricity y against x: both must be taken at one time base
    kept = select_series(result, "preview", RPM / 60)
    t = np.asarray(result.series["t"])
    ts = kept["t:eccentricity_x"]
    np.testing.assert_array_equal(kept["t:eccentricity_y"], ts)
    assert kept["eccentricity_x"].size <= PREVIEW_SAMPLES < t.size
    idx = np.searchsorted(t, ts)
    np.testing.assert_array_equal(t[idx], ts)
    for name in ("eccentricity_x", "eccentricity_y"):
        full = np.asarray(result.series[name])
        np.testing.assert_array_equal(kept[name], full[idx])
        # each component's extremes survive, as in every other preview series
        assert kept[name].max() == full.max() and kept[name].min() == full.min()


def test_a_mechanism_preview_keeps_each_joint_and_measure(result):
    # the series of a described mechanism with two clearance joints (design.md 4.7): the
    # reference case's stand in for each joint's, with different values for the second
    from gapsweep.core.result import CaseResult

    series = dict(result.series)
    for joint, scale in (("crank_pin", 1.0), ("piston_pin", 2.0)):
        for name in ("contact_normal_force", "eccentricity_x", "eccentricity_y", "penetration"):
            series[f"{name}.{joint}"] = scale * np.asarray(result.series[name])
    series["slider_accel"] = np.asarray(result.series["slider_acceleration"])
    mech = CaseResult("mechanism", {}, metrics=dict(result.metrics), series=series)
    kept = select_series(mech, "preview", RPM / 60)
    for joint in ("crank_pin", "piston_pin"):
        # an orbit is drawn y against x: both at the same instants
        np.testing.assert_array_equal(kept[f"t:eccentricity_x.{joint}"],
                                      kept[f"t:eccentricity_y.{joint}"])
        fn = series[f"contact_normal_force.{joint}"]
        assert kept[f"contact_normal_force.{joint}"].max() == fn.max()
        assert kept[f"spectrum_contact_normal_force.{joint}"].shape == \
            kept["spectrum_freq_hz"].shape
    assert kept["slider_accel"].size <= PREVIEW_SAMPLES


def test_spectra_of_a_settled_case_cover_the_settled_window_at_f1_over_n():
    """10 revolutions; a start-up burst at 7.5 f1 in the first 4, then 1x only. Settled
    after 4: the stored spectrum covers the last 6 revolutions, bins f1/6 apart, the 1x
    amplitude exact (on a bin, rectangular window) and nothing of the burst."""
    from gapsweep.core.result import CaseResult

    f1 = RPM / 60
    t = np.linspace(0.0, 10 / f1, 10 * 200 + 1)
    a = 100 * np.sin(2 * np.pi * f1 * t) + np.where(t < 4 / f1,
                                                     500 * np.sin(2 * np.pi * 7.5 * f1 * t), 0)
    series = {"t": t, "slider_acceleration": a}
    settled = CaseResult("slider-crank", {}, metrics={"settled": 1,
                                                      "settled_after_revolutions": 4},
                         series=series)
    kept = select_series(settled, "preview", f1)
    freq, amp = kept["spectrum_freq_hz"], kept["spectrum_slider_acceleration"]
    assert freq[1] == pytest.approx(f1 / 6)
    assert kept["spectrum_t_start"][0] == pytest.approx(4 / f1)
    assert amp[np.argmin(abs(freq - f1))] == pytest.approx(100, rel=1e-9)
    assert amp[np.argmin(abs(freq - 7.5 * f1))] < 1e-6 * 100
    # not settled, no section: the whole run (bins f1/10), no window named
    whole = select_series(CaseResult("slider-crank", {}, metrics={"settled": 0},
                                     series=series), "preview", f1)
    assert whole["spectrum_freq_hz"][1] == pytest.approx(f1 / 10)
    assert "spectrum_t_start" not in whole


def test_spectra_of_a_long_run_take_the_whole_revolutions_after_its_gap():
    """The first revolution, then a ring of its last revolutions (three here: the grid of a
    long run, core/cases.py keeps 32): the spectrum covers the whole revolutions of the
    ring (bins f1/2: 3 revolutions less one step hold 2 whole ones), not across the gap."""
    from gapsweep.core.result import CaseResult

    f1 = RPM / 60
    head = np.linspace(0.0, 1 / f1, 101)
    ring = 40 / f1 + np.arange(1, 301) / (100 * f1)  # (40 T, 43 T], the ring's 300 rows
    t = np.r_[head, ring]
    series = {"t": t, "slider_acceleration": 100 * np.sin(2 * np.pi * 3 * f1 * t)}
    result = CaseResult("slider-crank", {}, metrics={"settled": 1,
                                                     "settled_after_revolutions": 10},
                        series=series)
    kept = select_series(result, "preview", f1)
    assert kept["spectrum_t_start"][0] == pytest.approx(41 / f1)
    freq, amp = kept["spectrum_freq_hz"], kept["spectrum_slider_acceleration"]
    assert freq[1] == pytest.approx(f1 / 2)
    assert amp[np.argmin(abs(freq - 3 * f1))] == pytest.approx(100, rel=1e-9)


def test_a_periodic_n_spectrum_spans_a_multiple_of_n_revolutions():
    """A periodic-2 motion settled over 7 revolutions (the settling test's 8 sections): the
    spectrum takes the last 6, so that its subharmonic f1/2 sits on a bin (f1/6 apart) with
    its whole amplitude, as the solver's spectrum_from_s does."""
    from gapsweep.core.result import CaseResult

    f1 = RPM / 60
    t = np.arange(0, 12 * 200 + 1) / (200 * f1)  # 12 revolutions, 200 samples each
    series = {"t": t, "slider_acceleration": 50 * np.sin(np.pi * f1 * t)}  # f1/2
    metrics = {"settled": 1, "settled_from_s": 5 / f1, "motion_period": 2}
    kept = select_series(CaseResult("slider-crank", {}, metrics=metrics, series=series),
                         "preview", f1)
    assert kept["spectrum_t_start"][0] == pytest.approx(6 / f1)
    freq, amp = kept["spectrum_freq_hz"], kept["spectrum_slider_acceleration"]
    assert freq[1] == pytest.approx(f1 / 6)
    assert freq[3] == pytest.approx(f1 / 2)
    assert amp[3] == pytest.approx(50, rel=1e-9)
