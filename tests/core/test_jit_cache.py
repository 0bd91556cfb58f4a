"""The compiled-kernel cache: one folder per version of the core's sources, old ones pruned."""

from __future__ import annotations

import os

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


def test_the_cache_folder_is_keyed_on_the_core_sources():
    # every module of the core feeds the key: an edit anywhere gives a new folder
    assert os.path.basename(jit.CACHE_ROOT) == jit._sources_digest()
    assert len(jit._sources_digest()) == 16
