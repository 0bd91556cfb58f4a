"""The checks of a study spec beyond its shape: parameters, levels, design requirements.

Parameter values are judged by the core (``get_model(model).parse``), never by a copy of its
ranges here; this module only translates the core's :class:`InputError` into the study
file's field paths (``axes.clearance_mm.values[2]``, ``base.speed_rpm``).
"""

from __future__ import annotations

import difflib
import math
from typing import Any

from gapsweep.core.api import MODELS, get_model
from gapsweep.core.errors import InputError

from . import variation_design
from .design_rules import check_design, max_cases
from .errors import FieldError
from .mechanism import driverless_t_end
from .mechanism import table_errors as mechanism_errors
from .schema import ADAPTIVE_DESIGNS, DISTRIBUTION_FORMS, SAMPLING_DESIGNS, Axis, StudySpec, typed

# Range and factor levels are monotone, so their ends carry the core's interval checks;
# beyond this many levels only the first ones and the ends are checked (each check costs
# ~0.2 ms of validation in the core).
MAX_CHECKED_LEVELS = 200
AXIS_FORMS = ("values (optional nominal), or start/stop/count, or nominal/relative_percent/levels"
              " (or start/stop: the search box of optimize and calibrate); for monte-carlo: "
              + DISTRIBUTION_FORMS)


# each axis form's keys (the ones a person is told to add or remove), in AXIS_FORMS' order
_FORM_KEYS = (
    ("a list of values", ("values",), ("nominal",)),
    ("a range", ("start", "stop", "count"), ()),
    ("a nominal ± percent", ("nominal", "relative_percent", "levels"), ()),
)


def axis_form_advice(given: list[str]) -> str:
    """What to add or remove to make keys ``given`` one axis form, for a person:
    ``["start", "stop", "levels"]`` -> ``"a range: add count, remove levels (or ...)"``."""
    if not given:
        return "one form: " + AXIS_FORMS
    best = max(_FORM_KEYS, key=lambda f: len(set(given) & (set(f[1]) | set(f[2]))))
    name, needed, optional = best
    missing = [k for k in needed if k not in given]
    extra = [k for k in given if k not in needed and k not in optional]
    steps = ([f"add {', '.join(missing)}"] if missing else []) + (
        [f"remove {', '.join(extra)}"] if extra else [])
    return f"{name}: {'; '.join(steps)} (the forms: {AXIS_FORMS})"


