"""Issue 16's measurement behind the cancel inside a chunk: what it costs a worker's
throughput to run a chunk a case at a time with a cancel check between two cases, against
the whole chunk in one solver call (what a worker did before).

    .venv/bin/python benchmarks/cancel_check_cost.py [--chunk 8] [--repeat 5]

For a chunk of ``--chunk`` cases (the default ``GAPSWEEP_CHUNK_SIZE``) of the user's study
(clearance 0.02-0.1 mm, stiffness x0.7-1.3, t_end 0.024 s) and of the fault tests' longer
cases (t_end 0.3 s), one solver thread as in a worker, it times (median of ``--repeat``):

1. ``core.api.run_cases`` on the whole chunk, one call;
2. the same cases one call each;
3. the cancel check (``db.leases.stopped_studies``, one primary-key read in its own
   session, as ``workers/case_runner.py`` makes it) on a SQLite file and on PostgreSQL;

and prints the added cost per case and as a share of the chunk's solver time. The other
option, a cancel flag read by the compiled stepping loop between steps, would add nothing
per case but needs a flag shared with a thread polling the database and a new path through
the core's kernels: not worth it at these figures. The machine may be shared: the load
average is printed with the figures.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
import uuid
from pathlib import Path

from gapsweep.core.api import run_cases
from gapsweep.db import leases
from gapsweep.db.engine import open_database
from gapsweep.study.spec import parse_spec
from gapsweep.workers.submit import create_study_rows
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

PG_ADMIN = "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"


def chunk_of(n: int, t_end: float) -> list[dict]:
    cases = [{"clearance_mm": c, "stiffness_scale": k, "t_end": t_end}
             for c in (0.02, 0.035, 0.05, 0.08, 0.1) for k in (0.7, 1.0, 1.3)]
    return cases[:n]


def median_s(fn, repeat: int, clock=time.perf_counter) -> float:
    times = []
    for _ in range(repeat):
        t0 = clock()
        fn()
        times.append(clock() - t0)
    return statistics.median(times)


def check_ms(url: str, repeat: int = 200) -> float:
    """Median time [ms] of one cancel check in a fresh session (the worker's way)."""
    sessions = open_database(url)
    try:
        spec = parse_spec({"name": "check", "ideal_twin": False,
                           "axes": {"clearance_mm": {"values": [0.05]}}})
        study_id = create_study_rows(spec, sessions=sessions)

        def one() -> None:
            with sessions() as s:
                leases.stopped_studies(s, study_ids=[study_id])

        for _ in range(20):  # pool warm
            one()
        return 1e3 * median_s(one, repeat)
    finally:
        sessions.kw["bind"].dispose()


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--chunk", type=int, default=8)
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--pg-url", default=PG_ADMIN)
    args = p.parse_args()
    print(f"load {os.getloadavg()}")
    folder = Path(tempfile.mkdtemp(prefix="gapsweep-cancel-bench-"))
    checks = {"sqlite": check_ms(f"sqlite:///{folder / 'bench.db'}")}
    admin = create_engine(args.pg_url, isolation_level="AUTOCOMMIT")
    name = f"gapsweep_bench_{uuid.uuid4().hex[:10]}"
    try:
        with admin.connect() as conn:
            conn.execute(text(f'CREATE DATABASE "{name}"'))  # hex-only name
        url = make_url(args.pg_url).set(database=name).render_as_string(hide_password=False)
        checks["postgresql"] = check_ms(url)
    finally:
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()
    for f in folder.iterdir():
        f.unlink()
    folder.rmdir()
    print("cancel check, one PK read in a fresh session: " + ", ".join(
        f"{k} {v:.2f} ms" for k, v in checks.items()))

    run_cases("slider-crank", chunk_of(1, 0.024), threads=1)  # kernels loaded
    for t_end in (0.024, 0.3):
        cases = chunk_of(args.chunk, t_end)
        one_call = lambda c=cases: run_cases("slider-crank", c, threads=1)  # noqa: E731
        per_call = lambda c=cases: [run_cases("slider-crank", [x], threads=1)  # noqa: E731
                                    for x in c]
        # CPU time of this process: what the split costs, little moved by a loaded machine
        cpu_whole = median_s(one_call, args.repeat, time.process_time)
        cpu_single = median_s(per_call, args.repeat, time.process_time)
        whole = median_s(one_call, args.repeat)
        single = median_s(per_call, args.repeat)
        per_case = whole / len(cases)
        print(f"\nchunk of {len(cases)} cases, t_end {t_end} s: one call {whole * 1e3:.1f} ms "
              f"({per_case * 1e3:.2f} ms per case); a call per case {single * 1e3:.1f} ms "
              f"({(single / whole - 1) * 100:+.1f} %); CPU time {cpu_whole * 1e3:.1f} -> "
              f"{cpu_single * 1e3:.1f} ms ({(cpu_single / cpu_whole - 1) * 100:+.1f} %)")
        for db, ms in checks.items():
            added = (single - whole) / len(cases) + ms * 1e-3 * (len(cases) - 1) / len(cases)
            print(f"  + checks on {db}: {added * 1e3:+.2f} ms per case = "
                  f"{added / per_case * 100:+.1f} % of the solver time; a cancel waits at "
                  f"most one case ({per_case * 1e3:.1f} ms) instead of the chunk "
                  f"({whole * 1e3:.0f} ms)")
    print(f"\nload {os.getloadavg()}")


if __name__ == "__main__":
    main()
