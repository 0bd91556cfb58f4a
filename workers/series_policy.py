"""What a case keeps of its time series, per the study's policy (design.md 3, 4.5).

- ``full``: every series on the solver's uniform output grid, as computed.
- ``preview`` (default): the key series downsampled to :data:`PREVIEW_SAMPLES` points by
  min/max decimation (each bucket keeps its extreme samples, so an impact spike survives
  downsampling), plus the amplitude spectra of slider acceleration and contact force
  computed here at full resolution (a spectrum of a downsampled series would alias).
- ``none``: nothing; the metrics are always stored.

The Poincare section (``poincare_*``, one point a revolution) is kept whole in both
``preview`` and ``full``.

Metrics are taken by the solver before any of this, at every accepted step.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from gapsweep.core.errors import InputError
from gapsweep.core.metrics import joint_of, per_joint
from gapsweep.core.postprocessing import series_spectrum
from gapsweep.core.result import CaseResult
from gapsweep.core.series import SPECTRUM_SERIES
from gapsweep.core.solver import SERIES_NAMES

# Points per series in a preview: a 1280-px-wide figure shows no more than this.
PREVIEW_SAMPLES = 600

# every series of the solver's grid but its time base (each preview series carries its own)
PREVIEW_SERIES = tuple(name for name in SERIES_NAMES if name != "t")

# Series drawn against each other (the journal orbit, eccentricity y against x): a preview
# keeps them at the same instants, so that each point of the orbit is one position.
PAIRED_SERIES = (("eccentricity_x", "eccentricity_y"),)

# Stored spectra (SPECTRUM_SERIES, the series registry's): "spectrum_freq_hz" [Hz] shared by
# "spectrum_<series>" amplitudes (series units), over the settled window ("spectrum_t_start"
# [s], one value, where it is not 0).


def decimate(t: np.ndarray, x: np.ndarray, budget: int) -> tuple[np.ndarray, np.ndarray]:
    """Min/max decimation of ``x(t)`` to at most ``budget`` samples (both ends kept).

    Each of ``budget // 2 - 1`` buckets keeps the positions of its minimum and maximum
    (the first one of equal values, as ``argmin``/``argmax``; NaN only where a bucket holds
    nothing else), which is what a plot of the full series shows.
    """
    if x.size <= budget:
        return t, x
    (idx,) = decimate_rows(x[np.newaxis], budget)
    return t[idx], x[idx]


def decimate_indices(x: np.ndarray, budget: int) -> np.ndarray:
    """The sample indices :func:`decimate` keeps of ``x`` (ascending, both ends)."""
    if x.size <= budget:
        return np.arange(x.size)
    return decimate_rows(x[np.newaxis], budget)[0]


def decimate_rows(rows: np.ndarray, budget: int) -> list[np.ndarray]:
    """:func:`decimate_indices` of each row of ``rows`` (``[k, n]``, ``n > budget``), all
    rows at once: per bucket its extremes (``fmin``/``fmax.reduceat``), then the first
    sample equal to each. O(n) and a fixed number of numpy calls for the k series of a
    case: the per-series version (two ``lexsort`` per series) cost ~1.2 ms a series, 20 ms
    a case at load 9 - two thirds of the solver's time for a two-revolution case; this is
    ~0.1 ms a series (issue 28, benchmarks/worker_profile.py).
    """
    k, n = rows.shape
    buckets = max(1, budget // 2 - 1)
    # bucket b holds the inner samples edges[b] <= i < edges[b + 1] (a repeated edge: none)
    edges = np.unique(np.linspace(1, n - 1, buckets + 1).astype(np.int64))
    inner = rows[:, 1 : n - 1]
    if inner.dtype.kind != "f":
        inner = inner.astype(np.float64)
    m = n - 2
    starts, ends = edges[:-1] - 1, edges[1:] - 1  # into ``inner``
    counts = ends - starts
    flat_starts = (np.arange(k)[:, np.newaxis] * m + starts).ravel()
    flat_ends = (np.arange(k)[:, np.newaxis] * m + ends).ravel()
    keep = np.zeros((k, n), dtype=bool)
    keep[:, [0, n - 1]] = True
    for reduce in (np.fmin, np.fmax):  # the extremes ignore NaN, as sorting puts it last
        extreme = np.repeat(reduce.reduceat(inner, starts, axis=1), counts, axis=1)
        at = np.flatnonzero(inner == extreme)  # flat positions of samples at an extreme
        first = np.append(at, k * m)[np.searchsorted(at, flat_starts)]
        # a bucket of NaN only keeps its first sample
        first = np.where(first < flat_ends, first, flat_starts)
        keep[first // m, 1 + first % m] = True
    return [np.flatnonzero(row) for row in keep]


def _spectrum_names(result: CaseResult) -> list[str]:
    """:data:`SPECTRUM_SERIES`, and a described mechanism's contact force of each clearance
    joint (``contact_normal_force.<joint>``, design.md 4.7)."""
    joints = [n for n in result.series if joint_of(n, "contact_normal_force")]
    return [*SPECTRUM_SERIES, *joints]


def _extra_names(series: dict, t: np.ndarray) -> list[str]:
    """A described mechanism's own series beyond the solver grid's: its measures and each
    clearance joint's (``penetration.<joint>`` ...), one value per time of ``t``."""
    return [n for n, v in series.items()
            if n not in PREVIEW_SERIES and n not in ("t", "final_state")
            and np.asarray(v).shape == t.shape]


