"""Issue 9's benchmark: the same cases through the solver alone and through the whole system.

    .venv/bin/python benchmarks/system_throughput.py [--cases 1000] [--seed 1] [--json out.json]

The cases: a Latin hypercube of ``--cases`` samples (the study layer's own design, seeded)
over the user's study ranges (examples/clearance_x_stiffness.toml: clearance_mm 0.02-0.1,
stiffness_scale 0.7-1.3, 5000 rpm), no ideal twin, series policy ``preview`` (what a
study stores by default). They run

(a) through ``core.api.run_cases`` in this process (the batch path; 1 thread and 2 threads),
(b) through the embedded default: SQLite + the filesystem broker, ``gapsweep worker`` with
    2 pool processes (and with 1, for the scaling),
(c) through Redis (the machine's server, an empty database number, cleared afterwards) +
    PostgreSQL (a ``gapsweep_bench_<hex>`` database, dropped afterwards), 2 pool processes
    (and 1).

For (b) and (c) the workers are started and warmed (kernels loaded, ready mark written)
before the clock starts; the time runs from ``submit_study`` (rows written, messages sent)
to the last case's result stored (the latest ``finished_at`` in the database). Printed:
wall time, cases/s, the ratio to (a), the wall overhead per case ((T - T_a) / N), and the
cost per case inside a worker process (P x T / N against the 1-thread solver's T_a1 / N:
queue, claim, series selection, store). Then the 15-case study's submit-to-done time (study
status ``done``, its analysis stored) with warm workers, best and median of 5.
The machine may be shared: the load average is printed with the figures.

Measured 2026-12-02, 1,000 cases, 2 cores shared with other sessions (load average 3.1-4.2
throughout: (a) on 2 threads was slower than on 1, so the scaling figures are lower bounds):

| path | wall s | cases/s | x (a, 2 threads) | cost per case in a process |
|---|---|---|---|---|
| (a) run_cases, 1 thread / 2 threads | 10.8 / 12.8 | 92 / 78 | 0.85 / 1 | 10.8 ms |
| (b) embedded, 2 / 1 proc. | 22.5 / 24.6 | 44 / 41 | 1.76 / 1.93 | +13.8 ms (1 process) |
| (c) Redis + PostgreSQL, 2 / 1 proc. | 28.3 / 35.1 | 35 / 28 | 2.21 / 2.75 | +24.3 ms (1 process) |

15-case study submit-to-done, warm workers: 0.20 s best / 0.24 s median (b), 0.53 / 0.59 s
(c). 2 vs 1 process: 1.09x (b), 1.24x (c). Before the preview decimation was vectorised
(workers/series_policy.py) the overhead was +46 ms per case and (b) took 44 s.

Measured 2026-12-03 (issue 28), 400 cases of 0.024 s, embedded only (``--cases 400
--settled-cases 40 --skip-cluster``), load average 7.6-10.5 throughout (other sessions and
CPU hogs on the 2 cores): wall times moved up to 2x between runs, so the ratios of one run
and the CPU seconds are the figures. Before = this tree's workers/ and db/engine.py of
9ae9b5b, after = with the changes below, run one after the other:

| embedded, 2 processes, x (a) on 2 threads | wall | CPU | settled: wall; CPU |
|---|---|---|---|
| before, three runs | 2.65, 2.56, 3.04 | -, 2.60, 2.40 | 1.17, 0.91, 1.46; -, 1.01, 1.28 |
| + O(n) decimation, broker woken by the ack | 2.86 | - | 1.85 |
| + cancel-check pieces sized on CPU | 2.54 | 2.14 | 1.59; 1.42 |
| + SQLite synchronous=NORMAL | 2.49 | 2.19 | 1.22; 1.09 |
| + zlib before the write lock (HEAD), two runs | 1.73, 2.30 | 1.69, 2.07 | 1.06, 1.07; 1.02, 1.00 |

(the first 'before' run and the second row's had no idle-queue wait, no CPU figures). 1
process, x (a) on 1 thread: 3.24, 2.69, 2.10 before, 2.08, 2.05 after (CPU 2.72, 2.11 ->
1.72, 1.63); 2 vs 1 process 1.22, 1.05, 0.69 before (two workers slower than one), 1.20,
1.02 after. The 15-case study (0.024 s) submit-to-done: 0.29-0.40 s best / 0.34-0.51 s
median after, 0.90 / 1.16 s before. So the embedded default is at 1.7-2.3x of wall (1.7-2.1x
of CPU) after, 2.6-3.0x (2.4-2.6x) before: the 1.8x is reached in one run of two. The second
run had (c) too: Redis + PostgreSQL at 3.84x wall, 2.73x CPU on 2 processes (2.27x, 2.02x on
1); its pool processes still slow each other (2 vs 1: 0.59x), left for another session.

Measured 2026-12-03 evening, 1,000 cases of 0.024 s, on a quiet machine (load 0.9-1.3):
before (messages of 8) and after (messages sized by a case's estimated cost,
workers/dispatch.chunking: 32 two-revolution cases, or one case run until settled):

| x (a), 2 threads | (b) embedded, 2 proc.: wall; CPU | (c) Redis + PG, 2 proc. | 40 settled |
|---|---|---|---|
| before (8 a message) | 2.09; 1.85 | 2.20; 2.05 | 1.60 |
| after | 1.55, 1.47; 1.60, 1.52 | 2.79 (a compile beside it), 1.80; 1.54, 1.83 | 1.32, 1.47 |

A message costs a pool process a fixed ~10-40 ms (the store, claim and status refresh of a
chunk, the broker's hand-over), so the chunk size was the lever: at chunk sizes 8 / 16 / 32
(``GAPSWEEP_CHUNK_SIZE``, two runs each) the ratio read 1.83, 1.67 / 1.55, 1.52 / 1.47, 1.59.
Redis + PostgreSQL's "two processes slower than one" (3.84x above) did not recur on a quiet
machine (2 vs 1 process: 1.50x before, 1.63x after): it was the load.

Where the time went (``worker_profile.py``, cProfile, per case at load ~9, solver ~19 ms):
the preview decimation 33 ms (two lexsorts per series; now one O(n) pass for all of a case's
series, 4.5 ms), the cancel checks 5 ms (the pieces were sized on wall time, which the load
inflated to one case a piece; now on CPU), the store 10 ms with the zlib of the series under
SQLite's write lock (now before it), an fsync per commit (~4 ms, three commits a chunk,
under the lock: synchronous=NORMAL under WAL), and each pool process idling ~25 ms a chunk
for the broker's next 50 ms poll (now woken by the ack). The previous study's certificate
runs were counted in the next timed study; the script now waits for an idle queue. Cases run
until settled (the default since issue 23) cost the system ~1.0-1.1x the solver: the per-
case overhead is fixed, their solve is ~10x longer.

Measured 2026-12-05, idle machine (load 1.0-1.2), ``--cases 1000 --settled-cases 40
--skip-cluster``: (a) 5.01 s on 2 threads; (b) embedded, 2 processes 7.98 s = 1.59x (CPU
1.62x), 1 process 15.68 s (CPU 1.60x of the 1-thread solver), 2 vs 1 process 1.97x; 40
settled cases 1.44x (CPU 1.42x); the 15-case study submit-to-done 0.165 s best, 0.191 s
median of 5. Issue 28's target (1.8x or less) holds; its starting point was 2.11-2.16x.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "clearance_x_stiffness.toml"
ADMIN_URL = os.environ.get(
    "GAPSWEEP_TEST_POSTGRES", "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"
)
REDIS = ("127.0.0.1", 6379)


#: two crank revolutions at 5000 rpm: every case's length before issue 23 (cases without a
#: ``t_end`` now run until their motion settles, up to 80 revolutions), so the figures of
#: 2026-12-02 and before compare with ``--t-end 0.024``
OLD_T_END = 0.024


def lhs_spec(n: int, seed: int, t_end: float | None = OLD_T_END):
    """The user's study turned into an ``n``-sample Latin hypercube over the same ranges;
    each case runs ``t_end`` seconds, or until settled when ``t_end`` is None."""
    from gapsweep.study.spec import load_spec_file, parse_spec

    data = load_spec_file(EXAMPLE).to_dict()
    data.update(name=f"throughput {n}", design="latin-hypercube", samples=n, seed=seed,
                ideal_twin=False)
    if t_end is not None:
        data["base"] = {**data.get("base", {}), "t_end": t_end}
    return parse_spec(data)


# --------------------------------------------------------------------------------------
# (a) the solver alone
def solver_alone(cases: list[dict], threads: int) -> tuple[float, float]:
    """Wall and CPU seconds (every thread of this process) of ``run_cases``."""
    from gapsweep.core.api import run_cases

    run_cases("slider-crank", cases[:4], threads=threads)  # kernels loaded
    c0, t0 = time.process_time(), time.perf_counter()
    results = run_cases("slider-crank", cases, threads=threads)
    took, cpu = time.perf_counter() - t0, time.process_time() - c0
    failed = sum(not r.ok for r in results)
    assert failed == 0, f"{failed} case(s) failed"
    return took, cpu


# --------------------------------------------------------------------------------------
# (b), (c) the system
class Workers:
    """``gapsweep worker --concurrency P`` in its own process group (killed as a group)."""

    def __init__(self, env: dict[str, str], concurrency: int, log: Path) -> None:
        self.env, self.concurrency, self.log_path = env, concurrency, log
        self.process: subprocess.Popen | None = None
        self.used_s = 0.0  # CPU seconds of the last timed run (system_run)

    def __enter__(self) -> Workers:
        with open(self.log_path, "ab") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "gapsweep", "worker", "--concurrency",
                 str(self.concurrency), "--name", f"bench-{uuid.uuid4().hex[:6]}@%h"],
                env=self.env, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                start_new_session=True,
            )
        ready = Path(self.env["GAPSWEEP_DATA"]) / "workers"
        deadline = time.monotonic() + 300
        while not any(ready.glob(f"*_{self.process.pid}.json")):
            if self.process.poll() is not None:
                raise RuntimeError(f"worker exited; see {self.log_path}")
            if time.monotonic() > deadline:
                raise RuntimeError(f"worker not ready in 300 s; see {self.log_path}")
            time.sleep(0.1)
        return self

    def cpu_s(self) -> float:
        """CPU seconds (user + system) used so far by the live processes of the group: the
        main process (broker polls, results) and its pool children. Unlike wall time on a
        shared machine, this hardly depends on what else runs."""
        assert self.process is not None
        tick = os.sysconf("SC_CLK_TCK")
        total = 0.0
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:  # gone meanwhile
                continue
            if int(fields[2]) == self.process.pid:  # its process group
                total += (int(fields[11]) + int(fields[12])) / tick
        return total

    def __exit__(self, *exc: object) -> None:
        assert self.process is not None
        for sig, wait_s in ((signal.SIGTERM, 20.0), (signal.SIGKILL, 5.0)):
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, sig)
            try:
                self.process.wait(wait_s)
                break
            except subprocess.TimeoutExpired:
                continue
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)  # pool children left behind


def system_run(
    spec, env: dict[str, str], *, until: str = "stored", workers: Workers | None = None
) -> tuple[float, int]:
    """Submit ``spec`` with the settings of ``env``; seconds from submit to the last result
    stored (``until="stored"``) or to the study's status ``done`` (``until="done"``). With
    ``workers``, their CPU seconds from the submit to the end are in ``workers.used_s``."""
    from gapsweep.db import studies
    from gapsweep.db.engine import open_database
    from gapsweep.db.models import Case
    from gapsweep.workers.celery_app import make_celery
    from gapsweep.workers.dispatch import CeleryDispatcher
    from gapsweep.workers.submit import submit_study
    from sqlalchemy import func, select

    from gapsweep.settings import get_settings

    settings = get_settings(env)
    sessions = open_database(settings.database_url)
    app = make_celery(settings)
    dispatcher = CeleryDispatcher(app)
    try:
        drain(sessions)
        cpu0 = workers.cpu_s() if workers else 0.0
        t0_wall = datetime.now().astimezone()
        t0 = time.perf_counter()
        study_id = submit_study(spec, sessions=sessions, settings=settings, dispatcher=dispatcher)
        while True:
            with sessions() as session:
                if until == "done":
                    status = session.get(studies.Study, study_id).status
                    finished = status == "done"
                else:
                    p = studies.study_progress(session, study_id)
                    finished = p["queued"] == 0 and p["running"] == 0
            if finished:
                if workers:
                    workers.used_s = workers.cpu_s() - cpu0
                break
            if time.perf_counter() - t0 > 600:
                raise RuntimeError("study not finished in 10 min")
            time.sleep(0.01 if until == "done" else 0.05)
        polled = time.perf_counter() - t0
        with sessions() as session:
            last = session.scalar(
                select(func.max(Case.finished_at)).where(Case.study_id == study_id)
            )
            done = studies.study_progress(session, study_id)["done"]
        took = polled if until == "done" else (last - t0_wall).total_seconds()
        return took, done
    finally:
        sessions.kw["bind"].dispose()
        app.close()


def drain(sessions, limit_s: float = 600.0) -> None:
    """Wait until no case of any study is queued or running: a finished study's certificate
    runs (queued when its last case ends) are not the next timed study's cost."""
    from gapsweep.db.models import Case
    from sqlalchemy import func, select

    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        with sessions() as session:
            busy = session.scalar(
                select(func.count()).where(Case.status.in_(("queued", "running")))
            )
        if not busy:
            return
        time.sleep(0.1)
    raise RuntimeError(f"cases still queued or running after {limit_s:.0f} s")


