"""Where a result came from: recorded on every study when it is created (design.md 3)."""

from __future__ import annotations

import platform
import socket
import subprocess
from importlib import metadata
from pathlib import Path
from typing import Any

from gapsweep.core.api import get_model
from gapsweep.core.parameters import OUTPUT, SOLVER
from gapsweep.core.parameters import names as parameter_names
from gapsweep.study.spec import StudySpec

_REPO = Path(__file__).resolve().parent.parent

# The core's solver and output settings (every model's, from the parameter registry):
# recorded with their effective values (defaults unless the study's base sets them), so a
# result can be reproduced without knowing today's defaults.
SOLVER_FIELDS = parameter_names(kinds=(SOLVER, OUTPUT))


def _version(package: str) -> str | None:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return None


def git_commit() -> str | None:
    """The source tree's commit (with ``-dirty`` for uncommitted edits), if it is a checkout."""
    try:
        commit = subprocess.run(
            ["git", "-C", str(_REPO), "rev-parse", "HEAD"],
            capture_output=True, text=True, timeout=5, check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(_REPO), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True, text=True, timeout=5, check=True,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return commit + ("-dirty" if dirty else "")


def collect(spec: StudySpec) -> dict[str, Any]:
    """Versions, host and effective solver options for a study of ``spec``."""
    defaults = get_model(spec.model).defaults()
    solver = {k: spec.base.get(k, defaults[k]) for k in SOLVER_FIELDS if k in defaults}
    solver = {k: (None if v == float("inf") else v) for k, v in solver.items()}
    return {
        "gapsweep": _version("gapsweep"),
        "git_commit": git_commit(),
        "python": platform.python_version(),
        "numpy": _version("numpy"),
        "scipy": _version("scipy"),
        "numba": _version("numba"),
        "host": socket.gethostname(),
        "platform": platform.platform(),
        "solver_options": solver,
    }
