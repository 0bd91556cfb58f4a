"""What a case keeps of its series under each policy (workers/series_policy.py)."""

import numpy as np
import pytest
from gapsweep.core.api import run_case
from gapsweep.core.postprocessing import series_spectrum
from gapsweep.workers.series_policy import PREVIEW_SAMPLES, decimate, select_series

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
    full = series_spectrum(result, "slider_acceleration", RPM / 60)
    np.testing.assert_array_equal(kept["spectrum_freq_hz"], full.spectrum.frequency_hz)
    np.testing.assert_array_equal(kept["spectrum_slider_acceleration"], full.spectrum.amplitude)


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