def measure_backend(
    label: str, spec, env: dict[str, str], logs: Path, n: int, settled=None,
    t_end: float | None = OLD_T_END,
) -> dict:
    """The N cases on P = 2 and P = 1 pool processes, and the 15-case study (``t_end``
    seconds each, None: until settled) on P = 2; with ``settled`` (a spec of cases run until
    settled) that study too, on P = 2. Each timed study starts on an idle queue."""
    from gapsweep.study.spec import load_spec_file, parse_spec

    out: dict = {"label": label}
    for procs in (2, 1):
        with Workers(env, procs, logs / f"{label}-{procs}.log") as workers:
            system_run(lhs_spec(16, 99), env)  # every pool child has run a chunk
            took, done = system_run(spec, env, workers=workers)
            assert done == n, f"{label}: {done} of {n} done"
            out[f"T{procs}"], out[f"cpu{procs}"] = took, workers.used_s
            print(f"  {label}, {procs} process(es): {n} cases in {took:.2f} s "
                  f"({n / took:.0f} cases/s), {workers.used_s:.2f} s of CPU", flush=True)
            if procs == 2 and settled is not None:
                took, done = system_run(settled, env, workers=workers)
                assert done == settled.samples, f"{label}: {done} settled cases done"
                out["settled"], out["settled_cpu"] = took, workers.used_s
                print(f"  {label}, 2 processes: {done} settled cases in {took:.2f} s, "
                      f"{workers.used_s:.2f} s of CPU", flush=True)
            if procs == 2:
                example = load_spec_file(EXAMPLE)
                if t_end is not None:  # the 15 cases as long as the N cases
                    data = example.to_dict()
                    data["base"] = {**data.get("base", {}), "t_end": t_end}
                    example = parse_spec(data)
                times = [system_run(example, env, until="done")[0] for _ in range(5)]
                out["study15"] = times
                print(f"  {label}: 15-case study submit-to-done {min(times):.3f} s best, "
                      f"{statistics.median(times):.3f} s median of 5", flush=True)
    return out


