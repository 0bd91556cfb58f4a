"""A real ``gapsweep serve`` for the CLI and browser tests: its own data folder and free port,
started in its own session, stopped by pid with SIGTERM, and checked gone with everything it
started (its process group and its local workers' groups).

:func:`server_fixture` makes a module's ``server`` fixture: its own data, seeded before the
server starts (users, stored studies) or through its API once it answers (studies run by its
worker), whatever the module needs."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from support.chromium import need_chromium
from support.processes import free_port, group_members  # noqa: E402, F401  (the workers' helpers)

ROOT = Path(__file__).resolve().parents[2]

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
                start_new_session=True, cwd=ROOT,
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


def serve_env(data: Path, **extra: str) -> dict[str, str]:
    """This process's environment without any ``GAPSWEEP_`` variable (a server or a CLI of the
    test's own, whatever the developer's shell sets), with ``GAPSWEEP_DATA`` = ``data`` and
    the variables ``extra``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GAPSWEEP_")}
    env.update(GAPSWEEP_DATA=str(data), **extra)
    return env


@contextlib.contextmanager
def serving(env: dict[str, str], data: Path, *args: str, workers: bool = False,
            start_s: float = 180.0) -> Iterator[Serve]:
    """:class:`Serve` started (and, with ``workers``, until its local worker is ready);
    stopped on leaving with SIGTERM, which it must answer with exit status 128 + 15 and no
    process left; killed whatever happened."""
    serve = Serve(env, data, *args)
    try:
        serve.start(timeout_s=start_s)
        if workers:
            serve.wait_workers(timeout_s=start_s)
        yield serve
        assert serve.stop() == 128 + signal.SIGTERM, serve.output()[-3000:]
    finally:
        serve.kill()


#: what a seed gets (the data folder, the server's environment) and gives (entries of the
#: fixture's dict: tokens, study ids ...)
Seed = Callable[[Path, dict[str, str]], dict]


def server_fixture(folder: str, *, seed: Seed | None = None,
                   then: Callable[[dict], dict] | None = None, workers: bool = False,
                   chromium: bool = False, start_s: float = 180.0, name: str = "server",
                   **env: str):
    """A module-scoped fixture ``name`` (a module assigns it: ``server = server_fixture(...)``)
    serving data of its own: a ``gapsweep serve`` (:func:`serving`) of the data folder
    ``<tmp>/<folder>*/data`` with :func:`serve_env` and ``env``.

    ``seed(data, env)`` runs before the server starts (users made with the CLI, rows written
    to the archive), ``then(app)`` once it answers (studies submitted and run); each returns
    entries added to the dict the fixture yields: ``{"base", "data", "env", "log", "serve"}``
    (+ ``"chromium"``, the executable, with ``chromium``: skipped without it). ``workers``:
    up once its local worker is ready."""

    @pytest.fixture(scope="module", name=name)
    def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict]:
        app: dict = {"chromium": need_chromium()} if chromium else {}
        data = tmp_path_factory.mktemp(folder) / "data"
        app.update(data=data, env=serve_env(data, **env))
        if seed is not None:
            app.update(seed(data, app["env"]))
        with serving(app["env"], data, workers=workers, start_s=start_s) as serve:
            app.update(base=serve.url, log=serve.log, serve=serve)
            if then is not None:
                app.update(then(app))
            yield app

    return server
