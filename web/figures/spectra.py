"""Amplitude spectra across a study (design.md 2): overlay of several cases with
crank-harmonic markers and the dominant frequencies, and a waterfall over an axis.

A spectrum comes as the worker stores it, in either of two forms:
``{"freq_hz": f, "slider_acceleration": A, "contact_normal_force": A}``, a case's stored
series ``{"spectrum_freq_hz": f, "spectrum_slider_acceleration": A, ...}``, or one signal
alone ``{"freq_hz": f, "amplitude": A}``; ``f`` in Hz from 0 to Nyquist, ``A`` in the
series' unit (m/s², N), one-sided amplitude.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import plotly.graph_objects as go
from gapsweep.core.series import SPECTRUM_SERIES  # noqa: F401 - the series registry's

from .labels import (
    level_name,
    parameter_label,
    parameter_parts,
    phrase,
    series_parts,
    series_unit,
    with_unit,
)
from .style import SEQUENTIAL, color, new_figure, vertical_markers

FREQUENCY_TITLE = with_unit("Frequency", "Hz")
# More markers than this grey the plot out: beyond them, narrow the x range (f_max_hz).
MAX_HARMONIC_MARKERS = 40
#: the default band runs up to this crank harmonic (see default_band_hz)
HARMONICS_IN_VIEW = 40
#: the energy bandwidth used when there is no crank speed
ENERGY_FRACTION = 0.99
#: harmonic order labels at most (the rest of the lines stay unlabelled)
MAX_ORDER_LABELS = 10


def spectrum_arrays(stored: Mapping[str, Any], series: str) -> tuple[np.ndarray, np.ndarray]:
    """``(freq_hz, amplitude)`` of ``series`` from either stored form (see the module doc).

    Raises KeyError naming the series when the spectrum is absent.
    """
    if f"spectrum_{series}" in stored:
        freq, amp = stored["spectrum_freq_hz"], stored[f"spectrum_{series}"]
    elif series in stored and "freq_hz" in stored:
        freq, amp = stored["freq_hz"], stored[series]
    elif "amplitude" in stored and "freq_hz" in stored:
        freq, amp = stored["freq_hz"], stored["amplitude"]
    else:
        raise KeyError(f"no spectrum of {series!r}")
    return np.asarray(freq, dtype=float), np.asarray(amp, dtype=float)


def harmonic_frequencies(
    speed_rpm: float, f_max_hz: float, limit: int = MAX_HARMONIC_MARKERS
) -> np.ndarray:
    """Crank harmonics ``n × speed_rpm / 60`` [Hz], n = 1, 2, ..., up to ``f_max_hz`` [Hz]
    and at most ``limit`` of them."""
    f1 = speed_rpm / 60.0
    if not f1 > 0.0 or not f_max_hz >= f1:
        return np.empty(0)
    n = int(np.floor(f_max_hz / f1 * (1 + 1e-12)))
    return f1 * np.arange(1, min(n, limit) + 1)


def dominant_frequency(freq: np.ndarray, amp: np.ndarray, f_max_hz: float) -> float | None:
    """The frequency [Hz] of the largest amplitude in ``(0, f_max_hz]`` (DC excluded, since
    the mean of a series is not a vibration), None if that band is empty."""
    band = (freq > 0.0) & (freq <= f_max_hz)
    if not band.any():
        return None
    return float(freq[band][np.argmax(amp[band])])


def _x_limit(spectra: Sequence[tuple[np.ndarray, np.ndarray]], f_max_hz: float | None) -> float:
    """The x range's top [Hz]: ``f_max_hz``, at most the highest bin of the spectra."""
    top = max((float(f[-1]) for f, _ in spectra if f.size), default=None)
    if f_max_hz is None:
        return top or 0.0
    return float(f_max_hz) if top is None else min(float(f_max_hz), top)


