"""The web app on three WSGI servers, side by side (issue 16: which one `gapsweep serve` uses).

    .venv/bin/python benchmarks/wsgi_servers.py [--seconds 3] [--clients 8]

One archive (a data folder of its own: SQLite, one 15-case study, a user and her API token),
the same app (:func:`gapsweep.web.app.create_app`) served by

- ``werkzeug``: Flask's development server, threaded (what ``serve`` ran before);
- ``waitress``: one process, 8 threads (what ``serve`` runs now);
- ``gunicorn``: ``gapsweep.web.wsgi:app``, 2 gthread workers x 8 threads (docker-compose.yml);

each started as its own process, then ``--clients`` client threads (persistent HTTP/1.1
connections, the token on every request) ask one URL as fast as they can for ``--seconds``:
``/api/health/live`` (the server's own overhead), ``/api/studies`` (a listing: a database
read) and ``/api/studies/<id>`` (a detail with 15 cases). Printed: requests/s, median and
95th-percentile latency, errors. No worker runs (``GAPSWEEP_BROKER_URL=memory://``).
A report, not a gate; the machine may be shared (the load average is printed).
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
STUDY = ROOT / "examples" / "clearance_x_stiffness.toml"
BIN = Path(sys.executable).parent

WERKZEUG = """
from gapsweep.web.app import create_app
create_app(require_accounts=True).server.run(host="127.0.0.1", port={port}, threaded=True)
"""
WAITRESS = """
from gapsweep.web.app import create_app
from gapsweep.commands.services import waitress_server
waitress_server(create_app(require_accounts=True).server, "127.0.0.1", {port}, 8).run()
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def servers(port: int) -> dict[str, list[str]]:
    return {
        "werkzeug": [sys.executable, "-c", WERKZEUG.format(port=port)],
        "waitress": [sys.executable, "-c", WAITRESS.format(port=port)],
        "gunicorn": [str(BIN / "gunicorn"), "gapsweep.web.wsgi:app", "--bind",
                     f"127.0.0.1:{port}", "--worker-class", "gthread", "--workers", "2",
                     "--threads", "8", "--no-control-socket", "--log-level", "warning"],
    }


def gapsweep(env: dict[str, str], *args: str, stdin: str = "") -> str:
    out = subprocess.run([str(BIN / "gapsweep"), *args], env=env, input=stdin,
                         capture_output=True, text=True, timeout=300)
    if out.returncode != 0:
        raise RuntimeError(f"gapsweep {' '.join(args)}: {out.stderr}")
    return out.stdout


def hammer(port: int, path: str, token: str, clients: int, seconds: float) -> dict:
    latencies: list[float] = []
    errors = [0]
    lock = threading.Lock()
    stop = time.perf_counter() + seconds

    def client() -> None:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        mine: list[float] = []
        bad = 0
        while time.perf_counter() < stop:
            t0 = time.perf_counter()
            try:
                conn.request("GET", path, headers={"Authorization": f"Bearer {token}"})
                response = conn.getresponse()
                response.read()
                if response.status != 200:
                    bad += 1
                if response.getheader("Connection", "").lower() == "close":
                    conn.close()
                    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            except (OSError, http.client.HTTPException):
                bad += 1
                conn.close()
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
                continue
            mine.append(time.perf_counter() - t0)
        conn.close()
        with lock:
            latencies.extend(mine)
            errors[0] += bad

    threads = [threading.Thread(target=client) for _ in range(clients)]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.perf_counter() - t0
    latencies.sort()
    return {
        "rps": len(latencies) / elapsed,
        "p50_ms": 1e3 * statistics.median(latencies) if latencies else float("nan"),
        "p95_ms": 1e3 * latencies[int(0.95 * (len(latencies) - 1))] if latencies else float(
            "nan"),
        "errors": errors[0],
    }


def wait_up(port: int, proc: subprocess.Popen, timeout_s: float = 120.0) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited {proc.returncode}")
        with contextlib.suppress(OSError):
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            conn.request("GET", "/api/health/live")
            if conn.getresponse().status == 200:
                conn.close()
                return
        time.sleep(0.2)
    raise RuntimeError("server not up")


def stop(proc: subprocess.Popen) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(30)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(10)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--clients", type=int, default=8)
    args = parser.parse_args()
    load = os.getloadavg()
    print(f"{args.clients} clients x {args.seconds:g} s per URL; load average "
          f"{load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; {os.cpu_count()} cores")
    rows = []
    with tempfile.TemporaryDirectory(prefix="gapsweep-wsgi-") as tmp:
        env = {k: v for k, v in os.environ.items() if not k.startswith("GAPSWEEP_")}
        env.update(GAPSWEEP_DATA=tmp, GAPSWEEP_BROKER_URL="memory://")
        gapsweep(env, "user", "add", "bench", "--role", "admin", stdin="bench password 1\n")
        token = gapsweep(env, "user", "token", "bench").strip()
        study_id = json.loads(gapsweep(env, "submit", str(STUDY), "--json"))["study_id"]
        paths = ["/api/health/live", "/api/studies", f"/api/studies/{study_id}"]
        for name, _ in servers(0).items():
            port = free_port()
            proc = subprocess.Popen(servers(port)[name], env=env, stdout=subprocess.DEVNULL,
                                    stderr=subprocess.DEVNULL, start_new_session=True)
            try:
                wait_up(port, proc)
                for path in paths:
                    hammer(port, path, token, args.clients, 0.5)  # warm caches, pools
                    rows.append((name, path, hammer(port, path, token, args.clients,
                                                    args.seconds)))
            finally:
                stop(proc)
    print(f"{'server':<10} {'URL':<22} {'req/s':>8} {'p50 ms':>8} {'p95 ms':>8} {'errors':>7}")
    for name, path, r in rows:
        shown = path if len(path) < 22 else path[:19] + "..."
        print(f"{name:<10} {shown:<22} {r['rps']:>8.0f} {r['p50_ms']:>8.1f} "
              f"{r['p95_ms']:>8.1f} {r['errors']:>7}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
