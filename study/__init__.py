"""Studies: the spec a file, form or API gives, its designs (the case lists) and their analyses.

Knows nothing of SQL, Celery or Dash: the CLI, the API and the pages all use it.

The names below are imported on first use (PEP 562): importing one light submodule
(``gapsweep.study.errors``, ``.twins``) must not load the designs' scipy and SALib, which
would cost every CLI command that never plans a study (issue 16)."""

from __future__ import annotations

import importlib
from typing import Any

_WHERE = {
    "DESIGNS": "designs", "StudyPlan": "designs", "estimate_seconds": "designs",
    "plan_study": "designs", "FieldError": "errors", "SpecError": "errors",
    "StudySpec": "spec", "dumps_toml": "spec", "load_spec_file": "spec", "loads_spec": "spec",
    "parse_spec": "spec",
}


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f".{_WHERE[name]}", __name__), name)


__all__ = [
    "DESIGNS",
    "FieldError",
    "SpecError",
    "StudyPlan",
    "StudySpec",
    "dumps_toml",
    "estimate_seconds",
    "load_spec_file",
    "loads_spec",
    "parse_spec",
    "plan_study",
]
