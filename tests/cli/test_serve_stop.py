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
from pathlib import Path

import pytest
from support.serving import free_port


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


def _worker_groups_on(data) -> set[int]:
    """Process groups of every live ``gapsweep worker`` whose data folder is ``data`` (read
    from /proc: the processes themselves, not the ready marks they write)."""
    groups = set()
    for pid in (int(p.name) for p in Path("/proc").iterdir() if p.name.isdigit()):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                argv = f.read().split(b"\0")
            with open(f"/proc/{pid}/environ", "rb") as f:
                environ = f.read().split(b"\0")
            if b"worker" in argv and f"GAPSWEEP_DATA={data}".encode() in environ and _alive(pid):
                groups.add(os.getpgid(pid))
        except (OSError, ProcessLookupError):
            continue
    return groups


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_a_killed_serve_leaves_no_workers_and_its_restart_runs_one_group(tmp_path):
    """SIGKILL runs no cleanup in serve: its workers see it gone (the parent-death signal,
    the parent watch) and stop within 30 s; a serve restarted on the folder then runs exactly
    one worker group (issue 28: the killed serve's group lived on beside the new one)."""
    from support.serving import Serve, group_members

    data = tmp_path / "data"
    env = {k: v for k, v in os.environ.items() if not k.startswith("GAPSWEEP_")}
    env["GAPSWEEP_DATA"] = str(data)
    first, second = Serve(env, data), Serve(env, data)
    try:
        first.start()
        first.wait_workers()
        killed = _worker_groups_on(data)
        assert len(killed) == 1 and killed == set(first.worker_groups), killed
        os.kill(first.proc.pid, signal.SIGKILL)
        first.proc.wait(10)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and any(group_members(g) for g in killed):
            time.sleep(0.2)
        left = {g: group_members(g) for g in killed if group_members(g)}
        assert not left, f"worker groups outlived the killed serve by 30 s: {left}"

        second.start()
        second.wait_workers()
        groups = _worker_groups_on(data)
        assert len(groups) == 1 and groups.isdisjoint(killed), (groups, killed)
        assert second.stop() == 128 + signal.SIGTERM
    finally:
        first.kill()
        second.kill()