@contextlib.contextmanager
def postgres_database():
    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url

    name = f"gapsweep_bench_{uuid.uuid4().hex[:12]}"
    admin = create_engine(ADMIN_URL, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))  # hex digits only
    try:
        yield make_url(ADMIN_URL).set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


@contextlib.contextmanager
def redis_database():
    """An empty database number on the machine's (shared) Redis; our keys deleted after."""
    import redis

    empty = [n for n in range(1, 16) if redis.Redis(*REDIS, db=n).dbsize() == 0]
    if not empty:
        raise RuntimeError("no empty Redis database number 1-15")
    db = random.choice(empty)
    try:
        yield f"redis://{REDIS[0]}:{REDIS[1]}/{db}"
    finally:
        client = redis.Redis(*REDIS, db=db)
        keys = list(client.scan_iter(count=1000))
        if keys:
            client.delete(*keys)


def base_env(data: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GAPSWEEP_")}
    env.update(GAPSWEEP_DATA=str(data), NUMBA_NUM_THREADS="1", **extra)
    return env


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", default=None, help="write the figures to this file")
    parser.add_argument("--skip-cluster", action="store_true", help="no Redis + PostgreSQL")
    parser.add_argument(
        "--t-end", type=float, default=OLD_T_END,
        help=f"seconds of motion per case (default {OLD_T_END}: two revolutions, the cases of "
             "the figures before issue 23); 0: the default, until settled")
    parser.add_argument(
        "--settled-cases", type=int, default=100,
        help="also this many cases with the default length (until settled, up to 80 "
             "revolutions) through (a) on 2 threads and the 2-process systems (0: skip)")
    args = parser.parse_args(argv)
    n = args.cases
    t_end = args.t_end or None

    from gapsweep.study.designs import plan_study

    spec = lhs_spec(n, args.seed, t_end)
    cases = plan_study(spec).cases
    assert len(cases) == n
    settled = lhs_spec(args.settled_cases, args.seed, None) if args.settled_cases else None
    length = f"t_end {t_end} s" if t_end else "until settled"
    print(f"{n} cases (Latin hypercube, seed {args.seed}, {length}) over clearance_mm "
          f"0.02-0.1, stiffness_scale 0.7-1.3; load average {os.getloadavg()}", flush=True)

    figures: dict = {"cases": n, "t_end": t_end, "load_before": os.getloadavg()}
    figures["a1"], figures["a1_cpu"] = solver_alone(cases, threads=1)
    figures["a2"], figures["a2_cpu"] = solver_alone(cases, threads=2)
    print(f"(a) run_cases: {figures['a1']:.2f} s on 1 thread, {figures['a2']:.2f} s on 2 "
          f"({n / figures['a2']:.0f} cases/s); CPU {figures['a1_cpu']:.2f} s, "
          f"{figures['a2_cpu']:.2f} s", flush=True)
    if settled is not None:
        figures["settled_cases"] = settled.samples
        figures["a2_settled"], figures["a2_settled_cpu"] = solver_alone(
            plan_study(settled).cases, threads=2)
        print(f"(a) run_cases: {settled.samples} settled cases in {figures['a2_settled']:.2f} "
              f"s on 2 threads, {figures['a2_settled_cpu']:.2f} s of CPU", flush=True)

    with tempfile.TemporaryDirectory(prefix="gapsweep-bench-") as tmp:
        logs = Path(tmp) / "logs"
        logs.mkdir()
        data_b = Path(tmp) / "embedded"
        figures["b"] = measure_backend("embedded", spec, base_env(data_b), logs, n, settled,
                                     t_end)
        if not args.skip_cluster:
            with redis_database() as broker, postgres_database() as db_url:
                env_c = base_env(Path(tmp) / "cluster", GAPSWEEP_BROKER_URL=broker,
                                 GAPSWEEP_DATABASE_URL=db_url)
                figures["c"] = measure_backend("redis+postgresql", spec, env_c, logs, n,
                                               settled, t_end)
    figures["load_after"] = os.getloadavg()
    report(figures)
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2))
    return figures


