"""``gapsweep serve`` stopped by SIGTERM or Ctrl-C takes its local workers with it, and exits
128 + 15 / 130; it serves on waitress, not Flask's development server (no such warning, no
Werkzeug ``Server`` header)."""

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
import urllib.request

import pytest
from serving import free_port


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie (exited, not yet reaped) counts as gone
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except FileNotFoundError:
        return False


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_stopping_serve_stops_its_workers(tmp_path, sig):
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("GAPSWEEP_")}
    env["GAPSWEEP_DATA"] = str(tmp_path)
    log = tmp_path / "serve.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "gapsweep", "serve", "--port", str(port), "--workers", "1"],
            env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
        )
    marks = tmp_path / "workers"
    try:
        deadline = time.monotonic() + 120
        workers: list[int] = []
        while time.monotonic() < deadline and not workers:
            time.sleep(0.2)
            assert proc.poll() is None, "serve exited early"
            workers = [json.loads(p.read_text())["pid"] for p in marks.glob("*.json")]
        assert workers, "no local worker became ready within 120 s"
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/health", timeout=10) as r:
            assert json.loads(r.read())["database"] == "ok"
            assert r.headers["Server"] == "gapsweep"  # waitress's ident; Werkzeug names itself
        os.kill(proc.pid, sig)  # the serve process alone, as a service manager or Ctrl-C does
        assert proc.wait(40) == (128 + signal.SIGTERM if sig == signal.SIGTERM else 130)
        output = log.read_text(errors="replace")
        assert "gapsweep serve: open http://127.0.0.1:" in output
        assert "development server" not in output and "Traceback" not in output, output
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and any(_alive(p) for p in workers):
            time.sleep(0.2)
        assert not any(_alive(p) for p in workers), f"worker(s) {workers} outlived serve"
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(10)