def spectrum_start_s(result: CaseResult, rotation_hz: float) -> float:
    """Where the stored spectra start [s] (design.md 4.10): the settled window
    (``settled_from_s``; else ``settled_after_revolutions`` crank revolutions in for a case
    that settled), else the run's start; no earlier than the last gap of the output grid
    (a long run keeps its first revolution and a ring of its last ones, core/cases.py), and
    a whole number of revolutions before the end (a multiple of N for a periodic-N motion, as
    the solver's ``spectrum_from_s``). Over N whole revolutions the rectangular window puts
    the crank harmonics on bins f1/N apart (f1/2 for the two revolutions of a start-up)."""
    metrics = result.metrics or {}
    after = metrics.get("settled_after_revolutions")
    start = 0.0
    window = metrics.get("settled_from_s")  # the solver's settled window (core/settled.py)
    if isinstance(window, (int, float)) and np.isfinite(window) and window > 0:
        start = float(window)
    elif (metrics.get("settled") == 1 and isinstance(after, (int, float)) and rotation_hz > 0
            and np.isfinite(after) and after > 0):
        start = float(after) / rotation_hz
    t = np.asarray(result.series.get("t", ()), dtype=float)
    if t.size < 3 or not rotation_hz > 0:
        return start
    dt = np.diff(t)
    gaps = np.flatnonzero(dt > 1.5 * np.median(dt))
    if gaps.size:
        start = max(start, float(t[gaps[-1] + 1]))
    if start <= t[0]:
        return 0.0
    whole = np.floor((t[-1] - start) * rotation_hz + 1e-6)  # revolutions that fit
    period = metrics.get("motion_period")
    if isinstance(period, (int, float)) and np.isfinite(period) and period > 1 and whole >= period:
        whole -= whole % int(period)  # periodic-N: its subharmonics k f1/N on bins too
    return float(t[-1] - whole / rotation_hz) if whole >= 1 else start


