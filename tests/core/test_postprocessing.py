"""Spectra and deviation metrics of slider-crank results (design.md 2)."""

import math

import numpy as np
import pytest
from gapsweep.core.cases import SliderCrankCase
from gapsweep.core.errors import InputError
from gapsweep.core.postprocessing import deviation_from_twin, series_spectrum
from gapsweep.core.simulation import simulate

R, L = 0.05, 0.12


@pytest.fixture(scope="module")
def ideal():
    return simulate(SliderCrankCase(ideal=True, t_end=0.024))  # two revolutions, one grid


@pytest.fixture(scope="module")
def clearance():
    return simulate(SliderCrankCase(clearance_mm=0.05, t_end=0.024))


def test_ideal_slider_spectrum_is_the_crank_series(ideal):
    # x = r cos(theta) + sqrt(L^2 - r^2 sin^2 theta): the square root holds only even
    # harmonics, so the acceleration's first harmonic is exactly r w^2 and every odd one
    # above it is zero.
    w = 5000 * 2 * math.pi / 60
    s = series_spectrum(ideal, "slider_acceleration", 5000 / 60)
    amp = dict(zip(np.round(s.spectrum.frequency_hz, 6), s.spectrum.amplitude, strict=True))
    f1 = 5000 / 60
    assert s.peaks[0][0] == pytest.approx(f1, rel=1e-12)
    assert amp[round(f1, 6)] == pytest.approx(R * w * w, rel=1e-5)
    for k in (3, 5, 7):
        assert amp[round(k * f1, 6)] < 1e-5 * R * w * w
    assert s.harmonics_hz[:3] == pytest.approx([f1, 2 * f1, 3 * f1])
    assert s.high_frequency_ratio < 1e-8


def test_clearance_moves_energy_to_high_frequencies(ideal, clearance):
    assert clearance.metrics["high_frequency_ratio_accel"] > 1e3 * max(
        ideal.metrics["high_frequency_ratio_accel"], 1e-12
    )
    assert clearance.metrics["dominant_frequency_accel_hz"] == pytest.approx(5000 / 60)


def test_deviation_from_twin(ideal, clearance):
    same = deviation_from_twin(ideal, ideal)
    assert same["accel_deviation_rms"] == 0.0
    d = deviation_from_twin(clearance, ideal, t_start=0.012)
    a = clearance.series["slider_acceleration"]
    b = ideal.series["slider_acceleration"]
    keep = ideal.series["t"] >= 0.012 - 1e-12
    assert d["accel_deviation_peak"] == pytest.approx(np.max(np.abs(a - b)[keep]))
    assert 0.0 < d["accel_deviation_relative"] < 1.0


def test_bad_series_name(ideal):
    with pytest.raises(InputError) as info:
        series_spectrum(ideal, "nope", 83.3)
    assert info.value.field == "series"
