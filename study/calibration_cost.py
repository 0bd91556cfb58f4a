"""Costs of a calibration: how far a simulated series is from a measured record.

Why not just the RMS of the difference. Measured on a synthetic rig record (reference
mechanism, c = 0.05 mm, 5000 rpm, two revolutions, 50 kHz, 1 % noise; tests/core and
benchmarks/calibration.py): the slider acceleration is a train of ~50 µs impact spikes -
2-3 samples each. The instants of the impacts after the first depend smoothly on the contact
stiffness and restitution (the rebound velocity sets the flight time to the next impact),
but the RMS difference of two spike trains saturates as soon as a spike moves by more than
its own width: ±0.02 in restitution or ±5 % in stiffness shift the later impacts by that
much, and the RMS error is 10-40x its value at the truth there and as large anywhere else
in the box. The basin is a needle; a grid or a population search over that cost lands in
it only by luck.

What is smooth: (1) the **energy envelope** - ``sqrt(G_sigma * a²)``, the signal's power
smoothed by a Gaussian of width ``sigma`` - moves by a fraction of sigma when an impact
moves, instead of jumping, so the basin widens about in proportion to ``sigma``; (2) the
**early window** - the first impacts happen before the sequences of two nearby parameter
sets have diverged (the first impact's approach velocity does not depend on the contact
parameters at all; its peak grows as about K^0.4, its rebound with the restitution), so a
cost over the first milliseconds has one basin across the box while a cost over the whole
record has many. Measured on that record (cost at the truth -> at ±0.02 restitution -> far):
envelope over 2 ms with sigma = 0.2 ms: 16 -> 1000-1750 -> 2400-5600, decreasing
monotonically towards the truth along restitution 0.5 ... 0.88 and (but for one bump)
along the stiffness scale 0.5 ... 1.15.

(3) the **amplitude distribution** - the largest samples of |a|, sorted - says how hard the
impacts are whatever their instants: it carries the stiffness the envelope misses (measured
on a record of stiffness scale 1.6, restitution 0.75: the envelope alone has a valley along
the restitution across the whole stiffness range; with this term added, its minimum is at
the truth).

So the search is **staged** (graduated): each stage a DE search
(:mod:`gapsweep.study.search`) on a sharper cost in a smaller box around the best case so
far, seeded with that case - :data:`STAGES`: (early window, wide envelope + amplitude
distribution, whole box, half the budget) ->
(longer window, narrower envelope) -> (the whole record, the plain RMS difference: the
cost design.md 4.9 states, the figure reported). The best case is the one with the least
plain RMS error among all cases run.

Pure functions on arrays; the record comes aligned (:mod:`.signal_match`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .signal_match import align, match_errors


@dataclass(frozen=True)
class CostStage:
    """One stage's cost and box. ``window_s``: the record's first seconds compared (None:
    all of it); ``sigma_s``: the Gaussian width of the energy envelope [s] (None: the plain
    difference); ``box_fraction``: the stage's box per axis as a fraction of the study's
    (centred on the best case so far); ``budget_fraction``: its share of the case budget."""

    window_s: float | None
    sigma_s: float | None
    box_fraction: float
    budget_fraction: float
    #: add the amplitude-distribution term over the record's first seconds (None: none)
    quantile_window_s: float | None = None
    #: DE population members per parameter (None: the search's default)
    members: int | None = None

    @property
    def metric(self) -> str:
        return f"calibration_cost_{STAGES.index(self)}"


STAGES: tuple[CostStage, ...] = (
    CostStage(window_s=0.002, sigma_s=2e-4, box_fraction=1.0, budget_fraction=0.5,
              quantile_window_s=0.004),
    CostStage(window_s=0.008, sigma_s=1e-4, box_fraction=0.25, budget_fraction=0.25),
    CostStage(window_s=None, sigma_s=None, box_fraction=0.08, budget_fraction=0.25),
)
#: the share of the largest samples the amplitude-distribution term compares, and its weight
#: against the envelope (1.0 let the search settle at stiffness 1.29-1.37 for a truth of
#: 1.0 / 0.9 on two seeds; 0.5 found both that truth and 1.6 / 0.75)
QUANTILE_SHARE = 0.1
QUANTILE_WEIGHT = 0.5
FINAL_METRIC = "calibration_rms_error"


def energy_envelope(t: np.ndarray, x: np.ndarray, sigma_s: float) -> np.ndarray:
    """``sqrt(G * x²)``: the power of ``x`` smoothed by a unit-area Gaussian of standard
    deviation ``sigma_s`` [s] (uniform ``t``; 'same' length, zero outside the record)."""
    dt = float(t[1] - t[0])
    half = max(1, int(round(4.0 * sigma_s / dt)))
    u = np.arange(-half, half + 1) * dt
    kernel = np.exp(-0.5 * (u / sigma_s) ** 2)
    kernel /= kernel.sum()
    return np.sqrt(np.convolve(x * x, kernel, mode="same"))


def stage_cost(t: np.ndarray, measured: np.ndarray, simulated: np.ndarray,
               stage: CostStage) -> float:
    """One stage's cost of aligned samples, relative to the measured record's RMS (so that
    it reads the same whatever the series' unit)."""
    scale = float(np.sqrt(np.mean(measured**2))) or 1.0
    m, s = measured, simulated
    if stage.sigma_s is not None:
        m, s = energy_envelope(t, m, stage.sigma_s), energy_envelope(t, s, stage.sigma_s)
    keep = slice(None) if stage.window_s is None else t <= t[0] + stage.window_s
    cost = float(np.sqrt(np.mean((s[keep] - m[keep]) ** 2)) / scale)
    if stage.quantile_window_s is not None:
        far = amplitude_distance(t, measured, simulated, stage.quantile_window_s)
        cost += QUANTILE_WEIGHT * far / scale
    return cost


def amplitude_distance(t: np.ndarray, measured: np.ndarray, simulated: np.ndarray,
                       window_s: float) -> float:
    """RMS difference of the largest :data:`QUANTILE_SHARE` of ``|x|`` over the first
    ``window_s`` seconds, each sorted: how large the impacts are, whenever they happen
    (the envelope barely sees the stiffness - an impact's energy grows only as ~K^0.4 -
    while its peak does, and the sorted amplitudes do not care when)."""
    keep = t <= t[0] + window_s
    m, s = np.sort(np.abs(measured[keep])), np.sort(np.abs(simulated[keep]))
    n = max(3, int(QUANTILE_SHARE * m.size))
    return float(np.sqrt(np.mean((s[-n:] - m[-n:]) ** 2)))


def calibration_metrics(
    t_sim: np.ndarray, y_sim: np.ndarray, t_meas: np.ndarray, y_meas: np.ndarray
) -> dict[str, float]:
    """Every stage's cost (``calibration_cost_<k>``, fractions of the record's RMS) and the
    match figures of the whole record (``calibration_rms_error`` in the series' unit,
    ``calibration_peak_error``, ``calibration_correlation``) of a simulated series
    ``y_sim(t_sim)`` against the measured ``y_meas(t_meas)`` (times in s)."""
    aligned = align(t_sim, y_sim, t_meas, y_meas)
    out = {stage.metric: stage_cost(aligned.t, aligned.measured, aligned.simulated, stage)
           for stage in STAGES}
    errors = match_errors(aligned.measured, aligned.simulated)
    out[FINAL_METRIC] = errors["rms_error"]
    out["calibration_peak_error"] = errors["peak_error"]
    out["calibration_correlation"] = errors["correlation"]
    return out
