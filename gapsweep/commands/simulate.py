"""Commands of the solver core alone: ``simulate``, ``warmup``, ``params``.

    gapsweep simulate [--model slider-crank] [--set NAME=VALUE ...] [--ideal] [--json]
    gapsweep simulate --sweep clearance_mm=0.02,0.05,0.1 --sweep stiffness_scale=0.7:1.3:3
    gapsweep warmup            # compile and cache the solver kernels once
    gapsweep params [--model] [--json]  # a model's parameters: default, unit, kind, range
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import subprocess
import sys
import time
from typing import TYPE_CHECKING, Any

from gapsweep.core import metrics
from gapsweep.core.errors import InputError
from gapsweep.core.parameters import describe, ideal_ignored

from .exit_codes import EXIT_FAILED

if TYPE_CHECKING:
    from gapsweep.core.result import CaseResult

# The solver (numpy, numba), the study layer (scipy) are imported by the commands that run,
# not here: `gapsweep --help` and the archive commands import this module too (issue 16).

# the measured cold compile (docs/install.md, "The first start"): `gapsweep warmup` uses two
# processes, a first `simulate` compiles in its own
COMPILE_TIME = "50 s"
COMPILE_TIME_ONE_PROCESS = "1.5 min"


def headline() -> tuple[str, ...]:
    """The sweep table's columns: the headline metrics (design.md 4.5, the metric registry)."""
    return metrics.headline()


# the parameters an ideal-joint run ignores (the core's registry; the study's twins use it too)
JOINT_ONLY = ideal_ignored()


def _parse_assignment(text: str, option: str) -> tuple[str, str]:
    name, sep, value = text.partition("=")
    if not sep or not name.strip():
        raise InputError(option, text, "NAME=VALUE")
    return name.strip(), value.strip()


def sweep_values(text: str) -> tuple[str, list[str]]:
    """``NAME=a,b,c`` or ``NAME=START:STOP:COUNT`` (evenly spaced, both ends included)."""
    name, spec = _parse_assignment(text, "--sweep")
    if ":" in spec:
        parts = spec.split(":")
        if len(parts) != 3:
            raise InputError("--sweep", text, "NAME=START:STOP:COUNT")
        try:
            start, stop, count = float(parts[0]), float(parts[1]), int(parts[2])
        except ValueError:
            raise InputError("--sweep", text, "NAME=START:STOP:COUNT with numbers") from None
        if count < 1:
            raise InputError("--sweep", text, "a COUNT >= 1")
        if count == 1:
            return name, [repr(start)]
        step = (stop - start) / (count - 1)
        return name, [repr(start + k * step) for k in range(count)]
    values = [v.strip() for v in spec.split(",") if v.strip()]
    if not values:
        raise InputError("--sweep", text, "NAME=v1,v2,...")
    return name, values


def _format_value(key: str, value: Any) -> str:
    """A metric's value in the unit the pages show it in (the metric registry's; ``--json``
    stays SI): ``15.3 µm``, ``12`` for a count."""
    entry = metrics.lookup(key)
    value, unit = entry.display(value), entry.unit_shown
    text = f"{value:.6g}" if isinstance(value, float) else str(value)
    return f"{text} {unit}".rstrip()


def _print_human(result: CaseResult) -> None:
    print(f"model: {result.model}   status: {result.status}")
    if result.reason:
        print(f"reason: {result.reason}")
    if result.params:
        print("parameters: " + ", ".join(f"{k}={v}" for k, v in result.params.items()))
    width = max((len(k) for k in result.metrics), default=0)
    for key, value in result.metrics.items():
        print(f"  {key:<{width}}  {_format_value(key, value)}")


def _progress(done: int, total: int) -> None:
    """``[k/n] cases done`` on stderr: rewritten in place on a terminal, one line each else
    (a log or a pipe has no carriage return to go back with)."""
    if sys.stderr.isatty():
        end = "\n" if done == total else ""
        print(f"\r[{done}/{total}] cases done", end=end, file=sys.stderr, flush=True)
    else:
        print(f"[{done}/{total}] cases done", file=sys.stderr, flush=True)


