"""Spectra against analytic references: tones of known frequency and amplitude."""

from __future__ import annotations

import math

import numpy as np
import pytest
from gapsweep.core.errors import InputError
from gapsweep.core.spectra import (
    WINDOW_COEFFICIENTS,
    _window,
    _window_lobe,
    amplitude_spectrum,
    dominant_frequencies,
    harmonic_markers,
    high_frequency_energy_ratio,
    resample_uniform,
)
from scipy.signal import get_window

FS = 2000.0  # sample rate [Hz]
N = 2000  # 1 s of signal: bin width 1 Hz
T = np.arange(N) / FS


@pytest.mark.parametrize("name", sorted(WINDOW_COEFFICIENTS))
def test_windows_and_their_transform_match_independent_references(name):
    # The closed-form transform drives peak refinement: check it against a direct sum.
    for n in (7, 64, 1001):
        w = _window(name, n)
        assert np.allclose(w, get_window(name, n, fftbins=True), rtol=0, atol=1e-15)
        for nu in (0.0, 0.3, 1.0, 1.5, 2.7):  # offset in bins of an n-point FFT
            theta = 2 * np.pi * nu / n
            direct = abs(np.dot(w, np.exp(-1j * theta * np.arange(n)))) / w.sum()
            assert _window_lobe(name, n, theta) == pytest.approx(direct, rel=0, abs=1e-12)


def test_bin_centred_sine_reads_its_amplitude_and_dc_its_mean():
    # Coherent-gain correction: on a bin the raw spectrum is exact, for every window.
    x = 5.0 + 3.0 * np.sin(2 * np.pi * 100.0 * T)
    for window in WINDOW_COEFFICIENTS:
        s = amplitude_spectrum(T, x, window=window, detrend=False)
        assert s.bin_width_hz == pytest.approx(1.0, rel=1e-12)
        assert s.amplitude[100] == pytest.approx(3.0, rel=1e-10)
        assert s.amplitude[0] == pytest.approx(5.0, rel=1e-10)
        assert s.amplitude[200] < 1e-10


def test_boxcar_reads_whole_period_harmonics_exactly():
    # A record of whole periods (the crank's case): harmonics sit on bins, no leakage at all.
    t = np.arange(1000) / 1000.0  # 1 s, last sample (t = 1) excluded
    x = 4.0 * np.cos(2 * np.pi * 3 * t) + 1.5 * np.sin(2 * np.pi * 6 * t)
    peaks = dominant_frequencies(amplitude_spectrum(t, x, window="boxcar"), count=2)
    assert peaks[0] == pytest.approx((3.0, 4.0), rel=1e-10)
    assert peaks[1] == pytest.approx((6.0, 1.5), rel=1e-10)


def test_detrend_removes_dc():
    s = amplitude_spectrum(T, 5.0 + np.sin(2 * np.pi * 100.3 * T))
    assert s.amplitude[0] < 1e-12


@pytest.mark.parametrize("window", sorted(set(WINDOW_COEFFICIENTS) - {"boxcar"}))
@pytest.mark.parametrize("zero_pad", [1, 2])
def test_single_tone_between_bins(window, zero_pad):
    # Sweep the tone across a bin: the refinement must not depend on where it falls.
    # Measured worst cases: hann/blackman 2e-8 bin, blackmanharris 5e-7, hamming 2e-4 (its
    # slowly decaying sidelobes leak the negative-frequency image); amplitude errors alike.
    for offset in np.linspace(0.0, 0.5, 11):
        f0 = 150.0 + offset
        s = amplitude_spectrum(T, 2.5 * np.cos(2 * np.pi * f0 * T + 0.7), window=window,
                               zero_pad=zero_pad)  # fmt: skip
        (f, a), *_ = dominant_frequencies(s, count=1)
        assert abs(f - f0) < 1e-3  # [Hz] = 1e-3 bin
        assert a == pytest.approx(2.5, rel=1e-3)


def test_multi_sine_with_dc_and_noise():
    # Three tones between bins, amplitudes spanning 10x, a DC offset and white noise.
    tones = [(83.37, 10.0), (251.71, 3.0), (612.29, 1.0)]  # (Hz, input units)
    rng = np.random.default_rng(7)
    x = 4.0 + 0.01 * rng.standard_normal(N)
    for f0, a0 in tones:
        x += a0 * np.sin(2 * np.pi * f0 * T + f0)
    s = amplitude_spectrum(T, x)
    # The raw bin maximum reads 8.5 % low (tone 0.37 bin off): refinement is needed.
    assert s.amplitude[83] < 0.95 * 10.0
    peaks = dominant_frequencies(s, count=5)
    assert len(peaks) == 5
    for (f, a), (f0, a0) in zip(peaks[:3], tones, strict=True):
        # Measured: 4e-5, 4e-5, 6.5e-4 bin and 0.001 %, 0.0005 %, 0.03 % (noise-limited).
        assert abs(f - f0) < 0.005 * s.bin_width_hz  # 0.5 % of a bin
        assert a == pytest.approx(a0, rel=0.01)
    # What is left is noise and sidelobes, far below the smallest tone.
    assert all(a < 0.01 for _, a in peaks[3:])


