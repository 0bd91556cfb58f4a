"""How fast the ``gapsweep`` command answers: whole processes, median of N (issue 16).

    .venv/bin/python benchmarks/cli_latency.py                       # this tree's gapsweep
    .venv/bin/python benchmarks/cli_latency.py \
        --baseline-gapsweep /work/main/.venv/bin/gapsweep          # before / after, side by side

Every figure is the wall time and the CPU time (user + system) of a fresh ``gapsweep``
process (interpreter start, imports, database open, the command), the median of
``--repeat`` runs, in its own data folder (the embedded default: SQLite + the filesystem
broker). With ``--baseline-gapsweep`` the two installs' one-process commands run
interleaved, so a shared machine's changing load hits both alike:

- ``--help``; ``studies`` and ``show ID`` on an archive of one study; ``submit`` of the
  15-case study of the README (cases stay queued: nobody runs them);
- the same ``studies``/``show``/``submit`` in remote mode (``GAPSWEEP_URL`` naming a running
  ``gapsweep serve``);
- the 15-case study (``examples/clearance_x_stiffness.toml`` at two revolutions a case, as
  every case ran before issue 23: its cases now run until settled, ~2.5 s of solving, which
  ``benchmarks/settled_cost.py`` times) ``submit`` + ``wait`` with warm workers: ``gapsweep
  serve --workers 2`` started first and waited for until its local workers are ready, then
  the two commands one after the other, locally (same data folder) and remotely
  (``GAPSWEEP_URL``).

Targets (issue 16): ``--help`` < 0.3 s, ``studies``/``show`` < 0.6 s, ``submit`` < 0.8 s,
submit + wait < 2 s. They are a report, not a gate: the script exits 0 either way. The
machine may be shared: the load average is printed; compare runs at similar load.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import resource
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
STUDY = ROOT / "examples" / "clearance_x_stiffness.toml"
TARGETS = {"--help": 0.3, "studies": 0.6, "show": 0.6, "submit": 0.8, "submit+wait": 2.0}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def base_env(data: Path) -> dict[str, str]:
    """The caller's environment without gapsweep's settings, and with Python writing and
    reading its bytecode caches as an installed gapsweep does: under
    ``PYTHONDONTWRITEBYTECODE`` (set in some shells here) every process compiled gapsweep's
    ~100 modules from source again, ~0.1 s of each figure (measured 2026-12-05: submit
    0.852 -> 0.751 s)."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("GAPSWEEP_") and k != "PYTHONDONTWRITEBYTECODE"}
    env["GAPSWEEP_DATA"] = str(data)
    return env


def run(cmd: list[str], env: dict[str, str]) -> tuple[float, float, str]:
    """(wall s, CPU s of the process: user + system, stdout) of one whole process. The CPU
    time hardly moves with the machine's load; the wall time is what a person waits."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if out.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited {out.returncode}:\n{out.stderr[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, out.stdout


def medians(samples: list[tuple[float, float]]) -> dict[str, float]:
    return {"wall": statistics.median(w for w, _ in samples),
            "cpu": statistics.median(c for _, c in samples)}


class Serve:
    """``gapsweep serve --workers 2`` on a free port, stopped by pid (its own session)."""

    def __init__(self, gapsweep: str, env: dict[str, str], data: Path) -> None:
        self.port = free_port()
        self.data = data
        self.log = open(data / "serve.log", "wb")  # noqa: SIM115 - closed in stop()
        self.proc = subprocess.Popen(
            [gapsweep, "serve", "--port", str(self.port), "--workers", "2"], env=env,
            stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def wait_ready(self, timeout_s: float = 600.0) -> float:
        """Until the port answers and a local worker wrote its ready mark; seconds taken."""
        t0 = time.perf_counter()
        marks = self.data / "workers"
        while time.perf_counter() - t0 < timeout_s:
            if self.proc.poll() is not None:
                raise RuntimeError(f"serve exited: {(self.data / 'serve.log').read_text()}")
            with socket.socket() as s:
                up = s.connect_ex(("127.0.0.1", self.port)) == 0
            if up and marks.is_dir() and any(marks.glob("*.json")):
                return time.perf_counter() - t0
            time.sleep(0.2)
        tail = (self.data / "serve.log").read_text(errors="replace")[-2000:]
        raise RuntimeError(f"serve not ready in {timeout_s:.0f} s; its log ends:\n{tail}")

    def stop(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.proc.pid, signal.SIGTERM)
        try:
            self.proc.wait(60)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(10)
        self.log.close()


class Archive:
    """A data folder holding one submitted study, for one gapsweep executable."""

    def __init__(self, gapsweep: str, folder: Path) -> None:
        self.gapsweep = gapsweep
        folder.mkdir()
        self.env = base_env(folder)
        # the archive exists (migrated) and holds one study before anything is timed
        _, _, out = run([gapsweep, "submit", str(STUDY), "--json"], self.env)
        self.study_id = json.loads(out)["study_id"]

    def commands(self) -> dict[str, list[str]]:
        g = self.gapsweep
        return {"--help": [g, "--help"], "studies": [g, "studies"],
                "show": [g, "show", str(self.study_id)],
                "submit": [g, "submit", str(STUDY), "--json"]}


def measure_local(archives: list[Archive], repeat: int) -> list[dict[str, dict]]:
    """The one-process commands of every archive, their runs interleaved (A B A B ...), so
    a change of the machine's load hits every executable alike."""
    samples: list[dict[str, list]] = [{} for _ in archives]
    for _ in range(repeat):
        for name in archives[0].commands():
            for k, arch in enumerate(archives):
                wall, cpu, _ = run(arch.commands()[name], arch.env)
                samples[k].setdefault(name, []).append((wall, cpu))
    return [{name: medians(v) for name, v in s.items()} for s in samples]


