"""Issue 36's cost figures: a lubricated case against a dry one, per crank revolution.

    .venv/bin/python benchmarks/lubrication_cost.py [--revolutions 4]

On Flores et al.'s lubricated slider-crank (c = 0.5 mm, mu = 0.4 Pa s, L = 40 mm, short
bearing, 5000 rpm, centred start) and the same case dry, it runs a fixed number of
revolutions at rtol 1e-3, 1e-6 and 1e-8 and prints, per revolution: wall time (best of 3,
warm kernels), accepted steps, RHS evaluations, and the ratio lubricated / dry. Whether the
explicit integrator is *stability-bound* in the film shows in the step counts: an
accuracy-bound run takes ~10^(1/5) = 1.6x fewer steps per decade of looser rtol (dopri5,
order 5), a stability-bound one about as many at rtol 1e-3 as at 1e-6. It also prints the
film's squeeze damping at the largest eccentricity the run reached,
``c_film = pi K_s (1 + 2 eps^2) / (c (1 - eps^2)^(5/2))`` [N s/m], and the explicit limit it
sets on the slider, ``dt ~ 3.3 m / c_film`` (dopri5's real stability interval ~3.3).
The machine may be shared: the load average is printed with the figures.
"""

from __future__ import annotations

import argparse
import math
import os
import time

from gapsweep.core.cases import SliderCrankCase
from gapsweep.core.simulation import simulate_batch

LUBRICATED = {"clearance_mm": 0.5, "lubrication": "short-bearing", "viscosity_pa_s": 0.4,
              "axial_length_mm": 40.0}
SLIDER_MASS = 0.14  # kg (design.md 1.3)


def run(params: dict, revolutions: int, rtol: float) -> dict:
    case = SliderCrankCase(**params, rtol=rtol)
    case = case.replace(t_end=revolutions * case.period)
    best = math.inf
    for _ in range(3):
        t0 = time.perf_counter()
        result = simulate_batch([case], threads=1)[0]
        best = min(best, time.perf_counter() - t0)
    m = result.metrics
    return {"s_per_rev": best / revolutions, "steps_per_rev": m["accepted_steps"] / revolutions,
            "rhs_per_rev": m["rhs_evaluations"] / revolutions, "metrics": m, "ok": result.ok}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--revolutions", type=int, default=4)
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f}; {args.revolutions} revolutions a run")
    print(f"{'rtol':>6} {'case':>11} {'ms/rev':>8} {'steps/rev':>10} {'RHS/rev':>9} "
          f"{'eps_max':>8} {'ratio':>6}")
    for rtol in (1e-3, 1e-6, 1e-8):
        dry = run({"clearance_mm": 0.5}, args.revolutions, rtol)
        wet = run(LUBRICATED, args.revolutions, rtol)
        for name, r in (("dry", dry), ("lubricated", wet)):
            eps = r["metrics"].get("max_eccentricity_ratio", float("nan"))
            ratio = r["s_per_rev"] / dry["s_per_rev"]
            print(f"{rtol:6.0e} {name:>11} {1e3 * r['s_per_rev']:8.2f} "
                  f"{r['steps_per_rev']:10.0f} {r['rhs_per_rev']:9.0f} {eps:8.3f} {ratio:6.2f}")
        eps = min(wet["metrics"]["max_eccentricity_ratio"], 0.98)
        c = LUBRICATED["clearance_mm"] * 1e-3
        radius = 10e-3 - c
        length = LUBRICATED["axial_length_mm"] * 1e-3
        k_s = LUBRICATED["viscosity_pa_s"] * radius * length**3 / (2 * c * c)
        c_film = math.pi * k_s * (1 + 2 * eps * eps) / (c * (1 - eps * eps) ** 2.5)
        period = SliderCrankCase().period
        mean_step = period / wet["steps_per_rev"]
        print(f"       film damping at eps_max {eps:.3f}: {c_film:.3g} N s/m; explicit limit "
              f"3.3 m/c = {3.3 * SLIDER_MASS / c_film:.2e} s; mean step {mean_step:.2e} s")


if __name__ == "__main__":
    main()
