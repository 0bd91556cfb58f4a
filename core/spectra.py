"""Amplitude spectra of solver time series: resampling, windowed FFT, peaks (design.md 2).

Pure functions over 1-D numpy arrays. Times are in seconds, frequencies in Hz, and
amplitudes in the units of the input signal (m/s^2 for slider acceleration, N for contact
force). The solver's accepted steps are not uniform: call :func:`resample_uniform` first.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

from .errors import InputError, require_range

# Cosine-sum windows w[n] = sum_m (-1)^m a_m cos(2 pi m n / N), periodic form (scipy's
# get_window(..., fftbins=True)). Their transform is closed-form, which makes peak refinement
# O(1) per evaluation. A window of K terms has a main lobe K bins either side, so the three
# bins around a peak lie inside it. The rectangular window (K = 1) is for records spanning a
# whole number of periods (crank revolutions): harmonics then fall on bins and are read there,
# unrefined.
WINDOW_COEFFICIENTS: dict[str, tuple[float, ...]] = {
    "boxcar": (1.0,),
    "hann": (0.5, 0.5),
    "hamming": (0.54, 0.46),
    "blackman": (0.42, 0.5, 0.08),
    "blackmanharris": (0.35875, 0.48829, 0.14128, 0.01168),
}

# A sampling step may deviate this much (relative) from the mean and still count as uniform:
# a 0.1 % jitter moves a sample by 0.1 % of a step, invisible in an amplitude spectrum.
UNIFORM_RTOL = 1e-3


@dataclass(frozen=True, eq=False)
class Spectrum:
    """A one-sided amplitude spectrum.

    ``frequency_hz``: shape (n_fft // 2 + 1,), bin frequencies [Hz] from 0 to Nyquist.
    ``amplitude``: same shape, in the units of the input; a sine of amplitude A shows a peak
    of about A (exactly A when it falls on a bin), DC shows its mean value.
    ``sample_rate_hz``: of the analysed series [Hz]. ``window``: window name.
    ``n_samples``: samples analysed; ``n_fft``: FFT length (``n_samples`` x zero-padding).
    """

    frequency_hz: np.ndarray
    amplitude: np.ndarray
    sample_rate_hz: float
    window: str
    n_samples: int
    n_fft: int

    @property
    def bin_width_hz(self) -> float:
        """Spacing of ``frequency_hz`` [Hz]."""
        return self.sample_rate_hz / self.n_fft


def _check_series(t: np.ndarray, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Return ``t`` and ``x`` as float arrays, or raise InputError naming the bad one."""
    t = np.asarray(t, dtype=float)
    x = np.asarray(x, dtype=float)
    if t.ndim != 1 or t.size < 4:
        raise InputError("t", f"shape {t.shape}", "a 1-D array of at least 4 times [s]")
    if x.shape != t.shape:
        raise InputError("x", f"shape {x.shape}", f"a 1-D array the length of t ({t.size})")
    if not np.all(np.isfinite(t)) or np.any(np.diff(t) <= 0.0):
        raise InputError("t", "non-finite or non-increasing", "finite, strictly increasing [s]")
    if not np.all(np.isfinite(x)):
        raise InputError("x", "contains NaN or inf", "finite values")
    return t, x


def resample_uniform(
    t: np.ndarray, x: np.ndarray, n: int | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Linearly interpolate a possibly non-uniform series onto a uniform grid.

    ``t``: shape (N,), strictly increasing times [s]; ``x``: shape (N,), any units.
    ``n``: number of output points (default N). Returns ``(t_u, x_u)``, shape (n,), with
    ``t_u`` spanning ``[t[0], t[-1]]``. Linear interpolation errs by at most
    ``max|x''| h^2 / 8`` (h the largest input step), and smooths peaks narrower than h: take
    peak metrics before resampling.
    """
    t, x = _check_series(t, x)
    n = t.size if n is None else int(require_range("n", n, 4, math.inf))
    t_u = np.linspace(t[0], t[-1], n)
    return t_u, np.interp(t_u, t, x)


@functools.lru_cache(maxsize=16)
def _window(name: str, n: int) -> np.ndarray:
    """The periodic (DFT-even) window, shape (n,): the spectral-analysis form. Cached (a
    study takes every case's spectra on the same grid), hence read-only."""
    phase = 2 * np.pi * np.arange(n) / n
    w = sum((-1) ** m * a * np.cos(m * phase) for m, a in enumerate(WINDOW_COEFFICIENTS[name]))
    w.flags.writeable = False
    return w


def _window_lobe(name: str, n: int, theta: float) -> float:
    """``|sum_k w[k] exp(-i theta k)| / sum(w)`` for the n-point window, theta [rad/sample].

    Each cosine term shifts the rectangular window's transform (a Dirichlet kernel) by
    ``+-2 pi m / n``; the terms are summed as complex numbers since their phases differ.
    """
    from scipy.special import diric  # imported on use: scipy's import costs every process

    total = 0.0j
    for m, a in enumerate(WINDOW_COEFFICIENTS[name]):
        shifts = (0.0,) if m == 0 else (-2 * np.pi * m / n, 2 * np.pi * m / n)
        weight = (-1) ** m * a / len(shifts)  # cos = (e^{+i} + e^{-i}) / 2
        for x in (theta + s for s in shifts):
            total += weight * n * np.exp(-0.5j * x * (n - 1)) * diric(x, n)
    return abs(total) / (n * WINDOW_COEFFICIENTS[name][0])


def amplitude_spectrum(
    t: np.ndarray,
    x: np.ndarray,
    *,
    window: str = "hann",
    detrend: bool = True,
    zero_pad: int = 1,
) -> Spectrum:
    """One-sided amplitude spectrum of a uniformly sampled series.

    ``t``: shape (N,), uniform times [s] (steps equal within 0.1 %, else InputError naming
    ``t``); ``x``: shape (N,), any units. ``window``: one of ``WINDOW_COEFFICIENTS``.
    ``detrend`` removes the window-weighted mean, so the DC main lobe does not mask
    low-frequency peaks. ``zero_pad``: FFT length factor (>= 1), a finer plotted grid; it
    does not add resolution. Amplitudes are divided by the window's coherent gain.
    """
    t, x = _check_series(t, x)
    if window not in WINDOW_COEFFICIENTS:
        raise InputError("window", window, f"one of {sorted(WINDOW_COEFFICIENTS)}")
    pad = int(require_range("zero_pad", zero_pad, 1, 64))
    dt = np.diff(t)
    mean_dt = (t[-1] - t[0]) / (t.size - 1)
    if np.max(np.abs(dt - mean_dt)) > UNIFORM_RTOL * mean_dt:
        raise InputError("t", "non-uniform steps", "uniform (resample_uniform first)")
    w = _window(window, t.size)
    if detrend:
        # The weighted mean is the DC estimate least disturbed by tones' partial cycles.
        x = x - np.dot(w, x) / w.sum()
    n_fft = pad * t.size
    # Coherent gain: a bin-centred sine of amplitude A gives |X| = A sum(w) / 2.
    amp = np.abs(np.fft.rfft(x * w, n_fft)) * (2.0 / w.sum())
    amp[0] /= 2.0  # DC and (even n_fft) Nyquist have no mirror image to fold in
    if n_fft % 2 == 0:
        amp[-1] /= 2.0
    freq = np.fft.rfftfreq(n_fft, d=mean_dt)
    freq.setflags(write=False)
    amp.setflags(write=False)
    return Spectrum(freq, amp, 1.0 / mean_dt, window, t.size, n_fft)


def _refine_peak(spectrum: Spectrum, k: int) -> tuple[float, float]:
    """Frequency [Hz] and amplitude of the tone behind the local maximum at interior bin k.

    Fits the window's own main lobe to the three bins around the peak: for a tone at
    ``k + d`` bins each bin reads ``A |W(j - d)|`` with W the window's normalised transform,
    so ``|X[k+1]| / |X[k-1]| = |W(1-d)| / |W(1+d)|`` fixes d and then A. Exact for an
    isolated tone at any zero-padding; the error left is leakage from other tones and from
    the tone's negative-frequency image.
    """

    def lobe(nu: float) -> float:  # |W(nu)| / W(0), nu in (padded) bins
        return _window_lobe(spectrum.window, spectrum.n_samples, 2 * np.pi * nu / spectrum.n_fft)

    # A neighbour may be the DC or Nyquist bin, which amplitude_spectrum did not double.
    last = spectrum.amplitude.size - 1
    lo = spectrum.amplitude[k - 1] * (2.0 if k == 1 else 1.0)
    hi = spectrum.amplitude[k + 1] * (2.0 if k + 1 == last and spectrum.n_fft % 2 == 0 else 1.0)

    def mismatch(d: float) -> float:
        return hi * lobe(1.0 + d) - lo * lobe(1.0 - d)

    g_lo, g_hi = mismatch(-0.5), mismatch(0.5)
    if g_lo * g_hi < 0.0:
        from scipy.optimize import brentq

        d = brentq(mismatch, -0.5, 0.5, xtol=1e-7)  # [bins], far below the leakage
    else:  # noise pushed the ratio past the lobe's range: the nearer end is the best fit
        d = -0.5 if abs(g_lo) < abs(g_hi) else 0.5
    return (k + d) * spectrum.bin_width_hz, spectrum.amplitude[k] / lobe(d)


def dominant_frequencies(
    spectrum: Spectrum, count: int = 5, min_separation_hz: float | None = None
) -> list[tuple[float, float]]:
    """The ``count`` largest spectral peaks as ``(frequency_hz, amplitude)``, largest first.

    Each peak is refined between bins (see :func:`_refine_peak`): an isolated sine anywhere
    between bins is recovered to < 1e-3 bin and 0.1 % in amplitude (measured: Hann 2e-8 bin,
    Hamming 2e-4 bin; tests assert both bounds). DC and Nyquist bins are not candidates, and
    peaks inside DC's main lobe lose accuracy (the DC bin is a fit input). Peaks closer
    than ``min_separation_hz`` [Hz] to a larger one are skipped; the default, the window's
    full main-lobe width, also keeps a strong peak's first sidelobes out of the list.
    """
    count = int(require_range("count", count, 1, math.inf))
    if min_separation_hz is None:
        bins = 2 * len(WINDOW_COEFFICIENTS[spectrum.window]) * spectrum.n_fft / spectrum.n_samples
        min_separation_hz = bins * spectrum.bin_width_hz
    min_sep = require_range("min_separation_hz", min_separation_hz, 0.0, math.inf)
    a = spectrum.amplitude
    # local maxima (a plateau counts once, at its first bin)
    candidates = np.flatnonzero((a[1:-1] > a[:-2]) & (a[1:-1] >= a[2:])) + 1
    peaks: list[tuple[float, float]] = []

    def clear_of_kept(f: float) -> bool:
        return all(abs(f - f_kept) >= min_sep for f_kept, _ in peaks)

    # stable descending sort, vectorised: the candidates number in the thousands
    for k in candidates[np.argsort(-a[candidates], kind="stable")]:
        # The cheap bin-frequency test first: a refinement costs a root-find.
        if not clear_of_kept(k * spectrum.bin_width_hz):
            continue
        if spectrum.window == "boxcar":
            f, a = k * spectrum.bin_width_hz, spectrum.amplitude[k]
        else:
            f, a = _refine_peak(spectrum, int(k))
        if clear_of_kept(f):
            peaks.append((float(f), float(a)))
            if len(peaks) == count:
                break
    return peaks


def harmonic_markers(fundamental_hz: float, f_max_hz: float) -> np.ndarray:
    """Harmonics ``k * fundamental_hz`` for k = 1, 2, ... up to ``f_max_hz`` inclusive [Hz].

    For a crank at ``speed_rpm``, ``fundamental_hz = speed_rpm / 60``. Shape (K,).
    """
    f0 = require_range("fundamental_hz", fundamental_hz, 0.0, math.inf, low_open=True)
    f_max = require_range("f_max_hz", f_max_hz, 0.0, math.inf)
    # The 1e-9 keeps a harmonic that lands on f_max up to rounding (3 * f0 vs f_max = 3 f0).
    k_max = math.floor(f_max / f0 * (1.0 + 1e-9))
    return np.arange(1, k_max + 1) * f0


def high_frequency_energy_ratio(spectrum: Spectrum, cutoff_hz: float) -> float:
    """Fraction (0..1) of the signal's mean-square content in bins above ``cutoff_hz`` [Hz].

    Each bin contributes its mean square: ``A^2 / 2`` for a tone, ``A^2`` at DC and Nyquist.
    So a two-tone signal gives ``A2^2 / (A1^2 + A2^2)`` for a cutoff between the tones (kept
    a few bins clear of both main lobes). NaN for an all-zero spectrum.
    """
    cutoff = require_range("cutoff_hz", cutoff_hz, 0.0, math.inf)
    power = spectrum.amplitude**2 / 2.0
    power[0] *= 2.0
    if spectrum.n_fft % 2 == 0:
        power[-1] *= 2.0
    total = float(power.sum())
    if total == 0.0:
        return math.nan
    return float(power[spectrum.frequency_hz > cutoff].sum()) / total
