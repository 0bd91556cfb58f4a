"""Real processes for the fault tests: gapsweep workers, a private redis-server, the CLI.

Every process starts in its own session (``start_new_session=True``), so one ``killpg``
reaches it and everything it forked (a Celery worker's pool children); :class:`Procs`
kills every group it started when the test ends and checks that none survived. Waits are
bounded: a condition not met in time fails the test with what was last seen.

The knobs shrink the production timings (lease 60 s, reconcile 15 s ...) so a killed worker
costs a few seconds here; the mechanisms are the same.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gapsweep.db.models import Case, Result
from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker

#: shortened timings (seconds) shared by every fault test
FAST_ENV = {
    "GAPSWEEP_LEASE_S": "3",
    "GAPSWEEP_RECONCILE_S": "1",
    "GAPSWEEP_REQUEUE_AFTER_S": "2",
    "GAPSWEEP_RESTORE_INTERVAL_S": "1",
    "GAPSWEEP_POLLING_INTERVAL_S": "0.02",
    "GAPSWEEP_CHUNK_SIZE": "2",
    "GAPSWEEP_MAX_ATTEMPTS": "3",
    "NUMBA_NUM_THREADS": "1",
}


def free_port() -> int:
    """A TCP port nobody listens on right now (127.0.0.1)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def group_alive(pgid: int) -> bool:
    """Any process left in the process group ``pgid``?"""
    # zombies (dead, not yet reaped by whoever adopted them) do not count
    return bool(group_members(pgid))


def group_members(pgid: int) -> list[int]:
    """Pids (from /proc) of the live processes in group ``pgid``."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        # fields after the ")" of the command name: state ppid pgrp ...
        rest = stat.rsplit(")", 1)[1].split()
        if rest[0] != "Z" and int(rest[2]) == pgid:
            pids.append(int(entry.name))
    return sorted(pids)


def wait_for(
    what: str, condition: Callable[[], Any], timeout_s: float, interval_s: float = 0.05
) -> Any:
    """Poll ``condition`` until it returns something truthy (returned); AssertionError
    naming ``what`` after ``timeout_s``."""
    deadline = time.monotonic() + timeout_s
    last = None
    while time.monotonic() < deadline:
        last = condition()
        if last:
            return last
        time.sleep(interval_s)
    raise AssertionError(f"timed out after {timeout_s} s waiting for {what} (last: {last!r})")


@dataclass
class Proc:
    """A started process (leader of its own group) and its log file."""

    name: str
    popen: subprocess.Popen
    log: Path

    @property
    def pid(self) -> int:
        return self.popen.pid

    def alive(self) -> bool:
        return self.popen.poll() is None

    def children(self) -> list[int]:
        """The other live members of its group (a worker's pool processes)."""
        return [p for p in group_members(self.pid) if p != self.pid]

    def kill_group(self, sig: int = signal.SIGKILL, wait_s: float = 15.0) -> None:
        """Signal the whole group; wait until it is gone (SIGKILL after ``wait_s``)."""
        for s, t in ((sig, wait_s), (signal.SIGKILL, 5.0)):
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.pid, s)
            deadline = time.monotonic() + t
            while time.monotonic() < deadline:
                self.popen.poll()
                if not group_members(self.pid):
                    if self.popen.poll() is None:
                        self.popen.wait(1)
                    return
                time.sleep(0.05)

    def tail(self, n: int = 40) -> str:
        try:
            return "\n".join(self.log.read_text(errors="replace").splitlines()[-n:])
        except OSError:
            return ""


@dataclass
class Procs:
    """The processes a test started; :meth:`close` leaves none running (verified)."""

    folder: Path
    started: list[Proc] = field(default_factory=list)

    def start(self, name: str, cmd: list[str], env: dict[str, str]) -> Proc:
        log = self.folder / f"{name}-{len(self.started)}.log"
        with open(log, "ab") as out:
            popen = subprocess.Popen(
                cmd, env=env, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                start_new_session=True,  # its own group: killpg reaches its pool too
            )
        proc = Proc(name, popen, log)
        self.started.append(proc)
        return proc

    def close(self) -> None:
        for proc in self.started:
            proc.kill_group(signal.SIGKILL, 5.0)
        left = {p.name: group_members(p.pid) for p in self.started if group_members(p.pid)}
        assert not left, f"processes left running: {left}"


