"""How fast the ``gapsweep`` command answers: whole processes, median of N (issue 16).

    .venv/bin/python benchmarks/cli_latency.py                       # this tree's gapsweep
    .venv/bin/python benchmarks/cli_latency.py --gapsweep /other/.venv/bin/gapsweep \
        --json before.json                                           # another install
    .venv/bin/python benchmarks/cli_latency.py --baseline before.json   # side by side

Every figure is the wall time of a fresh ``gapsweep`` process (interpreter start, imports,
database open, the command), the median of ``--repeat`` runs, in its own data folder (the
embedded default: SQLite + the filesystem broker):

- ``--help``; ``studies`` and ``show ID`` on an archive of one study; ``submit`` of the
  15-case study of the README (cases stay queued: nobody runs them);
- the same ``studies``/``show``/``submit`` in remote mode (``GAPSWEEP_URL`` naming a running
  ``gapsweep serve``);
- the 15-case study (``examples/clearance_x_stiffness.toml``) ``submit`` + ``wait`` with warm
  workers: ``gapsweep serve --workers 2`` started first and waited for until its local
  workers are ready, then the two commands one after the other, locally (same data folder)
  and remotely (``GAPSWEEP_URL``).

Targets (issue 16): ``--help`` < 0.3 s, ``studies``/``show`` < 0.6 s, ``submit`` < 0.8 s,
submit + wait < 2 s. They are a report, not a gate: the script exits 0 either way. The
machine may be shared: the load average is printed; compare runs at similar load.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
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
    env = {k: v for k, v in os.environ.items() if not k.startswith("GAPSWEEP_")}
    env["GAPSWEEP_DATA"] = str(data)
    return env


def run(cmd: list[str], env: dict[str, str]) -> tuple[float, subprocess.CompletedProcess]:
    t0 = time.perf_counter()
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600)
    elapsed = time.perf_counter() - t0
    if out.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited {out.returncode}:\n{out.stderr[-2000:]}")
    return elapsed, out


def median_of(repeat: int, cmd: list[str], env: dict[str, str]) -> float:
    return statistics.median(run(cmd, env)[0] for _ in range(repeat))


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
        raise RuntimeError("serve not ready in time")

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


def measure(gapsweep: str, repeat: int) -> dict[str, float]:
    figures: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="gapsweep-cli-latency-") as tmp:
        data = Path(tmp) / "data"
        data.mkdir()
        env = base_env(data)
        # the archive exists (migrated) and holds one study before anything is timed
        _, out = run([gapsweep, "submit", str(STUDY), "--json"], env)
        study_id = json.loads(out.stdout)["study_id"]

        figures["--help"] = median_of(repeat, [gapsweep, "--help"], env)
        figures["studies"] = median_of(repeat, [gapsweep, "studies"], env)
        figures["show"] = median_of(repeat, [gapsweep, "show", str(study_id)], env)
        figures["submit"] = median_of(repeat, [gapsweep, "submit", str(STUDY), "--json"], env)

        serve_data = Path(tmp) / "served"
        serve_data.mkdir()
        serve_env = base_env(serve_data)
        serve = Serve(gapsweep, serve_env, serve_data)
        try:
            figures["serve ready (s)"] = serve.wait_ready()
            remote = {**serve_env, "GAPSWEEP_URL": serve.url}
            for label, cmd_env in (("", serve_env), ("remote ", remote)):
                waits = []
                for _ in range(repeat):
                    t_submit, out = run([gapsweep, "submit", str(STUDY), "--json"], cmd_env)
                    sid = json.loads(out.stdout)["study_id"]
                    t_wait, out = run([gapsweep, "wait", str(sid), "--json", "--quiet"],
                                      cmd_env)
                    assert json.loads(out.stdout)["done"] == 15, out.stdout
                    waits.append(t_submit + t_wait)
                figures[label + "submit+wait"] = statistics.median(waits)
            figures["remote studies"] = median_of(repeat, [gapsweep, "studies"], remote)
            figures["remote show"] = median_of(repeat, [gapsweep, "show", str(study_id)],
                                               remote)
            figures["remote submit"] = median_of(
                repeat, [gapsweep, "submit", str(STUDY), "--json"], remote)
        finally:
            serve.stop()
    return figures


def target(name: str) -> float | None:
    return TARGETS.get(name.removeprefix("remote "))


def print_table(figures: dict[str, float], baseline: dict[str, float] | None) -> None:
    head = f"{'command':<22}{'target':>9}"
    head += f"{'before':>10}" if baseline else ""
    head += f"{'now':>10}" + ("  ratio" if baseline else "") + "  verdict"
    print(head)
    for name, value in figures.items():
        limit = target(name)
        row = f"{name:<22}{(f'< {limit:.1f}' if limit else '-'):>9}"
        if baseline:
            before = baseline.get(name)
            row += f"{before:>9.3f}s" if before is not None else f"{'-':>10}"
        row += f"{value:>9.3f}s"
        if baseline:
            before = baseline.get(name)
            row += f"  {before / value:5.1f}x" if before else "       "
        row += "  " + ("-" if limit is None else "ok" if value < limit else "OVER")
        print(row)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--gapsweep", default=str(Path(sys.executable).with_name("gapsweep")),
                        help="the gapsweep executable to time (default: this venv's)")
    parser.add_argument("--repeat", type=int, default=5, help="runs per figure (median)")
    parser.add_argument("--json", default=None, help="also write the figures to this file")
    parser.add_argument("--baseline", default=None,
                        help="figures of an earlier run (--json) to print side by side")
    args = parser.parse_args()
    load = os.getloadavg()
    print(f"gapsweep: {args.gapsweep}; median of {args.repeat}; "
          f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; {os.cpu_count()} cores")
    figures = measure(args.gapsweep, args.repeat)
    baseline = json.loads(Path(args.baseline).read_text()) if args.baseline else None
    print_table(figures, baseline)
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
