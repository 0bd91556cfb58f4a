"""Issue 41.3 under gunicorn with PostgreSQL: the resident memory of the gunicorn worker
before and after one large study's page is opened (frame, Cases, Trends, Sensitivity, then
``cases.csv``).

    .venv/bin/python benchmarks/big_study_gunicorn.py [--size 100000]
        [--admin-url postgresql+psycopg://postgres@127.0.0.1:5432/postgres]
        [--baseline /work/main] [--repeat 1] [--no-csv]

A fresh PostgreSQL database is made, filled as ``benchmarks/big_study.py`` fills its archive
(rows inserted directly), served by one gunicorn gthread worker (the app of
``gapsweep.web.app.create_app``, accounts off: ``gapsweep.web.wsgi`` requires sign-in and
the reads are the same), and dropped afterwards. Printed: the worker's RSS (VmRSS) after
start, after each request, and its peak (VmHWM), in MB; each request's wall time and the CPU
time the worker and the database's backends spent on it (read from ``/proc``: this machine's
server), which a shared machine's load stretches less than the wall time.

With ``--baseline`` the same database is served first by the other checkout's gunicorn (its
own ``.venv``, so its own reads), then by this one's, a fresh worker each, ``--repeat``
rounds; a table gives each request's best time of the rounds side by side, and the ratio.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import subprocess
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve()
ROOT = HERE.parents[1]
_spec = importlib.util.spec_from_file_location("big_study", HERE.with_name("big_study.py"))
big = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(big)

APP = "from gapsweep.web.app import create_app\napp = create_app().server\n"


def _status_mb(pid: int, key: str) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1]) / 1024
    return float("nan")


def _cpu_s(pid: int) -> float:
    """A process's CPU time so far (user + system, every thread) [s]; 0 once it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _backends_cpu_s(admin: Any, database: str) -> dict[int, float]:
    """The CPU time so far of each PostgreSQL backend serving ``database`` (pid -> s): the
    server's side of a request, apart from the worker's (on this machine: same host)."""
    from sqlalchemy import text

    with admin.connect() as conn:
        pids = conn.execute(text("SELECT pid FROM pg_stat_activity WHERE datname = :d"),
                            {"d": database}).scalars().all()
    return {pid: _cpu_s(pid) for pid in pids}


def _worker_pid(master: int) -> int:
    for _ in range(600):
        children = Path(f"/proc/{master}/task/{master}/children").read_text().split()
        if children:
            return int(children[0])
        time.sleep(0.1)
    raise RuntimeError("gunicorn started no worker")


def measure(checkout: Path, url: str, study_id: int, admin: Any, csv: bool = True
            ) -> dict[str, float]:
    """Serve the database at ``url`` by ``checkout``'s gunicorn (its own .venv, so its own
    code) and time the page's requests: each one's wall seconds, the CPU seconds the worker
    and the database's backends spent on it (``admin``: an engine on another database of
    the server, to list them), the worker's RSS."""
    from sqlalchemy.engine import make_url

    database = make_url(url).database
    out: dict[str, float] = {}
    master = None
    with tempfile.TemporaryDirectory(prefix="gapsweep-gunicorn-") as folder:
        Path(folder, "bench_app.py").write_text(APP)
        port = big._free_port()
        env = {**os.environ, "GAPSWEEP_DATA": folder, "GAPSWEEP_DATABASE_URL": url}
        env.pop("GAPSWEEP_BROKER_URL", None)
        log = open(Path(folder, "gunicorn.log"), "wb")  # noqa: SIM115 - closed below
        try:
            master = subprocess.Popen(
                [str(checkout / ".venv" / "bin" / "gunicorn"), "--chdir", folder,
                 "bench_app:app", "--bind", f"127.0.0.1:{port}", "--workers", "1",
                 "--threads", "4", "--worker-class", "gthread", "--timeout", "600"],
                # run from the data folder: gunicorn puts its working directory on sys.path,
                # and this checkout's folders there would shadow the baseline's own code
                env=env, cwd=folder, stdout=subprocess.DEVNULL, stderr=log)
            worker = _worker_pid(master.pid)
            base = f"http://127.0.0.1:{port}"
            for _ in range(600):
                try:
                    big._get(base + "/api/health", timeout=5)
                    break
                except OSError:
                    time.sleep(0.2)
            out["rss_start_mb"] = _status_mb(worker, "VmRSS")
            print(f"  worker RSS after start: {out['rss_start_mb']:.0f} MB", flush=True)
            deps = big._callbacks(base)
            values = big.page_values(study_id)
            for key, label, output, tab in STEPS:
                if tab:
                    values[("study-tabs", "active_tab")] = tab
                cpu, db = _cpu_s(worker), _backends_cpu_s(admin, database)
                out[key], _ = big._tab(base, deps, output, values)
                out[key + "_cpu"] = _cpu_s(worker) - cpu
                out[key + "_db"] = sum(v - db.get(pid, 0.0) for pid, v
                                       in _backends_cpu_s(admin, database).items())
                out[key + "_rss_mb"] = _status_mb(worker, "VmRSS")
                print(f"  {label}: {out[key]:.2f} s (CPU: worker {out[key + '_cpu']:.2f} s, "
                      f"database {out[key + '_db']:.2f} s), worker RSS "
                      f"{out[key + '_rss_mb']:.0f} MB", flush=True)
            if csv:
                seconds, n, _ = big._get(f"{base}/api/studies/{study_id}/cases.csv")
                out["csv_s"] = seconds
                print(f"  cases.csv ({n / 1e6:.0f} MB): {seconds:.1f} s, worker RSS "
                      f"{_status_mb(worker, 'VmRSS'):.0f} MB", flush=True)
            out["rss_peak_mb"] = _status_mb(worker, "VmHWM")
            print(f"  worker peak RSS (VmHWM): {out['rss_peak_mb']:.0f} MB", flush=True)
        except Exception:
            log.flush()  # the server's side of a failed request (its traceback)
            print(Path(folder, "gunicorn.log").read_text()[-4000:], flush=True)
            raise
        finally:
            if master is not None:
                master.terminate()
                master.wait(60)
            log.close()
    return out


