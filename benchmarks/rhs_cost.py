"""The cost of one compiled right-hand side (``core.dynamics.derivative``), timed in a
compiled loop so that no Python is counted, inlined into the loop as the RK stage loop has it
(``derivative_inlined``; ``derivative`` itself is a plain call, whose argument passing this
would time too): the helper of ``batch_speed.py`` (contact and
free flight of one case) and ``stiffness_models.py`` (one contact state per stiffness model).

Imported on use (numba loads with it)."""

from __future__ import annotations

import math
import time
from typing import Any

import numba
import numpy as np
from gapsweep.core.assembly import assemble, case_model
from gapsweep.core.dynamics import N_AUX, derivative_inlined, inverse_mass, make_workspace
from gapsweep.core.simulation import build_mechanism, initial_state


# compiled like the stepping loop's kernels: without numba's runtime (core/jit.py)
@numba.njit(cache=True, _nrt=False)
def drive(n_calls, y, model, in_contact, approach, probe, inv_mass, ws, dydt):
    acc = 0.0
    for i in range(n_calls):
        derivative_inlined(i * 1e-12, y, model, in_contact, approach, 0.0, 0.0, probe,
                           inv_mass, ws, dydt)
        acc += dydt[probe]
    return acc


def wall_state(case: Any) -> tuple:
    """The arguments of :func:`drive` after ``n_calls`` and ``in_contact`` for ``case`` (a
    slider-crank case) with its journal 2 µm into the bearing wall."""
    topo, arr = assemble(build_mechanism(case))
    n = topo.n_coordinates
    inv = np.empty(n)
    inverse_mass(arr.mass[0], arr.inertia[0], topo.prescribed, inv)
    y = np.zeros(2 * n + N_AUX)
    y[: 2 * n] = initial_state(case)
    y[3 * 2] += case.clearance_mm * 1e-3 + 2e-6  # slider x: the journal 2 µm into the wall
    ws = make_workspace(n, topo.n_constraints, topo.clear_int.shape[0])
    return y, case_model(topo, arr), np.ones(1), topo.probe, inv, ws, np.zeros_like(y)


def cost_ns(states: dict[str, tuple[tuple, bool]], n_calls: int, rounds: int = 5
            ) -> dict[str, float]:
    """ns per call for each ``{name: (wall_state(...), in contact)}``: interleaved, the best
    of ``rounds`` (the machine may be shared)."""
    out = dict.fromkeys(states, math.inf)
    for _ in range(rounds):
        for name, (state, touching) in states.items():
            y, model, approach, probe, inv, ws, dydt = state
            contact = np.full(1, int(touching), np.int64)
            drive(10, y, model, contact, approach, probe, inv, ws, dydt)
            t0 = time.perf_counter()
            drive(n_calls, y, model, contact, approach, probe, inv, ws, dydt)
            out[name] = min(out[name], 1e9 * (time.perf_counter() - t0) / n_calls)
    return out
