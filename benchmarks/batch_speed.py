"""Issue 3's benchmark: the 15-case study the seeds' way, case by case, and as one batch.

    .venv/bin/python benchmarks/batch_speed.py [--quick] [--json out.json] [--threads 2]

On the study (Flores slider-crank, clearance 0.02, 0.035, 0.05, 0.08, 0.1 mm x stiffness
scale 0.7, 1.0, 1.3, 0.024 s) it runs

1. the seeds' baseline (:mod:`seed_baseline`: one ``solve_ivp`` RK45 per case, rtol 1e-6,
   atol 1e-9, max_step 1e-5, terminal contact events, numpy augmented solve per RHS);
2. the project's single-case path (``simulate`` case by case) and the batch path
   (``simulate_batch`` on all 15, 1 thread and ``--threads``);

and prints integration time, whole-process time (a fresh interpreter per path: imports and
the numba cache load included), cases per second, the ratio to the baseline, and the
accuracy of the three robust metrics against a tight run (the project's solver, rtol 1e-10,
atol 1e-13 m / 1e-10 m/s). Then a scaling table (batches of 1 ... 256 random cases from the
study's ranges, one subprocess per size: time per case, peak RSS from
``VmHWM`` from ``/proc/self/status``) and the tracemalloc peak of the call), the floor estimate (RHS
evaluations x the cost of one compiled RHS call, timed in a compiled loop) and where the
time of the project's path goes (output grid, peak refinement, stepping, case setup).

Integration times of the project's paths are the best of a few warm repeats in this process;
the baseline's come from its own subprocess (solve_ivp only; the post-processing that reads
the peaks off ``sol.y`` is shown apart). ``--quick`` runs the baseline on 3 cases only (the
ratios then use per-case means), and skips the reference self-check and the 256-case batch.
The machine may be shared: the load average is printed with the figures.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
CLEARANCES = (0.02, 0.035, 0.05, 0.08, 0.1)
SCALES = (0.7, 1.0, 1.3)
ROBUST = ("peak_slider_accel", "peak_contact_force", "max_penetration")
TIGHT = {"rtol": 1e-10, "atol": 1e-13}  # atol: positions [m]; velocities x 1e3 [m/s]
CHECK = {"rtol": 1e-12, "atol": 1e-15}  # the reference's own convergence check
QUICK_CASES = (0, 7, 14)  # c = 0.02/0.7, 0.05/1.0, 0.1/1.3
SIZES = (1, 4, 16, 64, 256)
SEED = 20240603


# --------------------------------------------------------------------------------------
# cases
def study(**overrides):
    """The 15 cases of the study, clearance-major."""
    from gapsweep.core.cases import SliderCrankCase

    return [
        SliderCrankCase(clearance_mm=c, stiffness_scale=s, **overrides)
        for c in CLEARANCES
        for s in SCALES
    ]


def random_cases(n: int, seed: int = SEED):
    """``n`` cases drawn uniformly from the study's ranges (fixed seed)."""
    from gapsweep.core.cases import SliderCrankCase

    rng = np.random.default_rng(seed)
    clearance = rng.uniform(0.02, 0.1, n)
    scale = rng.uniform(0.7, 1.3, n)
    return [
        SliderCrankCase(clearance_mm=float(c), stiffness_scale=float(s))
        for c, s in zip(clearance, scale, strict=True)
    ]


def robust(metrics: dict) -> dict:
    return {k: float(metrics[k]) for k in ROBUST}


# --------------------------------------------------------------------------------------
# subprocess workers: each prints one JSON line last
def worker_baseline(indices: list[int]) -> dict:
    sys.path.insert(0, str(HERE))
    from seed_baseline import run_seed_case

    cases = study()
    out = []
    for i in indices:
        r = run_seed_case(cases[i])
        out.append(
            {
                "index": i,
                "status": r.status,
                "integration_s": r.integration_s,
                "post_s": r.post_s,
                "rhs_evaluations": r.nfev,
                "impacts": r.metrics["impacts"],
                **robust(r.metrics),
            }
        )
    return {"cases": out}


def worker_project(mode: str, threads: int) -> dict:
    from gapsweep.core.simulation import simulate, simulate_batch

    cases = study()
    t0 = time.perf_counter()
    if mode == "single":
        results = [simulate(c) for c in cases]
    else:
        results = simulate_batch(cases, threads=threads)
    return {
        "first_call_s": time.perf_counter() - t0,
        "ok": all(r.ok for r in results),
        "metrics": [robust(r.metrics) for r in results],
    }


