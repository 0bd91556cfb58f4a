"""Issue 41.3 under gunicorn with PostgreSQL: the resident memory of the gunicorn worker
before and after one large study's page is opened (frame, Cases, Trends, Sensitivity, then
``cases.csv``).

    .venv/bin/python benchmarks/big_study_gunicorn.py [--size 100000]
        [--admin-url postgresql+psycopg://postgres@127.0.0.1:5432/postgres]

A fresh PostgreSQL database is made, filled as ``benchmarks/big_study.py`` fills its archive
(rows inserted directly), served by one gunicorn gthread worker (the app of
``gapsweep.web.app.create_app``, accounts off: ``gapsweep.web.wsgi`` requires sign-in and
the reads are the same), and dropped afterwards. Printed: the worker's RSS (VmRSS) after
start, after each request, and its peak (VmHWM), in MB.
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


def _worker_pid(master: int) -> int:
    for _ in range(600):
        children = Path(f"/proc/{master}/task/{master}/children").read_text().split()
        if children:
            return int(children[0])
        time.sleep(0.1)
    raise RuntimeError("gunicorn started no worker")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--admin-url", default=os.environ.get(
        "GAPSWEEP_TEST_POSTGRES", "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"))
    args = parser.parse_args()
    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url

    name = f"gapsweep_bench_{uuid.uuid4().hex[:8]}"
    admin = create_engine(args.admin_url, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    url = make_url(args.admin_url).set(database=name).render_as_string(hide_password=False)
    master = None
    try:
        t0 = time.perf_counter()
        study_id = big.fill(url, args.size)
        print(f"load average {os.getloadavg()[0]:.1f}; filled {args.size:,} cases in "
              f"{time.perf_counter() - t0:.0f} s", flush=True)
        with tempfile.TemporaryDirectory(prefix="gapsweep-gunicorn-") as folder:
            Path(folder, "bench_app.py").write_text(APP)
            port = big._free_port()
            env = {**os.environ, "GAPSWEEP_DATA": folder, "GAPSWEEP_DATABASE_URL": url}
            env.pop("GAPSWEEP_BROKER_URL", None)
            master = subprocess.Popen(
                [str(ROOT / ".venv" / "bin" / "gunicorn"), "--chdir", folder, "bench_app:app",
                 "--bind", f"127.0.0.1:{port}", "--workers", "1", "--threads", "4",
                 "--worker-class", "gthread", "--timeout", "600"],
                env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            worker = _worker_pid(master.pid)
            base = f"http://127.0.0.1:{port}"
            for _ in range(600):
                try:
                    big._get(base + "/api/health", timeout=5)
                    break
                except OSError:
                    time.sleep(0.2)
            print(f"worker RSS after start: {_status_mb(worker, 'VmRSS'):.0f} MB", flush=True)
            deps = big._callbacks(base)
            values = big.page_values(study_id)
            steps = [("page frame", "_pages_content.children", None),
                     ("Cases tab", "study-case-grid.getRowsResponse", None),
                     ("Trends tab", "trends-graph.figure", "trends"),
                     ("Sensitivity tab", "sensitivity-content.children", "sensitivity")]
            for label, output, tab in steps:
                if tab:
                    values[("study-tabs", "active_tab")] = tab
                seconds, _ = big._tab(base, deps, output, values)
                print(f"{label}: {seconds:.1f} s, worker RSS {_status_mb(worker, 'VmRSS'):.0f}"
                      " MB", flush=True)
            seconds, n, _ = big._get(f"{base}/api/studies/{study_id}/cases.csv")
            print(f"cases.csv ({n / 1e6:.0f} MB): {seconds:.1f} s, worker RSS "
                  f"{_status_mb(worker, 'VmRSS'):.0f} MB", flush=True)
            print(f"worker peak RSS (VmHWM): {_status_mb(worker, 'VmHWM'):.0f} MB", flush=True)
            master.terminate()
            master.wait(60)
            master = None
    finally:
        if master is not None:
            master.terminate()
            master.wait(60)
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


if __name__ == "__main__":
    main()
