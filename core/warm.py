"""The cold compile in two processes: the kernels the stepping loop calls are independent of
one another, so one process compiles some while the other compiles the rest, and both fill
the same cache; the loop itself then compiles against the cached callees.

Each part calls its kernels once on the arguments the stepping loop gives them, built from a
tiny slider-crank case with the same types (array layouts, tuples), so the cached signature is
the one the loop asks for. A type that differed would only cost a second compile of that
kernel, never a wrong result (numba keys its cache on the signature).

Measured on this 2-core machine (``benchmarks/compile_profile.py``, the README has the
table): ``erk_step`` holds the one inlined copy of the RHS and ``evaluate`` calls the other
(``dynamics.derivative``, compiled once), about 15 % and 7 % of the compile, so they compile
in different processes; the stepping loop itself (``_march``, ``integrate_batch``: a
quarter) can only follow them.

    python -m gapsweep.core.warm PART|MODEL ...   # PART: "stages", "calls" or "reactions";
                                                  # MODEL: a model whose tiny case to run
"""

from __future__ import annotations

import sys
import time

import numpy as np

PARTS = ("stages", "calls", "reactions")


def _arguments() -> dict:
    """The stepping loop's arguments for a tiny case, with the loop's own types: its buffers
    from the loop's constructor (:func:`stepping.make_step_buffers`), the state from the
    template's poses, at rest. The kernels only need the types here, and any compiled helper
    called on the way compiles in both processes (the constructor runs as Python)."""
    from .assembly import CaseModel, assemble
    from .cases import SliderCrankCase
    from .dynamics import N_AUX, WS_ROT
    from .integrators import CaseContext, get_integrator
    from .kinematics import initial_guess
    from .simulation import build_mechanism
    from .stepping import N_OPT, make_step_buffers

    mech = build_mechanism(SliderCrankCase(t_end=0.001))
    topo, arrays = assemble(mech)
    n = topo.n_coordinates
    y0 = np.zeros(2 * n + N_AUX)
    y0[:n] = initial_guess(mech)
    model = CaseModel(
        topo.joint_int.copy(),
        np.ascontiguousarray(arrays.joint_par[0]),
        topo.load_int,
        np.ascontiguousarray(arrays.load_par[0]),
        topo.clear_int.copy(),
        np.ascontiguousarray(arrays.clear_par[0]),
        np.ascontiguousarray(arrays.mass[0]),
        np.ascontiguousarray(arrays.inertia[0]),
        np.ascontiguousarray(arrays.gravity[0]),
        topo.prescribed.copy(),
    )
    method = get_integrator("dopri5")
    tableau = method.tableau()
    ny = y0.shape[0]
    # the loop's own constructor, run as Python: its kernels (the workspace, the inverse
    # mass) are the loop's callees anyway
    build = getattr(make_step_buffers, "py_func", make_step_buffers)  # GAPSWEEP_NO_JIT: itself
    buffers = build(model, np.zeros(N_OPT), tableau, ny)
    v, ws = buffers.vec, buffers.ws
    probe = int(topo.probe)
    ctx = CaseContext(model, buffers.in_contact, buffers.approach, 0.0, 0.0, probe,
                      buffers.inv_mass, ws)  # fmt: skip
    return {
        "n": n,
        "ny": ny,
        "y": v.y,
        "y1": v.y1,
        "f0": v.f0,
        "f1": v.f1,
        "ystage": v.ystage,
        "fst": v.fst,
        "err": v.err,
        "r5": v.r5,
        "k": buffers.k,
        "model": model,
        "ctx": ctx,
        "ws": ws,
        "rot": ws[WS_ROT],
        "in_contact": buffers.in_contact,
        "inv_mass": buffers.inv_mass,
        "tableau": tableau,
        "wmat": buffers.wmat,
        "piv": buffers.piv,
        "probe": probe,
        "y0": y0,
        "buffers": buffers,
    }


def _stages(a: dict) -> None:
    """The RK stage kernel (the one inlined copy of the RHS), projection and the events."""
    from .events import find_event, locate_event
    from .integrators import erk_step
    from .projection import drift, project

    y, f0, y1, f1, r5, ystage = (a[k] for k in ("y", "f0", "y1", "f1", "r5", "ystage"))
    n, model, ws, rot = a["n"], a["model"], a["ws"], a["rot"]
    y[:] = a["y0"]
    erk_step(0.0, y, f0, 1e-7, a["tableau"], a["ctx"], a["k"], ystage, y1, a["err"], r5)
    y1[:] = a["y0"]
    find_event(
        0.0, y, f0, 1e-7, y1, f1, r5, n, model, a["in_contact"], 1e-12, rot, ystage, -1, 0.0,
        0.0, True,
    )  # fmt: skip
    locate_event(0.0, y, f0, 1e-7, y1, f1, r5, 0.0, 1e-7, n, model, 0, 1e-12, rot, ystage)
    project(y1, 1e-7, n, model, a["inv_mass"], ws, 1e-13)
    drift(y1, 1e-7, n, model, ws)
    # the initial state's kinematics kernels (this part had ~8 s to spare, measured)
    from .cases import SliderCrankCase
    from .simulation import to_job

    to_job(SliderCrankCase(t_end=0.001))