def memory_kb(field: str) -> int:
    """A field of ``/proc/self/status`` [kB]: ``VmHWM`` (peak resident set; unlike
    ``ru_maxrss`` it starts afresh at exec, so a worker does not report its parent's peak) or
    ``RssAnon`` (private memory now; the rest of the resident set is shared libraries'
    pages, chiefly LLVM's, shared by every process). ``ru_maxrss`` where there is no /proc."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def worker_scale(n: int, threads: int) -> dict:
    import tracemalloc

    from gapsweep.core.simulation import simulate_batch

    rss_import = memory_kb("VmHWM")
    simulate_batch(random_cases(1, seed=1), threads=1)  # load the cache, warm the code
    cases = random_cases(n)
    rss_before = memory_kb("VmHWM")
    anon_before = memory_kb("RssAnon")
    repeats = max(1, min(5, 64 // n))
    best, cpu = math.inf, math.nan
    for _ in range(repeats):
        c0, t0 = time.process_time(), time.perf_counter()
        results = simulate_batch(cases, threads=threads)
        wall = time.perf_counter() - t0
        if wall < best:
            best, cpu = wall, time.process_time() - c0
    rss_after = memory_kb("VmHWM")
    anon_after = memory_kb("RssAnon")  # with the last batch's results held
    tracemalloc.start()
    results = simulate_batch(cases, threads=threads)
    traced_peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return {
        "n": n,
        "seconds": best,
        "per_case_ms": 1e3 * best / n,
        "cpu_over_wall": cpu / best,
        "maxrss_mb": rss_after / 1024,
        "maxrss_before_mb": rss_before / 1024,
        "maxrss_after_import_mb": rss_import / 1024,
        "anon_mb": anon_after / 1024,
        "anon_before_mb": anon_before / 1024,
        "tracemalloc_peak_mb": traced_peak / 2**20,
        "failed": sum(not r.ok for r in results),
        "rhs_evaluations": sum(int(r.metrics.get("rhs_evaluations", 0)) for r in results),
    }


def run_worker(args: list[str], timeout: float = 600.0) -> tuple[dict, float]:
    """Run this script as a worker in a fresh interpreter; (its JSON, wall seconds)."""
    t0 = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), "--worker", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        raise RuntimeError(f"worker {args} failed:\n{proc.stderr[-2000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1]), wall


def cli_whole_process(threads: int) -> tuple[float | None, str]:
    """``gapsweep simulate --sweep ... --json`` for the 15 cases as a whole process."""
    exe = Path(sys.executable).with_name("gapsweep")
    if not exe.exists():
        return None, "no gapsweep console script"
    cmd = [
        str(exe),
        "simulate",
        "--sweep",
        "clearance_mm=" + ",".join(map(str, CLEARANCES)),
        "--sweep",
        "stiffness_scale=" + ",".join(map(str, SCALES)),
        "--json",
        "--threads",
        str(threads),
    ]
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600, check=False)
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        return None, f"exit {proc.returncode}: {proc.stderr.strip().splitlines()[-1:]}"
    return wall, "ok"


# --------------------------------------------------------------------------------------
# in-process measurements
def best_of(fn, repeats: int) -> tuple[float, float, object]:
    """(best wall seconds, CPU seconds of that run, the last result)."""
    best, cpu, out = math.inf, math.nan, None
    for _ in range(repeats):
        c0, t0 = time.process_time(), time.perf_counter()
        out = fn()
        wall = time.perf_counter() - t0
        if wall < best:
            best, cpu = wall, time.process_time() - c0
    return best, cpu, out


def rhs_cost_ns(n_calls: int = 1_000_000) -> dict:
    """Cost of one compiled ``derivative`` call, timed in a compiled loop (no Python).

    On a typical state of the 0.05 mm case: in contact (penetration 2 um, the contact and
    friction branch taken) and in free flight.
    """
    sys.path.insert(0, str(HERE))
    from rhs_cost import cost_ns, wall_state

    state = wall_state(study()[7])
    return cost_ns({"contact": (state, True), "free": (state, False)}, n_calls)


def rel_err(value: float, ref: float) -> float:
    return abs(value - ref) / abs(ref) if ref else abs(value)


def accuracy(metrics: list[dict], refs: list[dict]) -> dict:
    """Largest relative error of each robust metric over the cases, and where."""
    out = {}
    for k in ROBUST:
        errs = [rel_err(m[k], r[k]) for m, r in zip(metrics, refs, strict=True)]
        out[k] = max(errs)
    return out


# --------------------------------------------------------------------------------------
def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="3 baseline cases, no 256 batch")
    parser.add_argument("--json", metavar="PATH", help="save every figure as JSON")
    parser.add_argument("--threads", type=int, default=2, help="threads of the batch path")
    parser.add_argument("--worker", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    if args.worker:
        kind, *rest = args.worker
        if kind == "baseline":
            result = worker_baseline([int(i) for i in rest])
        elif kind == "scale":
            result = worker_scale(int(rest[0]), args.threads)
        else:
            result = worker_project(kind, args.threads)
        print(json.dumps(result))
        return 0

    from gapsweep.core.simulation import simulate, simulate_batch, to_job
    from gapsweep.core.solver import run_jobs

    threads = args.threads
    report: dict = {
        "machine": {
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "load_average_start": os.getloadavg(),
        },
        "quick": args.quick,
        "threads": threads,
    }
    print(
        f"gapsweep batch benchmark - {os.cpu_count()} CPUs, load average "
        f"{os.getloadavg()[0]:.2f} at start, batch threads {threads}"
    )
    cases = study()
    n_cases = len(cases)

    # warm this process (numba cache load) before any in-process timing
    simulate(cases[0])

    # ---- tight-tolerance reference ------------------------------------------------------
    t0 = time.perf_counter()
    ref_results = simulate_batch(study(**TIGHT), threads=threads)
    refs = [robust(r.metrics) for r in ref_results]
    report["reference"] = {
        "settings": "project solver, dopri5, rtol 1e-10, atol 1e-13 m (positions), "
        "1e-10 m/s (velocities), n_output 2401, peaks refined",
        "seconds": time.perf_counter() - t0,
        "rhs_evaluations": sum(r.metrics["rhs_evaluations"] for r in ref_results),
        "metrics": refs,
    }
    if not args.quick:
        check = simulate_batch(study(**CHECK), threads=threads)
        report["reference"]["self_check_rtol_1e-12"] = accuracy(
            refs, [robust(r.metrics) for r in check]
        )

    # ---- baseline in its own process ----------------------------------------------------
    indices = list(QUICK_CASES) if args.quick else list(range(n_cases))
    print(f"baseline: solve_ivp RK45 on {len(indices)} case(s) in a fresh process ...", flush=True)
    base, base_wall = run_worker(["baseline", *map(str, indices)], timeout=1200)
    b_cases = base["cases"]
    b_int = sum(c["integration_s"] for c in b_cases)
    b_post = sum(c["post_s"] for c in b_cases)
    b_nfev = sum(c["rhs_evaluations"] for c in b_cases)
    b_per_case = b_int / len(b_cases)
    base_acc = accuracy(b_cases, [refs[i] for i in indices])
    report["baseline"] = {
        "cases": b_cases,
        "integration_s": b_int,
        "post_s": b_post,
        "whole_process_s": base_wall,
        "per_case_s": b_per_case,
        "rhs_evaluations": b_nfev,
        "us_per_rhs": 1e6 * b_int / b_nfev,
        "accuracy": base_acc,
        "metrics_read": "at solve_ivp's accepted steps (sol.y, no dense output), "
        "RHS re-evaluated there",
    }

    # ---- project paths, warm, in process ------------------------------------------------
    single_t, single_cpu, single = best_of(lambda: [simulate(c) for c in cases], 3)
    batch1_t, batch1_cpu, batch1 = best_of(lambda: simulate_batch(cases, threads=1), 3)
    batch_t, batch_cpu, batch = best_of(lambda: simulate_batch(cases, threads=threads), 3)
    identical = all(
        robust(a.metrics) == robust(b.metrics) for a, b in zip(single, batch, strict=True)
    )
    nfev = sum(r.metrics["rhs_evaluations"] for r in batch)

    paths = {}
    for name, t, cpu, results in (
        ("single (simulate x15)", single_t, single_cpu, single),
        ("batch, 1 thread", batch1_t, batch1_cpu, batch1),
        (f"batch, {threads} threads", batch_t, batch_cpu, batch),
    ):
        paths[name] = {
            "integration_s": t,
            "cpu_s": cpu,
            "cases_per_s": n_cases / t,
            "ratio_to_baseline": b_per_case / (t / n_cases),
            "accuracy": accuracy([robust(r.metrics) for r in results], refs),
            "all_ok": all(r.ok for r in results),
        }

    # ---- whole-process figures ----------------------------------------------------------
    single_w, single_wall = run_worker(["single"])
    batch_w, batch_wall = run_worker(["batch", "--threads", str(threads)])
    cli_wall, cli_note = cli_whole_process(threads)
    paths["single (simulate x15)"]["whole_process_s"] = single_wall
    paths["single (simulate x15)"]["first_call_in_fresh_process_s"] = single_w["first_call_s"]
    paths[f"batch, {threads} threads"]["whole_process_s"] = batch_wall
    paths[f"batch, {threads} threads"]["first_call_in_fresh_process_s"] = batch_w["first_call_s"]
    report["paths"] = paths
    report["batch_equals_single"] = identical
    report["cli_sweep_whole_process_s"] = cli_wall
    report["cli_note"] = cli_note

    # ---- where the time goes ------------------------------------------------------------
    # the solver alone (run_jobs on prebuilt jobs) with the output grid and the peak
    # refinement switched off in turn; case setup and simulate_batch's own work apart
    setup_t, _, _ = best_of(lambda: [to_job(c) for c in cases], 3)
    variants = {}
    for label, over in (
        ("default (n_output 2401, refine)", {}),
        ("n_output 2401, no refine", {"refine_peaks": False}),
        ("n_output 2, refine", {"n_output": 2}),
        ("n_output 2, no refine", {"n_output": 2, "refine_peaks": False}),
    ):
        jobs = [to_job(c) for c in study(**over)]
        t, _, res = best_of(lambda jobs=jobs: run_jobs(jobs, threads=1), 3)
        variants[label] = {
            "seconds": t,
            "rhs_evaluations": sum(r.metrics["rhs_evaluations"] for r in res),
            "same_metrics": all(
                robust(a.metrics) == robust(b.metrics) for a, b in zip(res, batch1, strict=True)
            ),
        }
    solver_t = variants["default (n_output 2401, refine)"]["seconds"]
    report["breakdown_1_thread"] = {
        "simulate_batch_s": batch1_t,
        "case_setup_s": setup_t,
        "rest_of_simulate_batch_s": batch1_t - solver_t - setup_t,
        "variants": variants,
    }

    # ---- floor ----------------------------------------------------------------------------
    cost = rhs_cost_ns()
    stepping_nfev = variants["n_output 2, no refine"]["rhs_evaluations"]
    report["floor"] = {
        "rhs_ns_contact": cost["contact"],
        "rhs_ns_free": cost["free"],
        "rhs_evaluations": nfev,
        "rhs_evaluations_stepping_only": stepping_nfev,
        "floor_1_core_s": nfev * cost["contact"] * 1e-9,
        f"floor_{threads}_cores_s": nfev * cost["contact"] * 1e-9 / threads,
        "batch_over_floor": batch_t / (nfev * cost["contact"] * 1e-9 / threads),
        "floor_ratio_to_baseline": b_per_case * n_cases / (nfev * cost["contact"] * 1e-9 / threads),
    }

    # ---- scaling --------------------------------------------------------------------------
    sizes = [s for s in SIZES if not (args.quick and s > 64)]
    scaling = []
    for n in sizes:
        row, _ = run_worker(["scale", str(n), "--threads", str(threads)])
        scaling.append(row)
    report["scaling"] = scaling
    report["machine"]["load_average_end"] = os.getloadavg()

    print_report(report)
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2))
        print(f"\nfigures saved to {args.json}")
    return 0


def print_report(r: dict) -> None:
    b = r["baseline"]
    n_b = len(b["cases"])
    print("\n== 15-case study (Flores slider-crank, 0.024 s) ==")
    print(f"tight reference: {r['reference']['settings']}; {r['reference']['seconds']:.2f} s")
    if "self_check_rtol_1e-12" in r["reference"]:
        sc = r["reference"]["self_check_rtol_1e-12"]
        print("  reference vs rtol 1e-12: " + ", ".join(f"{k} {v:.1e}" for k, v in sc.items()))
    print(
        f"baseline ({n_b} cases): solve_ivp {b['integration_s']:.2f} s "
        f"({b['per_case_s']:.3f} s/case, {b['rhs_evaluations'] / n_b:.0f} RHS/case, "
        f"{b['us_per_rhs']:.1f} us/RHS); peaks post-processing {b['post_s']:.2f} s; "
        f"whole process {b['whole_process_s']:.2f} s"
    )
    hdr = (
        f"{'path':24s} {'integr. s':>10s} {'whole s':>8s} {'cases/s':>8s} {'x base':>7s}"
        f" {'err a_peak':>10s} {'err Fn':>8s} {'err delta':>9s}"
    )
    print(hdr)
    acc = b["accuracy"]
    print(
        f"{'baseline (seeds)':24s} {b['per_case_s'] * 15:10.3f} {b['whole_process_s']:8.2f}"
        f" {1 / b['per_case_s']:8.1f} {1.0:7.1f} {acc['peak_slider_accel']:10.1e}"
        f" {acc['peak_contact_force']:8.1e} {acc['max_penetration']:9.1e}"
        + ("   (15 x per-case mean)" if n_b != 15 else "")
    )
    for name, p in r["paths"].items():
        a = p["accuracy"]
        whole = p.get("whole_process_s")
        whole_s = f"{whole:8.2f}" if whole is not None else f"{'-':>8s}"
        print(
            f"{name:24s} {p['integration_s']:10.4f} {whole_s} {p['cases_per_s']:8.0f}"
            f" {p['ratio_to_baseline']:7.0f} {a['peak_slider_accel']:10.1e}"
            f" {a['peak_contact_force']:8.1e} {a['max_penetration']:9.1e}"
        )
    print("errors: largest relative error over the cases against the tight reference")
    print(f"batch results identical to single-case results: {r['batch_equals_single']}")
    cli = r["cli_sweep_whole_process_s"]
    print(
        "gapsweep simulate --sweep (15 cases, --json), whole process: "
        + (f"{cli:.2f} s" if cli is not None else f"unavailable ({r['cli_note']})")
    )
    for name, p in r["paths"].items():
        if "first_call_in_fresh_process_s" in p:
            print(
                f"  {name}: first call in a fresh process {p['first_call_in_fresh_process_s']:.3f}"
                " s (numba cache load included)"
            )

    f = r["floor"]
    th = r["threads"]
    print("\n== floor ==")
    print(
        f"compiled RHS call: {f['rhs_ns_contact']:.0f} ns in contact, {f['rhs_ns_free']:.0f} ns"
        " in free flight (numba loop calling core.dynamics.derivative 1e6 times)"
    )
    print(
        f"RHS evaluations, 15 cases: {f['rhs_evaluations']} ({f['rhs_evaluations_stepping_only']}"
        " without output grid and refinement)"
    )
    print(
        f"floor = evaluations x in-contact cost: {f['floor_1_core_s'] * 1e3:.1f} ms on 1 core, "
        f"{f[f'floor_{th}_cores_s'] * 1e3:.1f} ms on {th}; batch path at "
        f"{f['batch_over_floor']:.2f}x the floor; floor = {f['floor_ratio_to_baseline']:.0f}x "
        "the baseline"
    )

    bd = r["breakdown_1_thread"]
    print("\n== where the time goes (15 cases, batch path, 1 thread) ==")
    print(f"simulate_batch, 1 thread: {bd['simulate_batch_s'] * 1e3:.1f} ms =")
    print(f"  case setup (to_job: mechanism, assembly, y0): {bd['case_setup_s'] * 1e3:.1f} ms")
    print(
        "  + the rest of simulate_batch (parsing, post-processing): "
        f"{bd['rest_of_simulate_batch_s'] * 1e3:.1f} ms"
    )
    print("  + the solver (run_jobs on prebuilt jobs); variants of it:")
    for label, v in bd["variants"].items():
        print(
            f"  {label:34s} {v['seconds'] * 1e3:7.1f} ms  {v['rhs_evaluations']:7d} RHS"
            f"  robust metrics = default: {v['same_metrics']}"
        )

    print(
        "\n== scaling (random cases, clearance 0.02-0.1 mm x stiffness 0.7-1.3, "
        f"seed {SEED}, {th} threads, one process per size) =="
    )
    print(
        f"{'cases':>6s} {'s':>8s} {'ms/case':>8s} {'cpu/wall':>8s} {'maxrss MB':>10s}"
        f" {'before MB':>10s} {'private MB':>10s} {'before MB':>10s}"
        f" {'traced MB':>10s} {'failed':>6s}"
    )
    for row in r["scaling"]:
        print(
            f"{row['n']:6d} {row['seconds']:8.3f} {row['per_case_ms']:8.2f}"
            f" {row['cpu_over_wall']:8.2f} {row['maxrss_mb']:10.1f} {row['maxrss_before_mb']:10.1f}"
            f" {row['anon_mb']:10.1f} {row['anon_before_mb']:10.1f}"
            f" {row['tracemalloc_peak_mb']:10.1f} {row['failed']:6d}"
        )
    print(
        "maxrss: peak resident set (VmHWM) of the process after the batch; private: its "
        "anonymous memory (RssAnon) with the batch's results held, the rest being shared "
        "libraries' pages (LLVM); before: after the warm-up; traced: tracemalloc peak during "
        f"one batch call; after import only: {r['scaling'][0]['maxrss_after_import_mb']:.0f} MB"
    )
    la = r["machine"]["load_average_end"]
    print(f"load average at the end: {la[0]:.2f} {la[1]:.2f} {la[2]:.2f}")


if __name__ == "__main__":
    sys.exit(main())
