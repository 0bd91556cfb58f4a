"""What the Docker image and the wheel hold, checked without a Docker daemon (issue 16).

The image is built from the Dockerfile's COPY set only, so a package folder pyproject.toml maps
(``[tool.setuptools.package-dir]``) that the Dockerfile forgets breaks ``pip install .`` in the
image (``accounts/`` did). These tests copy exactly that set into a temporary tree and run
setuptools' ``build_py`` on it (what a wheel build runs first, ~1 s, no network, no build
isolation): it must succeed, put every listed package and its data (the examples, the web
assets, the migration template) in place, and say nothing about data folders missing from
``packages``. A tree without one package folder must fail, so the check can fail.
"""

from __future__ import annotations

import shlex
import shutil
import subprocess
import sys
from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]


def copy_sources() -> list[str]:
    """The sources of the Dockerfile's COPY lines (the last word of each is the target)."""
    sources: list[str] = []
    for line in (ROOT / "Dockerfile").read_text().splitlines():
        words = shlex.split(line.split("#", 1)[0])
        if words and words[0].upper() == "COPY":
            assert not any(w.startswith("--") for w in words), f"COPY option in {line!r}"
            sources += words[1:-1]
    return sources


def setuptools_config() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]


def build_tree(tmp_path: Path, sources: list[str]) -> subprocess.CompletedProcess:
    """``sources`` copied into a fresh tree (build leftovers left out), then ``build_py``."""
    tree = tmp_path / "tree"
    tree.mkdir()
    ignore = shutil.ignore_patterns("__pycache__", "*.egg-info", ".*")
    for name in sources:
        src = ROOT / name
        if src.is_dir():
            shutil.copytree(src, tree / name, ignore=ignore)
        else:
            shutil.copy2(src, tree / name)
    return subprocess.run(
        [sys.executable, "-c", "import setuptools; setuptools.setup()", "build_py",
         "-d", str(tmp_path / "out")],
        cwd=tree, capture_output=True, text=True, timeout=120,
    )


def test_the_dockerfile_copies_every_package_folder():
    folders = {Path(d).parts[0] for d in setuptools_config()["package-dir"].values()}
    missing = folders - set(copy_sources())
    assert not missing, f"pyproject maps {sorted(missing)}, which the Dockerfile never copies"
    assert {"pyproject.toml", "README.md"} <= set(copy_sources())


def test_the_copy_set_builds_every_package_with_its_data(tmp_path):
    out = build_tree(tmp_path, copy_sources())
    assert out.returncode == 0, out.stderr[-3000:]
    log = out.stdout + out.stderr
    assert "absent from" not in log and "as data is deprecated" not in log, log[-3000:]
    built = tmp_path / "out"
    for package in setuptools_config()["packages"]:
        assert (built / package.replace(".", "/")).is_dir(), f"{package} not built"
    # the data a running gapsweep opens: the README's study, the theme, Alembic's template
    assert (built / "gapsweep/examples/clearance_x_stiffness.toml").is_file()
    assert (built / "gapsweep/web/assets/bootstrap-flatly-5.3.3.min.css").is_file()
    assert sorted(p.name for p in (built / "gapsweep/web/assets").glob("*.js")) == sorted(
        p.name for p in (ROOT / "web/assets").glob("*.js"))
    assert (built / "gapsweep/db/migrations/script.py.mako").is_file()
    shipped = {p.name for p in (built / "gapsweep/db/migrations/versions").glob("*.py")}
    assert shipped == {p.name for p in (ROOT / "db/migrations/versions").glob("*.py")}


def test_a_tree_without_a_package_folder_fails_to_build(tmp_path):
    sources = [s for s in copy_sources() if s != "accounts"]
    out = build_tree(tmp_path, sources)
    assert out.returncode != 0
    assert "accounts" in out.stderr
