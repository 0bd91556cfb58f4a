"""The compiled kernels: their cache (one folder per version of the core's sources, old ones
pruned) and the uncompiled fallback."""

from __future__ import annotations

import os

import pytest
from gapsweep.core import jit


def _fill(path, files: dict[str, int]) -> None:
    os.makedirs(path, exist_ok=True)
    for name, size in files.items():
        with open(os.path.join(path, name), "wb") as handle:
            handle.write(b"x" * size)


def test_pruning_removes_earlier_versions_and_keeps_the_current(tmp_path, monkeypatch):
    here = tmp_path / "core"
    base = here / "__pycache__" / "numba"
    current = base / "current"
    _fill(current, {"stepping.integrate_batch-1.nbi": 10})
    _fill(base / "older1", {"a.nbc": 1000, "a.nbi": 24})
    _fill(base / "older2" / "sub", {"b.nbc": 2000})
    monkeypatch.setattr(jit, "_HERE", str(here))
    monkeypatch.setattr(jit, "CACHE_ROOT", str(current))
    assert jit.prune_stale_caches() == (2, 3024)
    assert sorted(os.listdir(base)) == ["current"]
    assert jit.prune_stale_caches() == (0, 0)


def test_a_cache_outside_the_tree_is_left_alone(tmp_path, monkeypatch):
    shared = tmp_path / "shared-cache"
    _fill(shared / "mine", {"x.nbi": 1})
    _fill(shared / "another-install", {"y.nbi": 1})
    monkeypatch.setattr(jit, "_HERE", str(tmp_path / "core"))
    monkeypatch.setattr(jit, "CACHE_ROOT", str(shared / "mine"))
    assert jit.prune_stale_caches() == (0, 0)
    assert sorted(os.listdir(shared)) == ["another-install", "mine"]


def test_the_cache_key_changes_with_any_core_source_and_nothing_else(tmp_path, monkeypatch):
    # numba keys each kernel on its own file; the stepping loop inlines a dozen modules, so
    # the folder must change when any of them does (stale machine code cost us measurements)
    core = tmp_path / "core"
    for rel in ("dynamics.py", "events.py", "flexible/ancf_beam.py"):
        _fill(core / os.path.dirname(rel), {})
        (core / rel).write_text(f"# {rel}\n")
    monkeypatch.setattr(jit, "_HERE", str(core))
    before = jit._sources_digest()
    _fill(core / "__pycache__" / "numba" / "x", {"k.nbi": 5})  # compiled files do not count
    (core / "notes.txt").write_text("not a source")
    assert jit._sources_digest() == before
    (core / "flexible" / "ancf_beam.py").write_text("# edited\n")  # a nested module does
    assert jit._sources_digest() != before


def simulation_kernel():
    from gapsweep.core.stepping import integrate_batch

    return integrate_batch


def test_the_uncompiled_kernels_give_the_compiled_numbers():
    # GAPSWEEP_NO_JIT runs the same Python source uncompiled: one physics, two speeds
    import json
    import subprocess
    import sys

    from gapsweep.core.simulation import simulate

    # with GAPSWEEP_NO_JIT set for the whole run this would compare Python with Python
    assert not jit.JIT_DISABLED, "GAPSWEEP_NO_JIT is set: this test needs the compiled kernels"
    kernel = simulation_kernel()  # a dispatcher made on first use (jit.Kernel)
    assert isinstance(kernel, jit.Kernel)
    assert isinstance(kernel.dispatcher(), type(jit._load_numba().njit(lambda: 0)))
    case = {"t_end": 0.0005, "clearance_mm": 0.05, "n_output": 11}
    script = (
        "import json; from gapsweep.core.simulation import simulate; "
        f"r = simulate({case!r}); print(json.dumps([r.status, r.metrics]))"
    )
    env = {**os.environ, "GAPSWEEP_NO_JIT": "1"}
    out = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True
    )
    status, metrics = json.loads(out.stdout)
    compiled = simulate(case)
    assert status == compiled.status == "ok"
    assert metrics["rhs_evaluations"] == compiled.metrics["rhs_evaluations"] > 100
    for name in ("peak_slider_accel", "peak_contact_force", "max_penetration"):
        assert metrics[name] == pytest.approx(compiled.metrics[name], rel=1e-12)


def test_the_rhs_as_a_call_and_its_inlined_twin_are_one_function_with_two_caches():
    # the stage loop inlines dynamics.derivative's twin, every other caller calls it: the
    # two must run the same code (one body: no copy to drift) and never share numba's cache
    # entries (its cache files are named by the function's qualified name)
    from gapsweep.core import dynamics

    if jit.JIT_DISABLED:
        assert dynamics.derivative_inlined.__code__ is dynamics.derivative.__code__
        return
    call, twin = dynamics.derivative, dynamics.derivative_inlined
    assert twin.py_func.__code__ is call.py_func.__code__
    assert twin.py_func.__qualname__ != call.py_func.__qualname__
    assert twin.targetoptions["inline"] == "always"
    assert call.targetoptions.get("inline", "never") == "never"
