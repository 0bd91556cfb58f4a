"""The settled motion: metrics over the revolutions after the transient (design.md 4.10).

The stepping loop keeps a record per crank revolution (:mod:`stepping`, ``R_*`` columns):
its peaks, impacts, the time spent in free flight / impact / continuous contact, and the
Poincare section at t = k T. This module turns a case's record into

* the settled window: from the revolution the settling test found (the first section of
  the window that repeated), or after ``transient_revolutions``, or the second half of a
  run that did not settle or had a fixed length;
* the settled metrics: max, P95 and mean of the per-revolution peaks over that window
  (``peak_slider_accel_settled`` ...), the start-up peak (the largest before the window),
  ``settled``, ``revolutions``, ``settled_after_revolutions``, ``section_drift``;
* the class of the motion (:mod:`motion`), the shares of free flight, impact and
  continuous contact over the window (definitions in :data:`SHARE_DEFINITIONS`) and its
  ``contact_mode`` (impacting, or without impact: continuous contact / free flight);
* the Poincare section as series (``poincare_time``, ``poincare_eccentricity_x`` ...).

Pure functions over numpy arrays; SI units (m, s, m/s^2, N, N m).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .metrics import per_joint
from .motion import (
    CHAOS_METHOD,
    DRIFT_HORIZON,
    JITTER_CAP,
    JITTER_FACTOR,
    classify,
    motion_tolerance,
    section_drift,
    section_jitter,
)
from .stepping import (
    R_ACCEL2,
    R_CONTACT,
    R_FREE,
    R_IMPACT,
    R_IMPACTS,
    R_MAX_PEN,
    R_PEAK_ACC,
    R_PEAK_FN,
    R_PEAK_TORQUE,
    R_PROBE,
    R_SECTION,
    R_TIME,
)

# per-revolution quantity -> the stem of its settled metrics
PEAK_COLUMNS = {
    "slider_accel": R_PEAK_ACC,
    "contact_force": R_PEAK_FN,
    "driving_torque": R_PEAK_TORQUE,
}
SHARE_DEFINITIONS = (
    "Shares of the settled window's time, per clearance joint (averaged over the joints): "
    "free flight = no contact (penetration below the onset threshold); impact = the first "
    "0.2 ms of every contact (4x the ~50 us an impact lasts on the reference mechanism, "
    "design.md 1.3); continuous contact = the rest of a contact that lasts longer (the "
    "journal riding the bearing wall). Summed per accepted step by the stepping loop; the "
    "three add up to 1. The three modes are those of Flores et al., Mech. Mach. Theory 39 "
    "(2004) 'Dynamic behaviour of planar rigid multi-body systems including revolute joints "
    "with clearance'."
)


# What the journal does in the settled window, beside its class (periodic-N, chaotic): an
# engineer asking "does it rattle" needs both. Below ~4000 rpm the reference mechanism's
# section is chaotic with no impact at all: the journal rides the wall and rocks irregularly
# along it (README, "Rattle map"), which is not rattling.
CONTACT_MODES = ("impacting", "continuous contact", "free flight")


def contact_mode(impacts: int, share_contact: float, share_free: float) -> str:
    """``impacting`` when the settled window has an impact (the journal rattles), else the
    mode it spends most of the window in: ``continuous contact`` (riding, sliding along the
    wall) or ``free flight``."""
    impacting, riding, flying = CONTACT_MODES
    if impacts > 0:
        return impacting
    return riding if share_contact >= share_free else flying


@dataclass(frozen=True)
class Revolutions:
    """A case's per-revolution record ``[K + 1, N_REV + 2 n_clearance]`` (row k: revolution
    k and the section at t = k T; row 0 the start) and what the loop's settling test found:
    ``settled_period`` N (0: it did not stop early) at section ``settled_at``."""

    record: np.ndarray
    n_clearance: int
    settled_period: int = 0
    settled_at: int = 0

    @property
    def count(self) -> int:
        """Complete revolutions recorded."""
        return self.record.shape[0] - 1

    def sections(self, joint: int) -> np.ndarray:
        """Eccentricity ``[K + 1, 2]`` (x, y) [m] of clearance joint ``joint`` at t = k T."""
        col = R_SECTION + 2 * joint
        return self.record[:, col : col + 2]

    def section_points(self) -> np.ndarray:
        """All joints' section coordinates ``[K + 1, 2 n]`` [m]; the probe coordinate
        (slider position) for a mechanism without a clearance joint."""
        if self.n_clearance == 0:
            return self.record[:, R_PROBE : R_PROBE + 1]
        return self.record[:, R_SECTION : R_SECTION + 2 * self.n_clearance]


def settled_window(rev: Revolutions, transient: int, window_of: int) -> int:
    """The first section of the settled window: ``transient`` if given (> 0), else where
    the loop's settling test found the repeating window (``window_of(N)`` sections ending at
    the detection), else half the record."""
    k = rev.count
    if transient > 0:
        return min(transient, max(k - 1, 0))
    if rev.settled_period > 0:
        return max(rev.settled_at - window_of(rev.settled_period) + 1, 0)
    return k // 2


def settle_window_length(period: int) -> int:
    """Sections the settling test compares for period N (as :func:`stepping._settled_period`)."""
    return max(8, 3 * period)


def analyse(
    rev: Revolutions,
    length: float,
    *,
    tolerance: float,
    transient: int = 0,
    factor: float = JITTER_FACTOR,
    cap: float = JITTER_CAP,
    horizon: float = DRIFT_HORIZON,
) -> dict[str, float | int | str]:
    """The settled metrics of one case (module docstring).

    ``length`` [m] the unit of the section (the clearance): ``tolerance`` is the settling
    tolerance, the floor of the periodicity tolerance over the measured jitter (``factor``,
    ``cap``: :func:`motion.motion_tolerance`), and ``section_drift``, ``section_jitter``,
    ``motion_tolerance`` are given in it; ``transient`` revolutions to skip (0: what the
    settling test found, else half the run); ``horizon`` the drift test's revolutions
    (:func:`motion.drift_exceeds`; a run the loop stopped passed it on a longer window).
    """
    k = rev.count
    out: dict[str, float | int | str] = {"revolutions": k}
    if k < 1:
        return out
    rec = rev.record
    first = settled_window(rev, transient, settle_window_length)
    window = rec[first + 1 : k + 1]  # revolutions first+1 .. k
    if len(window) == 0:
        window = rec[k : k + 1]
    for stem, col in PEAK_COLUMNS.items():
        peaks = window[:, col]
        out[f"peak_{stem}_settled"] = float(np.max(peaks))
        out[f"p95_{stem}_settled"] = float(np.percentile(peaks, 95))
        out[f"mean_{stem}_settled"] = float(np.mean(peaks))
    before = rec[1 : first + 1, R_PEAK_ACC] if first >= 1 else rec[1:2, R_PEAK_ACC]
    out["peak_slider_accel_startup"] = float(np.max(before))
    out["settled_from_s"] = float(rec[first, R_TIME])  # where the settled window starts
    span = rec[k, R_TIME] - rec[first, R_TIME]
    a2 = max(rec[k, R_ACCEL2] - rec[first, R_ACCEL2], 0.0)
    out["rms_slider_accel_settled"] = math.sqrt(a2 / span) if span > 0 else math.nan

    points = rev.section_points()[first:] / length
    # a run the loop stopped passed the drift test on a longer window than its settled one
    drift_horizon = 0.0 if rev.settled_period > 0 else horizon
    motion = classify(points, tolerance, factor=factor, cap=cap, horizon=drift_horizon)
    out["motion"] = motion.name
    out["motion_period"] = motion.period
    out["chaos_indicator"] = motion.indicator
    out["settled"] = 1 if motion.period > 0 else 0
    out["settled_after_revolutions"] = first if motion.period > 0 else -1
    out["section_drift"] = section_drift(points)
    out["section_jitter"] = section_jitter(points)
    out["motion_tolerance"] = motion_tolerance(points, tolerance, factor=factor, cap=cap)
    if rev.n_clearance > 0:
        times = window[:, [R_FREE, R_IMPACT, R_CONTACT]].sum(axis=0)
        total = float(times.sum())
        if total > 0.0:
            out["share_free_flight"] = float(times[0] / total)
            out["share_impact"] = float(times[1] / total)
            out["share_contact"] = float(times[2] / total)
    out["impacts_settled"] = int(window[:, R_IMPACTS].sum())
    if rev.n_clearance > 0 and "share_contact" in out:
        out["contact_mode"] = contact_mode(out["impacts_settled"], out["share_contact"],
                                           out["share_free_flight"])
    out["max_penetration_settled"] = float(np.max(window[:, R_MAX_PEN]))
    return out


def last_revolution(rev: Revolutions, period: float) -> dict[str, float | int]:
    """The 4.1 ``_steady`` metrics (the last crank revolution) from the record, for a run
    of adaptive length whose end is not known ahead."""
    rec = rev.record
    k = rev.count
    if k < 1:
        return {}
    last = rec[k]
    a2 = max(rec[k, R_ACCEL2] - rec[k - 1, R_ACCEL2], 0.0)
    span = rec[k, R_TIME] - rec[k - 1, R_TIME]
    # the revolution's time in contact over its time in all three states (n joints x the
    # period, to round-off, now that a step across the section is split between its two
    # revolutions): a share, at most 1 even with the sum's round-off
    inside = last[R_IMPACT] + last[R_CONTACT]
    whole = inside + last[R_FREE]
    return {
        "peak_slider_accel_steady": float(last[R_PEAK_ACC]),
        "rms_slider_accel_steady": math.sqrt(a2 / span) if span > 0 else 0.0,
        "peak_contact_force_steady": float(last[R_PEAK_FN]),
        "max_penetration_steady": float(last[R_MAX_PEN]),
        "impacts_steady": int(last[R_IMPACTS]),
        "peak_driving_torque_steady": float(last[R_PEAK_TORQUE]),
        "contact_time_fraction_steady": float(inside / whole) if whole > 0 else 0.0,
    }


def poincare_series(rev: Revolutions, joint_names: Sequence[str] = ()) -> dict[str, np.ndarray]:
    """The section as series: ``poincare_time`` [s] and each joint's eccentricity [m],
    named by :func:`metrics.per_joint`: ``poincare_eccentricity_x.<joint>`` for a named
    joint (a described mechanism's, however many it has), ``poincare_eccentricity_x`` for
    the single unnamed joint of a built-in model (``.<k>`` were there several unnamed)."""
    out = {"poincare_time": rev.record[:, R_TIME].copy()}
    for j in range(rev.n_clearance):
        name = joint_names[j] if j < len(joint_names) else ""
        if not name and rev.n_clearance > 1:
            name = str(j)
        sec = rev.sections(j)
        out[per_joint("poincare_eccentricity_x", name)] = sec[:, 0].copy()
        out[per_joint("poincare_eccentricity_y", name)] = sec[:, 1].copy()
    return out


__all__ = [
    "CHAOS_METHOD",
    "CONTACT_MODES",
    "SHARE_DEFINITIONS",
    "Revolutions",
    "analyse",
    "contact_mode",
    "poincare_series",
]
