"""Costs of a calibration: how far a simulated series is from a measured record.

Why not just the RMS of the difference. Measured on synthetic rig records (reference
mechanism, c = 0.05 mm, 5000 rpm, two revolutions, 50 kHz, 1 % noise; benchmarks/
calibration.py): the slider acceleration is a train of ~50 µs impact spikes - 2-3 samples
each. The instants of the impacts after the first depend on the contact stiffness and
restitution (the rebound velocity sets the flight time to the next impact), and the impact
sequence itself changes - a small rebound appears or vanishes - as they vary; the RMS
difference of two spike trains saturates as soon as a spike moves by more than its own
width. Over the whole record ±2 % in stiffness scale or ±0.02 in restitution multiplies the
error by 5-50, and it is as large anywhere else in the box: a needle.

What is not a needle: **the first impacts.** The first impact's approach velocity does not
depend on the contact parameters at all, and the sequences of two parameter sets take a
few impacts to diverge; over a window that holds only the record's first
:data:`STAGES` [0].impacts impacts, the plain RMS difference is a smooth function of both
parameters with one deep minimum. Counted on a 76 x 49 grid over the box (stiffness scale
0.5-2.0 by 0.02, restitution 0.5-0.98 by 0.01) for five truths: with the first 2 impacts,
3-8 local minima, the truth the global one, every minimum more than 3 grid steps from it
above half the median cost; with 4 impacts 13-31 minima, with 6 impacts 31-57, over the
whole record 155-194 (and over a fixed 1 ms / 2 ms, 37-79 whether the record is smoothed by
a Gaussian energy envelope of 20-100 µs or not). The window is counted in **impacts of the
record**, not in seconds: the impacts come sooner or later with the clearance and the speed,
so a window fixed in seconds would hold another number of them on another rig.

What was tried and dropped: (1) an energy envelope (the power smoothed by a Gaussian)
over 2 ms - smooth along the restitution, but at restitution 0.95 the impacts come every
0.1 ms and the envelope is as rough along the stiffness as the plain difference (the truth
1.3 / 0.95 was missed at stiffness 0.83); (2) the sorted largest samples (how hard the
impacts are, whenever they come) - the sampled peak of a 2-3-sample spike depends on where
the samples fall within it, so this term is rough along the stiffness too, and it needed a
hand-set weight against the envelope (1.0 settled on stiffness 1.29-1.37 for the truth
1.0 / 0.9, 0.5 found four truths of five). Each window's term is now a relative RMS
difference - a fraction of the measured RMS in that window - so terms add without weights.

And the whole record is not always identifiable. At restitution 0.95 the two revolutions
are chaotic: moving the stiffness scale by 0.1 % or the restitution by 0.001 from the truth
1.3 / 0.95 raises the whole-record RMS error from the noise (1 % of the record's RMS) to
22-36 % of it, while the error over the first 2 (6) impacts grows smoothly, to 0.2 % (0.5 %)
at 0.1 % in stiffness and 2 % (8 %) at 2 %. No search of the whole-record error finds that
basin; at restitution 0.6-0.9 it is found, and fits the record down to its noise.

So the search is **staged** (a continuation in the window): each stage a DE search
(:mod:`gapsweep.study.search`) in a smaller box around the best case so far, seeded with
it, on a cost that **keeps the windows of the stage before and adds a longer one** (the
mean of their relative errors) - :data:`STAGES`: (first 2 impacts; the whole box, half the
budget) -> (+ first 6 impacts; a quarter of the study's box per axis, which holds the
stage-0 basin) -> (+ the whole record, design.md 4.9's cost; 8 % of the box: the polish).
Where the whole record is identifiable, its term's deep basin decides the last stage;
where it is chaotic, its term is about as large everywhere in the box and the first
impacts' terms still tell the cases apart. The best case is the one with the least
last-stage cost among all cases run; the whole-record RMS error is reported beside it.

Pure functions on arrays; the record comes aligned (:mod:`.signal_match`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .signal_match import align, match_errors


@dataclass(frozen=True)
class CostStage:
    """One stage's cost and box. ``windows``: the record's first impacts each window holds
    (None: all of the record) - the cost is the mean of the relative RMS differences over
    them; ``box_fraction``: the stage's box per axis as a fraction of the study's (centred
    on the best case so far); ``budget_fraction``: its share of the case budget."""

    windows: tuple[int | None, ...]
    box_fraction: float
    budget_fraction: float

    @property
    def metric(self) -> str:
        return f"calibration_cost_{STAGES.index(self)}"


#: each stage keeps the windows of the one before and adds a longer one
STAGES: tuple[CostStage, ...] = (
    CostStage(windows=(2,), box_fraction=1.0, budget_fraction=0.5),
    CostStage(windows=(2, 6), box_fraction=0.25, budget_fraction=0.25),
    CostStage(windows=(2, 6, None), box_fraction=0.08, budget_fraction=0.25),
)
#: an impact: a local maximum of |x| at least this share of the record's largest ...
IMPACT_SHARE = 0.25
#: ... and this far from a larger one [s] (an impact of the reference mechanism lasts ~50 µs:
#: its samples on both sides of the peak are the same impact)
IMPACT_SEPARATION_S = 5e-5
FINAL_METRIC = "calibration_rms_error"


def impact_times(t: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Times [s] of the impacts of a record ``x(t)`` (uniform ``t``): the peaks of ``|x|`` of
    at least :data:`IMPACT_SHARE` of its largest, :data:`IMPACT_SEPARATION_S` apart."""
    from scipy.signal import find_peaks

    a = np.abs(np.asarray(x, dtype=float))
    dt = float(t[1] - t[0])
    peaks, _ = find_peaks(a, height=IMPACT_SHARE * float(a.max()),
                          distance=max(1, int(np.ceil(IMPACT_SEPARATION_S / dt))))
    return np.asarray(t)[peaks]


def window_end(t: np.ndarray, measured: np.ndarray, impacts: int | None) -> float:
    """The end [s] of the window holding the record's first ``impacts`` impacts: midway to
    the next one (the record's end when it has no more, or ``impacts`` is None)."""
    times = impact_times(t, measured) if impacts is not None else ()
    if impacts is None or len(times) <= impacts:
        return float(t[-1])
    return 0.5 * float(times[impacts - 1] + times[impacts])


def window_cost(t: np.ndarray, measured: np.ndarray, simulated: np.ndarray,
                impacts: int | None) -> float:
    """The RMS difference over the window of the record's first ``impacts`` impacts,
    relative to the measured RMS there (so that it reads the same whatever the series' unit
    and however loud the window)."""
    keep = t <= window_end(t, measured, impacts) + 1e-12
    m, s = measured[keep], simulated[keep]
    scale = float(np.sqrt(np.mean(m**2))) or 1.0
    return float(np.sqrt(np.mean((s - m) ** 2)) / scale)


def stage_cost(t: np.ndarray, measured: np.ndarray, simulated: np.ndarray,
               stage: CostStage) -> float:
    """One stage's cost of aligned samples: the mean of :func:`window_cost` over its windows
    (each a fraction of its window's RMS: they add without weights)."""
    return float(np.mean([window_cost(t, measured, simulated, n) for n in stage.windows]))


def calibration_metrics(
    t_sim: np.ndarray, y_sim: np.ndarray, t_meas: np.ndarray, y_meas: np.ndarray
) -> dict[str, float]:
    """Every stage's cost (``calibration_cost_<k>``, fractions of the window's RMS) and the
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