class _Checker:
    def __init__(self, spec: StudySpec, broken: set[str]) -> None:
        self.spec = spec
        self.broken = broken
        self.errors: list[FieldError] = []
        self.model = get_model(spec.model) if spec.model in MODELS else None
        self.kinds = spec.param_kinds() if self.model else {}
        self.context = {"mechanism": spec.mechanism} if spec.mechanism is not None else {}
        if spec.mechanism is not None:  # the base's or an axis's t_end replaces it
            self.context.update(driverless_t_end(spec.mechanism))

    def add(self, field: str, value: Any, allowed: str) -> None:
        self.errors.append(FieldError(field, value, allowed))

    def core_error(self, params: dict[str, Any]) -> InputError | None:
        try:
            self.model.parse({**self.context, **params})
        except InputError as exc:
            return exc
        except (TypeError, ValueError) as exc:  # a value of a type the core cannot take
            return InputError(next(reversed(params)), None, str(exc))
        return None

    def canonical(self, params: dict[str, Any], name: str) -> Any:
        """The value of ``name`` as the core parsed it (``"0.05"`` -> 0.05, 1 -> 1.0)."""
        value = getattr(self.model.parse({**self.context, **params}), name)
        if isinstance(value, (bool, int, float, str)):
            return value
        return params[name]

    def unknown(self, field: str, name: str) -> None:
        close = difflib.get_close_matches(name, list(self.kinds), n=3)
        hint = f" (did you mean {', '.join(close)}?)" if close else ""
        self.add(field, name, f"a parameter of {self.spec.model}{hint}; "
                 f"`gapsweep params --model {self.spec.model}` lists them")

    def scalar(self, field: str, value: Any) -> bool:
        if isinstance(value, float) and not math.isfinite(value):
            self.add(field, value, "a finite number")
            return False
        if isinstance(value, (bool, int, float, str)):
            return True
        if isinstance(value, list) and all(self.scalar(f"{field}[{i}]", v)
                                           for i, v in enumerate(value)):
            return True
        if not isinstance(value, list):
            self.add(field, value, "a number, a string or true/false")
        return False

    # --- base ---------------------------------------------------------------------------

    def check_base(self) -> dict[str, Any]:
        good: dict[str, Any] = {}
        for name, value in self.spec.base.items():
            field = f"base.{name}"
            if name not in self.kinds:
                self.unknown(field, name)
            elif self.scalar(field, value):
                err = self.core_error({name: value})
                if err is None:
                    good[name] = value
                else:
                    self.add(field, value, err.allowed)
        if len(good) == len(self.spec.base) and good:
            err = self.core_error(good)
            if err is not None:  # values fine alone, not together
                where = f"base.{err.field}" if err.field in good else "base"
                self.add(where, err.value, f"{err.allowed} (with the other base values)")
                return {}
        return {k: self.canonical(good, k) for k in good}

    # --- axes ---------------------------------------------------------------------------

    def check_axes(self, base: dict[str, Any]) -> dict[str, Axis]:
        spec, out = self.spec, {}
        # a grid with no axes is one case, its base (design.md 4.16: an imported study runs
        # as written); the other designs vary something
        if (not spec.axes and spec.design != "grid" and "axes" not in self.broken
                and "axes:partial" not in self.broken):
            self.add("axes", {}, "at least one axis: [axes.NAME] with " + AXIS_FORMS
                     + f" (a {spec.design} design varies something; a grid with no axes is "
                     "one case)")
        for name, axis in spec.axes.items():
            field = f"axes.{name}"
            if name not in self.kinds:
                self.unknown(field, name)
                continue
            if name in spec.base:
                self.add(field, name, f"a parameter not also fixed in base "
                         f"(base.{name} = {spec.base[name]!r})")
                continue
            checked = self.check_axis(field, name, axis, base)
            if checked is not None:
                out[name] = checked
        return out

    def check_axis(self, field: str, name: str, axis: Axis, base: dict) -> Axis | None:
        if axis.form is None:
            given = sorted(axis.model_dump(exclude_none=True))
            self.add(field, given, axis_form_advice(given))
            return None
        if axis.form == "bounds" and self.spec.design not in (*SAMPLING_DESIGNS,
                                                              *ADAPTIVE_DESIGNS):
            self.add(f"{field}.count", None,
                     f"the number of evenly spaced levels from start to stop (a "
                     f"{self.spec.design} study runs each level; only "
                     f"{', '.join(SAMPLING_DESIGNS)} draw within start-stop without a count)")
            return None
        if axis.form == "distribution":
            errors = variation_design.check_axis(self.spec, name, axis, base)
            self.errors += errors
            return None if errors else axis
        if axis.form == "values":
            return self.check_values(field, name, axis, base)
        if axis.form == "factor" and not (
            isinstance(axis.nominal, (int, float)) and not isinstance(axis.nominal, bool)
            and math.isfinite(axis.nominal)
        ):
            self.add(f"{field}.nominal", axis.nominal, "a finite number")
            return None
        n_levels = axis.n_levels
        if n_levels > max_cases():  # refused before the levels are built
            key = "count" if axis.form == "range" else "levels"
            self.add(f"{field}.{key}", n_levels, f"at most {max_cases()} (GAPSWEEP_MAX_CASES)")
            return None
        levels = axis.level_values()
        if self.spec.design in SAMPLING_DESIGNS:
            levels = levels + list(axis.bounds())
        if n_levels > MAX_CHECKED_LEVELS:
            levels = levels[:MAX_CHECKED_LEVELS] + levels[-1:]
        kind = self.kinds[name]
        for level in dict.fromkeys(typed(kind, v) for v in levels):
            err = self.core_error({**base, name: level})
            if err is not None:
                self.level_error(field, name, axis, level, err, base)
                return None
        return axis

    def level_error(self, field, name, axis, level, err, base) -> None:
        why = self.why(name, err, base)
        if axis.form in ("range", "bounds"):
            if level in (axis.start, axis.stop):
                key = "start" if level == axis.start else "stop"
                self.add(f"{field}.{key}", getattr(axis, key), why)
            else:
                why = f"levels that are {why} (level {level:g} is not)"
                self.add(f"{field}.count", axis.count, why)
        elif level == typed(self.kinds[name], axis.nominal) or axis.relative_percent == 0:
            self.add(f"{field}.nominal", axis.nominal, why)
        else:
            self.add(f"{field}.relative_percent", axis.relative_percent,
                     f"a percentage keeping every level {why} (level {level:g} is not)")

    def why(self, name: str, err: InputError, base: dict) -> str:
        if err.field == name:
            return err.allowed
        # the level is fine alone but not with another value (base or default)
        other = f"base.{err.field}" if err.field in base else f"{err.field} (default)"
        return f"such that {other} = {err.value!r} is {err.allowed}"

    def check_values(self, field: str, name: str, axis: Axis, base: dict) -> Axis | None:
        if not axis.values:
            self.add(f"{field}.values", [], "at least one value")
            return None
        canon: list[Any] = []
        for i, value in enumerate(axis.values):
            path = f"{field}.values[{i}]"
            if not self.scalar(path, value):
                continue
            params = {**base, name: value}
            err = self.core_error(params)
            if err is not None:
                self.add(path, value, self.why(name, err, base))
            else:
                canon.append(self.canonical(params, name))
        if len(canon) < len(axis.values):
            return None
        nominal = axis.nominal
        if nominal is not None:
            ok = self.scalar(f"{field}.nominal", nominal) and self.core_error(
                {**base, name: nominal}) is None
            nominal = self.canonical({**base, name: nominal}, name) if ok else nominal
            if nominal not in canon:
                self.add(f"{field}.nominal", axis.nominal, "one of the axis's values")
                return None
        return axis.model_copy(update={"values": canon, "nominal": nominal})


def check_spec(spec: StudySpec, broken: set[str]) -> tuple[StudySpec, list[FieldError]]:
    """The spec with its values as the core reads them, and every error found."""
    c = _Checker(spec, broken)
    if c.model is None:
        if "model" not in broken:
            c.add("model", spec.model, "one of " + ", ".join(MODELS))
        return spec, c.errors
    table = mechanism_errors(spec.model, spec.mechanism)
    if table:  # nothing else can be checked against a mechanism that does not assemble
        return spec, table
    base = c.check_base()
    if (driverless_t_end(spec.mechanism) and "t_end" not in spec.base
            and "t_end" not in spec.axes):
        c.add("base.t_end", None, "a duration in s: a mechanism without a driver moves under "
              "its loads for t_end (design.md 4.13)")
    axes = c.check_axes(base)
    checked = spec.model_copy(update={"base": base, "axes": axes})
    if "design" not in broken:
        complete = not broken and len(axes) == len(spec.axes)
        c.errors += check_design(checked, complete=complete, count=not c.errors)
    return (spec if c.errors else checked), c.errors
