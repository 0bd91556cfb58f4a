"""What a wear life costs (design.md 4.12, issue 37): the reference slider-crank at
c = 0.02 mm over ``--cycles`` revolutions in ``--steps`` profile updates, against one settled
run of the same case without wear (the baseline). Prints per life step the cycle, the largest
depth, the clearance, the settled peak and the motion's class, then the wall times and their
ratio. ``python benchmarks/wear_life_cost.py [--cycles 1e7] [--steps 20] [--k 1e-16]
[--n-output 2401] [--save PATH]``; ``--save`` writes the life's per-step arrays (the
benchmark's loop and ``simulate``'s) to an ``.npz``, to compare two builds' lives digit for
digit."""

from __future__ import annotations

import argparse
import time

import numpy as np
from gapsweep.core.cases import SliderCrankCase
from gapsweep.core.simulation import simulate, to_job
from gapsweep.core.solver import run_jobs
from gapsweep.core.wear import depth_at, node_angles, wear_life
from gapsweep.core.wear_life import joint_history, step_job
from gapsweep.core.worn_contact import contact_directions


def _deepest(profile: np.ndarray, clearance: float, ecc: np.ndarray, theta_e: np.ndarray,
             refine: int = 8) -> np.ndarray:
    """The journal's deepest overlap with the worn wall [m], max over theta of
    ``e . u(theta) - c - h(theta)`` on ``refine`` angles a node (h linear between nodes), for
    the eccentricities ``ecc`` at ``theta_e`` (bearing frame), ``[m]`` each."""
    theta = np.arange(profile.shape[0] * refine) * (2.0 * np.pi / (profile.shape[0] * refine))
    wall = depth_at(profile, theta)
    out = np.empty(ecc.shape)
    for i in range(0, ecc.size, 2000):  # rows x angles in chunks: a chaotic window is long
        g = (ecc[i:i + 2000, None] * np.cos(theta[None, :] - theta_e[i:i + 2000, None])
             - clearance - wall[None, :])
        out[i:i + 2000] = g.max(axis=1)
    return out


def unseen_overlap(profile: np.ndarray, clearance: float) -> float:
    """The deepest interference [m] the contact does not see on ``profile`` ``[N]`` [m]: for
    the eccentricity in each node's direction, the journal placed where the contact's
    penetration turns positive (bisection on |e|, :func:`worn_contact.contact_directions`,
    the compiled contact's twin), its deepest overlap with the worn wall, the largest over
    the directions (docs/wear.md; the line-of-centres contact left up to 26 um unseen)."""
    theta_e = node_angles(profile.shape[0])
    lo = np.zeros_like(theta_e)
    hi = np.full_like(theta_e, clearance + float(profile.max()) + clearance)
    for _ in range(80):
        mid = 0.5 * (lo + hi)
        free = contact_directions(profile, clearance, mid, theta_e)[0] <= 0.0
        lo, hi = np.where(free, mid, lo), np.where(free, hi, mid)
    return float(_deepest(profile, clearance, lo, theta_e).max())


def unseen_in_window(step, result, profile: np.ndarray, clearance: float
                     ) -> tuple[float, float]:
    """Over ``step``'s settled window (a :class:`WearStep` of ``result``, a run on
    ``profile`` ``[N]`` [m]): where the solver read no contact (its ``penetration`` <= 0),
    the journal's deepest overlap with the worn wall. Returns the share of the window's
    samples where it is past 1 nm and its largest [m] (0 if the journal never overlaps
    unseen)."""
    h = step.history
    t = np.asarray(result.series["t"])
    read = np.interp(h.t, t, np.asarray(result.series["penetration"]))
    free = read <= 0.0
    deepest = _deepest(profile, clearance, h.ecc[free], h.theta[free])
    most = max(float(deepest.max()), 0.0) if deepest.size else 0.0
    return float(np.sum(deepest > 1e-9)) / max(read.size, 1), most


