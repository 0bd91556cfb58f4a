"""A real ``gapsweep serve`` for the CLI tests: its own data folder and free port, started in
its own session, stopped by pid with SIGTERM, and checked gone with everything it started
(its process group and its local workers' groups)."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

from support.processes import free_port, group_members  # noqa: E402, F401  (the workers' helpers)

URL_LINE = "gapsweep serve: open http://"


def port_open(port: int, host: str = "127.0.0.1") -> bool:
    with socket.socket() as s:
        s.settimeout(1.0)
        return s.connect_ex((host, port)) == 0


class Serve:
    """``gapsweep serve ARGS --port <free>`` with ``env``; output in ``data/serve.log``."""

    def __init__(self, env: dict[str, str], data: Path, *args: str) -> None:
        self.env, self.data = env, data
        self.port = free_port()
        self.args = [*args, "--port", str(self.port), "--workers", "1"]
        self.log = data.parent / f"serve-{self.port}.log"
        self.proc: subprocess.Popen | None = None
        self.worker_groups: list[int] = []

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def output(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def start(self, timeout_s: float = 180.0) -> Serve:
        """Start it and wait for the line with its address, and for its port to answer."""
        with open(self.log, "ab") as log:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "gapsweep", "serve", *self.args], env=self.env,
                stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                start_new_session=True,
            )
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError(f"serve exited ({self.proc.returncode}):\n{self.output()}")
            if URL_LINE in self.output() and port_open(self.port):
                self._note_workers()
                return self
            time.sleep(0.2)
        self.kill()
        raise AssertionError(f"serve not up within {timeout_s} s:\n{self.output()}")

    def _note_workers(self) -> None:
        # the local workers' process groups: LocalWorkers starts them in their own session
        for pid in self._worker_pids():
            with contextlib.suppress(OSError):
                self.worker_groups.append(os.getpgid(pid))

    def _worker_pids(self) -> list[int]:
        marks = self.data / "workers"
        return [json.loads(p.read_text())["pid"] for p in marks.glob("*.json")] if (
            marks.is_dir()) else []

    def wait_workers(self, timeout_s: float = 180.0) -> None:
        """Until a local worker is ready (a study submitted now runs)."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline and not self._worker_pids():
            assert self.proc is not None and self.proc.poll() is None, self.output()
            time.sleep(0.2)
        assert self._worker_pids(), f"no local worker ready in {timeout_s} s"
        self._note_workers()

    def stop(self, timeout_s: float = 60.0) -> int:
        """SIGTERM to the serve process (by pid, as a service manager does); its exit
        status, after checking that its group and its workers' groups are gone."""
        assert self.proc is not None
        self._note_workers()
        os.kill(self.proc.pid, signal.SIGTERM)
        code = self.proc.wait(timeout_s)
        groups = [self.proc.pid, *self.worker_groups]
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and any(group_members(g) for g in groups):
            time.sleep(0.2)
        left = {g: group_members(g) for g in groups if group_members(g)}
        assert not left, f"process groups outlived serve: {left}"
        return code

    def kill(self) -> None:
        """Whatever is left, for good (a test's finally)."""
        if self.proc is None:
            return
        for group in {self.proc.pid, *self.worker_groups}:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(group, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(10)
