"""Issue 41's benchmark: one study of 20,000 and of 100,000 cases read back over HTTP, on the
page, by ``show --json`` - before and after, side by side.

    .venv/bin/python benchmarks/big_study.py [--baseline /work/main] [--sizes 20000,100000]
        [--repeat 1]

For each checkout (``--baseline``'s, then this one) and each size, in a fresh data folder:

1. the archive is made by the checkout's own migrations and filled by inserting rows
   directly (no solver run): a grid of clearances x stiffness scales (``size / 200`` x 200),
   every case done with the 12 metric columns and 6 extra metrics, 1 % failed with a reason,
   one ideal twin per stiffness scale (200);
2. a server is started in a subprocess on a free port - what ``gapsweep serve`` runs (the
   Dash app and its API on waitress), without its local workers (nothing is queued);
3. it times ``GET /api/studies/<id>`` (and the bytes), ``GET /api/studies/<id>/cases.csv``,
   the study page's frame and its Cases, Trends, Sensitivity, Spectra (overlay and picker),
   Motion (bifurcation diagram and class map) and Convergence tabs through Dash's own
   callback route (``POST /_dash-update-component``, the request the browser sends when a tab
   is opened; the callbacks found by their outputs in ``/_dash-dependencies``),
   ``gapsweep show ID --json`` (the checkout's CLI, to a file) and its peak memory, and the
   server's peak resident memory (``VmHWM``) after all of it.

A checkout is run by its own interpreter (``CHECKOUT/.venv/bin/python``) on this file, so the
baseline reads with the baseline's code. The machine may be shared: the load average is
printed. Figures: benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import socket
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve()
ROOT = HERE.parents[1]
N_STIFFNESS = 200
SERVER = """
import sys
from gapsweep.commands.services import waitress_server
from gapsweep.web.app import create_app
app = create_app()
print("listening", flush=True)
waitress_server(app.server, "127.0.0.1", int(sys.argv[1]), 8).run()
"""


# --- the archive ------------------------------------------------------------------------------

def _metrics(rng: random.Random, clearance_mm: float, scale: float) -> dict[str, Any]:
    peak = 1e4 * (1 + 40 * clearance_mm) * scale ** 0.3 * rng.uniform(0.8, 1.2)
    return {
        "peak_slider_accel": peak, "rms_slider_accel": peak / 12,
        "peak_contact_force": rng.uniform(1e3, 3e4), "max_penetration": rng.uniform(1e-6, 3e-5),
        "impacts": rng.randrange(20), "peak_slider_accel_steady": peak / 6,
        "rms_slider_accel_steady": peak / 14, "peak_contact_force_steady": rng.uniform(1e3, 5e3),
        "max_penetration_steady": rng.uniform(1e-6, 1e-5), "impacts_steady": rng.randrange(3),
        "peak_driving_torque": rng.uniform(100, 400), "wall_time_s": rng.uniform(0.002, 0.01),
    }


EXTRA = ("contact_time_fraction", "energy_balance_error", "rhs_evaluations", "accepted_steps",
         "dominant_frequency_accel_hz", "high_frequency_ratio_accel")


def fill(database_url: str, n_cases: int, seed: int = 1) -> int:
    """One done grid study of ``n_cases`` cases (and its 200 twins), inserted directly by the
    running checkout's models; its id."""
    from gapsweep.db.engine import open_database
    from gapsweep.db.models import METRIC_COLUMNS, Case, Result, Study, utcnow
    from sqlalchemy import insert

    sessions = open_database(database_url)
    rng = random.Random(seed)
    n_clear = max(1, n_cases // N_STIFFNESS)
    clearances = [round(0.01 + 0.09 * i / max(1, n_clear - 1), 6) for i in range(n_clear)]
    scales = [round(0.5 + 1.5 * j / (N_STIFFNESS - 1), 6) for j in range(N_STIFFNESS)]
    spec = {"name": f"big study {n_cases}", "model": "slider-crank", "design": "grid",
            "ideal_twin": True, "series": "none", "description": "", "tags": ["bench"],
            "base": {"t_end": 0.002},
            "axes": {"clearance_mm": {"values": clearances},
                     "stiffness_scale": {"values": scales}}}
    now = utcnow()
    with sessions.begin() as s:
        study = Study(name=spec["name"], model="slider-crank", description="", tags=["bench"],
                      spec=spec, design="grid", series_policy="none", status="done",
                      created=now, started=now, finished=now, provenance={"bench": True})
        s.add(study)
        s.flush()
        study_id = study.id
        base_id = 1_000_000 * study_id
        twin_rows, case_rows, results = [], [], []
        for j, k in enumerate(scales):
            twin_rows.append({"id": base_id + j, "study_id": study_id, "kind": "twin",
                              "index": j, "params": {"t_end": 0.002, "stiffness_scale": k},
                              "status": "done", "attempts": 1, "queued_at": now,
                              "finished_at": now})
            results.append({"case_id": base_id + j, **_metrics(rng, 0.0, k),
                            "extra": {e: rng.random() for e in EXTRA}})
        index = 0
        for c in clearances:
            for j, k in enumerate(scales):
                if index >= n_cases:
                    break
                case_id = base_id + N_STIFFNESS + index
                failed = index % 100 == 37
                case_rows.append({
                    "id": case_id, "study_id": study_id, "kind": "case", "index": index,
                    "twin_id": base_id + j,
                    "params": {"t_end": 0.002, "clearance_mm": c, "stiffness_scale": k},
                    "status": "failed" if failed else "done", "attempts": 1,
                    "reason": "diverged: step size below 1e-14 s" if failed else None,
                    "queued_at": now, "finished_at": now})
                if not failed:
                    results.append({"case_id": case_id, **_metrics(rng, c, k),
                                    "extra": {e: rng.random() for e in EXTRA}})
                index += 1
        s.execute(insert(Case), twin_rows)
        for i in range(0, len(case_rows), 10_000):
            s.execute(insert(Case), case_rows[i:i + 10_000])
        for i in range(0, len(results), 10_000):
            s.execute(insert(Result), [{k: v for k, v in r.items()
                                        if k in METRIC_COLUMNS or k in ("case_id", "extra")}
                                       for r in results[i:i + 10_000]])
    return study_id


# --- one checkout, one size ---------------------------------------------------------------------

def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _get(url: str, body: bytes | None = None, timeout: float = 600) -> tuple[float, int, bytes]:
    headers = {"Content-Type": "application/json"} if body is not None else {}
    req = urllib.request.Request(url, data=body, headers=headers)
    t0 = time.perf_counter()
    with urllib.request.urlopen(req, timeout=timeout) as resp:
        n = 0
        first = b""
        while chunk := resp.read(1 << 20):
            if not first:
                first = chunk[:20000]
            n += len(chunk)
    return time.perf_counter() - t0, n, first


def _hwm_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def page_values(study_id: int) -> dict:
    """The inputs the study page's callbacks are posted with (its id, the Trends and
    Sensitivity choices, the case grid's first rows) for a grid over clearance x stiffness."""
    return {
        ("_pages_location", "pathname"): f"/studies/{study_id}",
        ("_pages_location", "search"): "",
        ("study-id", "data"): study_id, ("study-version", "data"): None,
        ("trends-metric", "value"): "peak_slider_accel",
        ("trends-x", "value"): "clearance_mm",
        ("trends-group", "value"): "stiffness_scale",
        ("trends-window", "value"): "whole", ("trends-log-y", "value"): [],
        ("trends-axes", "data"): {"axes": ["clearance_mm", "stiffness_scale"],
                                  "design": "grid"},
        ("sensitivity-metric", "value"): "peak_slider_accel",
        ("study-case-grid", "getRowsRequest"): {"startRow": 0, "endRow": 100,
                                                "sortModel": [], "filterModel": {}},
        ("study-case-grid-kinds", "data"): {"clearance_mm": "number",
                                            "stiffness_scale": "number"},
    }


def _callbacks(base: str) -> list[dict[str, Any]]:
    with urllib.request.urlopen(base + "/_dash-dependencies", timeout=60) as resp:
        return json.loads(resp.read())


def _dash_payload(dep: dict[str, Any], values: dict[tuple[str, str], Any]) -> bytes:
    def items(kind: str) -> list[dict[str, Any]]:
        return [{"id": d["id"], "property": d["property"],
                 "value": values.get((d["id"], d["property"]))} for d in dep.get(kind, [])]

    outputs = dep["output"]
    out_list = [{"id": o.split(".")[0], "property": o.split(".")[1].split("@")[0]}
                for o in outputs.strip(".").split("...") if o]
    return json.dumps({"output": outputs, "outputs": out_list if len(out_list) > 1
                       else out_list[0], "inputs": items("inputs"), "state": items("state"),
                       "changedPropIds": [f"{d['id']}.{d['property']}"
                                          for d in dep.get("inputs", [])][:1]}).encode()


def _tab(base: str, deps: list[dict[str, Any]], output: str,
         values: dict[tuple[str, str], Any]) -> tuple[float, int]:
    dep = next((d for d in deps if output in d["output"]), None)
    if dep is None:
        return float("nan"), 0
    seconds, n, _ = _get(base + "/_dash-update-component", _dash_payload(dep, values))
    return seconds, n


def measure_one(n_cases: int, python: str) -> dict[str, Any]:
    """Fill a fresh data folder, serve it, time the reads; the figures as a dict."""
    with tempfile.TemporaryDirectory(prefix="gapsweep-big-") as folder:
        env = {**os.environ, "GAPSWEEP_DATA": folder,
               "GAPSWEEP_DATABASE_URL": f"sqlite:///{folder}/archive.db"}
        env.pop("GAPSWEEP_BROKER_URL", None)
        env.pop("GAPSWEEP_URL", None)
        t0 = time.perf_counter()
        study_id = int(subprocess.run(
            [python, str(HERE), "--fill", str(n_cases)], env=env, check=True,
            capture_output=True, text=True).stdout.split()[-1])
        out: dict[str, Any] = {"fill_s": time.perf_counter() - t0}
        port = _free_port()
        # run from the data folder: ``python -c`` puts its working directory first on
        # sys.path, where this checkout's folders would shadow the baseline's own code
        server = subprocess.Popen([python, "-c", SERVER, str(port)], env=env, cwd=folder,
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        try:
            base = f"http://127.0.0.1:{port}"
            for _ in range(600):
                try:
                    _get(base + "/api/health", timeout=5)
                    break
                except OSError:
                    time.sleep(0.2)
            out["rss_start_mb"] = _hwm_mb(server.pid)
            out["detail_s"], out["detail_bytes"], head = _get(f"{base}/api/studies/{study_id}")
            out["csv_s"], out["csv_bytes"], _ = _get(f"{base}/api/studies/{study_id}/cases.csv")
            deps = _callbacks(base)
            values = page_values(study_id)
            out["frame_s"], _ = _tab(base, deps, "_pages_content.children", values)
            out["cases_tab_s"], _ = _tab(base, deps, "study-case-grid.getRowsResponse", values)
            values[("study-tabs", "active_tab")] = "trends"
            out["trends_s"], out["trends_bytes"] = _tab(base, deps, "trends-graph.figure",
                                                        values)
            values[("study-tabs", "active_tab")] = "sensitivity"
            out["sensitivity_s"], _ = _tab(base, deps, "sensitivity-content.children", values)
            # the tabs that read a large study's drawn cases only (issue 41): each timed
            # with a fresh memo key (a first open), its answer's size
            values.update({("spectra-signal", "value"): "slider_accel",
                           ("spectra-view", "value"): "overlay",
                           ("spectra-log-x", "value"): [], ("spectra-log-y", "value"): [],
                           ("spectra-cases", "value"): [],
                           ("motion-axis", "value"): "clearance_mm",
                           ("motion-quantity", "value"): "eccentricity_ratio",
                           ("motion-joint", "value"): "",
                           ("motion-map-x", "value"): "clearance_mm",
                           ("motion-map-y", "value"): "stiffness_scale",
                           ("motion-map-show", "value"): "motion"})
            for tab, key, output in TAB_OUTPUTS:
                values[("study-tabs", "active_tab")] = tab
                out[f"{key}_s"], out[f"{key}_bytes"] = _tab(base, deps, output, values)
            out["rss_peak_mb"] = _hwm_mb(server.pid)
        finally:
            server.terminate()
            server.wait(30)
        cli = str(Path(python).with_name("gapsweep"))
        with open(Path(folder) / "show.json", "wb") as sink:
            t0 = time.perf_counter()
            proc = subprocess.Popen([cli, "show", str(study_id), "--json"], env=env,
                                    stdout=sink, stderr=subprocess.DEVNULL)
            _, status, usage = os.wait4(proc.pid, 0)
            out["show_s"] = time.perf_counter() - t0
        out["show_bytes"] = (Path(folder) / "show.json").stat().st_size
        out["show_rss_mb"] = usage.ru_maxrss / 1024
        out["show_exit"] = os.waitstatus_to_exitcode(status)
        out["first_page_cases"] = head.count(b'"params"')  # a lower bound from the head
        return out


#: the Spectra, Motion and Convergence tabs' callbacks: (tab, figure key, output)
TAB_OUTPUTS = [("spectra", "spectra", "spectra-graph.children"),
               ("spectra", "spectra_choices", "spectra-cases.options"),
               ("motion", "bifurcation", "bifurcation-graph.figure"),
               ("motion", "motion_map", "motion-map-graph.figure"),
               ("convergence", "convergence", "convergence-content.children")]


# --- side by side -------------------------------------------------------------------------------

ROWS = [("fill_s", "fill (direct inserts)", "s"),
        ("detail_s", "GET /api/studies/<id>", "s"), ("detail_bytes", "  its size", "MB"),
        ("csv_s", "GET cases.csv", "s"), ("csv_bytes", "  its size", "MB"),
        ("frame_s", "study page frame (callback)", "s"),
        ("cases_tab_s", "Cases tab: first grid block", "s"),
        ("trends_s", "Trends tab", "s"), ("trends_bytes", "  its figure", "MB"),
        ("sensitivity_s", "Sensitivity tab", "s"),
        ("spectra_s", "Spectra tab: overlay", "s"),
        ("spectra_choices_s", "Spectra tab: case picker", "s"),
        ("bifurcation_s", "Motion tab: bifurcation diagram", "s"),
        ("motion_map_s", "Motion tab: class map", "s"),
        ("motion_map_bytes", "  its figure", "MB"),
        ("convergence_s", "Convergence tab", "s"),
        ("show_s", "gapsweep show --json", "s"), ("show_bytes", "  its size", "MB"),
        ("show_rss_mb", "  its peak RSS", "MB"),
        ("rss_start_mb", "server RSS after start", "MB"),
        ("rss_peak_mb", "server peak RSS", "MB")]


def _fmt(key: str, value: Any) -> str:
    if value is None or value != value:
        return "-"
    if key.endswith("_bytes"):
        return f"{value / 1e6:.2f}"
    if key.endswith("_mb"):
        return f"{value:.0f}"
    return f"{value:.2f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", type=Path, help="another checkout (its .venv is used)")
    parser.add_argument("--sizes", default="20000,100000")
    parser.add_argument("--only", choices=["baseline", "new"], help="run one side only")
    parser.add_argument("--fill", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.fill is not None:  # the child: fill with this interpreter's checkout
        print(fill(os.environ["GAPSWEEP_DATABASE_URL"], args.fill))
        return
    sides = []
    if args.baseline is not None and args.only != "new":
        sides.append(("baseline", str(args.baseline / ".venv" / "bin" / "python")))
    if args.only != "baseline":
        sides.append(("new", str(ROOT / ".venv" / "bin" / "python")))
    sizes = [int(s) for s in args.sizes.split(",")]
    print(f"load average {os.getloadavg()[0]:.1f}, {os.cpu_count()} cores", flush=True)
    figures: dict[tuple[str, int], dict[str, Any]] = {}
    for n in sizes:
        for name, python in sides:
            figures[(name, n)] = measure_one(n, python)
            print(name, n, json.dumps(figures[(name, n)]), flush=True)
    head = "| | " + " | ".join(f"{name} {n:,}" for n in sizes for name, _ in sides)
    if len(sides) == 2:
        head += " | " + " | ".join(f"ratio {n:,}" for n in sizes)
    print(head + " |")
    print("|---" * (1 + len(sizes) * len(sides) + (len(sizes) if len(sides) == 2 else 0))
          + "|")
    for key, label, unit in ROWS:
        cells = [_fmt(key, figures[(name, n)].get(key)) for n in sizes for name, _ in sides]
        if len(sides) == 2:
            for n in sizes:
                a, b = figures[("baseline", n)].get(key), figures[("new", n)].get(key)
                cells.append(f"{a / b:.1f}x" if a and b and a == a and b == b else "-")
        print(f"| {label} [{unit}] | " + " | ".join(cells) + " |")
    print(f"load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