def _warm_notice() -> None:
    from gapsweep.core.jit import kernels_cached

    if not kernels_cached():
        print(
            "note: compiling the solver kernels for this machine (first run only, about "
            f"{COMPILE_TIME_ONE_PROCESS}; `gapsweep warmup` does it ahead of time, in about "
            f"{COMPILE_TIME} on 2 cores)...",
            file=sys.stderr,
            flush=True,
        )


def cmd_simulate(args: argparse.Namespace) -> int:
    from gapsweep.core.api import get_model

    model = get_model(args.model)
    base = dict(_parse_assignment(s, "--set") for s in args.set or [])
    if args.ideal:
        base["ideal"] = "true"
    if not args.sweep:
        model.parse(base)  # bad input fails here, before any compile
        _warm_notice()
        t0 = time.perf_counter()
        result = model.run(base)
        result.metrics["wall_time_s"] = time.perf_counter() - t0
        if args.json:
            print(json.dumps(result.summary()))
        else:
            _print_human(result)
        return 0 if result.ok else EXIT_FAILED

    axes = [sweep_values(s) for s in args.sweep]
    names = [name for name, _ in axes]
    if len(set(names)) != len(names):
        raise InputError("--sweep", names, "each parameter swept once")
    cases = [
        {**base, **dict(zip(names, combo, strict=True))}
        for combo in itertools.product(*(values for _, values in axes))
    ]
    for case in cases:  # reject a bad grid as a whole before running any of it
        model.parse(case)
    _warm_notice()
    show = _progress if len(cases) > 1 and not args.quiet else None
    results = model.run_many(cases, threads=args.threads, progress=show)
    if args.json:
        print(json.dumps([r.summary() for r in results]))
    elif not any(k in r.metrics for r in results for k in headline()):
        for r in results:  # a model without the headline metrics (the cantilever): blocks
            _print_human(r)
            print()
    else:
        twin_peaks = None if args.ideal else _twin_peaks(model, cases, args.threads)
        _print_sweep(results, cases, names, twin_peaks)
    return 0 if all(r.ok for r in results) else EXIT_FAILED


def _unit(key: str) -> str:
    """The unit metric ``key`` is shown in, "" for a ratio (as the study table's headers)."""
    unit = metrics.display_unit(key)
    return "" if unit == metrics.DIMENSIONLESS else unit


def _cell(value: Any) -> str:
    """Five significant digits, without an exponent where the value reads well without."""
    if isinstance(value, float):
        if value == 0.0 or not math.isfinite(value):
            return f"{value:g}"
        if 1e-2 <= abs(value) < 1e7:
            return f"{value:.{max(0, 4 - math.floor(math.log10(abs(value))))}f}"
        return f"{value:.4e}"
    return "-" if value is None else str(value)


def _param(value: Any) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def _twin_key(case: dict[str, str]) -> tuple:
    """What the ideal twin of ``case`` depends on: every parameter but the joint's own."""
    return tuple(sorted((k, v) for k, v in case.items() if k not in JOINT_ONLY | {"ideal"}))


def _twin_peaks(model: Any, cases: list[dict[str, str]], threads: int | None) -> dict:
    """The peak of each distinct ideal twin of the grid's cases (usually one run), by
    :func:`_twin_key`; ``{}`` for a model without an ideal joint."""
    if "ideal" not in model.defaults():
        return {}
    keys = list(dict.fromkeys(_twin_key(c) for c in cases))
    runs = model.run_many([{**dict(k), "ideal": "true"} for k in keys], threads=threads,
                          progress=None)  # fmt: skip
    return {
        k: r.metrics.get("peak_slider_accel") if r.ok else None
        for k, r in zip(keys, runs, strict=True)
    }


