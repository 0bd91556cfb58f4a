"""Issue 34: the explicit methods' stepping loop is a specialisation without Radau IIA.

``gapsweep warmup`` compiles only what dopri5 (``auto``) runs; Radau's loop compiles on its
first use and says so in a log line. The two specialisations are one source: that Radau's
results are still right is tests/core/test_long_runs.py (against dopri5).
"""

from __future__ import annotations

import logging
import subprocess
import sys

import numpy as np
from gapsweep.core import solver
from gapsweep.core.api import run_cases
from gapsweep.core.jit import cached_signatures
from gapsweep.core.radau import ST_RTOL, make_radau_work


def test_an_explicit_run_has_no_radau_buffers_and_a_radau_run_has_them_sized():
    atol = np.full(9, 1e-9)
    assert make_radau_work(9, 6, atol, 1e-6, None) is None
    work = make_radau_work(9, 6, atol, 1e-6, True)
    assert work.jac.shape == (9, 6) and work.lu_c.shape == (3, 3)  # n x n, m = 2 n
    assert work.lu_c.dtype == np.complex128 and work.z.shape == (3, 9)
    assert work.state[ST_RTOL] == 1e-6 and np.array_equal(work.scale_atol, atol)
    assert work.scale_atol is not atol  # a copy: the case's own


def _fresh_process(code: str) -> subprocess.CompletedProcess:
    """``code`` run in a Python process of its own (numba's in-process state left behind),
    which must succeed."""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=600)  # fmt: skip
    assert out.returncode == 0, out.stderr
    return out


def test_a_dopri5_run_never_makes_the_radau_step_kernel():
    # in a process of its own: the Radau kernels' dispatchers are made only when a caller
    # compiled against them is typed, which the explicit loop no longer is
    code = (
        "from gapsweep.core.api import run_cases\n"
        "from gapsweep.core import radau\n"
        "r = run_cases('slider-crank', [{'t_end': '0.002'}], threads=1)[0]\n"
        "assert r.ok, r.reason\n"
        "print(radau.radau5_step._dispatcher is None, radau._jacobian._dispatcher is None)\n"
    )
    assert _fresh_process(code).stdout.split() == ["True", "True"]


def test_the_first_radau_run_says_it_compiles_when_nothing_is_cached(monkeypatch, caplog):
    monkeypatch.setattr(solver, "_IMPLICIT_READY", False)
    monkeypatch.setattr(solver, "cached_signatures", lambda k: [])
    with caplog.at_level(logging.WARNING, logger="gapsweep.core.solver"):
        for _ in range(2):  # once per process
            r = run_cases("slider-crank", [{"integrator": "radau5", "t_end": "0.002"}],
                          threads=1)[0]  # fmt: skip
            assert r.ok, r.reason
    notes = [rec.getMessage() for rec in caplog.records if "Radau IIA" in rec.getMessage()]
    assert len(notes) == 1 and notes[0].startswith("radau5: compiling"), notes
    # now the implicit loop is in numba's cache beside the explicit one: a fresh process
    # loads it and says nothing
    # (the explicit loop too: a dopri5 run caches it, if the warm-up has not already)
    assert run_cases("slider-crank", [{"t_end": "0.002"}], threads=1)[0].ok
    sigs = cached_signatures(solver.integrate_batch)
    assert any(str(s[10]) != "none" for s in sigs), sigs
    assert any(str(s[10]) == "none" for s in sigs), sigs
    code = (
        "from gapsweep.core.api import run_cases\n"
        "r = run_cases('slider-crank', [{'integrator': 'radau5', 't_end': '0.002'}],"
        " threads=1)[0]\n"
        "assert r.ok, r.reason\n"
    )
    out = _fresh_process(code)
    assert "compiling" not in out.stderr, out.stderr


def test_a_dopri5_run_says_nothing_about_radau(monkeypatch, caplog):
    monkeypatch.setattr(solver, "_IMPLICIT_READY", False)
    monkeypatch.setattr(solver, "cached_signatures", lambda k: [])
    with caplog.at_level(logging.WARNING, logger="gapsweep.core.solver"):
        assert run_cases("slider-crank", [{"t_end": "0.002"}], threads=1)[0].ok
    assert not [rec for rec in caplog.records if "Radau" in rec.getMessage()]
