"""Where the steps of a long run go (issue 39's measurement): accepted and rejected steps and
RHS evaluations by phase, and what limits the step.

    .venv/bin/python benchmarks/step_budget.py [--integrator dopri5] [--rtol 1e-6] [--only NAME]

Four workloads through ``core.api.run_cases`` (the batch path a worker uses), each with the
step budget on (``GAPSWEEP_STEP_BUDGET=1``, :mod:`gapsweep.core.step_budget`):

- ``study``: the user's settled 15-case study (examples/clearance_x_stiffness.toml: c 0.02-0.1
  mm x stiffness 0.7/1.0/1.3, 5000 rpm, each case until its section settles);
- ``rattle``: a 6-case corner of the rattle map (examples/rattle_map.toml: c 0.02/0.06/0.1 mm
  x 1000/5000 rpm, until settled);
- ``wall``: c = 0.1 mm x stiffness 1.3 for a fixed 80 revolutions (captured on the wall after
  its chaotic transient: the README's ~900 steps a revolution);
- ``film``: one lubricated case (examples/lubricated_slider_crank.toml: short bearing,
  c = 0.5 mm, 0.4 Pa s, L = 40 mm, until settled).

Per workload and phase (free flight, impact = the first 0.2 ms of a contact, continuous
contact, film): accepted steps, rejected steps (and of them those with ``h|lambda| > 3.3``,
unstable), RHS evaluations, the share of simulated time, the mean step, the mean
``h|lambda|`` by Hairer's estimate and by the contact stiffness ``h sqrt(k_eff/m_eff)``, and
the share of accepted steps near dopri5's stability boundary (``h|lambda| >= 2.5``): a phase
whose steps sit there is held by stability (an L-stable implicit method could stride it); one
well inside is held by the error estimate of its motion (an implicit method of lower order
would take more steps, not fewer).
"""

from __future__ import annotations

import argparse
import os
import time

from gapsweep.core.api import run_cases
from gapsweep.core.cases import SliderCrankCase
from gapsweep.core.step_budget import ENV, PHASES

PERIOD = SliderCrankCase(speed_rpm=5000).period


def workloads(extra: dict) -> dict[str, list[dict]]:
    """The four workloads' cases (``extra``: solver settings for every case)."""
    study = [{"clearance_mm": c, "stiffness_scale": s, "speed_rpm": 5000, **extra}
             for c in (0.02, 0.035, 0.05, 0.08, 0.1) for s in (0.7, 1.0, 1.3)]
    rattle = [{"clearance_mm": c, "speed_rpm": rpm, **extra}
              for c in (0.02, 0.06, 0.1) for rpm in (1000, 5000)]
    wall = [{"clearance_mm": 0.1, "stiffness_scale": 1.3, "speed_rpm": 5000,
             "t_end": 80 * PERIOD, **extra}]
    film = [{"clearance_mm": 0.5, "lubrication": "short-bearing", "viscosity_pa_s": 0.4,
             "axial_length_mm": 40, "speed_rpm": 5000, **extra}]
    return {"study": study, "rattle": rattle, "wall": wall, "film": film}


def budget(results) -> dict[str, dict[str, float]]:
    """The budget summed over the cases, per phase (means weighted by accepted steps)."""
    out = {}
    for phase in PHASES:
        row = {"accepted": 0.0, "rejected": 0.0, "rejected_unstable": 0.0, "rhs": 0.0,
               "time": 0.0, "near_boundary": 0.0, "sum_hl": 0.0, "sum_hlc": 0.0}
        for r in results:
            m = r.metrics
            acc = m[f"budget.{phase}.accepted"]
            for key in ("accepted", "rejected", "rejected_unstable", "rhs", "time",
                        "near_boundary"):
                row[key] += m[f"budget.{phase}.{key}"]
            row["sum_hl"] += acc * m[f"budget.{phase}.mean_hl"]
            row["sum_hlc"] += acc * m[f"budget.{phase}.mean_hlc"]
        out[phase] = row
    return out


def report(name: str, results, wall: float) -> None:
    b = budget(results)
    total_rhs = sum(r.metrics["rhs_evaluations"] for r in results)
    total_t = sum(row["time"] for row in b.values())
    revs = sum(r.metrics.get("revolutions", 0) for r in results)
    print(f"\n{name}: {len(results)} case(s), {revs} case-revolutions, {total_rhs:,} RHS, "
          f"{wall:.2f} s")
    print("| phase | accepted | rejected (unstable) | RHS | RHS share | time share | mean h "
          "[us] | mean h·λ Hairer | mean h·λ contact | near boundary |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for phase, row in b.items():
        acc = row["accepted"]
        if acc == 0:
            continue
        print(f"| {phase} | {acc:,.0f} | {row['rejected']:,.0f} ({row['rejected_unstable']:,.0f}) "
              f"| {row['rhs']:,.0f} | {row['rhs'] / total_rhs:.0%} | "
              f"{row['time'] / total_t:.0%} | {1e6 * row['time'] / acc:.1f} | "
              f"{row['sum_hl'] / acc:.2f} | {row['sum_hlc'] / acc:.2f} | "
              f"{row['near_boundary'] / acc:.0%} |")
    counted = sum(row["rhs"] for row in b.values())
    if abs(counted - total_rhs) > 0.001 * total_rhs:
        print(f"  (budget counted {counted:,.0f} RHS against {total_rhs:,})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--integrator", default="dopri5")
    parser.add_argument("--rtol", type=float, default=1e-6)
    parser.add_argument("--only", default="", help="one workload: study, rattle, wall, film")
    args = parser.parse_args()
    os.environ[ENV] = "1"  # the solver reads it per batch
    extra = {"integrator": args.integrator, "rtol": args.rtol}
    print(f"integrator {args.integrator}, rtol {args.rtol:g}; load average "
          f"{os.getloadavg()[0]:.1f}")
    run_cases("slider-crank", [{"clearance_mm": 0.05, "t_end": 0.001, **extra}])  # loaded
    for name, cases in workloads(extra).items():
        if args.only and name != args.only:
            continue
        t0 = time.perf_counter()
        results = run_cases("slider-crank", cases, threads=2)
        wall = time.perf_counter() - t0
        bad = [r.reason for r in results if not r.ok]
        assert not bad, bad
        report(name, results, wall)


if __name__ == "__main__":
    main()
