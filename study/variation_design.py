"""``design = "monte-carlo"``: a spec's distribution axes -> checks, distributions, cases.

design.md 4.8. Each axis is a :class:`~.distributions.Distribution`; ``samples`` cases are
drawn from ``seed`` (0 when unset). The parameter's allowed range is the core's own check
(``get_model(model).parse`` with the base values), never a copy: a uniform's or a fit's
support must lie inside it (else the spec is refused naming the key), a normal is truncated
to it.

A fit axis (``fit``/``diameter_mm``) is allowed on a clearance axis only (a name ending in
``clearance_mm``: ``clearance_mm``, ``joints.<joint>.clearance_mm``); every case then also
carries the joint's bearing radius = diameter / 2 (``bearing_radius_mm`` beside the
clearance), which must not be set in the base or on another axis.

Ideal twins (design.md 4.5) are keyed, as in every design, on the parameters that change an
ideal-joint run: the clearance, bearing radius, contact and friction fields are not among
them, so a variation study of those (a fit, stiffness, restitution, friction) has **one**
twin for all its samples; a sampled speed, mass or length changes the ideal run, so each
sample then gets its own twin (as many twins as samples: the deviation of a case is from the
ideal run of its own setting). :func:`twin_note` says which, for the page.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from gapsweep.core.api import get_model
from gapsweep.core.errors import InputError
from gapsweep.core.iso286 import DIAMETER_ALLOWED, FIT_ALLOWED
from gapsweep.core.parameters import ideal_ignored

from . import distributions
from .errors import FieldError
from .schema import DISTRIBUTION_FORMS, Axis, StudySpec, typed

CLEARANCE_SUFFIX = "clearance_mm"


def bearing_param(axis_name: str) -> str:
    """The bearing radius beside a clearance parameter (same joint prefix)."""
    return axis_name[: -len(CLEARANCE_SUFFIX)] + "bearing_radius_mm"


def _accepts(model: str, base: dict[str, Any], name: str) -> Any:
    entry = get_model(model)

    def allowed(value: float) -> bool:
        try:
            entry.parse({**base, name: value})
        except (InputError, TypeError, ValueError):
            return False
        return True

    return allowed


def fixed_params(spec: StudySpec) -> dict[str, Any]:
    """The base plus the bearing radius each fit axis sets."""
    out = dict(spec.base)
    for name, axis in spec.axes.items():
        if axis.form == "distribution" and axis.fit is not None:
            out[bearing_param(name)] = axis.diameter_mm / 2.0
    return out


def axis_distribution(spec: StudySpec, name: str) -> distributions.Distribution:
    """The distribution of axis ``name`` of a checked monte-carlo spec."""
    axis = spec.axes[name]
    if axis.fit is not None:
        return distributions.fit(axis.fit, axis.diameter_mm)
    lo, hi = axis.bounds()
    if axis.distribution == "uniform":
        return distributions.uniform(lo, hi)
    three_sigma = (hi - lo) / 2.0
    return distributions.normal(float(axis.nominal), three_sigma,
                                _accepts(spec.model, fixed_params(spec), name))


def monte_carlo(spec: StudySpec) -> tuple[list[dict[str, Any]], np.ndarray]:
    """The cases of a monte-carlo spec and its sample matrix (one column per axis)."""
    names = list(spec.axes)
    dists = [axis_distribution(spec, n) for n in names]
    matrix = distributions.sample_matrix(dists, spec.samples, spec.seed or 0)
    kinds = spec.param_kinds()
    fixed = fixed_params(spec)
    cases = [{**fixed, **{n: typed(kinds[n], float(x)) for n, x in zip(names, row, strict=True)}}
             for row in matrix]
    return cases, matrix


def twin_note(spec: StudySpec) -> str:
    """Whether the samples share one ideal twin or each has its own (see the module doc)."""
    if not spec.ideal_twin:
        return "No ideal twins (ideal_twin = false)."
    ignored = ideal_ignored(spec.model)
    moving = [n for n in spec.axes if n not in ignored]
    if not moving:
        return ("One ideal twin for all samples: the sampled parameters do not change an "
                "ideal-joint run.")
    return (f"Each sample has its own ideal twin: {', '.join(moving)} change the ideal-joint "
            "run, so a case's deviation is taken from the ideal run of its own setting.")


# --- checks -------------------------------------------------------------------------------


def check_axis(spec: StudySpec, name: str, axis: Axis, base: dict[str, Any]) -> list[FieldError]:
    """Errors of one distribution axis (``axis.form == "distribution"``)."""
    field = f"axes.{name}"
    if spec.design != "monte-carlo":
        return [FieldError(field, axis.distribution or "fit",
                           'a distribution only with design = "monte-carlo"')]
    if axis.fit is not None:
        return _check_fit(spec, field, name, axis, base)
    nominal = axis.nominal
    if axis.low is None and not (isinstance(nominal, (int, float))
                                 and not isinstance(nominal, bool) and math.isfinite(nominal)):
        return [FieldError(f"{field}.nominal", nominal, "a finite number")]
    lo, hi = axis.bounds()
    accepts = _accepts(spec.model, base, name)
    if axis.distribution == "normal":
        if not accepts(float(nominal)):
            return [_core_refusal(spec, base, name, f"{field}.nominal", nominal)]
        return []
    if not lo < hi:
        key = "low" if axis.low is not None else "half_width"
        return [FieldError(f"{field}.{key}", getattr(axis, key),
                           "a support of positive width (low < high, half_width > 0)")]
    for end, value in (("low", lo), ("high", hi)):
        if not accepts(value):
            key = end if axis.low is not None else "half_width"
            return [_core_refusal(spec, base, name, f"{field}.{key}", getattr(axis, key),
                                  f"a support inside the allowed range ({end} end {value:g})")]
    return []


def _core_refusal(spec: StudySpec, base: dict, name: str, field: str, value: Any,
                  what: str = "") -> FieldError:
    try:
        get_model(spec.model).parse({**base, name: value})
        allowed = "allowed by the model"
    except InputError as exc:
        allowed = exc.allowed
    except (TypeError, ValueError) as exc:
        allowed = str(exc)
    return FieldError(field, value, f"{what}: {allowed}" if what else allowed)


def _check_fit(spec: StudySpec, field: str, name: str, axis: Axis,
               base: dict[str, Any]) -> list[FieldError]:
    if not name.endswith(CLEARANCE_SUFFIX):
        return [FieldError(f"{field}.fit", axis.fit,
                           "a fit only on a clearance axis (a name ending in clearance_mm)")]
    radius = bearing_param(name)
    if radius not in spec.param_kinds():
        return [FieldError(f"{field}.fit", axis.fit,
                           f"a model with a bearing radius ({radius}) beside the clearance")]
    if radius in spec.base or radius in spec.axes:
        where = f"base.{radius}" if radius in spec.base else f"axes.{radius}"
        return [FieldError(where, radius, f"not set: the fit of {field} sets it to "
                           "diameter_mm / 2")]
    try:
        dist = distributions.fit(axis.fit, axis.diameter_mm)
    except InputError as exc:
        key = "fit" if exc.field == "fit" else "diameter_mm"
        allowed = FIT_ALLOWED if key == "fit" else DIAMETER_ALLOWED
        return [FieldError(f"{field}.{key}", getattr(axis, key), allowed)]
    with_radius = {**base, radius: dist.bearing_radius_mm}
    accepts = _accepts(spec.model, with_radius, name)
    for end in (dist.low, dist.high):
        if not accepts(end):
            return [_core_refusal(spec, with_radius, name, f"{field}.fit", axis.fit,
                                  f"a fit whose radial clearance {end:g} mm is allowed")]
    return []


def check_design(spec: StudySpec) -> list[FieldError]:
    """Errors of a monte-carlo spec as a whole: ``samples`` set, every axis a distribution."""
    errors = []
    if spec.samples is None:
        errors.append(FieldError("samples", None, "an integer >= 1 (cases) for monte-carlo"))
    kinds = spec.param_kinds()
    for name, axis in spec.axes.items():
        if axis.form != "distribution":
            errors.append(FieldError(f"axes.{name}", sorted(axis.to_dict()),
                                     "for monte-carlo, " + DISTRIBUTION_FORMS))
        elif kinds.get(name) not in ("int", "float"):
            errors.append(FieldError(f"axes.{name}", name, "a numeric parameter to sample"))
    return errors
