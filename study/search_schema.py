"""The keys of an adaptive study's spec (design.md 4.9), as pydantic models.

``objective = {metric, goal, value}`` (``design = "optimize"``) and ``measurement = {file}``
or ``{id}`` (``design = "calibrate"``). A measurement ``file`` is read relative to the study
file's folder and embedded in the spec as ``csv`` when the study is submitted
(:func:`gapsweep.study.spec.load_spec_file`), so the stored spec needs no file on disk.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, FiniteFloat

ADAPTIVE_DESIGNS = ("optimize", "calibrate")
Goal = Literal["min", "max", "target"]


class Objective(BaseModel):
    """What ``optimize`` minimises: ``metric`` (a metric of the case), ``goal`` min | max |
    target, ``value`` (the target, in the metric's SI unit; only for goal target)."""

    model_config = ConfigDict(extra="forbid")

    metric: str = Field(min_length=1, max_length=100)
    goal: Goal = "min"
    value: FiniteFloat | None = None


class MeasurementRef(BaseModel):
    """The record a calibration fits: a ``file`` (its text embedded as ``csv`` on submit)
    or the ``id`` of a stored measurement."""

    model_config = ConfigDict(extra="forbid")

    file: str | None = Field(None, min_length=1, max_length=500)
    id: int | None = Field(None, ge=1)
    csv: str | None = None
