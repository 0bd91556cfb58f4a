"""What each design asks of a spec (design.md 4.5), and how many cases it makes.

Kept apart from the designs themselves so that :func:`~.spec.parse_spec` can refuse a spec
(and count its cases against ``GAPSWEEP_MAX_CASES``) without building any case. Reads only
the schema: :mod:`.checks` calls it, never the other way round.
"""

from __future__ import annotations

import math
import os

from gapsweep.core.convergence import refinement_study
from gapsweep.core.errors import InputError

from .design_registry import ADAPTIVE_DESIGNS, SAMPLING_DESIGNS, get_design
from .errors import FieldError
from .schema import StudySpec
from .search_rules import adaptive_errors, not_adaptive_errors
from .variation_design import check_design as check_monte_carlo

DEFAULT_MAX_CASES = 100_000
OAT_NOMINAL = (
    "a nominal among the levels for one-at-a-time: values with a nominal that is one of "
    "them, or nominal/relative_percent/levels with odd levels"
)


def max_cases() -> int:
    """``GAPSWEEP_MAX_CASES`` (default 100000): the most cases one study may have."""
    try:
        return max(1, int(os.environ.get("GAPSWEEP_MAX_CASES", DEFAULT_MAX_CASES)))
    except ValueError:
        return DEFAULT_MAX_CASES


def _n_levels(spec: StudySpec) -> list[int]:
    return [a.n_levels for a in spec.axes.values()]


def _is_number(x: object) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


# each design's case count, named by its entry in the design registry (.design_registry)
def grid_count(s: StudySpec) -> int:
    return math.prod(_n_levels(s))


def one_at_a_time_count(s: StudySpec) -> int:
    return 1 + sum(n - 1 for n in _n_levels(s))


def samples_count(s: StudySpec) -> int:
    return s.samples or 0


def sobol_count(s: StudySpec) -> int:
    return (s.samples or 0) * (2 * len(s.axes) + 2)


def morris_count(s: StudySpec) -> int:
    return (s.samples or 0) * (len(s.axes) + 1)


def convergence_count(s: StudySpec) -> int:
    return sum(_n_levels(s))


def budget_count(s: StudySpec) -> int:
    return s.budget or 0  # at most: the search may stop short of it


def count_cases(spec: StudySpec) -> int:
    """Cases the design makes (ideal twins not counted)."""
    return get_design(spec.design).case_count(spec)


def _one_at_a_time(spec: StudySpec) -> list[FieldError]:
    errors = []
    for name, axis in spec.axes.items():
        if axis.form == "range":
            errors.append(FieldError(f"axes.{name}", "start/stop/count", OAT_NOMINAL))
        elif axis.form == "factor" and axis.levels % 2 == 0:
            errors.append(FieldError(f"axes.{name}.levels", axis.levels, OAT_NOMINAL))
        elif axis.form == "values" and axis.nominal is None:
            errors.append(FieldError(f"axes.{name}.nominal", None, OAT_NOMINAL))
    return errors


def _convergence(spec: StudySpec, complete: bool) -> list[FieldError]:
    errors = []
    if complete and len(spec.axes) != 1:
        errors.append(FieldError("axes", list(spec.axes), "exactly one refinement axis"))
    if spec.metric is None:
        errors.append(FieldError("metric", None, "a metric to follow, e.g. peak_slider_accel"))
    kinds = spec.param_kinds()
    for name in spec.axes:
        levels = spec.levels(name)
        if kinds[name] not in ("int", "float") or not all(map(_is_number, levels)):
            errors.append(FieldError(f"axes.{name}", name, "a numeric parameter to refine"))
            continue
        try:  # the core's own rules for refinement levels (positive, monotone, ratio)
            refinement_study([float(v) for v in levels], [1.0] * len(levels))
        except InputError as exc:
            allowed = exc.allowed.replace(", or pass ratio=", "")  # no ratio key in a spec
            errors.append(FieldError(f"axes.{name}", levels, f"refinement levels {allowed}"))
    return errors


def _sampling(spec: StudySpec) -> list[FieldError]:
    errors = []
    if spec.samples is None:
        errors.append(FieldError("samples", None, f"an integer >= 1 (N) for {spec.design}"))
    kinds = spec.param_kinds()
    for name, axis in spec.axes.items():
        if kinds[name] not in ("int", "float"):
            errors.append(FieldError(f"axes.{name}", name,
                                     f"a numeric parameter for {spec.design} "
                                     f"({name} is {kinds[name]})"))
            continue
        if not all(map(_is_number, axis.level_values())):
            errors.append(FieldError(f"axes.{name}", axis.values, "numbers to sample between"))
            continue
        lo, hi = axis.bounds()
        if not lo < hi:
            errors.append(FieldError(f"axes.{name}", [lo, hi],
                                     "a lower bound < upper bound to sample within"))
    return errors


def check_design(spec: StudySpec, *, complete: bool, count: bool) -> list[FieldError]:
    """Errors of ``spec`` against its design's needs. ``complete``: every axis validated
    (else rules over all axes are skipped); ``count``: also check the case limit."""
    if spec.design == "one-at-a-time":
        errors = _one_at_a_time(spec)
    elif spec.design == "convergence":
        errors = _convergence(spec, complete)
    elif spec.design in SAMPLING_DESIGNS:
        errors = _sampling(spec)
    elif spec.design == "monte-carlo":
        errors = check_monte_carlo(spec)
    elif spec.design in ADAPTIVE_DESIGNS:
        errors = adaptive_errors(spec)
    else:
        errors = []
    if spec.design not in ADAPTIVE_DESIGNS:
        errors += not_adaptive_errors(spec)
    if count and complete and not errors and spec.axes:
        n, limit = count_cases(spec), max_cases()
        if n > limit:
            field = "design" if spec.design in (*SAMPLING_DESIGNS, "monte-carlo") else "axes"
            errors.append(FieldError(field, n, f"at most {limit} cases (GAPSWEEP_MAX_CASES); "
                                     f"this {spec.design} study has {n}"))
    return errors
