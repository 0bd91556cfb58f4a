"""Studies: the spec a file, form or API gives, its designs (the case lists) and their analyses.

Knows nothing of SQL, Celery or Dash: the CLI, the API and the pages all use it."""

from .designs import DESIGNS, StudyPlan, estimate_seconds, plan_study
from .errors import FieldError, SpecError
from .spec import StudySpec, dumps_toml, load_spec_file, loads_spec, parse_spec

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