def energy_bandwidth_hz(
    spectra: Sequence[tuple[np.ndarray, np.ndarray]], fraction: float = ENERGY_FRACTION
) -> float | None:
    """The lowest frequency [Hz] below which ``fraction`` of the spectra's energy (sum of
    squared amplitudes over every trace, DC excluded) lies; None without energy."""
    grid = next((f for f, _ in spectra if f.size), None)
    if grid is None:
        return None
    energy = np.zeros(grid.size)
    for freq, amp in spectra:
        energy += np.interp(grid, freq, amp) ** 2
    energy[grid <= 0.0] = 0.0
    total = energy.sum()
    if not total > 0.0:
        return None
    k = int(np.searchsorted(np.cumsum(energy) / total, fraction))
    return float(grid[min(k, grid.size - 1)])


def energy_fraction_below(
    spectra: Sequence[tuple[np.ndarray, np.ndarray]], f_hz: float
) -> float | None:
    """The share (0..1) of the spectra's energy (DC excluded) at or below ``f_hz``."""
    below = total = 0.0
    for freq, amp in spectra:
        e = np.where(freq > 0.0, amp**2, 0.0)
        below += float(e[freq <= f_hz].sum())
        total += float(e.sum())
    return below / total if total > 0.0 else None


def default_band_hz(
    spectra: Sequence[tuple[np.ndarray, np.ndarray]], speed_rpm: float | None
) -> tuple[float, str]:
    """The band a spectra view opens on: ``(top [Hz], why)``. With a crank speed, up to
    the :data:`HARMONICS_IN_VIEW`-th crank harmonic: there the crank orders are resolved
    (1x = 83.3 Hz at 5000 rpm is 1/40 of the width, not 1/600 as up to Nyquist). The 99 %
    energy bandwidth is no use as a default here: the impacts spread energy up to ~24 kHz
    (measured on the user's study; the 40 harmonics hold 61-86 % of the slider
    acceleration's energy), so that band would crowd the harmonics into the first pixels
    again. Without a crank speed, the 99 % energy bandwidth."""
    nyquist = _x_limit(spectra, None)
    if speed_rpm and speed_rpm > 0.0:
        top = HARMONICS_IN_VIEW * speed_rpm / 60.0
        if top <= nyquist:
            return top, f"up to the {HARMONICS_IN_VIEW}th crank harmonic"
    band = energy_bandwidth_hz(spectra)
    if band is None or band <= 0.0:
        return nyquist, "up to Nyquist"
    return band, f"{100 * ENERGY_FRACTION:.3g} % energy bandwidth"


def labelled_orders(
    count: int, log_x: bool = False, max_labels: int = MAX_ORDER_LABELS
) -> list[int]:
    """The harmonic orders that get a label among ``1..count``: on a linear axis 1 and every
    n-th, n the smallest of 1, 2, 5, 10, 20, 50 ... giving at most ``max_labels`` labels
    (evenly spaced, so at the 40 harmonics of the default band, 1x, 5x, 10x ... 40x, each
    label ~4 harmonic spacings from the next); on a log axis 1, 2, 5, 10, 20, 50 ... (evenly
    spaced in log)."""
    if count < 1:
        return []
    nice = [m * 10**e for e in range(8) for m in (1, 2, 5)]
    if log_x:
        return [n for n in nice if n <= count]
    step = next(n for n in nice if count / n <= max_labels - 1 or n >= count)
    return sorted({1, *range(step, count + 1, step)})


def order_of(f_hz: float, f1_hz: float, bin_hz: float) -> int | None:
    """The crank order ``n`` when ``f_hz`` is within half a bin of ``n × f1_hz``, else None."""
    if not f1_hz > 0.0 or not f_hz > 0.0:
        return None
    n = round(f_hz / f1_hz)
    return n if n >= 1 and abs(f_hz - n * f1_hz) <= 0.5 * bin_hz + 1e-9 * f_hz else None