def _print_sweep(
    results: list[CaseResult],
    cases: list[dict[str, str]],
    names: list[str],
    twin_peaks: dict | None,
) -> None:
    """One row per case (its swept parameters, status, the headline metrics), then a summary:
    the case with the largest peak and its ideal twin's peak for reference."""
    shown = headline()
    head = ["case", *names, "status", *shown]
    units = ["", *("" for _ in names), "", *(f"[{_unit(k)}]" if _unit(k) else "" for k in shown)]
    rows = [
        [str(i + 1), *(_param(r.params.get(n)) for n in names), r.status,
         *(_cell(metrics.lookup(k).display(r.metrics.get(k))) for k in shown)]
        for i, r in enumerate(results)
    ]  # fmt: skip
    widths = [max(len(row[j]) for row in [head, units, *rows]) for j in range(len(head))]
    for row in [head, units, *rows]:
        print("  ".join(cell.rjust(w) for cell, w in zip(row, widths, strict=True)).rstrip())
    print()
    failed = [(i, r) for i, r in enumerate(results) if not r.ok]
    for i, r in failed:
        print(f"case {i + 1} failed: {r.reason}")
    ok = [(i, r) for i, r in enumerate(results) if r.ok and "peak_slider_accel" in r.metrics]
    print(f"{len(results) - len(failed)} of {len(results)} cases ok")
    if not ok:
        return
    i, top = max(ok, key=lambda item: item[1].metrics["peak_slider_accel"])
    peak = top.metrics["peak_slider_accel"]
    where = ", ".join(f"{n}={_param(top.params.get(n))}" for n in names)
    accel = _unit("peak_slider_accel")
    line = f"largest peak_slider_accel: {_cell(peak)} {accel} in case {i + 1} ({where})"
    if twin_peaks:
        reference = twin_peaks.get(_twin_key(cases[i]))
        if reference:
            line += f", {peak / reference:.3g} x the ideal joint's peak"
    print(line)
    if twin_peaks:
        for key, value in twin_peaks.items():
            at = ", ".join(f"{k}={v}" for k, v in key if k in names)
            text = "failed" if value is None else f"{_cell(value)} {accel}"
            print(f"ideal joint peak_slider_accel: {text}" + (f" ({at})" if at else ""))


def cmd_warmup(args: argparse.Namespace) -> int:
    """Compile the kernels in two processes (:mod:`gapsweep.core.warm`): a helper compiles the
    RK stage kernel and the flexible models while this one compiles the stepping loop's other
    callees; then each model's tiny case runs here, loading what the two cached."""
    from gapsweep.core.api import MODELS, get_model
    from gapsweep.core.jit import JIT_DISABLED, kernels_cached, prune_stale_caches
    from gapsweep.core.warm import compile_part, run_tiny  # numba: imported on use

    notice = f"Compiling and caching the solver kernels (about {COMPILE_TIME} on 2 cores)..."
    print(notice, flush=True)
    names = args.models or [name for name, m in MODELS.items() if m.warms_up]
    for name in names:
        get_model(name)  # an unknown name fails before anything compiles
    t0 = time.perf_counter()
    helper = None
    if not JIT_DISABLED and not kernels_cached():
        others = [n for n in names if n != "slider-crank"]
        parts = ["stages"] if "slider-crank" in names else []
        # the wall and run-up starts' kernel last: the helper is done before this process
        # has compiled the stepping loop (measured), so it costs the warm-up no wall time
        after = ["reactions"] if "slider-crank" in names else []
        cmd = [sys.executable, "-m", "gapsweep.core.warm", *parts, *others, *after]
        helper = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if parts:
            compile_part("calls")
            for line in helper.stdout:  # its part done: it goes on with the other models
                if line.startswith("stages:"):
                    break
    for name in names:
        if name != "slider-crank" and helper is not None:
            output = helper.communicate()[0]
            if helper.returncode != 0:  # not fatal: the runs below compile what is missing
                print(f"  note: the compile helper failed: {output.strip().splitlines()[-1:]}")
            helper = None
        status = run_tiny(name)
        print(f"  {name}: ready in {time.perf_counter() - t0:.1f} s ({status})", flush=True)
    if helper is not None:
        helper.communicate()
    if "slider-crank" in names:
        _warm_starts(t0)
    folders, size = prune_stale_caches()
    if folders:
        print(f"  removed {folders} cache(s) of earlier sources ({size / 2**20:.1f} MB)")
    return 0


