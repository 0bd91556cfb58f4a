"""Where a worker's time goes per case, apart from the solver (issue 28, part 8).

    .venv/bin/python benchmarks/worker_profile.py [--cases 400] [--t-end 0.024] [--top 25]

The cases of ``system_throughput.py`` (a seeded Latin hypercube over the user's ranges,
``--t-end`` seconds of motion each, 0 for until settled) are submitted to a fresh embedded
archive (SQLite in a temporary data folder) with a dispatcher that only collects the
messages; then every message runs through :func:`~gapsweep.workers.case_runner.run_chunk`
in this process, on one solver thread, exactly as a pool child runs it (claim, cancel
checks, series selection, store, status, the study's finish with its certificates), under
cProfile. The same cases through ``core.api.run_cases`` alone, one thread, before and after
(the best of the two) are the reference. Printed: both times, the cost per case above the
solver, and the profile's pieces of ``run_chunk`` by cumulative time. What this leaves out
is the broker and Celery between two chunks (``system_throughput.py`` measures the whole).

The machine may be shared: the load average is printed; compare figures of one run.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from system_throughput import OLD_T_END, lhs_spec  # noqa: E402

#: the pieces of a chunk, by the function that does each (module suffix, function name)
PIECES = (
    ("core/api.py", "run_cases", "solver (run_cases)"),
    ("db/leases.py", "claim_cases", "claim"),
    ("workers/case_runner.py", "stopped", "cancel checks"),
    ("workers/series_policy.py", "select_series", "series selection"),
    ("workers/case_runner.py", "rotation_hz", "rotation_hz (parse params)"),
    ("workers/search.py", "add", "search metrics"),
    ("db/leases.py", "complete_cases", "store (complete_cases)"),
    ("db/leases.py", "release_cases", "release"),
    ("workers/case_runner.py", "__enter__", "lease keeper start"),
    ("workers/case_runner.py", "__exit__", "lease keeper stop / check close"),
    ("workers/search.py", "advance_search", "advance_search"),
    ("db/studies.py", "refresh_study_status", "refresh_study_status"),
    ("workers/study_finish.py", "finish_study", "finish_study (analysis, certificates)"),
    ("workers/case_runner.py", "run_chunk", "run_chunk, all"),
)


class Collect:
    """A dispatcher that keeps the messages it is sent."""

    def __init__(self) -> None:
        self.chunks: list[list[int]] = []

    def send(self, chunk: list[int]) -> None:
        self.chunks.append(list(chunk))

    def pending_messages(self) -> int | None:
        return len(self.chunks)


def solver(cases: list[dict]) -> float:
    from gapsweep.core.api import run_cases

    t0 = time.perf_counter()
    results = run_cases("slider-crank", cases, threads=1)
    assert all(r.ok for r in results)
    return time.perf_counter() - t0


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=400)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--t-end", type=float, default=OLD_T_END)
    parser.add_argument("--top", type=int, default=0, help="also print the top N functions")
    parser.add_argument("--dump", default=None, help="write the cProfile stats to this file")
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="gapsweep-prof-") as tmp:
        os.environ["GAPSWEEP_DATA"] = tmp
        os.environ["NUMBA_NUM_THREADS"] = "1"
        from gapsweep.core.api import run_cases
        from gapsweep.db.engine import open_database
        from gapsweep.study.designs import plan_study
        from gapsweep.workers.case_runner import run_chunk
        from gapsweep.workers.submit import submit_study

        from gapsweep.settings import get_settings

        spec = lhs_spec(args.cases, args.seed, args.t_end or None)
        cases = plan_study(spec).cases
        run_cases("slider-crank", cases[:4], threads=1)  # kernels loaded
        print(f"{len(cases)} cases, t_end {args.t_end or 'until settled'}; load average "
              f"{os.getloadavg()}", flush=True)
        before = solver(cases)

        settings = get_settings()
        sessions = open_database(settings.database_url)
        collect = Collect()
        submit_study(spec, sessions=sessions, settings=settings, dispatcher=collect)
        # warm the store's paths (first statements, ORM mappers) on a throw-away study
        warm = Collect()
        submit_study(lhs_spec(8, 99, args.t_end or None), sessions=sessions,
                     settings=settings, dispatcher=warm)
        for chunk in warm.chunks:
            run_chunk(chunk, sessions=sessions, holder="prof", settings=settings,
                      dispatcher=warm)

        profile = cProfile.Profile()
        t0 = time.perf_counter()
        profile.enable()
        done = 0
        while done < len(collect.chunks):  # a chunk may queue more (certificates)
            chunk = collect.chunks[done]
            run_chunk(chunk, sessions=sessions, holder="prof", settings=settings,
                      dispatcher=collect)
            done += 1
        profile.disable()
        system = time.perf_counter() - t0
        after = solver(cases)
        sessions.kw["bind"].dispose()

    n, ref = len(cases), min(before, after)
    print(f"solver alone, 1 thread: {before:.2f} s before, {after:.2f} s after "
          f"({1e3 * ref / n:.2f} ms a case, the best)")
    print(f"run_chunk x {done} messages under cProfile: {system:.2f} s "
          f"({1e3 * system / n:.2f} ms a case, +{1e3 * (system - ref) / n:.2f} ms; "
          f"{system / ref:.2f}x)")
    stats = pstats.Stats(profile)
    if args.dump:
        stats.dump_stats(args.dump)
    total = {}
    for (path, _, name), (_, calls, _, cum, _) in stats.stats.items():
        for suffix, func, label in PIECES:
            if path.endswith(suffix) and name == func:
                n_calls, t = total.get(label, (0, 0.0))
                total[label] = (n_calls + calls, t + cum)
    print(f"\n{'piece (cumulative, profiled)':<42} {'calls':>7} {'s':>8} {'ms/case':>8}")
    for _, _, label in PIECES:
        if label in total:
            calls, t = total[label]
            print(f"{label:<42} {calls:7d} {t:8.3f} {1e3 * t / n:8.3f}")
    print(f"load average {os.getloadavg()}")
    if args.top:
        stats.sort_stats("cumulative").print_stats(args.top)


if __name__ == "__main__":
    main()
