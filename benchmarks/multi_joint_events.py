"""Issue 33 part 2: contact events of several clearance joints (design.md 1.4, 4.14, 4.15).

    .venv/bin/python benchmarks/multi_joint_events.py [--save PATH] [--compare PATH]
                                                      [--no-batch] [--repeats 5]

Runs the two-clearance slider-crank (examples/mechanism_two_clearance_slider_crank.toml with
the crank pin at 0.08 mm on its 12 mm bearing and the piston pin at 0.05 mm, t_end 0.024 s,
centred start) at rtol 1e-6, 1e-7 and 1e-8, with both event_location modes, and the same
mechanism with the crank pin's clearance only (the one-joint reference). Prints per run:
the status, ``max_free_flight_penetration`` (a joint's largest penetration while flagged
free: 0 up to the onset threshold 1e-12 m when every onset is located), the
``onset_penetration_error``, ``impacts`` and the sum of the per-joint ``impacts.<joint>``
as the case reports them.

``--scan`` adds 72 variants (crank pin 0.05 / 0.08 / 0.1 mm x piston pin 0.05 / 0.1 mm x
rtol 1e-6 / 1e-7 / 1e-8 x the crank pin's bearing on the rod or on the crank, both modes)
and prints, per mode, the largest free-flight penetration and onset error and the failures.

Then the batch speed of the single-joint 15-case study (batch_speed.py's study, one thread,
best of ``--repeats``) with the RHS evaluations: the extra per-step cost of checking every
joint for events. ``--save`` writes the figures as JSON; ``--compare`` prints them beside a
saved run; ``--base DIR`` runs the baseline first, in a subprocess importing gapsweep from
DIR (a checkout of the code before the change, e.g. ``git archive main | tar -x -C DIR``;
numba caches its kernels beside those sources), then prints both.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import tomllib

HERE = Path(__file__).resolve().parent
EXAMPLES = HERE.parent / "examples"
TWO = EXAMPLES / "mechanism_two_clearance_slider_crank.toml"
REFERENCE = EXAMPLES / "mechanism_reference_slider_crank.toml"
RTOLS = (1e-6, 1e-7, 1e-8)
JOINTS = ("crank_pin", "piston_pin")


def mechanism_table(two_joints: bool = True) -> dict:
    """The reference mechanism's [mechanism] table (design.md 1.3, 5000 rpm) with the crank
    pin's clearance joint of the two-clearance example (0.08 mm, 12 mm bearing); with
    ``two_joints`` False the piston pin is ideal."""
    table = tomllib.loads(REFERENCE.read_text())["mechanism"]
    crank_pin = tomllib.loads(TWO.read_text())["mechanism"]["joints"]["crank_pin"]
    table["joints"]["crank_pin"] = {**crank_pin, "clearance_mm": 0.08, "bearing_radius_mm": 12}
    if two_joints:
        table["joints"]["piston_pin"]["clearance_mm"] = 0.05
    else:
        pin = table["joints"]["piston_pin"]
        for key in ("clearance_mm", "bearing_radius_mm", "restitution", "friction"):
            pin.pop(key, None)
    return table


def run(rtol: float, event_location: str, two_joints: bool = True) -> dict:
    from gapsweep.core.mechanism.case import simulate_mechanism

    params = {
        "mechanism": mechanism_table(two_joints),
        "t_end": 0.024,
        "initial": "centred",
        "rtol": rtol,
        "event_location": event_location,
    }
    r = simulate_mechanism(params)
    m = r.metrics
    names = JOINTS if two_joints else JOINTS[:1]
    per_joint = [m.get(f"impacts.{j}", float("nan")) for j in names]
    return {
        "joints": len(names),
        "rtol": rtol,
        "events": event_location,
        "status": "ok" if r.ok else f"FAILED: {r.reason}",
        "free_pen": float(m.get("max_free_flight_penetration", float("nan"))),
        "onset_err": float(m.get("onset_penetration_error", float("nan"))),
        "impacts": float(m.get("impacts", float("nan"))),
        "joint_impacts": [float(x) for x in per_joint],
    }


def scan() -> dict:
    """The variants of ``--scan``: per event_location mode, the worst figures."""
    import itertools

    from gapsweep.core.mechanism.case import simulate_mechanisms

    cases, modes = [], []
    grid = itertools.product(
        (0.05, 0.08, 0.1), (0.05, 0.1), RTOLS, ("root", "bisect"), ("rod", "crank")
    )
    for c1, c2, rtol, events, bearing in grid:
        table = mechanism_table(True)
        other = "crank" if bearing == "rod" else "rod"
        table["joints"]["crank_pin"]["bodies"] = [bearing, other]
        cases.append(
            {
                "mechanism": table,
                "t_end": 0.024,
                "initial": "centred",
                "rtol": rtol,
                "event_location": events,
                "joints.crank_pin.clearance_mm": c1,
                "joints.piston_pin.clearance_mm": c2,
            }
        )
        modes.append(events)
    out: dict = {}
    for events, r in zip(modes, simulate_mechanisms(cases, threads=1), strict=True):
        w = out.setdefault(events, {"cases": 0, "free_pen": 0.0, "onset_err": 0.0, "failed": 0})
        w["cases"] += 1
        w["free_pen"] = max(w["free_pen"], float(r.metrics["max_free_flight_penetration"]))
        w["onset_err"] = max(w["onset_err"], float(r.metrics["onset_penetration_error"]))
        w["failed"] += not r.ok
    return out


def batch_speed(repeats: int) -> dict:
    sys.path.insert(0, str(HERE))
    from batch_speed import study
    from gapsweep.core.simulation import simulate_batch

    cases = study()
    simulate_batch(cases, threads=1)  # load the kernels
    best, cpu, nfev = float("inf"), float("nan"), 0
    for _ in range(repeats):
        c0, t0 = time.process_time(), time.perf_counter()
        results = simulate_batch(cases, threads=1)
        wall = time.perf_counter() - t0
        if wall < best:
            best, cpu = wall, time.process_time() - c0
        nfev = sum(int(r.metrics["rhs_evaluations"]) for r in results)
    return {
        "wall_s": best,
        "cpu_s": cpu,
        "rhs_evaluations": nfev,
        "ok": all(r.ok for r in results),
        "load": os.getloadavg()[0],
    }


def _row(r: dict) -> str:
    joints = " + ".join(f"{x:g}" for x in r["joint_impacts"])
    return (
        f"{r['joints']:>6} {r['rtol']:>7.0e} {r['events']:>6} {r['free_pen']:>11.3e} "
        f"{r['onset_err']:>11.3e} {r['impacts']:>7g} {joints:>11}  {r['status'][:60]}"
    )


HEAD = (
    f"{'joints':>6} {'rtol':>7} {'events':>6} {'free_pen_m':>11} {'onset_err_m':>11} "
    f"{'impacts':>7} {'per-joint':>11}  status"
)


def _import_from(root: str) -> None:
    """Import the package from checkout ``root`` (the editable install's mapping, moved)."""
    import importlib

    finder = importlib.import_module("__editable___gapsweep_0_1_0_finder")
    here = str(HERE.parent)
    for name, path in list(finder.MAPPING.items()):
        finder.MAPPING[name] = path.replace(here, str(Path(root).resolve()))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--save", metavar="PATH", help="write the figures as JSON")
    parser.add_argument("--compare", metavar="PATH", help="a saved run to print beside")
    parser.add_argument("--no-batch", action="store_true", help="skip the batch speed")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--scan", action="store_true", help="72 variants, worst figures")
    parser.add_argument("--base", metavar="DIR", help="run the baseline from this checkout")
    parser.add_argument("--as-base", metavar="DIR", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.as_base:
        _import_from(args.as_base)
    if args.base:
        saved = Path(args.save or "multi_joint_events.json").with_suffix(".base.json")
        extra = ["--scan"] if args.scan else []
        extra += ["--no-batch"] if args.no_batch else ["--repeats", str(args.repeats)]
        cmd = [sys.executable, __file__, "--as-base", args.base, "--save", str(saved), *extra]
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        args.compare = str(saved)

    rows = [run(rtol, ev) for ev in ("root", "bisect") for rtol in RTOLS]
    rows += [run(rtol, ev, two_joints=False) for ev in ("root", "bisect") for rtol in RTOLS]
    out = {"runs": rows}
    if args.scan:
        out["scan"] = scan()
    if not args.no_batch:
        out["batch"] = batch_speed(args.repeats)
    old = json.loads(Path(args.compare).read_text()) if args.compare else None

    if old is not None:
        print("before (" + args.compare + "):")
        print(HEAD)
        for r in old["runs"]:
            print(_row(r))
        print("after:")
    print(HEAD)
    for r in rows:
        print(_row(r))
    for name, data in (("before", (old or {}).get("scan")), ("after", out.get("scan"))):
        for events, w in (data or {}).items():
            print(
                f"scan {name}, {events}: {w['cases']} cases, max free-flight penetration "
                f"{w['free_pen']:.3e} m, max onset error {w['onset_err']:.3e} m, "
                f"{w['failed']} failed"
            )
    if "batch" in out:
        b = out["batch"]
        print(
            f"\nsingle-joint 15-case study, 1 thread, best of {args.repeats}: "
            f"{b['wall_s'] * 1e3:.1f} ms wall, {b['cpu_s'] * 1e3:.1f} ms CPU, "
            f"{b['rhs_evaluations']} RHS evaluations, ok={b['ok']}, load {b['load']:.2f}"
        )
        if old is not None and "batch" in old:
            ob = old["batch"]
            print(
                f"before: {ob['wall_s'] * 1e3:.1f} ms wall, {ob['cpu_s'] * 1e3:.1f} ms CPU, "
                f"{ob['rhs_evaluations']} RHS evaluations, load {ob['load']:.2f}; "
                f"ratio after/before {b['wall_s'] / ob['wall_s']:.3f} (wall), "
                f"{b['cpu_s'] / ob['cpu_s']:.3f} (CPU)"
            )
    if args.save:
        Path(args.save).write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