def mark_harmonics(
    fig: go.Figure, speed_rpm: float, f_top_hz: float, *, log_x: bool = False,
    color: str | None = None, f_low_hz: float = 0.0,
) -> np.ndarray:
    """Dotted lines at the crank harmonics up to ``f_top_hz`` (at most
    :data:`MAX_HARMONIC_MARKERS`), drawn once for the figure, and their orders labelled
    ("1×", "5×" ... see :func:`labelled_orders`) at the top of the plot, each label to the
    right of its line so that 1× stays readable next to the y axis - except near the right
    edge (the last 8 % of the x range from ``f_low_hz`` to ``f_top_hz``), where it goes to
    the left so as not to be cut off. Returns the harmonics [Hz]."""
    harmonics = harmonic_frequencies(speed_rpm, f_top_hz)
    if color is None:
        vertical_markers(fig, harmonics)
    else:
        vertical_markers(fig, harmonics, color=color)
    scale = np.log10 if log_x else (lambda v: v)
    lo, hi = float(scale(max(f_low_hz, 1e-12) if log_x else f_low_hz)), float(scale(f_top_hz))
    for n in labelled_orders(harmonics.size, log_x):
        f = float(harmonics[n - 1])
        at_edge = hi > lo and (float(scale(f)) - lo) / (hi - lo) > 0.92
        fig.add_annotation(
            x=float(scale(f)),  # annotations on a log axis take log10 (plotly)
            y=1.0, xref="x", yref="paper", yanchor="top",
            xanchor="right" if at_edge else "left", xshift=-2 if at_edge else 2,
            text=f"{n}×", showarrow=False, font={"size": 11},
            bgcolor="rgba(255,255,255,0.7)", name="harmonic order",
        )
    return harmonics


def _hz(f: float) -> str:
    """A frequency for a subtitle: ``"83.3 Hz"``, ``"3.33 kHz"``, ``"50 kHz"``."""
    return f"{f / 1000:.3g} kHz" if f >= 1000 else f"{f:.3g} Hz"


def _x_range(x_max: float, first_bin: float, log_x: bool) -> list[float]:
    if log_x:
        return [float(np.log10(first_bin)), float(np.log10(x_max))]  # a log range is log10
    return [0.0, x_max]


def _resolution(arrays: Sequence[tuple[np.ndarray, np.ndarray]], speed_rpm: float | None) -> str:
    """``", bins f1/N over N = 7–32 revolutions"``: the spectra's resolution (issue 23: each
    case's over the whole revolutions of its settled window); "" without the speed."""
    if not speed_rpm:
        return ""
    f1 = speed_rpm / 60.0
    counts = sorted({round(f1 / float(f[1] - f[0])) for f, _ in arrays
                     if f.size > 1 and f[1] > f[0]})
    if not counts:
        return ""
    n = f"{counts[0]}" if len(counts) == 1 else f"{counts[0]}–{counts[-1]}"
    return f", bins f1/N over N = {n} revolutions"


