"""The README's rattle map and the user's study's settled classes, from the shipped studies.

    .venv/bin/python benchmarks/rattle_map.py [--example rattle_map|clearance_x_stiffness]
    .venv/bin/python benchmarks/rattle_map.py --eps 0,1e-13,-1e-13,1e-12,-1e-12

Plans the example study (``examples/<name>.toml``) with the study layer, runs its cases
through ``core.api.run_cases`` (the batch path a worker uses) and prints, per case, the
settled class with the revolutions run and the impacts in the settled window - the table
of the README's "Rattle map" (the second axis down, the first across) - and the solver's wall time.

``--eps``: the map once per change eps of the contact stiffness (every case's
``stiffness_scale`` x (1 + eps), the round-off of issue 33), then one table of the classes:
a cell reads ``same`` with its class when every eps gave it, ``chaotic either way`` when each
run was chaotic or irregular, ``chaos, capture by round-off`` when some were and others were
captured (a chaotic transient whose capture revolution is itself chaotic, design.md 4.16),
else ``DIFFERS`` (periodic with different N: a class that hangs on the last bit).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from gapsweep.core.api import run_cases
from gapsweep.study.designs import plan_study
from gapsweep.study.spec import load_spec_file

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def cell(metrics: dict) -> str:
    """``periodic-1 (10), no impact``: the class, its revolutions, the settled impacts."""
    impacts = int(metrics.get("impacts_settled", 0))
    said = "no impact" if impacts == 0 else f"{impacts} impact{'s' if impacts > 1 else ''}"
    return f"{metrics['motion']} ({metrics['revolutions']}), {said}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--example", default="rattle_map")
    parser.add_argument("--eps", default="", help="comma-separated changes of K (see above)")
    args = parser.parse_args()
    spec = load_spec_file(EXAMPLES / f"{args.example}.toml")
    cases = plan_study(spec).cases
    if args.eps:
        compare(spec, cases, [float(e) for e in args.eps.split(",")])
        return
    t0 = time.perf_counter()
    results = run_cases(spec.model, cases)
    wall = time.perf_counter() - t0
    across, down = list(spec.axes)[:2]  # the README's: speeds down, clearances across
    rows = list(dict.fromkeys(c[down] for c in cases))
    cols = list(dict.fromkeys(c[across] for c in cases))
    table = {(c[down], c[across]): r for c, r in zip(cases, results, strict=True)}
    print(f"| {down} \\ {across} | " + " | ".join(f"{v:g}" for v in cols) + " |")
    print("|---" * (len(cols) + 1) + "|")
    for v in rows:
        cells = [cell(table[v, w].metrics) if table[v, w].ok else table[v, w].reason
                 for w in cols]
        print(f"| {v:g} | " + " | ".join(cells) + " |")
    print(f"{len(cases)} cases, solver {wall:.1f} s")


def compare(spec, cases: list[dict], changes: list[float]) -> None:
    """The map's classes under each change of K, cell by cell (module docstring)."""
    across, down = list(spec.axes)[:2]
    classes: dict[tuple, list[str]] = {}
    for eps in changes:
        scaled = [{**c, "stiffness_scale": c.get("stiffness_scale", 1.0) * (1.0 + eps)}
                  for c in cases]
        t0 = time.perf_counter()
        results = run_cases(spec.model, scaled)
        print(f"eps {eps:+.0e}: {len(cases)} cases, solver {time.perf_counter() - t0:.1f} s")
        for c, r in zip(cases, results, strict=True):
            said = f"{r.metrics['motion']} ({r.metrics['revolutions']})" if r.ok else "failed"
            classes.setdefault((c[down], c[across]), []).append(said)
    rows = list(dict.fromkeys(c[down] for c in cases))
    cols = list(dict.fromkeys(c[across] for c in cases))
    print(f"eps: {', '.join(f'{e:+.0e}' for e in changes)}")
    print(f"| {down} \\ {across} | " + " | ".join(f"{v:g}" for v in cols) + " |")
    print("|---" * (len(cols) + 1) + "|")
    same = either = captured = differ = 0
    for v in rows:
        cells = []
        for w in cols:
            said = classes[v, w]
            names = [s.split(" ")[0] for s in said]
            if len(set(names)) == 1:
                same += 1
                cells.append(f"same: {names[0]} ({'/'.join(s.split('(')[1][:-1] for s in said)})")
            elif all(n in ("chaotic", "irregular") for n in names):
                either += 1
                cells.append("chaotic either way: " + ", ".join(said))
            elif any(n in ("chaotic", "irregular") for n in names):
                captured += 1
                cells.append("chaos, capture by round-off: " + ", ".join(said))
            else:
                differ += 1
                cells.append("DIFFERS: " + ", ".join(said))
        print(f"| {v:g} | " + " | ".join(cells) + " |")
    print(f"{same} cells the same class, {either} chaotic/irregular either way, {captured} "
          f"chaotic or captured as round-off decides, {differ} periodic with another N")


if __name__ == "__main__":
    main()
