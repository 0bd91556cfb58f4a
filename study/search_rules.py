"""What ``optimize`` and ``calibrate`` ask of a spec (design.md 4.9), and what the other
designs may not use. Reads only the schema (:mod:`.design_rules` calls it)."""

from __future__ import annotations

from .errors import FieldError, SpecError
from .measurements import parse_measurement, series_names
from .schema import StudySpec

#: a calibration's fitted series when the spec does not name one
DEFAULT_FIT_SERIES = "slider_acceleration"
MAX_SEARCH_AXES = 6


def adaptive_errors(spec: StudySpec) -> list[FieldError]:
    errors = []
    if spec.budget is None:
        errors.append(FieldError("budget", None, f"an integer >= 10: the most cases "
                                 f"{spec.design} may run"))
    kinds = spec.param_kinds()
    if len(spec.axes) > MAX_SEARCH_AXES:
        errors.append(FieldError("axes", list(spec.axes), f"at most {MAX_SEARCH_AXES} axes"))
    for name, axis in spec.axes.items():
        if kinds.get(name) not in ("int", "float"):
            errors.append(FieldError(f"axes.{name}", name, f"a numeric parameter for "
                                     f"{spec.design} ({name} is {kinds.get(name)})"))
            continue
        lo, hi = axis.bounds()
        if not lo < hi:
            errors.append(FieldError(f"axes.{name}", [lo, hi], "start < stop: the bounds "
                                     "to search within"))
    if spec.design == "optimize":
        errors += _objective_errors(spec)
        if spec.measurement is not None:
            errors.append(FieldError("measurement", "…", "only for design calibrate"))
    else:
        errors += _measurement_errors(spec)
        if spec.objective is not None:
            errors.append(FieldError("objective", spec.objective.model_dump(),
                                     "only for design optimize (calibrate fits the measurement)"))
    return errors


def _objective_errors(spec: StudySpec) -> list[FieldError]:
    obj = spec.objective
    if obj is None:
        return [FieldError("objective", None, '{metric = "...", goal = "min" | "max" | '
                           '"target", value = ...} for optimize')]
    if obj.goal == "target" and obj.value is None:
        return [FieldError("objective.value", None, "the target value (the metric's SI unit)")]
    if obj.goal != "target" and obj.value is not None:
        return [FieldError("objective.value", obj.value, "only with goal = \"target\"")]
    return []


def _measurement_errors(spec: StudySpec) -> list[FieldError]:
    ref = spec.measurement
    series = spec.fit_series or DEFAULT_FIT_SERIES
    if series not in series_names(spec.model):
        return [FieldError("series", series, "a series of the case: "
                           + ", ".join(series_names(spec.model)))]
    if ref is None or (ref.csv is None and ref.id is None):
        return [FieldError("measurement", None if ref is None else ref.model_dump(
            exclude_none=True), "{file = \"rig.csv\"} (read beside the study file) or "
                           "{id = N} (a stored measurement)")]
    if ref.csv is not None:
        try:
            record = parse_measurement(ref.csv, model=spec.model, where="measurement")
        except SpecError as exc:
            return exc.errors
        if series not in record.series:
            return [FieldError("series", series, "a series of the measurement: "
                               + ", ".join(record.series))]
    return []


def not_adaptive_errors(spec: StudySpec) -> list[FieldError]:
    """The adaptive keys are the adaptive designs' only (the start/stop form without a count
    is checked with the axes, :mod:`.checks`)."""
    return [FieldError(key, "…", "only for design optimize or calibrate")
            for key in ("objective", "budget", "measurement", "fit_series")
            if getattr(spec, key) is not None]
