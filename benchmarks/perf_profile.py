"""Profile the compiled stepping loop with Linux perf, by function.

    rm -rf /tmp/gapsweep-nbc
    NUMBA_CACHE_DIR=/tmp/gapsweep-nbc perf record -F 4000 -o /tmp/perf.data \\
        .venv/bin/python benchmarks/perf_profile.py [--repeats 40]
    perf report -i /tmp/perf.data --no-children --sort symbol | grep -E "gapsweep|sin|cos|pow"

perf cannot name numba's machine code by itself (it shows ``[JIT] tid ...``), so this script
writes ``/tmp/perf-<pid>.map`` (perf's symbol map for JIT code) from the compiled library of
``integrate_batch``, then runs the 15-case study on one thread ``--repeats`` times. The map
needs the library compiled in this process, not loaded from the cache: hence the empty
``NUMBA_CACHE_DIR`` (the compile, ~2.5 min, shows up in the profile as LLVM and CPython
symbols; read the gapsweep rows as shares of each other). Inlined kernels appear under their
caller (the RHS inside ``erk_step`` and ``_sample``).
"""

from __future__ import annotations

import argparse
import os
import sys

from gapsweep.core import stepping
from gapsweep.core.cases import SliderCrankCase
from gapsweep.core.simulation import simulate_batch

CLEARANCES = (0.02, 0.035, 0.05, 0.08, 0.1)
SCALES = (0.7, 1.0, 1.3)


def write_perf_map() -> int:
    """Write /tmp/perf-<pid>.map for every function of the compiled stepping library."""
    entries = set()
    for cres in stepping.integrate_batch.overloads.values():
        library = cres.library
        module = getattr(library, "_final_module", None)
        if module is None:
            continue
        for fn in module.functions:
            if fn.is_declaration:
                continue
            address = library.get_pointer_to_function(fn.name)
            if address:
                entries.add((address, fn.name))
    ordered = sorted(entries)
    with open(f"/tmp/perf-{os.getpid()}.map", "w") as out:
        for i, (address, name) in enumerate(ordered):
            end = ordered[i + 1][0] if i + 1 < len(ordered) else address + 4096
            out.write(f"{address:x} {min(end - address, 1 << 20):x} {name[:120]}\n")
    return len(ordered)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=40, help="runs of the 15-case study")
    args = parser.parse_args()
    cases = [SliderCrankCase(clearance_mm=c, stiffness_scale=s, t_end=0.024)
             for c in CLEARANCES for s in SCALES]
    simulate_batch(cases[:1], threads=1)  # compile (or load) the kernels
    count = write_perf_map()
    if count == 0:
        sys.exit("the kernels came from the cache: set NUMBA_CACHE_DIR to an empty folder")
    print(f"{count} compiled functions mapped; running the study {args.repeats} times")
    for _ in range(args.repeats):
        simulate_batch(cases, threads=1)


if __name__ == "__main__":
    main()
