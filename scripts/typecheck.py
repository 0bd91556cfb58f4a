"""Run mypy over gapsweep as Python imports it, and print its report with the repository's
paths.

The repository's top-level folders (core/, study/, db/ ...) are installed as subpackages of
gapsweep through ``[tool.setuptools.package-dir]`` in pyproject.toml, which mypy cannot
read, and the editable install maps them with an import hook mypy does not run. So this
script lays the package out once more as links, in ``.mypy_tree/gapsweep/`` (the mapping is
read from pyproject.toml, so a new subpackage needs no edit here), and points mypy at it;
the options and the checked packages are ``[tool.mypy]`` in pyproject.toml.

    .venv/bin/python scripts/typecheck.py            # what scripts/test.sh runs
    .venv/bin/python scripts/typecheck.py -p gapsweep.web   # extra mypy arguments
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

from mypy import api

ROOT = Path(__file__).resolve().parent.parent
TREE = ROOT / ".mypy_tree"
TOP = "gapsweep"


def package_dirs() -> dict[str, str]:
    """gapsweep's subpackage -> the repository folder that holds it (``core`` -> ``core``)."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    mapping = config["tool"]["setuptools"]["package-dir"]
    return {name.removeprefix(TOP + "."): folder for name, folder in mapping.items()
            if name.startswith(TOP + ".")}


def build_tree() -> dict[str, str]:
    """Link ``.mypy_tree/gapsweep/`` together; returns tree prefix -> repository prefix."""
    shutil.rmtree(TREE, ignore_errors=True)
    package = TREE / TOP
    package.mkdir(parents=True)
    for entry in (ROOT / TOP).iterdir():
        if entry.name != "__pycache__":
            os.symlink(entry, package / entry.name)
    back = {}
    for sub, folder in package_dirs().items():
        os.symlink(ROOT / folder, package / sub)
        back[f".mypy_tree/{TOP}/{sub}/"] = f"{folder}/"
    back[f".mypy_tree/{TOP}/"] = f"{TOP}/"
    return back


def main(argv: list[str]) -> int:
    os.chdir(ROOT)
    back = build_tree()
    out, err, status = api.run(argv)
    for line in out.splitlines():
        for tree_prefix, repo_prefix in back.items():  # longest (subpackages) first
            if line.startswith(tree_prefix):
                line = repo_prefix + line[len(tree_prefix):]
                break
        print(line)
    sys.stderr.write(err)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
