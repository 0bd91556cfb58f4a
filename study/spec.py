"""The study spec: what a study file, the web form and ``POST /api/studies`` describe.

One schema for all three (design.md 4.2). :func:`parse_spec` validates a mapping once, at
the edge, and refuses it with *every* problem found (:class:`~.errors.SpecError`), each
naming its field path, the value and what is allowed. Parameter values are checked by the
core itself (``get_model(model).parse``), so the solver's ranges are the only ones.
"""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, FiniteFloat, StringConstraints, ValidationError

from .errors import FieldError, SpecError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

DesignName = Literal["grid", "one-at-a-time", "latin-hypercube", "sobol", "morris", "convergence"]
SAMPLING_DESIGNS = ("latin-hypercube", "sobol", "morris")
Tag = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=40)]
Name = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=200)]

# Levels computed from a range or a factor are rounded to this many significant digits, so
# that 0.9 * 1.1 is stored as 0.99, not 0.9900000000000001.
LEVEL_DIGITS = 12


def _tidy(x: float) -> float:
    return float(f"{x:.{LEVEL_DIGITS}g}")


class Axis(BaseModel):
    """One varied parameter, in one of three forms.

    ``values`` (optional ``nominal``, one of them); ``start``/``stop``/``count`` (evenly
    spaced, both ends included); ``nominal``/``relative_percent``/``levels``
    (``nominal * (1 ± relative_percent / 100)``, ``levels`` evenly spaced). Values carry the
    parameter's own unit (``clearance_mm``: mm).
    """

    model_config = ConfigDict(extra="forbid")

    values: list[Any] | None = None
    nominal: Any = None
    start: FiniteFloat | None = None
    stop: FiniteFloat | None = None
    count: int | None = Field(None, ge=1)
    relative_percent: FiniteFloat | None = Field(None, ge=0)
    levels: int | None = Field(None, ge=1)

    @property
    def form(self) -> str | None:
        """``"values"``, ``"range"``, ``"factor"``, or None if the keys fit no form."""
        given = {k for k, v in self.__dict__.items() if v is not None}
        if given in ({"values"}, {"values", "nominal"}):
            return "values"
        if given == {"start", "stop", "count"}:
            return "range"
        if given == {"nominal", "relative_percent", "levels"}:
            return "factor"
        return None

    @property
    def n_levels(self) -> int:
        """How many levels the axis has (without building them)."""
        if self.form == "values":
            return len(self.values or [])
        return int(self.count if self.form == "range" else self.levels)

    def level_values(self) -> list[Any]:
        """The axis's levels in order (no rounding to the parameter's type)."""
        if self.form == "values":
            return list(self.values or [])
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
        """Lower and upper bound a sampling design draws within (parameter units)."""
        if self.form == "factor":
            n, p = float(self.nominal), self.relative_percent / 100.0
            ends = (_tidy(n * (1.0 - p)), _tidy(n * (1.0 + p)))
            return min(ends), max(ends)
        levels = [float(v) for v in self.level_values()]
        return min(levels), max(levels)

    def to_dict(self) -> dict[str, Any]:
        return self.model_dump(mode="json", exclude_none=True)


class StudySpec(BaseModel):
    """A validated study (design.md 4.2); build it with :func:`parse_spec`.

    ``axes`` keeps the file's order: the first axis is the outermost loop of a grid.
    """

    model_config = ConfigDict(extra="forbid")

    name: Name
    model: str = "slider-crank"
    description: str = Field("", max_length=10_000)
    tags: list[Tag] = Field(default_factory=list, max_length=50)
    design: DesignName = "grid"
    ideal_twin: bool = True
    series: Literal["preview", "full", "none"] = "preview"
    samples: int | None = Field(None, ge=1)
    seed: int | None = Field(None, ge=0)
    morris_levels: int = Field(4, ge=2)
    metric: str | None = Field(None, min_length=1, max_length=100)
    base: dict[str, Any] = Field(default_factory=dict)
    axes: dict[str, Axis] = Field(default_factory=dict)

    def levels(self, name: str) -> list[Any]:
        """The levels of axis ``name``, typed as the parameter is (integers rounded)."""
        kind = param_kinds(self.model)[name]
        return [typed(kind, v) for v in self.axes[name].level_values()]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready; :func:`parse_spec` of it gives this spec back."""
        out = self.model_dump(mode="json", exclude_none=True, exclude={"axes"})
        out["axes"] = {k: a.to_dict() for k, a in self.axes.items()}
        return out


def param_kinds(model: str) -> dict[str, str]:
    """Parameter name -> ``"bool"``, ``"int"``, ``"float"``, ``"str"`` or ``"list"``, from
    the model's defaults (a default of None, e.g. an automatic ``dt``, is a float)."""
    from gapsweep.core.api import get_model

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