def _warm_starts(t0: float) -> None:
    """The wall and run-up starts too: they place each journal by the ideal joints' reaction
    (``core.simulation.joint_reactions``), whose kernel is called from Python before the
    stepping loop and compiled apart from it - 17 s on its first use at load 10 otherwise
    (any model's wall or run-up start, a mechanism's included). A described mechanism needs
    nothing more: its centred runs load only what the slider-crank's tiny case cached
    (measured: no new kernel in the cache after one)."""
    from gapsweep.core.api import get_model

    status = get_model("slider-crank").run({"t_end": "0.001", "initial": "wall"}).status
    print(f"  wall and run-up starts: ready in {time.perf_counter() - t0:.1f} s ({status})",
          flush=True)


PARAMS_COLUMNS = ("name", "default", "unit", "kind", "allowed")


def cmd_params(args: argparse.Namespace) -> int:
    """The model's parameters from the core's registry: name, default, unit, kind and what
    the solver allows; ``--json``: a list of ``{"name", "kind", "label", "unit", "default",
    "allowed"}`` (an infinite default as null)."""
    from gapsweep.core.api import get_model

    if args.study:
        return _study_params(args)
    get_model(args.model)  # an unknown model: exit 2 with the list
    rows = describe(args.model)
    if args.json:
        for row in rows:
            d = row["default"]
            row["default"] = None if isinstance(d, float) and math.isinf(d) else d
        print(json.dumps(rows))
        return 0
    cells = [[_param_cell(row[c]) for c in PARAMS_COLUMNS] for row in rows]
    widths = [max(len(c), *(len(r[j]) for r in cells)) for j, c in enumerate(PARAMS_COLUMNS)]
    for row in [list(PARAMS_COLUMNS), *cells]:
        print("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip())
    return 0


def _study_params(args: argparse.Namespace) -> int:
    """``params --study FILE``: the names a study of FILE's mechanism may set, with units
    (``--json``: a list of ``{"name", "unit", "default"}``)."""
    from gapsweep.core.mechanism.case import sweepable_names

    from .mechanism import read_table

    table = read_table(args.study)
    rows = []
    for name, unit in sweepable_names(table).items():
        node: Any = table
        for key in name.split("."):
            node = node.get(key) if isinstance(node, dict) else None
        rows.append({"name": name, "unit": unit, "default": node})
    if args.json:
        print(json.dumps(rows, default=str))
        return 0
    width = max(len(r["name"]) for r in rows)
    print("name".ljust(width) + "  unit  value")
    for r in rows:
        value = "-" if r["default"] is None else _param_cell(r["default"])
        print(f"{r['name'].ljust(width)}  {(r['unit'] or '-'):<5} {value}")
    return 0


def _param_cell(value: Any) -> str:
    if value is None:
        return "auto"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, tuple):
        return ",".join(_param_cell(v) for v in value) or "-"
    return str(value) or "-"


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``simulate``, ``warmup`` and ``params`` to the top-level parser."""
    sim = sub.add_parser("simulate", help="run one case, or a grid with --sweep")
    sim.add_argument("--model", default="slider-crank", help="a model name (`gapsweep params "
                     "--model NAME` lists its parameters)")
    sim.add_argument("--set", action="append", metavar="NAME=VALUE", help="override a parameter")
    sim.add_argument(
        "--sweep",
        action="append",
        metavar="NAME=V1,V2|START:STOP:COUNT",
        help="an axis of a grid of cases (repeat for more axes)",
    )
    sim.add_argument("--ideal", action="store_true", help="clearance joint as an ideal revolute")
    sim.add_argument("--json", action="store_true", help="print JSON (an object, or a list)")
    sim.add_argument("--threads", type=int, default=None, help="cores for a sweep")
    sim.add_argument("--quiet", action="store_true", help="no progress line on stderr")
    sim.set_defaults(func=cmd_simulate)
    warm = sub.add_parser("warmup", help="compile and cache the solver kernels")
    warm.add_argument("models", nargs="*",
                      help="models to warm (default: all that run without a table of their own)")
    warm.set_defaults(func=cmd_warmup)
    par = sub.add_parser("params", help="list a model's parameters: default, unit, kind, range")
    par.add_argument("--model", default="slider-crank")
    par.add_argument("--study", default=None, metavar="FILE",
                     help="the names a mechanism study of FILE may set, with units")
    par.add_argument("--json", action="store_true", help="print a JSON list")
    par.set_defaults(func=cmd_params)