def spectra_overlay_figure(
    spectra: Sequence[Mapping[str, Any]],
    labels: Sequence[str],
    *,
    series: str = "slider_acceleration",
    speed_rpm: float | None = None,
    f_max_hz: float | None = None,
    log_y: bool = False,
    log_x: bool = False,
) -> go.Figure:
    """The amplitude spectra of ``series`` of several cases overlaid, one trace per case.

    ``spectra[i]`` (a stored spectrum, see the module doc) is named ``labels[i]`` (e.g.
    ``case_label(case)``: ``"c = 0.05 mm"``) followed by where its dominant frequency is:
    its crank order (``"peak 1×"``) when it sits on a harmonic, else the frequency.

    ``f_max_hz`` given: the traces hold the bins up to it and x runs [0, f_max_hz]. None:
    the traces hold every bin (zooming out shows them all) and x opens on
    :func:`default_band_hz` (the 40th crank harmonic), the subtitle saying which band and
    how much of the energy it holds. ``log_x``: log frequency axis from the first non-zero
    bin to the top (the whole spectrum when ``f_max_hz`` is None; the 0 Hz bin is left
    out). ``speed_rpm``: crank speed; the harmonics are marked once (dotted lines up to the
    40th, the orders labelled, :func:`mark_harmonics`). x in Hz, y in the series' unit.
    """
    if len(spectra) != len(labels):
        raise ValueError(f"{len(spectra)} spectra for {len(labels)} labels")
    arrays = [spectrum_arrays(s, series) for s in spectra]
    x_max = _x_limit(arrays, f_max_hz)
    band, why = (x_max, None) if f_max_hz is not None else default_band_hz(arrays, speed_rpm)
    view_top = x_max if log_x else band
    name = series_parts(series)[0]
    positive = [f[f > 0.0] for f, _ in arrays]
    first_bin = min((float(p[0]) for p in positive if p.size), default=1.0)
    subtitle = None
    if why is not None:
        share = energy_fraction_below(arrays, view_top)
        subtitle = ((f"{_hz(first_bin)} – {_hz(view_top)}, log" if log_x
                     else f"0 – {_hz(view_top)}: {why}")
                    + ("" if share is None else f", {100 * share:.3g} % of the energy")
                    + _resolution(arrays, speed_rpm))
    fig = new_figure(
        f"Amplitude spectrum of {phrase(name)}",
        FREQUENCY_TITLE,
        with_unit(f"{name} amplitude", series_unit(series)),
        subtitle=subtitle,
    )
    f1 = speed_rpm / 60.0 if speed_rpm else 0.0
    for i, ((freq, amp), label) in enumerate(zip(arrays, labels, strict=True)):
        keep = (freq <= x_max) & ((freq > 0.0) if log_x else True)
        f_dom = dominant_frequency(freq, amp, band)
        if f_dom is not None:
            bin_hz = float(freq[1] - freq[0]) if freq.size > 1 else 0.0
            n = order_of(f_dom, f1, bin_hz)
            label = f"{label} · peak {n}×" if n else f"{label} · peak {f_dom:.4g} Hz"
        fig.add_trace(
            go.Scatter(x=freq[keep], y=amp[keep], mode="lines", name=label, line_color=color(i))
        )
    if speed_rpm:
        mark_harmonics(fig, speed_rpm, view_top, log_x=log_x,
                       f_low_hz=first_bin if log_x else 0.0)
    if log_x:
        fig.update_xaxes(type="log", range=_x_range(view_top, first_bin, True))
    else:
        fig.update_xaxes(range=[0.0, view_top])
    if log_y:
        fig.update_yaxes(type="log")
    return fig


def spectra_waterfall_figure(
    spectra: Sequence[Mapping[str, Any]],
    levels: Sequence[float],
    *,
    series: str = "slider_acceleration",
    level_axis: str = "clearance_mm",
    speed_rpm: float | None = None,
    f_max_hz: float | None = None,
    log_amplitude: bool = False,
    log_x: bool = False,
) -> go.Figure:
    """A waterfall as a heatmap: frequency [Hz] (x) × ``level_axis`` (y, its unit) ×
    amplitude (colour, the series' unit; ``log_amplitude``: log10 of it).

    ``spectra[i]`` belongs to ``levels[i]``; rows are sorted by level. Spectra on other
    frequency grids than the first are interpolated onto it (linearly), so z has shape
    (len(levels), bins up to ``f_max_hz``). The x range, ``log_x`` and the crank harmonics
    as in the overlay (:func:`spectra_overlay_figure`).
    """
    if len(spectra) != len(levels):
        raise ValueError(f"{len(spectra)} spectra for {len(levels)} levels")
    arrays = [spectrum_arrays(s, series) for s in spectra]
    x_max = _x_limit(arrays, f_max_hz)
    order = np.argsort(np.asarray(levels, dtype=float), kind="stable")
    name = series_parts(series)[0]
    fig = new_figure(
        f"Spectra of {phrase(name)} across {phrase(parameter_parts(level_axis)[0])}",
        FREQUENCY_TITLE,
        parameter_label(level_axis),
    )
    if not arrays:
        return fig
    band = x_max if f_max_hz is not None else default_band_hz(arrays, speed_rpm)[0]
    view_top = x_max if log_x else band
    grid = arrays[0][0][(arrays[0][0] <= x_max) & ((arrays[0][0] > 0.0) if log_x else True)]
    z = np.array([np.interp(grid, *arrays[i]) for i in order])
    unit = series_unit(series)
    if log_amplitude:
        z = np.log10(np.maximum(z, np.finfo(float).tiny))
    fig.add_trace(
        go.Heatmap(
            x=grid,
            y=[float(levels[i]) for i in order],
            z=z,
            colorscale=SEQUENTIAL,
            colorbar={
                "title": {"text": f"log10 amplitude [{unit}]" if log_amplitude else f"[{unit}]"}
            },
            hovertemplate="%{x:.4g} Hz, %{y}: %{z:.4g}<extra></extra>",
        )
    )
    if speed_rpm:
        mark_harmonics(fig, speed_rpm, view_top, log_x=log_x, color="white",
                       f_low_hz=float(grid[0]) if log_x and grid.size else 0.0)
    if grid.size:
        fig.update_xaxes(type="log" if log_x else "linear",
                         range=_x_range(view_top, float(grid[0]), log_x))
    return fig


