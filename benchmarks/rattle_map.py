"""The README's rattle map and the user's study's settled classes, from the shipped studies.

    .venv/bin/python benchmarks/rattle_map.py [--example rattle_map|clearance_x_stiffness]

Plans the example study (``examples/<name>.toml``) with the study layer, runs its cases
through ``core.api.run_cases`` (the batch path a worker uses) and prints, per case, the
settled class with the revolutions run and the impacts in the settled window - the table
of the README's "Rattle map" (the second axis down, the first across) - and the solver's wall time.
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
    args = parser.parse_args()
    spec = load_spec_file(EXAMPLES / f"{args.example}.toml")
    cases = plan_study(spec).cases
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


if __name__ == "__main__":
    main()
