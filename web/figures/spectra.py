"""Amplitude spectra across a study (design.md 2): overlay of several cases with
crank-harmonic markers and the dominant frequencies, and a waterfall over an axis.

A spectrum comes as the worker stores it, in either of two forms:
``{"freq_hz": f, "slider_acceleration": A, "contact_normal_force": A}``, a case's stored
series ``{"spectrum_freq_hz": f, "spectrum_slider_acceleration": A, ...}``, or one signal
alone ``{"freq_hz": f, "amplitude": A}``; ``f`` in Hz from 0 to Nyquist, ``A`` in the
series' unit (m/s², N), one-sided amplitude.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import plotly.graph_objects as go

from .labels import (
    SERIES,
    level_name,
    parameter_label,
    parameter_parts,
    phrase,
    series_unit,
    with_unit,
)
from .style import SEQUENTIAL, color, new_figure, vertical_markers

SPECTRUM_SERIES = ("slider_acceleration", "contact_normal_force")
FREQUENCY_TITLE = with_unit("Frequency", "Hz")
# More markers than this grey the plot out: beyond them, narrow the x range (f_max_hz).
MAX_HARMONIC_MARKERS = 40


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


def spectra_overlay_figure(
    spectra: Sequence[Mapping[str, Any]],
    labels: Sequence[str],
    *,
    series: str = "slider_acceleration",
    speed_rpm: float | None = None,
    f_max_hz: float | None = None,
    log_y: bool = False,
) -> go.Figure:
    """The amplitude spectra of ``series`` of several cases overlaid, one trace per case.

    ``spectra[i]`` (a stored spectrum, see the module doc) is named ``labels[i]`` (e.g.
    ``case_label(case)``: ``"c = 0.05 mm"``). ``f_max_hz``: x range [0, f_max_hz] (default:
    Nyquist); each trace holds only the bins up to it. ``speed_rpm``: crank speed; its
    harmonics n × rpm/60 up to the x limit (at most
    :data:`MAX_HARMONIC_MARKERS`) are vertical dotted shapes. The dominant frequency
    of each trace is annotated (``"83.3 Hz"``). x in Hz, y in the series' unit.
    """
    if len(spectra) != len(labels):
        raise ValueError(f"{len(spectra)} spectra for {len(labels)} labels")
    arrays = [spectrum_arrays(s, series) for s in spectra]
    x_max = _x_limit(arrays, f_max_hz)
    name = SERIES.get(series, (series, ""))[0]
    fig = new_figure(
        f"Amplitude spectrum of {phrase(name)}",
        FREQUENCY_TITLE,
        with_unit(f"{name} amplitude", series_unit(series)),
    )
    for i, ((freq, amp), label) in enumerate(zip(arrays, labels, strict=True)):
        keep = freq <= x_max
        fig.add_trace(
            go.Scatter(x=freq[keep], y=amp[keep], mode="lines", name=label, line_color=color(i))
        )
        f_dom = dominant_frequency(freq, amp, x_max)
        if f_dom is not None:
            a_dom = float(amp[freq == f_dom][0])
            fig.add_annotation(
                x=f_dom,
                y=np.log10(a_dom) if log_y and a_dom > 0 else a_dom,
                text=f"{f_dom:.4g} Hz",
                showarrow=True,
                arrowhead=2,
                ax=0,
                ay=-24 - 14 * i,  # staggered so that cases sharing a peak stay readable
                font={"color": color(i), "size": 11},
            )
    if speed_rpm:
        vertical_markers(fig, harmonic_frequencies(speed_rpm, x_max))
    fig.update_xaxes(range=[0.0, x_max])
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
) -> go.Figure:
    """A waterfall as a heatmap: frequency [Hz] (x) × ``level_axis`` (y, its unit) ×
    amplitude (colour, the series' unit; ``log_amplitude``: log10 of it).

    ``spectra[i]`` belongs to ``levels[i]``; rows are sorted by level. Spectra on other
    frequency grids than the first are interpolated onto it (linearly), so z has shape
    (len(levels), bins up to ``f_max_hz``). Crank harmonics as in the overlay.
    """
    if len(spectra) != len(levels):
        raise ValueError(f"{len(spectra)} spectra for {len(levels)} levels")
    arrays = [spectrum_arrays(s, series) for s in spectra]
    x_max = _x_limit(arrays, f_max_hz)
    order = np.argsort(np.asarray(levels, dtype=float), kind="stable")
    name = SERIES.get(series, (series, ""))[0]
    fig = new_figure(
        f"Spectra of {phrase(name)} across {phrase(parameter_parts(level_axis)[0])}",
        FREQUENCY_TITLE,
        parameter_label(level_axis),
    )
    if not arrays:
        return fig
    grid = arrays[0][0][arrays[0][0] <= x_max]
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
        vertical_markers(fig, harmonic_frequencies(speed_rpm, x_max), color="white")
    return fig


def case_label(case: Mapping[str, Any], axis: str = "clearance_mm") -> str:
    """The legend name of a case by its ``axis`` value (``"c = 0.05 mm"``), else its id."""
    params = case.get("params") or {}
    if axis in params:
        return level_name(axis, params[axis])
    return f"case {case.get('id')}"


def spectra_figure(
    cases: Sequence[Mapping[str, Any]],
    *,
    signal: str = "slider_acceleration",
    axis: str | None = "clearance_mm",
    speed_rpm: float | None = None,
    f_max_hz: float | None = None,
) -> go.Figure:
    """The overlay for case dicts that carry their spectrum under ``"spectrum"`` (any form of
    the module doc), each named by its ``axis`` value (:func:`case_label`).
    ``speed_rpm`` None: the slider-crank's default 5000 rpm is not assumed - no markers."""
    return spectra_overlay_figure(
        [c["spectrum"] for c in cases],
        [case_label(c, axis) if axis else f"case {c.get('id')}" for c in cases],
        series=signal,
        speed_rpm=speed_rpm,
        f_max_hz=f_max_hz,
    )


def waterfall_figure(
    cases: Sequence[Mapping[str, Any]],
    *,
    signal: str = "slider_acceleration",
    axis: str | None = "clearance_mm",
    speed_rpm: float | None = None,
    f_max_hz: float | None = None,
) -> go.Figure:
    """The waterfall for case dicts with a ``"spectrum"``, one row per case at its ``axis``
    value (the case's position in the list without an axis)."""
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
    )