def measure_served(gapsweep: str, folder: Path, repeat: int, study_id: int) -> dict[str, dict]:
    """submit + wait against a running serve with warm workers, locally and remotely, and
    the remote one-process commands."""
    from cancel_cost import two_revolution_example

    folder.mkdir()
    short = two_revolution_example(folder)
    env = base_env(folder)
    figures: dict[str, dict] = {}
    serve = Serve(gapsweep, env, folder)
    try:
        ready = serve.wait_ready()
        figures["serve ready"] = {"wall": ready, "cpu": float("nan")}
        remote = {**env, "GAPSWEEP_URL": serve.url}
        for label, cmd_env in (("", env), ("remote ", remote)):
            rounds = []
            for _ in range(repeat):
                w1, c1, out = run([gapsweep, "submit", str(short), "--json"], cmd_env)
                sid = json.loads(out)["study_id"]
                w2, c2, out = run([gapsweep, "wait", str(sid), "--json", "--quiet"], cmd_env)
                assert json.loads(out)["done"] == 15, out
                rounds.append((w1 + w2, c1 + c2))
            figures[label + "submit+wait"] = medians(rounds)
        for name, cmd in (("remote studies", [gapsweep, "studies"]),
                          ("remote show", [gapsweep, "show", str(study_id)]),
                          ("remote submit", [gapsweep, "submit", str(STUDY), "--json"])):
            figures[name] = medians([run(cmd, remote)[:2] for _ in range(repeat)])
    finally:
        serve.stop()
    return figures


def measure(executables: list[str], repeat: int) -> list[dict[str, dict]]:
    with tempfile.TemporaryDirectory(prefix="gapsweep-cli-latency-") as tmp:
        archives = [Archive(g, Path(tmp) / f"archive{k}") for k, g in enumerate(executables)]
        results = measure_local(archives, repeat)
        for k, g in enumerate(executables):
            # the served archive's study 1 exists once the first submit ran
            results[k].update(measure_served(g, Path(tmp) / f"served{k}", repeat, 1))
    return results


def target(name: str) -> float | None:
    return TARGETS.get(name.removeprefix("remote "))


def print_table(figures: dict[str, dict], baseline: dict[str, dict] | None) -> None:
    """Wall and CPU medians per command, against the target (and a baseline's, if given)."""
    head = f"{'command':<20}{'target':>8}"
    if baseline:
        head += f"{'before wall':>13}{'cpu':>7}"
    head += f"{'now wall':>10}{'cpu':>7}" + ("  wall ratio" if baseline else "") + "  verdict"
    print(head)
    for name, now in figures.items():
        limit = target(name)
        row = f"{name:<20}{(f'< {limit:.1f}' if limit else '-'):>8}"
        before = (baseline or {}).get(name)
        if baseline:
            row += (f"{before['wall']:>12.3f}s{before['cpu']:>6.2f}s" if before
                    else f"{'-':>13}{'-':>7}")
        row += f"{now['wall']:>9.3f}s{now['cpu']:>6.2f}s"
        if baseline:
            row += f"  {before['wall'] / now['wall']:9.1f}x" if before else " " * 12
        row += "  " + ("-" if limit is None else "ok" if now["wall"] < limit else "OVER")
        print(row.replace("nans", "   -"))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--gapsweep", default=str(Path(sys.executable).with_name("gapsweep")),
                        help="the gapsweep executable to time (default: this venv's)")
    parser.add_argument("--baseline-gapsweep", default=None, metavar="PATH",
                        help="another install's gapsweep (e.g. before a change), timed in "
                             "the same run, its commands interleaved with ours")
    parser.add_argument("--repeat", type=int, default=5, help="runs per figure (median)")
    parser.add_argument("--json", default=None, help="also write the figures to this file")
    args = parser.parse_args()
    load = os.getloadavg()
    print(f"median of {args.repeat}; load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; "
          f"{os.cpu_count()} cores\nnow: {args.gapsweep}"
          + (f"\nbefore: {args.baseline_gapsweep}" if args.baseline_gapsweep else ""))
    executables = [args.gapsweep] + ([args.baseline_gapsweep] if args.baseline_gapsweep else [])
    results = measure(executables, args.repeat)
    print_table(results[0], results[1] if len(results) > 1 else None)
    if args.json:
        Path(args.json).write_text(json.dumps(
            {"now": results[0], "before": results[1] if len(results) > 1 else None}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
