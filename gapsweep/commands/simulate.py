"""Commands of the solver core alone: ``simulate``, ``warmup``, ``params``.

    gapsweep simulate [--model slider-crank] [--set NAME=VALUE ...] [--ideal] [--json]
    gapsweep simulate --sweep clearance_mm=0.02,0.05,0.1 --sweep stiffness_scale=0.7:1.3:3
    gapsweep warmup            # compile and cache the solver kernels once
    gapsweep params [--model]  # list a model's parameters and defaults
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import time
from typing import Any

from gapsweep.core.api import MODELS, get_model
from gapsweep.core.errors import InputError
from gapsweep.core.jit import kernels_cached, prune_stale_caches
from gapsweep.core.result import CaseResult

from .exit_codes import EXIT_FAILED

# units shown next to metrics in the human-readable output: the first pattern found in the
# metric's name wins (relative figures first, so "energy_drift" is not read as metres)
UNITS = (
    ("error", ""),
    ("fraction", ""),
    ("ratio", ""),
    ("energy_drift", ""),
    ("_hz", "Hz"),
    ("accel", "m/s^2"),
    ("force", "N"),
    ("torque", "N m"),
    ("penetration", "m"),
    ("deflection", "m"),
    ("shortening", "m"),
    ("drift", "m"),
    ("energy", "J"),
    ("wall_time_s", "s"),
    ("dt", "s"),
)


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
    unit = next((u for pattern, u in UNITS if pattern in key), "")
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
    print(f"\r[{done}/{total}] cases done", end="\n" if done == total else "", file=sys.stderr)


def _warm_notice() -> None:
    if not kernels_cached():
        print(
            "note: compiling the solver kernels for this machine (first run only, about "
            "about 2.5 min on 2 cores; `gapsweep warmup` does this ahead of time)...",
            file=sys.stderr,
            flush=True,
        )


def cmd_simulate(args: argparse.Namespace) -> int:
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
    rows = [r.summary() for r in results]
    if args.json:
        print(json.dumps(rows))
    else:
        for r in results:
            _print_human(r)
            print()
    return 0 if all(r.ok for r in results) else EXIT_FAILED


def cmd_warmup(args: argparse.Namespace) -> int:
    print("Compiling and caching the solver kernels (about 2.5 min on 2 cores)...", flush=True)
    for name in args.models or list(MODELS):
        t0 = time.perf_counter()
        model = get_model(name)
        tiny = {"t_end": "0.001"}
        result = model.run(tiny)
        print(f"  {name}: ready in {time.perf_counter() - t0:.1f} s ({result.status})", flush=True)
    folders, size = prune_stale_caches()
    if folders:
        print(f"  removed {folders} cache(s) of earlier sources ({size / 2**20:.1f} MB)")
    return 0


def cmd_params(args: argparse.Namespace) -> int:
    for key, value in get_model(args.model).defaults().items():
        print(f"{key} = {value}")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``simulate``, ``warmup`` and ``params`` to the top-level parser."""
    sim = sub.add_parser("simulate", help="run one case, or a grid with --sweep")
    sim.add_argument("--model", default="slider-crank", help=", ".join(MODELS))
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
    warm.add_argument("models", nargs="*", help="models to warm (default: all)")
    warm.set_defaults(func=cmd_warmup)
    par = sub.add_parser("params", help="list a model's parameters and defaults")
    par.add_argument("--model", default="slider-crank")
    par.set_defaults(func=cmd_params)