def _calls(a: dict) -> None:
    """The RHS as a call, and the kernels around it: Rosenbrock, peaks, energy, and the
    loop's pieces that need only these."""
    from .energy import balance_residual, state_energy
    from .events import penetration_at
    from .integrators import evaluate, rosenbrock23_step
    from .peak_refinement import refine_peak

    y, f0, y1, f1, r5, ystage, fst = (a[k] for k in ("y", "f0", "y1", "f1", "r5", "ystage", "fst"))
    n, model, ctx, ws, rot = a["n"], a["model"], a["ctx"], a["ws"], a["rot"]
    y[:] = a["y0"]
    y1[:] = a["y0"]
    evaluate(0.0, y, ctx, f0)
    evaluate(1e-7, y1, ctx, f1)
    penetration_at(y, n, model, rot, 0)
    kin, pot, ucon = state_energy(y, n, model, a["in_contact"], ws)
    balance_residual(y, n, kin, pot, ucon, kin + pot + ucon)
    # peak_refinement.observe and refine_observation are not called here: the loop passes
    # them constants (the quantity 0 or 1, N_OPT), which numba compiles as literal
    # specialisations, so a call from Python compiled an int64 signature nothing used
    # (measured: 2 and 3 signatures in the cache after a warm-up; ~2 s of CPU)
    steps = ((0.0, y, f0, r5), (1e-7, y1, f1, r5), (2e-7, y1, f1))
    refine_peak(steps, 0.0, 0, ctx, n, a["probe"], ystage, fst)
    from .stepping import N_MET, N_OPT

    rosenbrock23_step(0.0, y, f0, 1e-7, 2 * n, ctx, a["k"], ystage, y1, a["err"], a["wmat"],
                      a["piv"])  # fmt: skip
    # off the critical path too: what the loop's own compile would otherwise wait for
    from .stepping import (
        N_REV,
        N_SER,
        _observe_step,
        _refine_observations,
        _refine_peaks,
        _sample,
        read_settings,
    )

    opts, metrics = np.zeros(N_OPT), np.zeros(N_MET)
    _sample(np.zeros(N_SER), 0.0, ystage, fst, n, a["probe"], 0, a["in_contact"], model, ws,
            0.0, ctx, opts, metrics)  # fmt: skip
    # the loop's peak refinement and vector probes, whose callees this part has just
    # compiled (measured: the loop's own compile, which waits for both parts, 3 s shorter).
    # The loop's RunSettings and StepBuffers as Python named tuples: numba types them as it
    # types the loop's own (no vector probes here: nothing is refined, only typed)
    run = getattr(read_settings, "py_func", read_settings)(opts, 2)
    buf, revs = a["buffers"], np.zeros((2, N_REV + 2 * a["in_contact"].shape[0]))
    _refine_peaks(0.0, 1e-7, 2e-7, run, buf, ctx, metrics, revs)
    _refine_observations(0.0, 1e-7, 2e-7, run, buf, ctx, opts, metrics, revs)
    _observe_step(2e-7, 1, np.int64(0), np.int64(0), run, buf, opts, metrics, revs)


def _reactions(a: dict) -> None:
    """The ideal joints' reactions, which place the journal of a wall or run-up start: a
    kernel called from Python before the loop, compiled apart from it (``derivative``)."""
    from .assembly import assemble
    from .cases import SliderCrankCase
    from .simulation import build_mechanism, joint_reactions

    topo, arrays = assemble(build_mechanism(SliderCrankCase(t_end=0.001)))
    joint_reactions(topo, arrays, a["y0"])


def compile_part(part: str) -> float:
    """Compile (or load) one part's kernels; returns the seconds it took."""
    t0 = time.perf_counter()
    {"stages": _stages, "calls": _calls, "reactions": _reactions}[part](_arguments())
    return time.perf_counter() - t0


def run_tiny(model: str) -> str:
    """Run a model's warm-up case (1 ms of motion): compiles whatever it needs; its status."""
    from .api import get_model

    return get_model(model).run({"t_end": "0.001"}).status


if __name__ == "__main__":
    for name in sys.argv[1:] or PARTS:
        t0 = time.perf_counter()
        status = compile_part(name) and "ok" if name in PARTS else run_tiny(name)
        print(f"{name}: {time.perf_counter() - t0:.1f} s ({status})", flush=True)
