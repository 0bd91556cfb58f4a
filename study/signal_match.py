"""A simulated series against a measured one: alignment and the error figures (design.md 4.9).

Pure functions on arrays. A measurement comes on its own time base - time [s] or crank angle
[deg] - and a case's series on the solver's grid; :func:`align` puts the simulated series on
the measurement's samples (linear interpolation inside the overlap; samples outside it are
dropped) and :func:`match_errors` gives the three figures the pages show:

- ``peak_error``: (max|sim| - max|meas|) / max|meas| (signed, a fraction);
- ``rms_error``: sqrt(mean((sim - meas)²)) in the series' unit, and ``rms_error_relative`` =
  that / RMS(meas);
- ``correlation``: Pearson's r of the aligned samples (1: same shape, whatever the scale).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from gapsweep.core.errors import InputError


def crank_deg_to_time(crank_deg: np.ndarray, speed_rpm: float) -> np.ndarray:
    """Times [s] of crank angles [deg] at a constant crank speed [rpm] from angle 0 at t = 0."""
    if not speed_rpm > 0:
        raise InputError("speed_rpm", speed_rpm, "> 0 to align a crank-angle record")
    return np.asarray(crank_deg, dtype=float) / (6.0 * speed_rpm)  # 360 deg/rev / 60 s/min


@dataclass(frozen=True)
class Aligned:
    """Measured and simulated samples at the same times: ``t`` [s], ``measured``,
    ``simulated`` (shape (n,) each), and ``keep`` (shape of the measurement: which of its
    samples fall inside the simulated run)."""

    t: np.ndarray
    measured: np.ndarray
    simulated: np.ndarray
    keep: np.ndarray


def align(
    t_sim: np.ndarray, y_sim: np.ndarray, t_meas: np.ndarray, y_meas: np.ndarray
) -> Aligned:
    """The simulated series ``y_sim(t_sim)`` on the measured times ``t_meas`` [s] (both
    increasing), inside the overlap of the two records; fewer than 2 shared samples ->
    InputError."""
    t_sim, y_sim = np.asarray(t_sim, float), np.asarray(y_sim, float)
    t_meas, y_meas = np.asarray(t_meas, float), np.asarray(y_meas, float)
    keep = (t_meas >= t_sim[0] - 1e-12) & (t_meas <= t_sim[-1] + 1e-12)
    if keep.sum() < 2:
        raise InputError("measurement", f"{t_meas[0]:.6g}-{t_meas[-1]:.6g} s",
                         f"a record overlapping the run {t_sim[0]:.6g}-{t_sim[-1]:.6g} s")
    t = t_meas[keep]
    return Aligned(t, y_meas[keep], np.interp(t, t_sim, y_sim), keep)


def match_errors(measured: np.ndarray, simulated: np.ndarray) -> dict[str, float]:
    """``{"peak_error", "rms_error", "rms_error_relative", "correlation", "n"}`` of two
    aligned series (same shape)."""
    m, s = np.asarray(measured, float), np.asarray(simulated, float)
    peak_m = float(np.max(np.abs(m)))
    rms_m = float(np.sqrt(np.mean(m**2)))
    rms = float(np.sqrt(np.mean((s - m) ** 2)))
    sd_m, sd_s = float(np.std(m)), float(np.std(s))
    corr = float(np.mean((m - m.mean()) * (s - s.mean())) / (sd_m * sd_s)) if sd_m * sd_s > 0 \
        else float("nan")
    return {
        "peak_error": (float(np.max(np.abs(s))) - peak_m) / peak_m if peak_m > 0 else float("nan"),
        "rms_error": rms,
        "rms_error_relative": rms / rms_m if rms_m > 0 else float("nan"),
        "correlation": corr,
        "n": int(m.size),
    }
