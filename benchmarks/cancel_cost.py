"""What a cancelled study costs afterwards (issue 28): the issue's trial, as a new user runs it.

    .venv/bin/python benchmarks/cancel_cost.py [--cases 100000] [--at 0.02]
        [--baseline-gapsweep /path/to/other/.venv/bin/gapsweep]

For each install (this tree's ``gapsweep`` and, with ``--baseline-gapsweep``, another), in a
fresh data folder of the embedded default (SQLite + the filesystem broker), whole processes:

1. ``gapsweep submit`` a grid study of ``--cases`` two-revolution cases (t_end 0.024 s,
   series none, no ideal twin);
2. ``gapsweep worker --concurrency 2`` started, its ready mark awaited;
3. once ``--at`` of the cases are done, ``gapsweep cancel ID``;
4. at once ``gapsweep submit`` of the README's 15-case study at t_end 0.024 s;
5. timed from the cancel's return: the next study's first case done, and its last.

Printed per install: the submit time, the broker's queued messages just after the cancel
(the cancelled study's are dead: the issue found ~12,000 of 100,000 cases' messages left,
worked through one by one for 3 min 52 s), the cancel -> first-case and -> next-study-done
times, the cancelled study's counts, and the ratio baseline / this tree. The database is read
with the standard library's sqlite3, so any install's archive can be read.

Measured 2026-12-04, idle machine (load 0.8), ``--cases 100000`` (a 316 x 316 grid: 99,856
cases), baseline = d0543f7 (the code when issue 28 was filed):

| install | submit | messages after the cancel | cancel -> next study's first case |
|---|---|---|---|
| d0543f7 | 11.0 s | 12,222 | 126.2 s |
| this tree | 8.1 s | 0 | 1.02 s (123x sooner) |
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "clearance_x_stiffness.toml"
T_END = 0.024  # two revolutions at 5000 rpm: the length the trial ran
LIMIT_S = 900.0  # the baseline's dead messages took 232 s in the issue


def big_study(n: int) -> dict:
    """A clearance x stiffness grid of about ``n`` cases."""
    side = max(1, round(n ** 0.5))
    return {"name": f"{side * side} cases to cancel", "model": "slider-crank", "design": "grid",
            "ideal_twin": False, "series": "none", "base": {"t_end": T_END},
            "axes": {"clearance_mm": {"start": 0.02, "stop": 0.1, "count": side},
                     "stiffness_scale": {"start": 0.7, "stop": 1.3, "count": side}}}


def two_revolution_example(folder: Path) -> Path:
    """The README's study written to ``folder``, its cases two revolutions long (the length
    of every case before issue 23; the example's own cases now run until settled)."""
    lines = EXAMPLE.read_text(encoding="utf-8").splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("[base]"))
    lines.insert(at + 1, f"t_end = {T_END}")
    path = folder / "two_revolutions.toml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def cli(gapsweep: str, args: list[str], env: dict[str, str], timeout_s: float = 600) -> str:
    out = subprocess.run([gapsweep, *args], env=env, capture_output=True, text=True,
                         timeout=timeout_s, stdin=subprocess.DEVNULL)
    if out.returncode not in (0, 1):
        raise RuntimeError(f"gapsweep {' '.join(args)} exited {out.returncode}: {out.stderr}")
    return out.stdout


def counts(db: Path, study_id: int) -> dict[str, int]:
    with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30)) as c:
        rows = c.execute("SELECT status, count(*) FROM cases WHERE study_id = ? AND kind = "
                         "'case' GROUP BY status", (study_id,)).fetchall()
    return dict(rows)


def wait_until(what: str, test, limit_s: float, poll_s: float = 0.05) -> float:
    t0 = time.monotonic()
    while not test():
        if time.monotonic() - t0 > limit_s:
            raise RuntimeError(f"{what}: not within {limit_s:.0f} s")
        time.sleep(poll_s)
    return time.monotonic() - t0


def trial(gapsweep: str, n: int, at: float, folder: Path) -> dict:
    data = folder / "data"
    env = {k: v for k, v in os.environ.items() if not k.startswith("GAPSWEEP_")}
    env.update(GAPSWEEP_DATA=str(data), NUMBA_NUM_THREADS="1")
    db, queue = data / "gapsweep.db", data / "broker" / "queue"
    spec = folder / "big.json"
    spec.write_text(json.dumps(big_study(n)))
    t0 = time.monotonic()
    big = int(json.loads(cli(gapsweep, ["submit", str(spec), "--json"], env))["study_id"])
    submit_s = time.monotonic() - t0
    total = sum(counts(db, big).values())
    log = open(folder / "worker.log", "ab")  # noqa: SIM115 - closed with the worker below
    worker = subprocess.Popen([gapsweep, "worker", "--concurrency", "2"], env=env, stdout=log,
                              stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                              start_new_session=True)
    try:
        wait_until("the worker's ready mark",
                   lambda: any((data / "workers").glob(f"*_{worker.pid}.json")), 300, 0.2)
        wait_until(f"{at:.0%} done", lambda: counts(db, big).get("done", 0) >= at * total,
                   LIMIT_S, 0.2)
        cli(gapsweep, ["cancel", str(big)], env)
        t_cancel = time.monotonic()
        left = len(list(queue.glob("*.msg")))
        nxt_file = str(two_revolution_example(folder))
        nxt = int(json.loads(cli(gapsweep, ["submit", nxt_file, "--json"], env))["study_id"])
        wait_until("the next study's first case",
                   lambda: counts(db, nxt).get("done", 0) >= 1, LIMIT_S)
        first_s = time.monotonic() - t_cancel
        wait_until("the next study's end", lambda: counts(db, nxt).get("done", 0) == 15,
                   LIMIT_S)
        done_s = time.monotonic() - t_cancel
    finally:
        for sig in (signal.SIGTERM, signal.SIGKILL):
            with contextlib.suppress(ProcessLookupError):
                os.killpg(worker.pid, sig)
            with contextlib.suppress(subprocess.TimeoutExpired):
                worker.wait(20)
        log.close()
    return {"cases": total, "submit_s": submit_s, "messages_left": left, "first_s": first_s,
            "done_s": done_s, "cancelled": counts(db, big)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=100_000)
    parser.add_argument("--at", type=float, default=0.02, help="fraction done at the cancel")
    parser.add_argument("--baseline-gapsweep", default=None)
    args = parser.parse_args(argv)
    ours = str(Path(sys.executable).with_name("gapsweep"))
    installs = [("this tree", ours)]
    if args.baseline_gapsweep:
        installs.append(("baseline", args.baseline_gapsweep))
    print(f"load average {os.getloadavg()}; {args.cases} cases, cancelled at {args.at:.0%}")
    figures = {}
    for label, gapsweep in installs:
        with tempfile.TemporaryDirectory(prefix="gapsweep-cancel-") as tmp:
            figures[label] = f = trial(gapsweep, args.cases, args.at, Path(tmp))
        print(f"{label:<10} {f['cases']} cases, submit {f['submit_s']:.1f} s; after the cancel "
              f"{f['messages_left']} queued message(s); next study's first case "
              f"{f['first_s']:.2f} s, done {f['done_s']:.2f} s; cancelled study {f['cancelled']}",
              flush=True)
    if "baseline" in figures:
        b, o = figures["baseline"], figures["this tree"]
        print(f"cancel -> next first case: baseline / this tree = "
              f"{b['first_s'] / o['first_s']:.1f}x; -> next done: {b['done_s'] / o['done_s']:.1f}x")
    print(f"load average after {os.getloadavg()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
