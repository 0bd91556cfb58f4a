"""Where the Radau IIA step's RHS evaluations go (issue 39): Jacobians, Newton iterations,
the step end, and the calls lost to rejections, on the film and the wall-riding workloads.

    .venv/bin/python benchmarks/radau_split.py [--integrator dopri5-radau5] [--only film|wall]

The counters are the step budget's Radau columns (``GAPSWEEP_STEP_BUDGET=1``,
:data:`gapsweep.core.step_budget.RADAU_FIELDS`); the workloads those of
``benchmarks/step_budget.py``. Evaluations the Radau step did not spend (dopri5's steps in
free flight and impacts, event location, output samples, peak refinement) are the rest of
the run's total.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from gapsweep.core.api import run_cases  # noqa: E402
from gapsweep.core.step_budget import ENV, RADAU_FIELDS  # noqa: E402
from step_budget import workloads  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--integrator", default="dopri5-radau5")
    parser.add_argument("--rtol", type=float, default=1e-6)
    parser.add_argument("--only", default="")
    args = parser.parse_args()
    os.environ[ENV] = "1"
    extra = {"integrator": args.integrator, "rtol": args.rtol}
    print(f"integrator {args.integrator}, rtol {args.rtol:g}; load average "
          f"{os.getloadavg()[0]:.1f}")
    for name in ("film", "wall"):
        if args.only and name != args.only:
            continue
        t0 = time.perf_counter()
        results = run_cases("slider-crank", workloads(extra)[name], threads=2)
        wall = time.perf_counter() - t0
        assert all(r.ok for r in results), [r.reason for r in results]
        tot = {f: sum(r.metrics.get(f"budget.radau.{f}", 0.0) for r in results)
               for f in RADAU_FIELDS}
        rhs = sum(r.metrics["rhs_evaluations"] for r in results)
        acc = sum(r.metrics["accepted_steps"] for r in results)
        rej = sum(r.metrics["rejected_steps"] for r in results)
        radau_rhs = tot["rhs_jacobian"] + tot["rhs_newton"] + tot["rhs_end"]
        calls = max(tot["calls"], 1.0)
        print(f"\n{name}: {rhs:,.0f} RHS in all, {acc:,.0f} accepted / {rej:,.0f} rejected "
              f"steps, {wall:.1f} s")
        print(f"  Radau steps (calls) {tot['calls']:,.0f}: RHS {radau_rhs:,.0f} "
              f"({radau_rhs / rhs:.0%} of the run), {radau_rhs / calls:.1f} a call")
        for key in ("rhs_jacobian", "rhs_newton", "rhs_end"):
            print(f"    {key}: {tot[key]:,.0f} ({tot[key] / max(radau_rhs, 1):.0%}), "
                  f"{tot[key] / calls:.1f} a call")
        print(f"  Jacobians {tot['jacobians']:,.0f} (one per {calls / max(tot['jacobians'], 1):.1f}"
              f" calls): entering/start {tot['jac_enter']:,.0f}, contact change "
              f"{tot['jac_contact']:,.0f}, slow convergence {tot['jac_slow']:,.0f}, "
              f"failed iteration {tot['jac_fail']:,.0f}; clearance-part refreshes "
              f"{tot.get('updates', 0):,.0f}")
        print(f"  Newton iterations {tot['newton_iterations']:,.0f} "
              f"({tot['newton_iterations'] / calls:.2f} a call), failed "
              f"{tot['newton_failed']:,.0f}; LU pairs {tot['lu']:,.0f}")
        print(f"  calls repeated from the same t (rejected or cut by an event) "
              f"{tot['repeated']:,.0f}, their lost RHS {tot['rhs_repeated']:,.0f} "
              f"({tot['rhs_repeated'] / max(radau_rhs, 1):.0%})")


if __name__ == "__main__":
    main()
