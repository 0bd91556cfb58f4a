"""The study spec's schema: what a study file, the web form and ``POST /api/studies``
describe (design.md 4.2), as pydantic models, and how a parameter's values are typed.

Only the shape lives here; :mod:`.spec` reads and validates a spec (the semantic checks of
:mod:`.checks` and :mod:`.design_rules` build on this module, so the three form a chain:
schema <- design_rules <- checks <- spec).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import numpy as np
from gapsweep.core.api import DEFAULT_MODEL, get_model
from pydantic import BaseModel, ConfigDict, Field, FiniteFloat, StringConstraints, model_validator

from . import design_registry
from .design_registry import ADAPTIVE_DESIGNS, DEFAULT_DESIGN, SAMPLING_DESIGNS  # noqa: F401

# the design registry's names (study/design_registry.py), a Literal for pydantic's message
DesignName = Literal[design_registry.NAMES]  # type: ignore[valid-type]
Goal = Literal["min", "max", "target"]
Tag = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=40)]
Name = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=200)]

# Levels computed from a range or a factor are rounded to this many significant digits, so
# that 0.9 * 1.1 is stored as 0.99, not 0.9900000000000001.
LEVEL_DIGITS = 12


def _tidy(x: float) -> float:
    return float(f"{x:.{LEVEL_DIGITS}g}")


class Axis(BaseModel):
    """One varied parameter, in one of three forms, or a distribution (monte-carlo).

    ``values`` (optional ``nominal``, one of them); ``start``/``stop``/``count`` (evenly
    spaced, both ends included; a sampling design reads only ``start``/``stop``, so there
    the ``count`` may be left out: the ``"bounds"`` form);
    ``nominal``/``relative_percent``/``levels`` (``nominal * (1 ± relative_percent / 100)``,
    ``levels`` evenly spaced). Values carry the parameter's own unit (``clearance_mm``: mm).
    The distribution form (design.md 4.8, :mod:`.distributions`): ``distribution =
    "normal"`` with ``nominal`` and ``three_sigma`` or ``relative_percent``; ``"uniform"``
    with ``low``/``high`` or ``nominal``/``half_width``; ``fit``/``diameter_mm`` on a
    clearance axis.
    """

    model_config = ConfigDict(extra="forbid")

    values: list[Any] | None = None
    nominal: Any = None
    start: FiniteFloat | None = None
    stop: FiniteFloat | None = None
    count: int | None = Field(None, ge=1)
    relative_percent: FiniteFloat | None = Field(None, ge=0)
    levels: int | None = Field(None, ge=1)
    distribution: Literal["normal", "uniform", "fit"] | None = None
    three_sigma: FiniteFloat | None = Field(None, ge=0)
    low: FiniteFloat | None = None
    high: FiniteFloat | None = None
    half_width: FiniteFloat | None = Field(None, ge=0)
    fit: str | None = Field(None, max_length=20)
    diameter_mm: FiniteFloat | None = None

    @property
    def form(self) -> str | None:
        """``"values"``, ``"range"``, ``"factor"``, ``"distribution"``, or None if the keys
        fit no form."""
        given = {k for k, v in self.__dict__.items() if v is not None}
        if self.distribution is not None or self.fit is not None:
            return "distribution" if given - {"distribution"} in DISTRIBUTION_KEYS.get(
                self.distribution or "fit", ()) else None
        if given in ({"values"}, {"values", "nominal"}):
            return "values"
        if given == {"start", "stop", "count"}:
            return "range"
        if given == {"start", "stop"}:
            # a sampling design draws within the bounds and needs no level count, nor does
            # an adaptive study's search box (design.md 4.9)
            return "bounds"
        if given == {"nominal", "relative_percent", "levels"}:
            return "factor"
        return None

    @property
    def n_levels(self) -> int:
        """How many levels the axis has (without building them); a distribution: the
        values :meth:`level_values` gives for the checks."""
        if self.form == "distribution":
            return len(self.level_values())
        if self.form == "values":
            return len(self.values or [])
        if self.form == "bounds":
            return 2
        return int(self.count if self.form == "range" else self.levels)

    def level_values(self) -> list[Any]:
        """The axis's levels in order (no rounding to the parameter's type); a
        distribution's: the ends of a bounded support, a normal's nominal."""
        if self.form == "distribution":
            if self.distribution == "normal":
                return [_tidy(float(self.nominal))]
            return list(self.bounds())
        if self.form == "values":
            return list(self.values or [])
        if self.form == "bounds":
            return [self.start, self.stop]
        if self.form == "range":
            grid = np.linspace(self.start, self.stop, self.count)
            return [_tidy(x) for x in grid]
        t = np.linspace(-1.0, 1.0, self.levels) if self.levels > 1 else np.zeros(1)
        p = self.relative_percent / 100.0
        return [_tidy(float(self.nominal) * (1.0 + p * x)) for x in t]

    def nominal_level(self) -> Any | None:
        """The nominal if it is one of the levels (values form, or factor with odd levels)."""
        if self.form == "values":
            return self.nominal
        if self.form == "factor" and self.levels % 2 == 1:
            return _tidy(float(self.nominal))
        return None

    def bounds(self) -> tuple[float, float]:
        """Lower and upper bound a sampling design draws within (parameter units); a normal:
        nominal ± 3σ (before truncation to the allowed range)."""
        if self.form == "distribution":
            return distribution_bounds(self)
        if self.form == "factor":
            n, p = float(self.nominal), self.relative_percent / 100.0
            ends = (_tidy(n * (1.0 - p)), _tidy(n * (1.0 + p)))
            return min(ends), max(ends)
        levels = [float(v) for v in self.level_values()]
        return min(levels), max(levels)

    def to_dict(self) -> dict[str, Any]:
        return self.model_dump(mode="json", exclude_none=True)


# distribution kind -> the sets of keys (besides ``distribution``) that give it
DISTRIBUTION_KEYS: dict[str, tuple[set[str], ...]] = {
    "normal": ({"nominal", "three_sigma"}, {"nominal", "relative_percent"}),
    "uniform": ({"low", "high"}, {"nominal", "half_width"}),
    "fit": ({"fit", "diameter_mm"},),
}
DISTRIBUTION_FORMS = (
    'distribution = "normal" with nominal and three_sigma (or relative_percent, 3σ in % of '
    'nominal); "uniform" with low/high (or nominal/half_width); fit = "H7/g6" with '
    "diameter_mm (a clearance axis)"
)


def distribution_bounds(axis: Axis) -> tuple[float, float]:
    """The support of a distribution axis (a normal: nominal ± 3σ), parameter units."""
    if axis.fit is not None:
        from gapsweep.core.iso286 import fit_limits

        return fit_limits(axis.fit, axis.diameter_mm).clearance_mm
    if axis.low is not None:
        return float(axis.low), float(axis.high)
    n = float(axis.nominal)
    if axis.distribution == "uniform":
        w = float(axis.half_width)
    elif axis.three_sigma is not None:
        w = float(axis.three_sigma)
    else:
        w = abs(n) * axis.relative_percent / 100.0
    return _tidy(n - w), _tidy(n + w)


# --- an adaptive study's keys (design.md 4.9): ``objective`` (optimize) and ``measurement``
# (calibrate); a measurement ``file`` is read beside the study file and embedded as ``csv``
# when submitted (.measurement_files), so the stored spec needs no file on disk
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


class StudySpec(BaseModel):
    """A validated study (design.md 4.2); build it with :func:`parse_spec`.

    ``axes`` keeps the file's order: the first axis is the outermost loop of a grid.
    """

    model_config = ConfigDict(extra="forbid")

    name: Name
    model: str = DEFAULT_MODEL
    description: str = Field("", max_length=10_000)
    tags: list[Tag] = Field(default_factory=list, max_length=50)
    design: DesignName = DEFAULT_DESIGN
    ideal_twin: bool = True
    series: Literal["preview", "full", "none"] = "preview"
    samples: int | None = Field(None, ge=1)
    seed: int | None = Field(None, ge=0)
    morris_levels: int = Field(4, ge=2)
    metric: str | None = Field(None, min_length=1, max_length=100)
    base: dict[str, Any] = Field(default_factory=dict)
    axes: dict[str, Axis] = Field(default_factory=dict)
    # model = "mechanism": the mechanism itself (design.md 4.7), stored with the study
    mechanism: dict[str, Any] | None = None
    # adaptive designs (design.md 4.9: Objective, MeasurementRef above)
    objective: Objective | None = None
    budget: int | None = Field(None, ge=10, le=100_000)
    measurement: MeasurementRef | None = None
    fit_series: str | None = Field(None, min_length=1, max_length=100)

    @model_validator(mode="before")
    @classmethod
    def _fitted_series(cls, data: Any) -> Any:
        """In a calibration, ``series`` names the measured series to fit (design.md 4.9),
        not a storage policy: it moves to ``fit_series``."""
        if (isinstance(data, dict) and data.get("design") == "calibrate"
                and data.get("series") not in (None, "preview", "full", "none")):
            data = {**data, "fit_series": data["series"]}
            data.pop("series")
        return data

    def levels(self, name: str) -> list[Any]:
        """The levels of axis ``name``, typed as the parameter is (integers rounded)."""
        kind = self.param_kinds()[name]
        return [typed(kind, v) for v in self.axes[name].level_values()]

    def param_kinds(self) -> dict[str, str]:
        """:func:`param_kinds` of the model, with a mechanism's own dotted names."""
        kinds = param_kinds(self.model)
        if self.mechanism is not None:
            # the core's mechanism layer reads the table (a run's worth of imports: only
            # for a mechanism study)
            from gapsweep.core.mechanism.case import sweepable_kinds as mechanism_kinds

            try:
                kinds = {k: v for k, v in kinds.items() if k != "mechanism"}
                kinds.update(mechanism_kinds(self.mechanism))
            except Exception:  # noqa: BLE001 - a broken table is reported by the checks
                pass
        return kinds

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready; :func:`parse_spec` of it gives this spec back."""
        out = self.model_dump(mode="json", exclude_none=True, exclude={"axes"})
        out["axes"] = {k: a.to_dict() for k, a in self.axes.items()}
        return out


def param_kinds(model: str) -> dict[str, str]:
    """Parameter name -> ``"bool"``, ``"int"``, ``"float"``, ``"str"`` or ``"list"``, from
    the model's defaults (a default of None, e.g. an automatic ``dt``, is a float)."""
    kinds = {}
    for name, default in get_model(model).defaults().items():
        if isinstance(default, bool):
            kinds[name] = "bool"
        elif isinstance(default, int):
            kinds[name] = "int"
        elif isinstance(default, float) or default is None:
            kinds[name] = "float"
        elif isinstance(default, (tuple, list)):
            kinds[name] = "list"
        else:
            kinds[name] = "str"
    return kinds


def typed(kind: str, value: Any) -> Any:
    """``value`` as a parameter of ``kind`` takes it: integers rounded, floats as float."""
    if kind == "int" and isinstance(value, (int, float)) and not isinstance(value, bool):
        return int(round(value))
    if kind == "float" and isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    return value
