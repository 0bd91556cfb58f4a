"""Where the cold compile goes: seconds per compiled kernel, exclusive of the kernels it
calls (which numba compiles as their own dispatchers while typing the caller).

    NUMBA_CACHE_DIR=$(mktemp -d) python benchmarks/compile_profile.py [model ...]

Run it with an empty cache (the line above), or it measures cache loads. It runs each
model's warm-up case (``t_end = 1 ms``) and prints one line per kernel and signature.
"""

from __future__ import annotations

import sys
import time
from collections import defaultdict

from gapsweep.core.api import MODELS, get_model
from numba.core import event


class _Recorder(event.Listener):
    def __init__(self) -> None:
        self.stack: list[list] = []
        self.rows: list[tuple[str, float, float]] = []

    def on_start(self, ev: event.Event) -> None:
        disp = ev.data["dispatcher"]
        name = f"{disp.py_func.__module__.split('.')[-1]}.{disp.py_func.__name__}"
        self.stack.append([name, time.perf_counter(), 0.0])

    def on_end(self, ev: event.Event) -> None:
        name, t0, children = self.stack.pop()
        total = time.perf_counter() - t0
        if self.stack:
            self.stack[-1][2] += total
        self.rows.append((name, total, total - children))


def main(models: list[str]) -> None:
    rec = _Recorder()
    for name in models or list(MODELS):
        t0 = time.perf_counter()
        with event.install_listener("numba:compile", rec):
            get_model(name).run({"t_end": "0.001"})
        print(f"{name}: {time.perf_counter() - t0:.1f} s")
    own: dict[str, float] = defaultdict(float)
    count: dict[str, int] = defaultdict(int)
    for name, _, excl in rec.rows:
        own[name] += excl
        count[name] += 1
    total = sum(own.values())
    print(f"\n{'kernel':<44} {'own s':>7} {'share':>6} signatures")
    for name, sec in sorted(own.items(), key=lambda kv: -kv[1]):
        print(f"{name:<44} {sec:7.1f} {sec / total:6.1%} {count[name]:>4}")
    print(f"{'total':<44} {total:7.1f}")


if __name__ == "__main__":
    main(sys.argv[1:])