def test_min_separation_skips_the_smaller_of_two_close_peaks():
    x = np.sin(2 * np.pi * 100.2 * T) + 0.5 * np.sin(2 * np.pi * 106.4 * T)
    s = amplitude_spectrum(T, x)
    both = dominant_frequencies(s, count=2, min_separation_hz=1.0)
    assert [round(f) for f, _ in both] == [100, 106]
    one = dominant_frequencies(s, count=2, min_separation_hz=10.0)
    assert round(one[0][0]) == 100
    assert all(abs(f - 100.2) >= 10.0 for f, _ in one[1:])  # 106.4 Hz is too close


def test_harmonic_markers_are_exact_multiples():
    f_rot = 5000.0 / 60.0  # crank at 5000 rpm [Hz]
    markers = harmonic_markers(f_rot, 1000.0)
    assert np.array_equal(markers, np.array([k * f_rot for k in range(1, 13)]))
    assert harmonic_markers(f_rot, 3 * f_rot).size == 3  # the end is inclusive
    assert harmonic_markers(f_rot, 0.5 * f_rot).size == 0


def test_high_frequency_ratio_of_two_tones():
    a1, a2 = 2.0, 0.5
    x = 1.0 + a1 * np.sin(2 * np.pi * 50.3 * T) + a2 * np.sin(2 * np.pi * 400.7 * T)
    s = amplitude_spectrum(T, x, zero_pad=2)
    expected = a2**2 / (a1**2 + a2**2)  # 0.0588: mean squares A^2/2 share the 1/2
    # Measured relative error 4e-11 (Hann leakage across 350 bins is negligible).
    assert high_frequency_energy_ratio(s, 200.0) == pytest.approx(expected, rel=1e-4)
    assert high_frequency_energy_ratio(s, 0.0) == pytest.approx(1.0, rel=1e-12)
    assert high_frequency_energy_ratio(s, 900.0) < 1e-6
    # Kept, DC counts with its mean square c^2 (not c^2 / 2 like a tone).
    raw = amplitude_spectrum(T, x, detrend=False)
    with_dc = (a2**2 / 2) / (1.0**2 + a1**2 / 2 + a2**2 / 2)
    assert high_frequency_energy_ratio(raw, 200.0) == pytest.approx(with_dc, rel=1e-4)
    assert math.isnan(high_frequency_energy_ratio(amplitude_spectrum(T, np.zeros(N)), 1.0))


def test_resample_non_uniform_series_of_known_function():
    rng = np.random.default_rng(3)
    t = np.concatenate([[0.0], np.sort(rng.uniform(0.0, 1.0, 3000)), [1.0]])
    t = np.unique(t)
    x = np.sin(2 * np.pi * 3.0 * t)
    t_u, x_u = resample_uniform(t, x, n=500)
    assert t_u[0] == 0.0 and t_u[-1] == 1.0
    assert np.allclose(np.diff(t_u), 1.0 / 499, rtol=1e-9)
    # Linear interpolation bound: max|x''| h^2 / 8 with h the largest input step.
    bound = (2 * np.pi * 3.0) ** 2 * np.max(np.diff(t)) ** 2 / 8
    assert np.max(np.abs(x_u - np.sin(2 * np.pi * 3.0 * t_u))) <= bound
    assert resample_uniform(t, x)[0].size == t.size  # default n: as many points as input
    # A resampled series is accepted by amplitude_spectrum.
    amplitude_spectrum(t_u, x_u)


GOOD_T = np.linspace(0.0, 1.0, 8)
GOOD_X = np.ones(8)


@pytest.mark.parametrize(
    ("call", "field"),
    [
        (lambda: resample_uniform(GOOD_T, GOOD_X[:-1]), "x"),
        (lambda: resample_uniform(GOOD_T[:3], GOOD_X[:3]), "t"),
        (lambda: resample_uniform(np.where(GOOD_T > 0.5, np.nan, GOOD_T), GOOD_X), "t"),
        (lambda: resample_uniform(GOOD_T, np.where(GOOD_T > 0.5, np.nan, GOOD_X)), "x"),
        (lambda: resample_uniform(GOOD_T[::-1], GOOD_X), "t"),
        (lambda: resample_uniform(GOOD_T, GOOD_X, n=2), "n"),
        (lambda: amplitude_spectrum(GOOD_T**2 + GOOD_T, GOOD_X), "t"),
        (lambda: amplitude_spectrum(GOOD_T, GOOD_X[:5]), "x"),
        (lambda: amplitude_spectrum(GOOD_T, GOOD_X, window="flattop"), "window"),
        (lambda: amplitude_spectrum(GOOD_T, GOOD_X, zero_pad=0), "zero_pad"),
        (lambda: dominant_frequencies(amplitude_spectrum(GOOD_T, GOOD_X), count=0), "count"),
        (
            lambda: dominant_frequencies(amplitude_spectrum(GOOD_T, GOOD_X), min_separation_hz=-1),
            "min_separation_hz",
        ),
        (lambda: harmonic_markers(0.0, 100.0), "fundamental_hz"),
        (lambda: harmonic_markers(10.0, math.nan), "f_max_hz"),
        (
            lambda: high_frequency_energy_ratio(amplitude_spectrum(GOOD_T, GOOD_X), -1.0),
            "cutoff_hz",
        ),
    ],
)
def test_bad_input_names_the_argument(call, field):
    with pytest.raises(InputError) as info:
        call()
    assert info.value.field == field