def gapsweep_env(data_dir: Path, database_url: str, broker_url: str | None = None,
                 **extra: str) -> dict[str, str]:
    """The environment of a gapsweep process of this test (fast timings)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GAPSWEEP_")}
    env.update(FAST_ENV)
    env["GAPSWEEP_DATA"] = str(data_dir)
    env["GAPSWEEP_DATABASE_URL"] = database_url
    if broker_url:
        env["GAPSWEEP_BROKER_URL"] = broker_url
    env.update(extra)
    return env


def start_worker(procs: Procs, env: dict[str, str], concurrency: int = 2,
                 name: str | None = None, wait: bool = True) -> Proc:
    """``gapsweep worker`` (Celery, prefork pool); returns once its ready mark is written
    (kernels loaded, consuming) - or at once with ``wait=False`` (then
    :func:`wait_worker_ready`)."""
    node = name or f"w{uuid.uuid4().hex[:6]}"
    proc = procs.start(
        node,
        [sys.executable, "-m", "gapsweep", "worker", "--concurrency", str(concurrency),
         "--name", f"{node}@%h", "--loglevel", "INFO"],
        env,
    )
    if wait:
        wait_worker_ready(proc, env, concurrency)
    return proc


def wait_worker_ready(proc: Proc, env: dict[str, str], concurrency: int = 2) -> None:
    """Until the worker ``proc`` has written its ready mark and started its pool."""
    marks = Path(env["GAPSWEEP_DATA"]) / "workers"

    def ready() -> bool:
        if not proc.alive():
            raise AssertionError(f"worker {proc.name} exited early:\n{proc.tail()}")
        for mark in marks.glob("*.json") if marks.is_dir() else []:
            try:
                if json.loads(mark.read_text())["pid"] == proc.pid:
                    return len(proc.children()) >= concurrency
            except (OSError, ValueError, KeyError):
                continue
        return False

    wait_for(f"worker {proc.name} ready", ready, 90.0)


def _start_cli(args: list[str], env: dict[str, str]) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "gapsweep", *args], env=env, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True, start_new_session=True,
    )


def _finish_cli(proc: subprocess.Popen, args: list[str], timeout_s: float) -> str:
    """Wait for a :func:`_start_cli` process (bounded: its group is killed at the timeout);
    returns its stdout, asserting it succeeded."""
    try:
        out, err = proc.communicate(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        raise
    assert proc.returncode == 0, f"gapsweep {args} -> {proc.returncode}\n{out}\n{err}"
    return out


def gapsweep_cli(args: list[str], env: dict[str, str], timeout_s: float = 60.0) -> str:
    """Run ``gapsweep ARGS`` to completion (own session, bounded); returns stdout."""
    return _finish_cli(_start_cli(args, env), args, timeout_s)


def submit(study_file: Path, env: dict[str, str]) -> int:
    """``gapsweep submit FILE --json``; returns the study id."""
    return int(json.loads(gapsweep_cli(["submit", str(study_file), "--json"], env))["study_id"])


def submit_in_background(study_file: Path, env: dict[str, str],
                         timeout_s: float = 60.0) -> Callable[[], int]:
    """:func:`submit` started now (a process of its own, so that it overlaps a worker's
    start); call the result for the study id."""
    args = ["submit", str(study_file), "--json"]
    proc = _start_cli(args, env)
    return lambda: int(json.loads(_finish_cli(proc, args, timeout_s))["study_id"])


def write_study(folder: Path, name: str, *, clearances: list[float], scales: list[float],
                t_end: float = 0.5) -> Path:
    """A grid study file (no twins, no series): len(clearances) * len(scales) cases."""
    path = folder / f"{name}.json"
    path.write_text(json.dumps({
        "name": name,
        "model": "slider-crank",
        "design": "grid",
        "ideal_twin": False,
        "series": "none",
        "base": {"t_end": t_end},
        "axes": {"clearance_mm": {"values": clearances}, "stiffness_scale": {"values": scales}},
    }))
    return path


def grid_60(folder: Path, name: str = "faults-60", t_end: float = 0.3) -> Path:
    """The 60-case study of the fault tests (6 clearances x 10 stiffness scales)."""
    return write_study(
        folder, name, clearances=[0.02, 0.05, 0.1, 0.2, 0.3, 0.5],
        scales=[0.5 + 0.1 * k for k in range(10)], t_end=t_end,
    )


@dataclass(frozen=True)
class CaseRow:
    id: int
    index: int
    status: str
    attempts: int
    lease_holder: str | None
    reason: str | None
    started_at: Any
    finished_at: Any


def case_rows(sessions: sessionmaker[Session], study_id: int) -> list[CaseRow]:
    with sessions() as s:
        return [
            CaseRow(*r)
            for r in s.execute(
                select(Case.id, Case.index, Case.status, Case.attempts, Case.lease_holder,
                       Case.reason, Case.started_at, Case.finished_at)
                .where(Case.study_id == study_id, Case.kind == "case")
                .order_by(Case.index)
            )
        ]


def result_counts(sessions: sessionmaker[Session], study_id: int) -> tuple[int, int]:
    """(result rows of the study's design cases, distinct cases among them). Twins and the
    convergence certificates, which workers run once the study is done, are left out."""
    with sessions() as s:
        q = select(func.count(Result.case_id), func.count(func.distinct(Result.case_id))).join(
            Case, Case.id == Result.case_id
        ).where(Case.study_id == study_id, Case.kind == "case")
        rows, distinct = s.execute(q).one()
    return int(rows), int(distinct)


def progress(sessions: sessionmaker[Session], study_id: int) -> dict[str, int]:
    from gapsweep.db.studies import study_progress

    with sessions() as s:
        return study_progress(s, study_id)


def study_status(sessions: sessionmaker[Session], study_id: int) -> str:
    from gapsweep.db.studies import study_detail

    with sessions() as s:
        return study_detail(s, study_id)["status"]


def wait_finished(sessions: sessionmaker[Session], study_id: int, timeout_s: float) -> dict:
    """Wait until nothing of the study is queued or running; returns its progress."""
    def idle():
        p = progress(sessions, study_id)
        return p if p["queued"] == 0 and p["running"] == 0 else None

    return wait_for(f"study {study_id} to finish", idle, timeout_s, 0.1)


def wait_running(sessions: sessionmaker[Session], study_id: int, min_done: int,
                 timeout_s: float = 60.0) -> list[CaseRow]:
    """Wait until ``min_done`` cases are done and some case is running (held); returns the
    running rows."""
    def mid():
        rows = case_rows(sessions, study_id)
        running = [r for r in rows if r.status == "running" and r.lease_holder]
        done = sum(r.status == "done" for r in rows)
        return running if done >= min_done and running else None

    return wait_for("a case running mid-study", mid, timeout_s, 0.01)


def holder_pid(holder: str) -> int:
    """The pid of a lease holder ``host:pid``."""
    return int(holder.rsplit(":", 1)[1])


@dataclass
class RedisServer:
    """A private ``redis-server`` on a free port (the machine's own 6379 is shared)."""

    procs: Procs
    folder: Path
    appendonly: bool
    port: int = field(default_factory=free_port)
    proc: Proc | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> RedisServer:
        self.folder.mkdir(parents=True, exist_ok=True)
        self.proc = self.procs.start(
            "redis",
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "yes" if self.appendonly else "no", "--appendfsync", "always",
             "--maxmemory-policy", "noeviction", "--dir", str(self.folder)],
            dict(os.environ),
        )
        wait_for("redis to answer", self.ping, 10.0)
        return self

    def ping(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as s:
                s.sendall(b"PING\r\n")
                return s.recv(16).startswith(b"+PONG")
        except OSError:
            return False

    def stop(self) -> None:
        """SIGTERM: redis shuts down cleanly (the AOF is complete when enabled)."""
        assert self.proc is not None
        self.proc.kill_group(signal.SIGTERM, 10.0)
        assert not group_alive(self.proc.pid)

    def pause_writes(self, ms: int = 10_000) -> None:
        """Hold every client's writes (a worker's BRPOP included) for ``ms``: the queue
        length read next is the one the shutdown persists."""
        with socket.create_connection(("127.0.0.1", self.port), timeout=2) as s:
            s.sendall(f"CLIENT PAUSE {ms} WRITE\r\n".encode())
            assert s.recv(16).startswith(b"+OK")

    def llen(self, queue: str = "gapsweep") -> int:
        with socket.create_connection(("127.0.0.1", self.port), timeout=2) as s:
            s.sendall(f"LLEN {queue}\r\n".encode())
            return int(s.recv(64).strip().lstrip(b":"))


def restart_redis(redis: RedisServer, down_s: float = 1.0) -> None:
    """Stop the server (SIGTERM), leave it down ``down_s``, start it again on its port."""
    redis.stop()
    time.sleep(down_s)
    redis.start()


def log_count(proc: Proc, text: str) -> int:
    """Lines of the process's log containing ``text``."""
    return sum(text in line for line in proc.log.read_text(errors="replace").splitlines())