#: the study page's requests, in the order a browser sends them: (key, label, output, tab)
STEPS = [("frame_s", "page frame", "_pages_content.children", None),
         ("cases_s", "Cases tab", "study-case-grid.getRowsResponse", None),
         ("trends_s", "Trends tab", "trends-graph.figure", "trends"),
         ("sensitivity_s", "Sensitivity tab", "sensitivity-content.children", "sensitivity")]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--admin-url", default=os.environ.get(
        "GAPSWEEP_TEST_POSTGRES", "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"))
    parser.add_argument("--baseline", type=Path, help="another checkout (its .venv is used), "
                        "served from the same database before this one, side by side")
    parser.add_argument("--repeat", type=int, default=1,
                        help="rounds of (baseline, this checkout), a fresh worker each")
    parser.add_argument("--no-csv", action="store_true", help="skip cases.csv (the slow one)")
    args = parser.parse_args()
    csv = not args.no_csv
    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url

    name = f"gapsweep_bench_{uuid.uuid4().hex[:8]}"
    admin = create_engine(args.admin_url, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    url = make_url(args.admin_url).set(database=name).render_as_string(hide_password=False)
    sides = ([("baseline", args.baseline)] if args.baseline else []) + [("new", ROOT)]
    runs: dict[str, list[dict[str, float]]] = {side: [] for side, _ in sides}
    try:
        t0 = time.perf_counter()
        study_id = big.fill(url, args.size)
        print(f"load average {os.getloadavg()[0]:.1f}; filled {args.size:,} cases in "
              f"{time.perf_counter() - t0:.0f} s", flush=True)
        for _ in range(args.repeat):
            for side, checkout in sides:
                print(f"{side} ({checkout}), load average {os.getloadavg()[0]:.1f}:",
                      flush=True)
                runs[side].append(measure(checkout, url, study_id, admin, csv))
    finally:
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()
    if len(sides) == 2:
        keys = [(k, label) for k, label, _, _ in STEPS] + ([("csv_s", "cases.csv")] if csv
                                                           else [])
        print("| [s, best of the rounds] | baseline | new | ratio |\n|---|---|---|---|")
        for key, label in keys:
            for suffix, what in (("", "wall"), ("_cpu", "worker CPU"), ("_db", "database CPU")):
                if key + suffix not in runs["new"][0]:
                    continue
                a = min(r[key + suffix] for r in runs["baseline"])
                b = min(r[key + suffix] for r in runs["new"])
                ratio = f"{a / b:.1f}x" if b > 0 else "-"
                print(f"| {label}: {what} | {a:.2f} | {b:.2f} | {ratio} |")
        for key, label in (("rss_peak_mb", "worker peak RSS [MB]"),):
            a = max(r[key] for r in runs["baseline"])
            b = max(r[key] for r in runs["new"])
            print(f"| {label} | {a:.0f} | {b:.0f} | |")
    print(f"load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
