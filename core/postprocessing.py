"""Post-processing of a case result: spectra with crank-harmonic markers, spectral metrics,
and the deviation of a clearance run from its ideal twin (design.md 2, 4.5).

Pure functions of :class:`~.result.CaseResult` objects; they read the stored uniform series,
so they work the same on a fresh result and on one read back from the archive.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .errors import InputError
from .result import CaseResult
from .series import SPECTRAL_KEYS
from .spectra import (
    Spectrum,
    amplitude_spectrum,
    dominant_frequencies,
    harmonic_markers,
    high_frequency_energy_ratio,
)

# Content above this multiple of the crank frequency counts as "high frequency": the ideal
# slider-crank's acceleration lives in the first few crank harmonics, impacts spread far above.
HIGH_FREQUENCY_HARMONIC = 10


@dataclass(frozen=True, eq=False)
class SeriesSpectrum:
    """The spectrum of one stored series over a time window, with crank-harmonic markers."""

    name: str
    spectrum: Spectrum
    harmonics_hz: np.ndarray  # k * crank frequency up to Nyquist [Hz]
    peaks: list[tuple[float, float]]  # dominant (frequency [Hz], amplitude), largest first
    high_frequency_ratio: float  # mean-square fraction above HIGH_FREQUENCY_HARMONIC x f_rot


def _window(result: CaseResult, name: str, t_start: float) -> tuple[np.ndarray, np.ndarray]:
    if name not in result.series:
        raise InputError("series", name, "one of " + ", ".join(sorted(result.series)))
    t = np.asarray(result.series["t"])
    x = np.asarray(result.series[name])
    keep = t >= t_start - 1e-12
    if keep.sum() < 8:
        raise InputError("t_start", t_start, f"at least 8 samples before t_end = {t[-1]:g} s")
    return t[keep], x[keep]


def series_spectrum(
    result: CaseResult,
    name: str,
    rotation_hz: float,
    *,
    t_start: float = 0.0,
    window: str = "boxcar",
    peaks: int = 5,
) -> SeriesSpectrum:
    """Amplitude spectrum of series ``name`` from ``t_start`` [s] on, with harmonics of the
    crank frequency ``rotation_hz`` [Hz].

    With the default rectangular window the record should span whole crank revolutions (the
    whole run, or the last revolution): the last grid sample, which repeats the first phase,
    is dropped so the crank harmonics fall exactly on bins with no leakage. A short record
    (two revolutions = 42 Hz bins at 5000 rpm) cannot resolve more than that; a tapered
    window (``hann``) suits records that are not periodic.
    """
    t, x = _window(result, name, t_start)
    if window == "boxcar":
        t, x = t[:-1], x[:-1]
    spectrum = amplitude_spectrum(t, x, window=window)
    nyquist = spectrum.sample_rate_hz / 2.0
    return SeriesSpectrum(
        name=name,
        spectrum=spectrum,
        harmonics_hz=harmonic_markers(rotation_hz, nyquist),
        peaks=dominant_frequencies(spectrum, count=peaks),
        high_frequency_ratio=high_frequency_energy_ratio(
            spectrum, min(HIGH_FREQUENCY_HARMONIC * rotation_hz, nyquist)
        ),
    )


SPECTRAL_SERIES = SPECTRAL_KEYS  # the series registry's: (series, key of its metrics)
SPECTRAL_METRICS = tuple(
    name
    for _, key in SPECTRAL_SERIES
    for name in (f"dominant_frequency_{key}_hz", f"high_frequency_ratio_{key}")
)


def spectral_metrics(result: CaseResult, rotation_hz: float, t_start: float) -> dict[str, float]:
    """Dominant frequency [Hz] and high-frequency ratio of the slider acceleration and the
    contact force over ``[t_start, t_end]`` - scalar summaries for study-level trends.

    Keys: ``dominant_frequency_{accel,force}_hz`` and ``high_frequency_ratio_{accel,force}``.
    """
    if not rotation_hz > 0.0:
        return dict.fromkeys(SPECTRAL_METRICS, math.nan)
    out: dict[str, float] = {}
    for name, key in SPECTRAL_SERIES:
        s = series_spectrum(result, name, rotation_hz, t_start=t_start, peaks=1)
        out[f"dominant_frequency_{key}_hz"] = s.peaks[0][0] if s.peaks else math.nan
        out[f"high_frequency_ratio_{key}"] = s.high_frequency_ratio
    return out


def deviation_from_twin(
    result: CaseResult, twin: CaseResult, *, t_start: float = 0.0
) -> dict[str, float]:
    """How far a clearance run's slider acceleration strays from its ideal twin's (the same
    case with the joint ideal).

    Both results must share the output grid (same ``t_end`` and ``n_output``). Returns the
    RMS and the peak of the difference [m/s^2] and the RMS relative to the twin's RMS.
    """
    t, a = _window(result, "slider_acceleration", t_start)
    t_twin, a_twin = _window(twin, "slider_acceleration", t_start)
    if t.shape != t_twin.shape or not np.allclose(t, t_twin, rtol=0.0, atol=1e-12):
        raise InputError("twin", "a different output grid", "the same t_end and n_output")
    diff = a - a_twin
    rms = float(np.sqrt(np.mean(diff**2)))
    rms_twin = float(np.sqrt(np.mean(a_twin**2)))
    return {
        "accel_deviation_rms": rms,
        "accel_deviation_peak": float(np.max(np.abs(diff))),
        "accel_deviation_relative": rms / rms_twin if rms_twin > 0 else math.nan,
    }
