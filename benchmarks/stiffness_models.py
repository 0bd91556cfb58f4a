"""The user's 15-case study under each stiffness model, and what each model costs (issue 18).

    .venv/bin/python benchmarks/stiffness_models.py            # tables + costs, ~1 min
    .venv/bin/python benchmarks/stiffness_models.py --json out.json

Runs examples/clearance_x_stiffness.toml's cases (Flores slider-crank, clearance 0.02 ...
0.1 mm x stiffness scale 0.7, 1.0, 1.3, LN cr 0.9, 5000 rpm, 0.024 s) with
``stiffness_model`` = hertz-sphere, johnson-cylinder and liu-conformal (axial length 10 mm,
the default) and prints, per case: peak slider acceleration over the last revolution and
over the whole run, peak contact force, and the max penetration as a fraction of the
clearance (Johnson's relation holds to 0.40 c, beyond it the force follows its tangent).

Costs, each timed in a compiled loop (no Python in the way), best of 5 interleaved rounds:
the elastic-force kernel alone over penetrations spread over (0, 0.39 c], and one whole RHS
(``core.dynamics.derivative``) in contact at 2 um penetration of the 0.05 mm case; then the
study's wall time per model (batch path, best of 3) and its RHS evaluation count.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import time
from pathlib import Path

import numpy as np
from gapsweep.core.cases import SliderCrankCase
from gapsweep.core.contact_laws import conformal_stiffness
from gapsweep.core.contact_stiffness import STIFFNESS_MODELS, effective_modulus, line_stiffness
from gapsweep.core.simulation import simulate_batch
from gapsweep.study.designs import plan_study
from gapsweep.study.spec import load_spec_file

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "clearance_x_stiffness.toml"
MODELS = tuple(STIFFNESS_MODELS)
SHORT = {"hertz-sphere": "sphere", "johnson-cylinder": "johnson", "liu-conformal": "liu"}


def study_cases(model: str) -> list[SliderCrankCase]:
    plan = plan_study(load_spec_file(EXAMPLE))
    return [SliderCrankCase.from_mapping({**p, "stiffness_model": model}) for p in plan.cases]


def run_study(model: str, repeats: int = 3) -> tuple[list[dict], float]:
    cases = study_cases(model)
    best = math.inf
    for _ in range(repeats):
        t0 = time.perf_counter()
        results = simulate_batch(cases)
        best = min(best, time.perf_counter() - t0)
    assert all(r.ok for r in results), [r.reason for r in results if not r.ok]
    return [r.metrics for r in results], best


def elastic_cost_ns(n_calls: int = 2_000_000) -> dict[str, float]:
    """ns per ``elastic_force`` call of each model, penetrations cycling over (0, 0.39 c]."""
    import numba
    from gapsweep.core.contact_stiffness import elastic_force

    @numba.njit(cache=False)
    def drive(model, k, a, c, deltas, n_calls):
        acc = 0.0
        m = deltas.shape[0]
        for i in range(n_calls):
            acc += elastic_force(model, k, 1.5, a, c, deltas[i % m])
        return acc

    c = 5e-5
    k = conformal_stiffness(0.01, c, 207e9, 0.3, 207e9, 0.3)
    a = line_stiffness(0.01, effective_modulus(207e9, 0.3, 207e9, 0.3))
    # log-spread penetrations: grazing contacts and deep ones alike
    deltas = c * np.geomspace(1e-6, 0.39, 1024)
    out = {name: math.inf for name in MODELS}
    for _ in range(5):
        for name, model in STIFFNESS_MODELS.items():
            drive(model.shape, k, a, c, deltas, 10)
            t0 = time.perf_counter()
            drive(model.shape, k, a, c, deltas, n_calls)
            out[name] = min(out[name], 1e9 * (time.perf_counter() - t0) / n_calls)
    return out


def rhs_cost_ns(n_calls: int = 500_000) -> dict[str, float]:
    """ns per compiled ``derivative`` call in contact (2 um into the wall, c = 0.05 mm)."""
    from rhs_cost import cost_ns, wall_state  # beside this script (numba loads with it)

    return cost_ns({name: (wall_state(SliderCrankCase(clearance_mm=0.05, stiffness_model=name)),
                           True) for name in MODELS}, n_calls)


def print_table(
    title: str, cases: list[SliderCrankCase], columns: dict[str, list[float]], fmt: str
) -> None:
    print(f"\n{title}")
    head = "  c [mm]  K scale " + "".join(f"{SHORT[m]:>12s}" for m in columns)
    ratio = [m for m in columns if m != "hertz-sphere"]
    print(head + "".join(f"{SHORT[m] + '/sph':>12s}" for m in ratio))
    for i, case in enumerate(cases):
        row = f"  {case.clearance_mm:6.3f}  {case.stiffness_scale:7.2f} "
        row += "".join(format(columns[m][i], fmt).rjust(12) for m in columns)
        row += "".join(f"{columns[m][i] / columns['hertz-sphere'][i]:12.3f}" for m in ratio)
        print(row)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", metavar="PATH", help="save every figure as JSON")
    args = parser.parse_args(argv)
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")

    results, walls = {}, {}
    for name in MODELS:
        results[name], walls[name] = run_study(name)
    cases = study_cases("hertz-sphere")
    for key, title, fmt in (
        ("peak_slider_accel_steady", "peak slider acceleration, last revolution [m/s^2]", "12.0f"),
        ("peak_slider_accel", "peak slider acceleration, whole run [m/s^2]", "12.0f"),
        ("peak_contact_force", "peak contact force [N]", "12.1f"),
        ("max_penetration", "max penetration / clearance [-]", "12.3f"),
    ):
        cols = {m: [r[key] for r in results[m]] for m in MODELS}
        if key == "max_penetration":
            cols = {
                m: [v / (c.clearance_mm * 1e-3) for v, c in zip(vals, cases, strict=True)]
                for m, vals in cols.items()
            }
        print_table(title, cases, cols, fmt)

    print(
        "\naxial length at c = 0.02 mm, stiffness scale 1 (peak contact force [N], "
        "max penetration / c; 'failed' = the penetration reached c)"
    )
    lengths = (5.0, 10.0, 20.0)
    grid = [
        SliderCrankCase(clearance_mm=0.02, stiffness_model=m, axial_length_mm=length)
        for length in lengths
        for m in MODELS
    ]
    print("  L [mm] " + "".join(f"{SHORT[m]:>22s}" for m in MODELS))
    swept = simulate_batch(grid)
    for i, length in enumerate(lengths):
        row = f"  {length:6.1f} "
        for r in swept[3 * i : 3 * i + 3]:
            pen = r.metrics["max_penetration"] / 2e-5
            text = f"{r.metrics['peak_contact_force']:8.0f} {pen:5.2f}" if r.ok else "failed"
            row += f"{text:>22s}"
        print(row)

    elastic = elastic_cost_ns()
    rhs = rhs_cost_ns()
    print("\ncost per model")
    print(
        f"  {'model':17s} {'elastic [ns]':>12s} {'RHS [ns]':>10s} {'study [ms]':>11s}"
        f" {'RHS evals':>10s} {'impacts':>8s}"
    )
    for name in MODELS:
        evals = sum(r["rhs_evaluations"] for r in results[name])
        impacts = sum(r["impacts"] for r in results[name])
        print(
            f"  {name:17s} {elastic[name]:12.1f} {rhs[name]:10.1f} "
            f"{1e3 * walls[name]:11.1f} {evals:10d} {impacts:8d}"
        )
    if args.json:
        Path(args.json).write_text(
            json.dumps(
                {
                    "metrics": results,
                    "study_wall_s": walls,
                    "elastic_ns": elastic,
                    "rhs_ns": rhs,
                },
                indent=1,
            )
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