LABEL_DIGITS = 3  # significant digits of a sampled value in a legend (0.0227578 -> 0.0228)


def case_label(case: Mapping[str, Any], axis: str | Sequence[str] = "clearance_mm") -> str:
    """The legend name of a case by its value of each of ``axis`` (one name or several: every
    varied factor), rounded to :data:`LABEL_DIGITS` significant digits - ``"c = 0.0228 mm,
    stiffness ×1.14"`` - else its id."""
    params = case.get("params") or {}
    names = [axis] if isinstance(axis, str) else list(axis)

    def rounded(value: Any) -> Any:
        if isinstance(value, float) and math.isfinite(value):
            return float(f"{value:.{LABEL_DIGITS}g}")
        return value

    parts = [level_name(a, rounded(params[a])) for a in names if a in params]
    return ", ".join(parts) if parts else f"case {case.get('id')}"


def spectra_figure(
    cases: Sequence[Mapping[str, Any]],
    *,
    signal: str = "slider_acceleration",
    axis: str | Sequence[str] | None = "clearance_mm",
    speed_rpm: float | None = None,
    f_max_hz: float | None = None,
    log_x: bool = False,
    log_y: bool = False,
) -> go.Figure:
    """The overlay for case dicts that carry their spectrum under ``"spectrum"`` (any form of
    the module doc), each named by its value of ``axis`` - one name, or every varied factor
    (:func:`case_label`). ``speed_rpm`` None: the slider-crank's default 5000 rpm is not
    assumed - no markers. ``log_y``: a logarithmic amplitude axis."""
    return spectra_overlay_figure(
        [c["spectrum"] for c in cases],
        [case_label(c, axis) if axis else f"case {c.get('id')}" for c in cases],
        series=signal,
        speed_rpm=speed_rpm,
        f_max_hz=f_max_hz,
        log_x=log_x,
        log_y=log_y,
    )


def waterfall_figure(
    cases: Sequence[Mapping[str, Any]],
    *,
    signal: str = "slider_acceleration",
    axis: str | None = "clearance_mm",
    speed_rpm: float | None = None,
    f_max_hz: float | None = None,
    log_x: bool = False,
    log_amplitude: bool = True,
) -> go.Figure:
    """The waterfall for case dicts with a ``"spectrum"``, one row per case at its ``axis``
    value (the case's position in the list without an axis). The colour is the log of the
    amplitude by default: on a linear scale the largest peak makes the rest one colour."""
    levels = [
        float((c.get("params") or {}).get(axis, i)) if axis else float(i)
        for i, c in enumerate(cases)
    ]
    return spectra_waterfall_figure(
        [c["spectrum"] for c in cases],
        levels,
        series=signal,
        level_axis=axis or "case",
        speed_rpm=speed_rpm,
        f_max_hz=f_max_hz,
        log_x=log_x,
        log_amplitude=log_amplitude,
    )