def report(f: dict) -> None:
    n, a1, a2 = f["cases"], f["a1"], f["a2"]
    print()
    print(f"{'path':<34} {'wall s':>8} {'cases/s':>8} {'x (a)':>6} {'overhead/case':>14} "
          f"{'cost/case in a process':>23}")
    print(f"{'(a) run_cases, 2 threads':<34} {a2:8.2f} {n / a2:8.0f} {1.0:6.2f} {'-':>14} "
          f"{'-':>23}")
    print(f"{'(a) run_cases, 1 thread':<34} {a1:8.2f} {n / a1:8.0f} {a1 / a2:6.2f} {'-':>14} "
          f"{1e3 * a1 / n:20.2f} ms")
    for key, name in (("b", "(b) embedded"), ("c", "(c) redis + postgresql")):
        if key not in f:
            continue
        for procs in (2, 1):
            t = f[key][f"T{procs}"]
            overhead = 1e3 * (t - (a2 if procs == 2 else a1)) / n
            cost = 1e3 * procs * t / n
            print(f"{name + f', {procs} process(es)':<34} {t:8.2f} {n / t:8.0f} {t / a2:6.2f} "
                  f"{overhead:11.2f} ms {cost:9.2f} ms (+{cost - 1e3 * a1 / n:.2f} ms)")
        s15 = f[key]["study15"]
        print(f"    15-case study, warm, 2 processes: {min(s15):.3f} s best, "
              f"{statistics.median(s15):.3f} s median; 2 vs 1 process: "
              f"{f[key]['T1'] / f[key]['T2']:.2f}x")
    # CPU seconds: what a case costs whatever else the machine runs
    for key, name in (("b", "(b) embedded"), ("c", "(c) redis + postgresql")):
        if key in f:
            print(f"CPU {name}: 2 processes {f[key]['cpu2']:.2f} s = "
                  f"{f[key]['cpu2'] / f['a2_cpu']:.2f}x (a) on 2 threads ({f['a2_cpu']:.2f} s); "
                  f"1 process {f[key]['cpu1']:.2f} s = {f[key]['cpu1'] / f['a1_cpu']:.2f}x (a) "
                  f"on 1 ({f['a1_cpu']:.2f} s)")
    if "a2_settled" in f:
        a2s, ns, cs = f["a2_settled"], f["settled_cases"], f["a2_settled_cpu"]
        print(f"until settled, {ns} cases: (a) 2 threads {a2s:.2f} s ({cs:.2f} s CPU)"
              + "".join(f"; {name} 2 processes {f[key]['settled']:.2f} s = "
                        f"{f[key]['settled'] / a2s:.2f}x (CPU {f[key]['settled_cpu']:.2f} s = "
                        f"{f[key]['settled_cpu'] / cs:.2f}x)"
                        for key, name in (("b", "(b)"), ("c", "(c)")) if key in f))
    print(f"load average before {f['load_before']}, after {f['load_after']}")


if __name__ == "__main__":
    main()
