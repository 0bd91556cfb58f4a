"""Where a process's first batch spends its time: imports, numba, each cached kernel's load.

    .venv/bin/python benchmarks/kernel_load.py [--threads 2] [--model slider-crank]

In this (fresh) process: the import of ``gapsweep.core.api``; then the 15 cases of
``gapsweep simulate --sweep clearance_mm=0.02,...,0.1 --sweep stiffness_scale=0.7,1,1.3
--set t_end=0.024`` through ``run_many`` twice (the first batch loads the kernels, the
second is warm). numba's cache loads are timed one by one (``Cache.load_overload``: the
index read, the object code unpickled and linked), with the size of each object file, and
the kernels whose dispatchers were made. Every CLI ``simulate`` and every worker start pays
the first batch's extra time (issue 28: 1.1 s, against 0.12 s warm).

Run it on a warm cache (``gapsweep warmup``). The machine may be shared: the load average
is printed; the whole-process figure is ``farm-bench`` on the CLI command (the README).
"""

from __future__ import annotations

import argparse
import os
import sys
import time

T_END = 0.024
CLEARANCES = (0.02, 0.035, 0.05, 0.08, 0.1)
SCALES = (0.7, 1.0, 1.3)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--model", default="slider-crank")
    args = parser.parse_args(argv)

    t0 = time.perf_counter()
    from gapsweep.core import api, jit

    t_import = time.perf_counter() - t0
    loads: list[tuple[str, int, float]] = []
    made: list[str] = []

    def numba_hooks() -> None:
        from numba.core import caching

        load_overload = caching.Cache.load_overload
        load_data = caching.IndexDataCacheFile._load_data
        read = [0]

        def timed_load_overload(self, sig, target_context):
            read[0] = 0
            t = time.perf_counter()
            out = load_overload(self, sig, target_context)
            loads.append((self._name, read[0], time.perf_counter() - t))
            return out

        def sized_load_data(self, name):
            read[0] += os.path.getsize(self._data_path(name))
            return load_data(self, name)

        caching.Cache.load_overload = timed_load_overload
        caching.IndexDataCacheFile._load_data = sized_load_data

    original_load = jit._load_numba
    t_numba = [0.0]

    def load_numba():
        if jit._NUMBA is None:
            t = time.perf_counter()
            module = original_load()
            t_numba[0] = time.perf_counter() - t
            numba_hooks()
            return module
        return original_load()

    jit._load_numba = load_numba
    original_dispatcher = jit.Kernel.dispatcher

    def dispatcher(self):
        if self._dispatcher is None:
            made.append(f"{self.__module__}.{self.__qualname__}")
        return original_dispatcher(self)

    jit.Kernel.dispatcher = dispatcher

    model = api.get_model(args.model)
    cases = [{"clearance_mm": str(c), "stiffness_scale": str(s), "t_end": str(T_END)}
             for c in CLEARANCES for s in SCALES]
    print(f"load average {os.getloadavg()}", flush=True)
    t1 = time.perf_counter()
    first = model.run_many(cases, threads=args.threads, progress=None)
    t_first = time.perf_counter() - t1
    assert all(r.ok for r in first), [r.reason for r in first if not r.ok]
    t2 = time.perf_counter()
    model.run_many(cases, threads=args.threads, progress=None)
    t_second = time.perf_counter() - t2

    t_loads = sum(t for _, _, t in loads)
    print(f"import gapsweep.core.api: {t_import:.3f} s")
    print(f"first batch: {t_first:.3f} s (numba import {t_numba[0]:.3f} s, {len(loads)} cache "
          f"loads {t_loads:.3f} s, {len(made)} dispatchers made); second batch: "
          f"{t_second:.3f} s")
    print(f"\n{'cache load':<48} {'object':>9} {'s':>7}")
    for name, size, took in sorted(loads, key=lambda x: -x[2]):
        name = name.split(" ")[1] if name.startswith("<function ") else name
        print(f"{name:<48} {size / 1e3:7.0f} kB {took:7.3f}")
    print(f"\ndispatchers made: {', '.join(m.rsplit('.', 1)[-1] for m in made)}")
    print(f"load average {os.getloadavg()}")


if __name__ == "__main__":
    sys.exit(main())
