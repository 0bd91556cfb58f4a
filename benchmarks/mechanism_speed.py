"""Issue 24's benchmark: the reference slider-crank as a 100-case mechanism study against the
built-in model, side by side in one run, through the path the workers use
(``core.api.run_cases``, the compiled batch) on warm kernels.

    .venv/bin/python benchmarks/mechanism_speed.py [--cases 100] [--threads 2] [--repeats 3]

The study: clearance 0.02 ... 0.1 mm (``--cases`` evenly spaced levels), 5000 rpm, two crank
revolutions; the built-in cases set ``clearance_mm``, the mechanism cases
``joints.piston_pin.clearance_mm`` on ``examples/mechanism_reference_slider_crank.toml``.
Each path runs ``--repeats`` times, alternating, after one warm-up call each; the best time of
each is printed with the ratio (target: mechanism / built-in <= 1.2) and the largest relative
difference of the whole-run peaks between the two (the same physics: ~1e-10). The first
mechanism call of a process also reads the table, closes and sweeps the mechanism (cached on
the geometry afterwards): its time is printed apart. The machine may be shared: the load
average is printed with the figures.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np
import tomllib

ROOT = Path(__file__).resolve().parents[1]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", type=int, default=100)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    from gapsweep.core.api import run_cases
    from gapsweep.core.mechanism.build import _INITIAL, _KINEMATICS

    with open(ROOT / "examples" / "mechanism_reference_slider_crank.toml", "rb") as f:
        table = tomllib.load(f)["mechanism"]
    levels = [round(float(c), 6) for c in np.linspace(0.02, 0.1, args.cases)]
    # two revolutions each: both models would otherwise run until settled (issue 23), up to 80
    built_in = [{"clearance_mm": c, "t_end": 2 * 60.0 / 5000.0} for c in levels]
    mechanism = [{"mechanism": table, "joints.piston_pin.clearance_mm": c,
                  "t_end": 2 * 60.0 / 5000.0} for c in levels]

    t0 = time.perf_counter()
    run_cases("slider-crank", built_in[:1], threads=1)
    _KINEMATICS.clear()
    _INITIAL.clear()
    t1 = time.perf_counter()
    run_cases("mechanism", mechanism[:1], threads=1)
    t2 = time.perf_counter()
    print(f"first call (kernels loaded): built-in {t1 - t0:.3f} s, mechanism {t2 - t1:.3f} s "
          "(table read, loops closed, sweep of 180 positions)")

    best = {"slider-crank": np.inf, "mechanism": np.inf}
    results = {}
    for _ in range(args.repeats):
        for model, cases in (("slider-crank", built_in), ("mechanism", mechanism)):
            t = time.perf_counter()
            results[model] = run_cases(model, cases, threads=args.threads)
            best[model] = min(best[model], time.perf_counter() - t)
    worst = 0.0
    for a, b in zip(results["mechanism"], results["slider-crank"], strict=True):
        for key in ("peak_slider_accel", "peak_contact_force", "max_penetration"):
            worst = max(worst, abs(a.metrics[key] / b.metrics[key] - 1.0))
    ratio = best["mechanism"] / best["slider-crank"]
    print(f"{args.cases} cases, {args.threads} thread(s), best of {args.repeats}, "
          f"load {os.getloadavg()[0]:.1f}:")
    print(f"  built-in slider-crank  {best['slider-crank']:.3f} s "
          f"({best['slider-crank'] / args.cases * 1e3:.2f} ms/case)")
    print(f"  mechanism study        {best['mechanism']:.3f} s "
          f"({best['mechanism'] / args.cases * 1e3:.2f} ms/case)")
    print(f"  ratio mechanism / built-in = {ratio:.3f} (target <= 1.2)")
    print(f"  largest relative difference of the whole-run peaks: {worst:.2e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
