"""Long runs at the speed of short ones (issue 39): ``auto`` against ``dopri5``, side by side.

    .venv/bin/python benchmarks/long_runs.py [--only study|rattle|wall|film] [--no-accuracy]
                                             [--new auto,dopri5-radau5] [--repeat N]

The four workloads of ``benchmarks/step_budget.py`` (the settled 15-case study, a 6-case
corner of the rattle map, the 80-revolution wall-riding case c = 0.1 mm x 1.3, one
lubricated case), each run with dopri5 and with each new integrator (``auto``: the
measured rule, Radau IIA 5 in the film of a lubricated case and dopri5 elsewhere;
``dopri5-radau5``: Radau IIA 5 riding the wall and in the film) at the default rtol 1e-6
in the same process, one after the other, on 2 threads: RHS evaluations, accepted steps and
wall time, with the ratios dopri5 / new (the aim: 3x fewer evaluations on the settled
study, 10x riding the wall and in the film). The machine may be
shared: wall times are noisy, the evaluation counts are not. ``--repeat N`` runs each
workload N times, dopri5 and the new integrators interleaved (so a burst of load hits both),
and prints the fastest and the median wall time of each with their ratios (a film case takes
tens of milliseconds: one run's wall time says little).

Accuracy (design.md 4.15, 4.16), unless ``--no-accuracy``: dopri5 at rtol 1e-8 as the
reference; over the cases that are periodic at both dopri5 tolerances with the same N, the
largest relative difference of ``peak_slider_accel_settled`` and ``peak_contact_force_settled``
of dopri5 at 1e-6 and of the new integrator at 1e-6 against it; every case's class for the
three; and for the others (chaos, or a capture whose revolution is itself chaotic) the study
mean of the settled peak against the reference's (within 5 % is the criterion).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from gapsweep.core.api import run_cases  # noqa: E402
from step_budget import workloads  # noqa: E402

PEAKS = ("peak_slider_accel_settled", "peak_contact_force_settled")


def run(cases: list[dict]) -> tuple[list, float]:
    t0 = time.perf_counter()
    results = run_cases("slider-crank", cases, threads=2)
    wall = time.perf_counter() - t0
    bad = [r.reason for r in results if not r.ok]
    assert not bad, bad
    return results, wall


def total(results, key: str) -> int:
    return sum(int(r.metrics[key]) for r in results)


def accuracy(name: str, ref, base, new, new_name: str) -> None:
    """The settled peaks of dopri5 1e-6 and the new integrator against dopri5 1e-8."""
    same = [i for i in range(len(ref))
            if ref[i].metrics["motion"].startswith("periodic")
            and ref[i].metrics["motion"] == base[i].metrics["motion"]]
    for label, res in (("dopri5 1e-6", base), (f"{new_name} 1e-6", new)):
        worst = 0.0
        for i in same:
            for key in PEAKS:
                r, x = ref[i].metrics[key], res[i].metrics[key]
                if r != x:  # a film case has no dry contact: both peaks 0
                    worst = max(worst, abs(x - r) / abs(r) if r else float("inf"))
        classes = sum(res[i].metrics["motion"] == ref[i].metrics["motion"] for i in range(len(ref)))
        others = [i for i in range(len(ref)) if i not in same]
        mean_dev = ""
        if others:
            m_ref = sum(ref[i].metrics[PEAKS[0]] for i in others) / len(others)
            m_res = sum(res[i].metrics[PEAKS[0]] for i in others) / len(others)
            mean_dev = f"; the other {len(others)}: mean settled peak {m_res / m_ref - 1:+.1%}"
        print(f"  {name} accuracy, {label}: largest relative difference of the settled peaks "
              f"over {len(same)} periodic cases {worst:.2e}; classes as dopri5 1e-8: "
              f"{classes}/{len(ref)}{mean_dev}")
    print("  classes (dopri5 1e-8 / 1e-6 / new): " + ", ".join(
        f"{ref[i].metrics['motion']}/{base[i].metrics['motion']}/{new[i].metrics['motion']}"
        for i in range(len(ref))))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", default="")
    parser.add_argument("--new", default="auto,dopri5-radau5",
                        help="the integrators set against dopri5, comma-separated")
    parser.add_argument("--no-accuracy", action="store_true")
    parser.add_argument("--repeat", type=int, default=1,
                        help="runs of each workload and integrator, interleaved")
    args = parser.parse_args()
    news = [x for x in args.new.split(",") if x]
    print(f"dopri5 against {', '.join(news)}, rtol 1e-6, 2 threads; load average "
          f"{os.getloadavg()[0]:.1f}")
    for integ in ("dopri5", *news):  # kernels loaded
        run([{"clearance_mm": 0.05, "t_end": 0.001, "integrator": integ}])
    print("| workload | new | RHS dopri5 | RHS new | ratio | steps dopri5 | steps new | "
          "wall dopri5 [s] | wall new [s] | ratio |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    rows = []
    for name in ("study", "rattle", "wall", "film"):
        if args.only and name != args.only:
            continue
        walls: dict[str, list[float]] = {integ: [] for integ in ("dopri5", *news)}
        res = {}
        for _ in range(max(args.repeat, 1)):  # interleaved: a burst of load hits every one
            for integ in walls:
                res[integ], w = run(workloads({"integrator": integ, "rtol": 1e-6})[name])
                walls[integ].append(w)
        base = res["dopri5"]
        f_base, s_base = total(base, "rhs_evaluations"), total(base, "accepted_steps")
        w_base = min(walls["dopri5"])
        for integ in news:
            new = res[integ]
            f_new, s_new = total(new, "rhs_evaluations"), total(new, "accepted_steps")
            w_new = min(walls[integ])
            print(f"| {name} | {integ} | {f_base:,} | {f_new:,} | {f_base / f_new:.2f}x | "
                  f"{s_base:,} | {s_new:,} | {w_base:.3f} | {w_new:.3f} | "
                  f"{w_base / w_new:.2f}x |", flush=True)
            if args.repeat > 1:
                med_b, med_n = statistics.median(walls["dopri5"]), statistics.median(walls[integ])
                wins = sum(b > n for b, n in zip(walls["dopri5"], walls[integ], strict=True))
                print(f"  ({args.repeat} runs each: fastest {w_base:.4f} / {w_new:.4f} s, "
                      f"median {med_b:.4f} / {med_n:.4f} s, ratio {med_b / med_n:.2f}x; "
                      f"{integ} faster in {wins} of {args.repeat} pairs)", flush=True)
            rows.append((name, base, new, integ))
    if args.no_accuracy:
        return
    refs = {}
    for name, base, new, integ in rows:
        if name == "wall":
            continue  # a fixed run of a chaotic transient: no settled class to compare
        if name not in refs:
            refs[name], _ = run(workloads({"integrator": "dopri5", "rtol": 1e-8})[name])
        accuracy(name, refs[name], base, new, integ)


if __name__ == "__main__":
    main()
