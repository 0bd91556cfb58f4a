"""An adaptive study's search box: its axes as bounds, parameter vectors as case params."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .schema import StudySpec, typed


def axis_bounds(spec: StudySpec) -> list[tuple[float, float]]:
    return [tuple(float(b) for b in a.bounds()) for a in spec.axes.values()]


def case_params(spec: StudySpec, x: Sequence[float]) -> dict[str, Any]:
    """The case of parameter vector ``x`` (axis order): base values, then the axes, typed."""
    kinds = spec.param_kinds()
    return {**spec.base, **{n: typed(kinds[n], float(v)) for n, v in zip(spec.axes, x,
                                                                          strict=True)}}


def integer_axes(spec: StudySpec) -> tuple[bool, ...]:
    kinds = spec.param_kinds()
    return tuple(kinds[n] == "int" for n in spec.axes)