def parse_spec(data: Mapping[str, Any]) -> StudySpec:
    """Validate a study spec; raise :class:`SpecError` listing every problem found."""
    from .checks import check_spec

    if not isinstance(data, Mapping):
        allowed = "a table of the study's keys (name, model, design, base, axes ...)"
        raise SpecError([FieldError("file", type(data).__name__, allowed)])
    errors: list[FieldError] = []
    try:
        spec = StudySpec.model_validate(dict(data))
        broken: set[str] = set()
    except ValidationError as exc:
        errors += [_from_pydantic(e, data) for e in exc.errors()]
        spec, broken = _salvage(data, exc)
    checked, more = check_spec(spec, broken)
    errors += more
    if errors:
        raise SpecError(errors)
    return checked


def loads_spec(text: str, fmt: Literal["toml", "json"]) -> StudySpec:
    """Parse a study file's text; a malformed file is refused with field ``file``."""
    try:
        if fmt == "toml":
            data = tomllib.loads(text)
        elif fmt == "json":
            data = json.loads(text)
        else:
            raise SpecError([FieldError("format", fmt, "toml or json")])
    except (tomllib.TOMLDecodeError, json.JSONDecodeError) as exc:
        raise SpecError([FieldError("file", f"malformed {fmt.upper()}", str(exc))]) from None
    return parse_spec(data)


def load_spec_file(path: str | Path) -> StudySpec:
    """Read a ``.toml`` or ``.json`` study file."""
    p = Path(path)
    fmt = {".toml": "toml", ".json": "json"}.get(p.suffix.lower())
    if fmt is None:
        raise SpecError([FieldError("file", p.name, "a .toml or .json study file")])
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise SpecError([FieldError("file", str(p), f"a readable UTF-8 file ({exc})")]) from None
    return loads_spec(text, fmt)


def dumps_toml(spec: StudySpec) -> str:
    """The study file of ``spec`` (TOML); :func:`loads_spec` gives ``spec`` back."""
    from .toml_writer import write_study

    return write_study(spec.to_dict())


# --- pydantic's errors in the study file's words ------------------------------------------


def _path(loc: tuple[Any, ...]) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out or "file"


def _keys_at(loc: tuple[Any, ...]) -> list[str]:
    """The keys allowed in the table that holds the key at ``loc``."""
    model = Axis if len(loc) == 3 and loc[0] == "axes" else StudySpec
    return list(model.model_fields)


_ALLOWED = {
    "missing": "required",
    "finite_number": "a finite number",
    "int_parsing": "an integer",
    "int_from_float": "an integer",
    "int_type": "an integer",
    "float_parsing": "a number",
    "float_type": "a number",
    "bool_parsing": "true or false",
    "bool_type": "true or false",
    "string_type": "a string",
    "list_type": "a list",
    "dict_type": "a table of keys and values",
    "model_type": "a table of keys and values",
    "model_attributes_type": "a table of keys and values",
}


def _from_pydantic(err: Mapping[str, Any], data: Mapping[str, Any]) -> FieldError:
    loc, kind, ctx = tuple(err["loc"]), err["type"], err.get("ctx") or {}
    field = _path(loc)
    value = err.get("input")
    if kind == "missing":
        value = None
    if kind == "extra_forbidden":
        allowed = "no such key; allowed: " + ", ".join(_keys_at(loc))
    elif kind in _ALLOWED:
        allowed = _ALLOWED[kind]
    elif kind == "literal_error":
        allowed = "one of " + str(ctx.get("expected", "")).replace("'", "")
    elif kind in ("string_too_short", "string_too_long") and loc == ("name",):
        allowed = "1-200 characters"
    elif kind in ("string_too_short", "too_short"):
        allowed = f"at least {ctx.get('min_length')} characters"
    elif kind == "string_too_long":
        allowed = f"at most {ctx.get('max_length')} characters"
    elif kind == "too_long":
        allowed = f"at most {ctx.get('max_length')} items"
    elif kind == "greater_than_equal":
        allowed = f">= {ctx.get('ge')}"
    else:
        allowed = str(err.get("msg", kind))
    if isinstance(value, float) and math.isnan(value):
        value = "nan"
    return FieldError(field, value, allowed)


def _salvage(data: Mapping[str, Any], exc: ValidationError) -> tuple[StudySpec, set[str]]:
    """A spec of the parts that did validate (defaults for the rest), so that the semantic
    checks can still report their errors; ``broken`` names the parts replaced."""
    broken: set[str] = set()
    bad_axes: set[str] = set()
    for e in exc.errors():
        loc = tuple(e["loc"])
        if loc[0] == "axes" and len(loc) >= 2:
            bad_axes.add(str(loc[1]))
        broken.add(str(loc[0]))
    clean = {k: v for k, v in data.items() if k in StudySpec.model_fields and k not in broken}
    if "axes" in broken and isinstance(data.get("axes"), Mapping):
        clean["axes"] = {k: v for k, v in data["axes"].items() if k not in bad_axes}
        if bad_axes and len(bad_axes) < len(data["axes"]):
            broken.discard("axes")
            broken.add("axes:partial")
    clean.setdefault("name", "unnamed")
    try:
        return StudySpec.model_validate(clean), broken
    except ValidationError:  # pragma: no cover - defensive: nothing left to check against
        return StudySpec(name="unnamed"), broken | {"model", "base", "axes"}
