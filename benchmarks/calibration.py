"""Calibration against synthetic rig records (issue 27): does the staged search find the
needle basin, in how many cases, and how identifiable is each parameter.

    .venv/bin/python benchmarks/calibration.py                  # 11 truths x 300 cases, ~3 min
    .venv/bin/python benchmarks/calibration.py --truths 1.0:0.9 --budget 300 --no-profiles

Each record is made by the project's own solver from known parameters: reference mechanism
(Flores slider-crank), c = 0.05 mm, 5000 rpm, two revolutions (0.024 s), slider
acceleration sampled at 50 kHz (n_output 1201), plus Gaussian noise of 1 % of the record's
RMS (seeded). The calibration fits stiffness_scale in [0.5, 2.0] and restitution in
[0.5, 0.98] with ``design = "calibrate"`` run through the core
(:func:`gapsweep.study.search_run.run_search`, the same replay the workers drive), and
prints per truth: the recovered values, their errors, the cases used, the final RMS error
against the noise level (what a perfect fit leaves). Then each parameter's cost profile
through the truth, the other parameter held: the whole-record RMS error (design.md 4.9's
cost), the stage-1 cost (the first 2 impacts) and the last stage's
(:mod:`gapsweep.study.calibration_cost`), in % of the measured RMS: the whole record's needle
(and at restitution >= 0.95 its chaos: 0.1 % in stiffness and the error is 20-30x the noise)
against the first impacts' V.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from gapsweep.core.api import run_cases
from gapsweep.study.calibration_cost import STAGES, calibration_metrics
from gapsweep.study.measurements import Measurement, to_csv
from gapsweep.study.search_run import run_search
from gapsweep.study.spec import parse_spec

BASE = {"clearance_mm": 0.05, "speed_rpm": 5000.0, "t_end": 0.024}
BOX = {"stiffness_scale": (0.5, 2.0), "restitution": (0.5, 0.98)}
TRUTHS = ((1.0, 0.9), (0.7, 0.6), (1.6, 0.75), (1.3, 0.95), (0.6, 0.85),
          # near the box's corners and between
          (0.55, 0.52), (1.9, 0.97), (1.95, 0.55), (0.55, 0.96), (0.85, 0.7), (1.15, 0.8))
NOISE = 0.01  # of the record's RMS


def record(k: float, cr: float, seed: int = 1) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(t, noisy record, clean record) at 50 kHz."""
    r = run_cases("slider-crank", [{**BASE, "stiffness_scale": k, "restitution": cr,
                                    "n_output": 1201}], threads=2)[0]
    t, a = r.series["t"], r.series["slider_acceleration"]
    noisy = a + np.random.default_rng(seed).normal(0.0, NOISE * np.sqrt(np.mean(a**2)), a.size)
    return t, noisy, a


def calibrate(t, noisy, budget: int, seed: int):
    csv = to_csv(Measurement("time_s", t, {"slider_acceleration": noisy}))
    spec = parse_spec({"name": "benchmark", "design": "calibrate", "base": BASE,
                       "series": "slider_acceleration",
                       "axes": {n: {"start": lo, "stop": hi} for n, (lo, hi) in BOX.items()},
                       "measurement": {"csv": csv}, "budget": budget, "seed": seed})
    return run_search(spec, threads=2)


def profile(t, noisy, point: dict, name: str, steps: list[float]) -> list[tuple]:
    """(step, whole-record error, stage-0 cost, last-stage cost) - each a fraction of the
    measured RMS (the whole record's, the window's) - with ``name`` moved from ``point`` by
    each step (relative for the stiffness scale, absolute for the restitution); steps that
    leave the box are left out."""
    params, kept = [], []
    for s in steps:
        p = {**BASE, **point}
        p[name] = p[name] * (1 + s) if name == "stiffness_scale" else p[name] + s
        if BOX[name][0] <= p[name] <= BOX[name][1]:
            params.append(p)
            kept.append(s)
    rms = float(np.sqrt(np.mean(noisy**2)))
    out = []
    for s, r in zip(kept, run_cases("slider-crank", params, threads=2), strict=True):
        m = calibration_metrics(r.series["t"], r.series["slider_acceleration"], t, noisy)
        out.append((s, m["calibration_rms_error"] / rms, m[STAGES[0].metric],
                    m[STAGES[-1].metric]))
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--truths", nargs="*", default=None, help="K:cr pairs")
    parser.add_argument("--budget", type=int, default=300)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-profiles", action="store_true", help="the table only")
    args = parser.parse_args()
    truths = [tuple(map(float, x.split(":"))) for x in args.truths] if args.truths else TRUTHS
    print(f"{'truth K':>8} {'cr':>6} | {'found K':>8} {'cr':>7} | {'dK %':>6} {'dcr':>7} | "
          f"{'cases':>5} {'RMS err':>8} {'noise':>7} {'time s':>6}")
    rows = []
    for k, cr in truths:
        t, noisy, clean = record(k, cr)
        t0 = time.perf_counter()
        run = calibrate(t, noisy, args.budget, args.seed)
        wall = time.perf_counter() - t0
        best = run.best["params"]
        dk, dc = best["stiffness_scale"] / k - 1, best["restitution"] - cr
        noise = float(np.sqrt(np.mean((noisy - clean) ** 2)))
        print(f"{k:8.3f} {cr:6.3f} | {best['stiffness_scale']:8.4f} {best['restitution']:7.4f} "
              f"| {100 * dk:+6.2f} {dc:+7.4f} | {len(run.cases):5d} "
              f"{run.best['metrics']['calibration_rms_error']:8.1f} {noise:7.1f} {wall:6.1f}"
              f"  {'ok' if abs(dk) < 0.05 and abs(dc) < 0.05 else 'MISSED'}")
        rows.append((k, cr, t, noisy, best))
    if args.no_profiles:
        return
    print("\ncost profiles through the truth, in % of the measured RMS: whole-record error / "
          "first 2 impacts (stage 1) / last-stage cost (the best case's)")
    k_steps = [-0.2, -0.05, -0.02, -0.005, -0.001, 0.0, 0.001, 0.005, 0.02, 0.05, 0.2]
    c_steps = [-0.2, -0.05, -0.02, -0.005, -0.001, 0.0, 0.001, 0.005, 0.02, 0.05]
    for k, cr, t, noisy, _ in rows:
        for name, steps in (("stiffness_scale", k_steps), ("restitution", c_steps)):
            prof = profile(t, noisy, {"stiffness_scale": k, "restitution": cr}, name, steps)
            unit = "%" if name == "stiffness_scale" else ""
            cells = " ".join(f"{100 * s if unit else s:+g}{unit}:"
                             f"{100 * w:.0f}/{100 * e:.1f}/{100 * f:.0f}" for s, w, e, f in prof)
            print(f"  ({k}, {cr}) {name:>15}: {cells}")

if __name__ == "__main__":
    main()
