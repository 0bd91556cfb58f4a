"""auto against dopri5 on lubricated cases beyond long_runs.py's one (issue 39): the film's
stride where the film is stiffer (smaller clearance, a thinner or more viscous film).

    .venv/bin/python benchmarks/film_cases.py [--repeat N] [--only SUBSTRING]

Each case (the slider-crank at 5000 rpm unless said, short-bearing film, L = 40 mm) runs
until settled with dopri5 and with auto (Radau IIA 5 in the film, integrators.AUTO_RULE) at
rtol 1e-6 on one thread, N times interleaved: RHS evaluations, accepted and rejected steps,
the median wall time and the ratios dopri5 / auto, the class, the settled peak and the
largest eccentricity ratio of each. A run that fails (dopri5 may run out of steps) is
reported with its reason.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

from gapsweep.core.api import run_cases

BASE = {"lubrication": "short-bearing", "axial_length_mm": 40, "speed_rpm": 5000}
CASES = {
    "c 0.5 mm, 0.4 Pa s (long_runs.py's)": {"clearance_mm": 0.5, "viscosity_pa_s": 0.4},
    "c 0.5 mm, 0.05 Pa s": {"clearance_mm": 0.5, "viscosity_pa_s": 0.05},
    "c 0.1 mm, 0.4 Pa s": {"clearance_mm": 0.1, "viscosity_pa_s": 0.4},
    "c 0.1 mm, 0.02 Pa s": {"clearance_mm": 0.1, "viscosity_pa_s": 0.02},
    "c 0.1 mm, 0.001 Pa s": {"clearance_mm": 0.1, "viscosity_pa_s": 0.001},
    "c 0.05 mm, 0.002 Pa s": {"clearance_mm": 0.05, "viscosity_pa_s": 0.002},
    "c 0.05 mm, 0.1 Pa s, 1000 rpm": {"clearance_mm": 0.05, "viscosity_pa_s": 0.1,
                                      "speed_rpm": 1000},
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--only", default="")
    args = parser.parse_args()
    print(f"dopri5 against auto, rtol 1e-6, 1 thread, {args.repeat} interleaved runs each; "
          f"load average {os.getloadavg()[0]:.1f}")
    run_cases("slider-crank", [{**BASE, **CASES[next(iter(CASES))], "t_end": 0.001,
                                "integrator": "auto"}], threads=1)  # kernels loaded
    print("| case | RHS dopri5 / auto | ratio | steps dopri5 / auto | rejected | wall "
          "median [s] | ratio | class | settled peak [m/s^2] | max eccentricity ratio |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name, case in CASES.items():
        if args.only and args.only not in name:
            continue
        walls: dict[str, list[float]] = {"dopri5": [], "auto": []}
        res = {}
        for _ in range(max(args.repeat, 1)):
            for integ in walls:
                t0 = time.perf_counter()
                res[integ] = run_cases("slider-crank", [{**BASE, **case, "integrator": integ}],
                                       threads=1)[0]  # fmt: skip
                walls[integ].append(time.perf_counter() - t0)
        d, a = res["dopri5"], res["auto"]
        if not (d.ok and a.ok):
            print(f"| {name} | dopri5: {d.reason or 'ok'} ({d.metrics.get('rhs_evaluations', 0):,} "
                  f"RHS); auto: {a.reason or 'ok'} ({a.metrics.get('rhs_evaluations', 0):,} RHS, "
                  f"{a.metrics.get('accepted_steps', 0):,} steps, "
                  f"{statistics.median(walls['auto']):.3f} s) |", flush=True)
            continue
        dm, am = d.metrics, a.metrics
        wd, wa = statistics.median(walls["dopri5"]), statistics.median(walls["auto"])
        print(f"| {name} | {dm['rhs_evaluations']:,} / {am['rhs_evaluations']:,} | "
              f"{dm['rhs_evaluations'] / am['rhs_evaluations']:.2f}x | "
              f"{dm['accepted_steps']:,} / {am['accepted_steps']:,} | "
              f"{dm['rejected_steps']:,} / {am['rejected_steps']:,} | {wd:.3f} / {wa:.3f} | "
              f"{wd / wa:.2f}x | {dm['motion']} / {am['motion']} | "
              f"{dm['peak_slider_accel_settled']:.6g} / {am['peak_slider_accel_settled']:.6g} | "
              f"{dm['max_eccentricity_ratio']:.4f} / {am['max_eccentricity_ratio']:.4f} |",
              flush=True)


if __name__ == "__main__":
    main()
