"""Issue 33.1's benchmark: one case is one trajectory. The two-clearance slider-crank
(``examples/mechanism_two_clearance_slider_crank.toml``, both pins at c = 0.1 mm, two driver
revolutions) with three measures - the slider's x acceleration, the crank pin's acceleration
on the rod (a point, magnitude), the rod's angular velocity - and with the first alone.

    .venv/bin/python benchmarks/one_trajectory_speed.py [--repeats 3] [--threads 1]
        [--baseline "PYTHON-COMMAND"]

Prints, on warm kernels, the best wall time of each case over ``--repeats`` and the ratio
three measures / one measure (design.md 4.16: <= 1.3) with the jobs and RHS evaluations;
and the built-in slider-crank's 15-case study (``examples/clearance_x_stiffness.toml``, until
settled, one thread): its best process CPU time, which a shared machine disturbs less than
the wall time (the loop's vector probes must cost it nothing: within 5 %).
``--baseline`` runs this same script under another interpreter command (e.g. one whose
``gapsweep`` is a checkout of the code before the change: one job per measured body
coordinate and one more per further clearance joint) and prints its figures beside these,
with the ratio before / after. The machine may be shared: the load average is printed.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
import time
from pathlib import Path

import tomllib

ROOT = Path(__file__).resolve().parents[1]
CLEARANCE_MM = 0.1
T_END = 0.04  # two revolutions at 3000 rpm


def cases() -> dict[str, dict]:
    with open(ROOT / "examples" / "mechanism_two_clearance_slider_crank.toml", "rb") as f:
        one = tomllib.load(f)["mechanism"]
    three = json.loads(json.dumps(one))
    three["measures"]["pin_acc"] = {"body": "rod", "point": "A", "quantity": "acceleration",
                                    "component": "magnitude"}
    three["measures"]["rod_omega"] = {"body": "rod", "quantity": "velocity",
                                      "component": "angle"}
    common = {"t_end": T_END, "joints.crank_pin.clearance_mm": CLEARANCE_MM,
              "joints.piston_pin.clearance_mm": CLEARANCE_MM}
    return {"three measures": {"mechanism": three, **common},
            "one measure": {"mechanism": one, **common}}


def measure(repeats: int, threads: int) -> dict:
    from gapsweep.core.api import run_cases

    out = {}
    for name, case in cases().items():
        run_cases("mechanism", [case], threads=threads)  # warm: kernels, table, assembly
        best = float("inf")
        for _ in range(repeats):
            t0 = time.perf_counter()
            (r,) = run_cases("mechanism", [case], threads=threads)
            best = min(best, time.perf_counter() - t0)
        out[name] = {"seconds": best, "ok": r.ok, "impacts": r.metrics.get("impacts"),
                     "impacts_by_joint": [r.metrics.get(f"impacts.{j}")
                                          for j in ("crank_pin", "piston_pin")],
                     "rhs_evaluations": r.metrics.get("rhs_evaluations")}
    study = [{"speed_rpm": 5000, "clearance_mm": c, "stiffness_scale": k}
             for c in (0.02, 0.035, 0.05, 0.08, 0.1) for k in (0.7, 1.0, 1.3)]
    run_cases("slider-crank", study[:2], threads=1)
    cpu = float("inf")
    for _ in range(repeats):
        c0 = time.process_time()
        run_cases("slider-crank", study, threads=1)
        cpu = min(cpu, time.process_time() - c0)
    out["slider-crank study"] = {"cpu_seconds": cpu}
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--baseline", help="interpreter command running the code before")
    ap.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    now = measure(args.repeats, args.threads)
    if args.json:
        print(json.dumps(now))
        return 0
    before = None
    if args.baseline:
        cmd = [*shlex.split(args.baseline), __file__, "--json", "--repeats", str(args.repeats),
               "--threads", str(args.threads)]
        done = subprocess.run(cmd, capture_output=True, text=True, check=True)
        before = json.loads(done.stdout.strip().splitlines()[-1])
    print(f"load average {os.getloadavg()[0]:.1f}; two-clearance slider-crank, c = "
          f"{CLEARANCE_MM} mm at both pins, t_end = {T_END} s, best of {args.repeats}")
    for name, fig in now.items():
        if "cpu_seconds" in fig:
            continue
        line = (f"{name:15s} now {fig['seconds']:.3f} s ({fig['rhs_evaluations']} RHS, "
                f"impacts {fig['impacts']} = {fig['impacts_by_joint']})")
        if before:
            b = before[name]
            line += (f" | before {b['seconds']:.3f} s (impacts {b['impacts']}, joints "
                     f"{b['impacts_by_joint']}) | before/now {b['seconds'] / fig['seconds']:.2f}")
        print(line)
    ratio = now["three measures"]["seconds"] / now["one measure"]["seconds"]
    print(f"three measures / one measure now: {ratio:.2f} (design.md 4.16: <= 1.3)")
    if before:
        old = before["three measures"]["seconds"] / before["one measure"]["seconds"]
        print(f"three measures / one measure before: {old:.2f}")
    cpu = now["slider-crank study"]["cpu_seconds"]
    line = f"slider-crank 15-case study, CPU {cpu:.3f} s now"
    if before:
        old = before["slider-crank study"]["cpu_seconds"]
        line += f", {old:.3f} s before: now / before {cpu / old:.3f} (within 5 %: <= 1.05)"
    print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