def _spectra(result: CaseResult, rotation_hz: float) -> dict[str, np.ndarray]:
    out: dict[str, np.ndarray] = {}
    t_start = spectrum_start_s(result, rotation_hz)
    for name in _spectrum_names(result):
        if name not in result.series:
            continue
        f_rot = rotation_hz if rotation_hz > 0 else 1.0
        try:
            s = series_spectrum(result, name, f_rot, t_start=t_start, peaks=1)
        except InputError:  # fewer than 8 samples in the window: the whole run, if uniform
            t_start = 0.0
            try:
                s = series_spectrum(result, name, f_rot, peaks=1)
            except InputError:
                return {}  # no spectrum; the case and its other series are fine
        out["spectrum_freq_hz"] = np.asarray(s.spectrum.frequency_hz)
        out[f"spectrum_{name}"] = np.asarray(s.spectrum.amplitude)
    if out and t_start > 0.0:
        out["spectrum_t_start"] = np.array([t_start])  # the page names the window
    return out


def _preview(result: CaseResult, rotation_hz: float) -> dict[str, np.ndarray]:
    series = result.series
    if "t" not in series:
        return {}
    t = np.asarray(series["t"])
    out: dict[str, np.ndarray] = {}
    extra = _extra_names(series, t)
    joints = [j for n in extra if (j := joint_of(n, "eccentricity_x"))]
    candidates = [*PAIRED_SERIES, *((per_joint("eccentricity_x", j), per_joint("eccentricity_y", j))
                                    for j in joints)]
    pairs = [pair for pair in candidates
             if all(n in series and np.asarray(series[n]).shape == t.shape for n in pair)]
    paired = {name for pair in pairs for name in pair}
    names = [n for n in (*PREVIEW_SERIES, *extra)
             if n not in paired and n in series and np.asarray(series[n]).shape == t.shape]
    if names and t.size > PREVIEW_SAMPLES:
        # each series keeps its own time base: min/max picks differ between series
        values = [np.asarray(series[n]) for n in names]
        picks = decimate_rows(np.stack([v.astype(np.float64, copy=False) for v in values]),
                              PREVIEW_SAMPLES)
        for name, v, idx in zip(names, values, picks, strict=True):
            out[name], out[f"t:{name}"] = v[idx], t[idx]
    else:
        for name in names:
            out[name], out[f"t:{name}"] = np.asarray(series[name]), t
    # the Poincare section: one point a revolution, kept exact (no decimation)
    out.update({k: np.asarray(v) for k, v in series.items() if k.startswith("poincare_")})
    # a wear life's profile and per-step record (design.md 4.12): small, kept exact
    out.update({k: np.asarray(v) for k, v in series.items()
                if k.startswith("wear_") and np.asarray(v).shape != t.shape})
    for pair in pairs:
        # one time base for both: the union of each one's extremes at half the budget
        values = [np.asarray(series[n]) for n in pair]
        idx = np.unique(np.concatenate([decimate_indices(v, PREVIEW_SAMPLES // 2)
                                        for v in values]))
        for name, v in zip(pair, values, strict=True):
            out[name], out[f"t:{name}"] = v[idx], t[idx]
    out.update(_spectra(result, rotation_hz))
    return out


def _full(result: CaseResult, rotation_hz: float) -> dict[str, np.ndarray]:
    out = {
        name: np.asarray(values)
        for name, values in result.series.items()
        if np.asarray(values).ndim == 1 and name != "final_state"
    }
    out.update(_spectra(result, rotation_hz))
    return out


POLICIES: dict[str, Callable[[CaseResult, float], dict[str, np.ndarray]]] = {
    "preview": _preview,
    "full": _full,
    "none": lambda result, rotation_hz: {},
}


def select_series(result: CaseResult, policy: str, rotation_hz: float) -> dict[str, np.ndarray]:
    """The series to store for ``result`` under ``policy`` (``preview`` | ``full`` | ``none``).

    ``rotation_hz``: the crank frequency [Hz] (harmonic markers of the spectra). In a
    preview, series ``x`` has its own time base ``"t:x"`` [s]; in ``full`` all share ``"t"``.
    """
    if not result.ok:
        return {}
    try:
        return POLICIES[policy](result, rotation_hz)
    except KeyError:
        allowed = ", ".join(POLICIES)
        raise ValueError(f"series policy {policy!r}: must be one of {allowed}") from None