class _Failed(Exception):  # noqa: N818 - a signal, not an error
    pass


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cycles", type=float, default=1e7)
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--k", type=float, default=1e-16, help="k_D [m²/N]")
    ap.add_argument("--clearance-mm", type=float, default=0.02)
    ap.add_argument("--n-output", type=int, default=2401,
                    help="the case's n_output: (n - 1) / 4 samples a revolution, the grid the "
                         "wear history is read on (2401: 600)")
    ap.add_argument("--save", default="",
                    help="write the per-step cycle, depth and peak and the final profile of "
                         "both lives to this .npz")
    args = ap.parse_args()
    new = {"clearance_mm": args.clearance_mm, "n_output": args.n_output}
    simulate(new)  # compiled kernels loaded before timing
    t0 = time.perf_counter()
    simulate(new)
    baseline = time.perf_counter() - t0

    job = to_job(SliderCrankCase.from_mapping(new))
    cj = job.mechanism.clearance_joints[0]
    classes: list[str] = []
    diagnostics: list[float] = []  # the unseen-overlap checks' time, not the life's cost

    per_step = args.cycles / args.steps

    def run(profile):
        result = run_jobs([step_job(job, {0: profile})], threads=1)[0]
        depth = float(profile.max())
        gap = cj.clearance + depth  # the penetration bound's scale (solver.PENETRATION_BOUND)
        if not result.ok:
            print(f"step {len(classes)} (cycle {len(classes) * per_step:.3g}, depth "
                  f"{depth * 1e6:.2f} um): the run failed ({result.reason}); the life ends")
            raise _Failed
        classes.append(str(result.metrics.get("motion")))
        step = joint_history(job, result, profile)
        t_diag = time.perf_counter()
        share, most = unseen_in_window(step, result, profile, cj.clearance)
        unseen = unseen_overlap(profile, cj.clearance)
        diagnostics.append(time.perf_counter() - t_diag)
        # as it goes, so that a life that stops still shows its steps
        print(f"  step {len(classes) - 1}: cycle {(len(classes) - 1) * per_step:.3g}, depth "
              f"{depth * 1e6:.2f} um, c + depth {gap * 1e6:.2f} um, max penetration "
              f"{result.metrics['max_penetration'] * 1e6:.2f} um "
              f"({result.metrics['max_penetration'] / gap:.2f} of it), unseen overlap "
              f"{unseen:.2g} m (in the settled window's free "
              f"flight > 1 nm at {share:.0%} of the samples, largest {most:.2g} m), "
              f"{classes[-1]}",
              flush=True)
        return step

    t0 = time.perf_counter()
    try:
        life = wear_life(run, nodes=360, cycles=args.cycles, steps=args.steps,
                         coefficient=args.k, clearance=cj.clearance,
                         bearing_radius=cj.bearing_radius, length=cj.contact.axial_length)
    except _Failed:
        print(f"{len(classes)} good runs before the failure, {time.perf_counter() - t0:.2f} s")
        return
    cost = time.perf_counter() - t0
    print(f"k_D = {args.k:g} m²/N, c = {args.clearance_mm} mm, {args.cycles:g} revolutions, "
          f"{args.steps} steps, n_output {args.n_output}")
    print(f"{'cycle':>10} {'depth um':>9} {'c um':>7} {'peak m/s2':>10}  motion")
    for i, cycle in enumerate(life.cycle):
        print(f"{cycle:10.3g} {life.max_depth[i] * 1e6:9.2f} "
              f"{(cj.clearance + life.max_depth[i]) * 1e6:7.2f} {life.peak[i]:10.0f}  {classes[i]}")
    m = life.metrics(cj.clearance, cj.bearing_radius, cj.contact.axial_length)
    print(f"wear_volume {m['wear_volume'] * 1e9:.3f} mm³ = k_D x life's sliding work "
          f"{args.k * life.total_sliding_work * 1e9:.3f} mm³")
    diag = sum(diagnostics)
    print(f"one settled run (no wear): {baseline:.2f} s; the life: {cost - diag:.2f} s "
          f"({len(life.cycle)} runs; the unseen-overlap checks' {diag:.2f} s left out), "
          f"ratio {(cost - diag) / baseline:.1f}")
    # the life as the product runs it (simulate: the runs with their wear traces, the wear
    # updates), side by side with the baseline
    case = {**new, "wear_coefficient_m2_per_n": args.k, "wear_cycles": args.cycles,
            "wear_steps": args.steps, "wear_nodes": 360}
    t0 = time.perf_counter()
    r = simulate(case)
    product = time.perf_counter() - t0
    t0 = time.perf_counter()
    simulate(new)
    again = time.perf_counter() - t0
    print(f"simulate() of the life case: {product:.2f} s ({r.status}, depth "
          f"{r.metrics.get('max_wear_depth', float('nan')) * 1e6:.2f} um); one settled run "
          f"{again:.2f} s; ratio {product / again:.1f} ({args.steps + 1} runs)")
    if args.save:
        np.savez(args.save, cycle=life.cycle, max_depth=life.max_depth, peak=life.peak,
                 profile=life.profile,
                 **{f"simulate_{k}": np.asarray(r.series[k]) for k in
                    ("wear_cycle", "wear_max_depth", "wear_peak_settled", "wear_depth")
                    if k in r.series})


if __name__ == "__main__":
    main()
