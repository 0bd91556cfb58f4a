"""Issue 16's measurement behind the cancel inside a chunk: what it costs a worker's
throughput to run a chunk in pieces with a cancel check between two, against the whole chunk
in one solver call (what a worker did before).

    .venv/bin/python benchmarks/cancel_check_cost.py [--chunk 8] [--repeat 7]

For a chunk of ``--chunk`` cases (the default ``GAPSWEEP_CHUNK_SIZE``) of the user's study
(clearance 0.02-0.1 mm, stiffness x0.7-1.3, t_end 0.024 s) and of the fault tests' longer
cases (t_end 0.3 s), one solver thread as in a worker, it times (wall and CPU time, best of
``--repeat``):

1. ``core.api.run_cases`` on the whole chunk, one call (what a worker did before);
2. the same cases one call each, a cancel check between two;
3. the worker's way now: one case, then pieces of ~``CANCEL_CHECK_S`` of solving, a check
   between two;

and the cancel check (``db.leases.stopped_studies``, one primary-key read) on a SQLite file
and on PostgreSQL: in a session from the pool, and as ``workers/case_runner.py`` makes it
(``CancelCheck``: a connection held for the chunk, no ping per read). The solver runs above
check SQLite; PostgreSQL's extra cost per check is added in the printout. The other
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
from gapsweep.workers.case_runner import CANCEL_CHECK_S, CancelCheck
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


def best_s(fn, repeat: int, clock=time.perf_counter) -> float:
    """The shortest of ``repeat`` runs [s] (the least disturbed on a shared machine)."""
    times = []
    for _ in range(repeat):
        t0 = clock()
        fn()
        times.append(clock() - t0)
    return min(times)


def per_case_run(cases: list[dict], check: CancelCheck) -> None:
    for k, case in enumerate(cases):
        if k:
            check.stopped({1})
        run_cases("slider-crank", [case], threads=1)


def pieces_run(cases: list[dict], check: CancelCheck) -> None:
    """The worker's way (workers/case_runner.py ``_run_group``): one case, then pieces of
    the cases that fit in CANCEL_CHECK_S, a check between two pieces."""
    lo, size, spent, solved = 0, 1, 0.0, 0
    while lo < len(cases):
        if lo:
            check.stopped({1})
            size = max(1, int(CANCEL_CHECK_S / (spent / solved)))
        piece, lo = cases[lo : lo + size], lo + size
        t0 = time.perf_counter()
        run_cases("slider-crank", piece, threads=1)
        spent, solved = spent + time.perf_counter() - t0, solved + len(piece)


def check_ms(url: str, repeat: int = 200) -> tuple[float, float]:
    """Median time [ms] of one cancel check: in a session from the pool (its checkout pings
    the server first), and through the worker's :class:`CancelCheck` (a connection held for
    the chunk)."""
    sessions = open_database(url)
    try:
        spec = parse_spec({"name": "check", "ideal_twin": False,
                           "axes": {"clearance_mm": {"values": [0.05]}}})
        study_id = create_study_rows(spec, sessions=sessions)

        def pooled() -> None:
            with sessions() as s:
                leases.stopped_studies(s, study_ids=[study_id])

        for _ in range(20):  # pool warm
            pooled()
        with CancelCheck(sessions) as check:
            check.stopped({study_id})
            held = 1e3 * median_s(lambda: check.stopped({study_id}), repeat)
        return 1e3 * median_s(pooled, repeat), held
    finally:
        sessions.kw["bind"].dispose()


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--chunk", type=int, default=8)
    p.add_argument("--repeat", type=int, default=7)
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
    print("cancel check, one PK read: " + "; ".join(
        f"{k} {pooled:.2f} ms from the pool, {held:.2f} ms on the held connection (used)"
        for k, (pooled, held) in checks.items()))

    run_cases("slider-crank", chunk_of(1, 0.024), threads=1)  # kernels loaded
    for t_end in (0.024, 0.3):
        cases = chunk_of(args.chunk, t_end)
        with tempfile.TemporaryDirectory() as tmp:
            sessions = open_database(f"sqlite:///{tmp}/check.db")
            with CancelCheck(sessions) as check:
                ways = {
                    "one call per chunk (before)": lambda c=cases: run_cases(
                        "slider-crank", c, threads=1),
                    "a call + a check per case": lambda c=cases, k=check: per_case_run(c, k),
                    "pieces of ~50 ms + a check (used)": lambda c=cases, k=check: pieces_run(
                        c, k),
                }
                cpu = {k: best_s(f, args.repeat, time.process_time) for k, f in ways.items()}
                wall = {k: best_s(f, args.repeat) for k, f in ways.items()}
            sessions.kw["bind"].dispose()
        base = next(iter(ways))
        per_case = wall[base] / len(cases)
        print(f"\nchunk of {len(cases)} cases, t_end {t_end} s ({per_case * 1e3:.1f} ms per "
              f"case), checks on SQLite; best of {args.repeat}:")
        for k in ways:
            dw, dc = (wall[k] / wall[base] - 1) * 100, (cpu[k] / cpu[base] - 1) * 100
            print(f"  {k:36s} wall {wall[k] * 1e3:7.1f} ms ({dw:+5.1f} %)  "
                  f"CPU {cpu[k] * 1e3:7.1f} ms ({dc:+5.1f} %)")
        pg = checks["postgresql"][1]
        print(f"  on PostgreSQL add {pg:.2f} ms per check: "
              f"{pg * 1e-3 / per_case * 100:.1f} % per case checked, "
              f"{pg * 1e-3 / max(per_case, CANCEL_CHECK_S) * 100:.1f} % with ~50 ms pieces")
        print(f"  a cancel waits at most max(one case, {CANCEL_CHECK_S * 1e3:.0f} ms of cases) "
              f"= {max(per_case, CANCEL_CHECK_S) * 1e3:.0f} ms instead of the chunk "
              f"({wall[base] * 1e3:.0f} ms)")
    print(f"\nload {os.getloadavg()}")


if __name__ == "__main__":
    main()
