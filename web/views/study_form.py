"""The new-study form's values <-> a study spec mapping (design.md 4.2).

Pure functions: the form's cells are text the user typed (or numbers the preset put there);
:func:`form_to_spec` turns them into the mapping a study file would hold and leaves every
judgement to :func:`gapsweep.study.spec.parse_spec`, so the form shows the very messages the
file and the API give. :func:`spec_to_form` fills the form from a spec (the preset, an
uploaded file).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from gapsweep.core.api import DEFAULT_MODEL, DESCRIBED, can
from gapsweep.study.design_registry import DEFAULT_DESIGN, get_design, uses
from gapsweep.study.errors import FieldError

# the three axis forms of design.md 4.2, as the axes table's "form" column names them
FORM_VALUES = "values"
FORM_FACTOR = "nominal ± %"
FORM_RANGE = "range"
# the distribution rows of a monte-carlo study (design.md 4.8)
FORM_NORMAL = "normal (3σ)"
FORM_UNIFORM = "uniform"
FORM_FIT = "ISO 286 fit"
AXIS_FORMS = (FORM_VALUES, FORM_FACTOR, FORM_RANGE, FORM_NORMAL, FORM_UNIFORM, FORM_FIT)
AXIS_COLUMNS = (
    "parameter",
    "form",
    "values",
    "nominal",
    "relative_percent",
    "levels",
    "start",
    "stop",
    "count",
    "three_sigma",
    "low",
    "high",
    "half_width",
    "fit",
    "diameter_mm",
)
FORM_KEYS = {
    FORM_VALUES: ("values", "nominal"),
    FORM_FACTOR: ("nominal", "relative_percent", "levels"),
    FORM_RANGE: ("start", "stop", "count", "nominal"),
    FORM_NORMAL: ("nominal", "three_sigma", "relative_percent"),
    FORM_UNIFORM: ("low", "high", "nominal", "half_width"),
    FORM_FIT: ("fit", "diameter_mm"),
}
# a distribution row's ``distribution`` key (a fit row is known by its ``fit``)
FORM_DISTRIBUTION = {FORM_NORMAL: "normal", FORM_UNIFORM: "uniform"}
TEXT_CELLS = ("fit",)  # kept as typed: "H7/g6" is not a number
# The top-level fields only some designs read (design.md 4.5): the form shows, and sends,
# each only for those; what each design does with the axes, in a person's words: the help
# under the design picker and the axes card's header follow the design chosen. Both are the
# design registry's (gapsweep.study.design_registry).


def design_help(design: str | None) -> tuple[str, str, str]:
    """(help under the design picker, axes card header, help under Samples) for ``design``."""
    entry = get_design(design)
    return entry.help, entry.axes_help, entry.samples_help


def design_uses(field: str, design: str | None) -> bool:
    """Whether ``design`` reads top-level ``field`` (``samples``, ``seed``, ``metric`` ...)."""
    return uses(design, field)

# The user's study (design.md 4.2): clearance 0.02-0.1 mm x contact stiffness ±30 %.
PRESET: dict[str, Any] = {
    "name": "Clearance x stiffness",
    "model": "slider-crank",
    "description": "Flores mechanism, LN contact",
    "tags": ["flores", "baseline"],
    "design": "grid",
    "ideal_twin": True,
    "series": "preview",
    "base": {"speed_rpm": 5000},
    "axes": {
        "clearance_mm": {"values": [0.02, 0.035, 0.05, 0.08, 0.1]},
        "stiffness_scale": {"nominal": 1.0, "relative_percent": 30, "levels": 3},
    },
}

_INT = re.compile(r"[+-]?\d+\Z")
_LIST_SPLIT = re.compile(r"[,;\s]+")


def cell(value: Any) -> Any:
    """A typed cell: numbers stay numbers; text becomes a bool, int or float when it reads as
    one, else stays text (the spec check then says what the field allows)."""
    if not isinstance(value, str):
        return value
    text = value.strip()
    if text.lower() in ("true", "false"):
        return text.lower() == "true"
    if _INT.match(text):
        return int(text)
    try:
        return float(text)
    except ValueError:
        return text


def blank(value: Any) -> bool:
    return value is None or (isinstance(value, str) and not value.strip())


def cell_list(value: Any) -> list[Any]:
    """``"0.02, 0.035 0.05"`` -> ``[0.02, 0.035, 0.05]`` (a list given as a list is kept)."""
    if isinstance(value, (list, tuple)):
        return [cell(v) for v in value]
    if isinstance(value, (int, float)):
        return [value]
    return [cell(t) for t in _LIST_SPLIT.split(str(value or "").strip()) if t]


def _show_list(values: Sequence[Any]) -> str:
    return ", ".join(str(v) for v in values)


def axis_rows(axes: Mapping[str, Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The axes table's rows for a spec's ``axes`` (file order)."""
    rows = []
    for name, axis in axes.items():
        row: dict[str, Any] = {c: "" for c in AXIS_COLUMNS}
        row["parameter"] = name
        keys = set(axis)
        if "fit" in keys:
            row["form"] = FORM_FIT
        elif axis.get("distribution") == "normal":
            row["form"] = FORM_NORMAL
        elif axis.get("distribution") == "uniform":
            row["form"] = FORM_UNIFORM
        elif "values" in keys:
            row["form"] = FORM_VALUES
        elif keys & {"start", "stop", "count"}:
            row["form"] = FORM_RANGE
        else:
            row["form"] = FORM_FACTOR
        for key, value in axis.items():
            if key in row:
                row[key] = _show_list(value) if key == "values" else value
        rows.append(row)
    return rows


def _rows(rows: Any) -> list[Mapping[str, Any]]:
    """A table's rows as the browser sent them: the mappings of a list (a hand-made request
    may send anything; what is not a row is not one)."""
    return [r for r in rows if isinstance(r, Mapping)] if isinstance(rows, (list, tuple)) else []


def axes_from_rows(
    rows: Sequence[Mapping[str, Any]] | None,
) -> tuple[dict[str, dict[str, Any]], list[FieldError]]:
    """The spec's ``axes`` from the table, and the errors only the table can make (a row
    without a parameter, a parameter in two rows, a form not chosen, a value typed in a cell
    the row's form does not read: refused, not dropped, each naming its row).

    A range with a nominal (for one-at-a-time) is written as its values with that nominal
    (the study file's range form has no nominal): ``start 0.5, stop 1.5, count 3, nominal
    1`` -> ``values = [0.5, 1.0, 1.5], nominal = 1``."""
    axes: dict[str, dict[str, Any]] = {}
    errors: list[FieldError] = []
    for number, row in enumerate(_rows(rows), start=1):
        name = str(row.get("parameter") or "").strip()
        if not name:
            errors.append(FieldError(f"axes (row {number})", "no parameter",
                                     "a parameter chosen for the row, or the row deleted (×)"))
            continue
        if name in axes:
            errors.append(FieldError(f"axes.{name}", name, "each parameter on one row only"))
            continue
        form = row.get("form") or FORM_VALUES
        if not isinstance(form, str) or form not in FORM_KEYS:
            errors.append(FieldError(f"axes.{name}.form", form, "one of " + ", ".join(AXIS_FORMS)))
            continue
        stray = [k for k in AXIS_COLUMNS[2:] if k not in FORM_KEYS[form] and not blank(row.get(k))]
        for key in stray:
            errors.append(FieldError(
                f"axes.{name}.{key}", row.get(key),
                f"empty for the form '{form}' (it reads {', '.join(FORM_KEYS[form])}); "
                "clear the cell or choose another form"))
        axis: dict[str, Any] = {}
        for key in FORM_KEYS[form]:
            value = row.get(key)
            if key == "values":
                axis["values"] = cell_list(value)
            elif key in TEXT_CELLS and not blank(value):
                axis[key] = str(value).strip()
            elif not blank(value):
                axis[key] = cell(value)
        if form in FORM_DISTRIBUTION:
            axis["distribution"] = FORM_DISTRIBUTION[form]
        if form == FORM_RANGE and "nominal" in axis:
            axis = _range_with_nominal(axis)
        axes[name] = axis
    return axes, errors


def _range_with_nominal(axis: dict[str, Any]) -> dict[str, Any]:
    """A range row with a nominal as the values form (see :func:`axes_from_rows`); left as
    it is (the spec check then names the bad key) when its range cannot be built."""
    from gapsweep.study.spec import Axis

    try:
        ranged = Axis(start=axis.get("start"), stop=axis.get("stop"), count=axis.get("count"))
        if ranged.form != "range" or ranged.count > MAX_RANGE_WITH_NOMINAL:
            return axis
        levels = ranged.level_values()
    except (ValueError, TypeError):
        return axis
    return {"values": levels, "nominal": axis["nominal"]}


# a range with a nominal becomes a list: one-at-a-time levels are few, and a typed count of
# 10**9 must not build a list (the spec check refuses the range form's count instead)
MAX_RANGE_WITH_NOMINAL = 1000


def fit_limits_text(rows: Sequence[Mapping[str, Any]] | None) -> list[str]:
    """Per fit row with a fit and a diameter typed, the ISO 286 limits as the form shows them
    (hole, shaft, radial clearance, bearing radius), or why the fit is not one."""
    from gapsweep.core.errors import InputError
    from gapsweep.core.iso286 import fit_limits

    out = []
    for row in _rows(rows):
        if row.get("form") != FORM_FIT or blank(row.get("fit")) or blank(row.get("diameter_mm")):
            continue
        name = str(row.get("parameter") or "").strip() or "?"
        try:
            lim = fit_limits(str(row["fit"]).strip(), cell(row["diameter_mm"]))
        except (InputError, TypeError, ValueError) as exc:
            out.append(f"{name}: {exc}")
            continue
        (h0, h1), (s0, s1), (c0, c1) = lim.hole_mm, lim.shaft_mm, lim.clearance_mm
        out.append(f"{name}: {lim.fit} on {lim.diameter_mm:g} mm: hole {h0:.3f}–{h1:.3f} mm, "
                   f"shaft {s0:.3f}–{s1:.3f} mm, radial clearance {c0:.4f}–{c1:.4f} mm "
                   f"(bearing radius {lim.diameter_mm / 2:g} mm)")
    return out


def base_overridden(
    base: Mapping[str, Any], axes: Mapping[str, Any]
) -> list[str]:
    """The notes for base values an axis replaces: ``"speed_rpm: the axis replaces the base
    value 5000"`` (the form drops them from ``base``, so adding an axis just works)."""
    return [f"{n}: the axis replaces the base value {base[n]!r}" for n in axes if n in base]


def base_from_rows(rows: Sequence[Mapping[str, Any]] | None) -> dict[str, Any]:
    """The spec's ``base``: the rows whose value cell is filled in (table order)."""
    return {
        str(row["name"]): cell(row.get("value"))
        for row in _rows(rows)
        if row.get("name") and not blank(row.get("value"))
    }


def tags_from_text(text: str | None) -> list[str]:
    return [t.strip() for t in str(text or "").split(",") if t.strip()]


def form_to_spec(
    *,
    name: str | None,
    description: str | None,
    tags: str | None,
    model: str | None,
    design: str | None,
    ideal_twin: bool | None,
    series: str | None,
    samples: Any,
    seed: Any,
    morris_levels: Any,
    metric: str | None,
    base_rows: Sequence[Mapping[str, Any]] | None,
    axis_rows: Sequence[Mapping[str, Any]] | None,
    mechanism: Mapping[str, Any] | None = None,
    objective: str | None = None,
    goal: str | None = None,
    target: Any = None,
    budget: Any = None,
    measurement: Any = None,
    measurement_file: Mapping[str, Any] | None = None,
    fit_series: str | None = None,
) -> tuple[dict[str, Any], list[FieldError]]:
    """The study file's mapping from the form, and the table-only errors (see
    :func:`axes_from_rows`). Optional fields left empty are left out, as in a file; so are
    samples, seed, Morris levels and metric for a design that does not read them
    (the design registry's ``fields``: the form hides them), and a base value an axis replaces
    (:func:`base_overridden` gives the notes)."""
    axes, errors = axes_from_rows(axis_rows)
    spec: dict[str, Any] = {
        "name": name or "",
        "model": model or DEFAULT_MODEL,
        "description": description or "",
        "tags": tags_from_text(tags),
        "design": design or DEFAULT_DESIGN,
        "ideal_twin": bool(ideal_twin),
        "series": series or "preview",
    }
    for key, value in (("samples", samples), ("seed", seed)):
        if not blank(value) and design_uses(key, spec["design"]):
            spec[key] = cell(value)
    if not blank(morris_levels) and design_uses("morris_levels", spec["design"]):
        spec["morris_levels"] = cell(morris_levels)
    if not blank(metric) and design_uses("metric", spec["design"]):
        spec["metric"] = metric
    spec.update(_adaptive(spec["design"], objective, goal, target, budget, measurement,
                          measurement_file, fit_series))
    base = base_from_rows(base_rows)
    spec["base"] = {k: v for k, v in base.items() if k not in axes}
    spec["axes"] = axes
    if can(spec["model"], DESCRIBED) and mechanism:  # the picked or uploaded table
        spec["mechanism"] = dict(mechanism)
    return spec, errors


def _adaptive(design: str, objective: str | None, goal: str | None, target: Any, budget: Any,
              measurement: Any, measurement_file: Mapping[str, Any] | None,
              fit_series: str | None) -> dict[str, Any]:
    """An optimize or calibrate study's own keys (design.md 4.9) from the form: the objective
    (metric, goal, the target's value), the budget, the measurement (a stored one's id, else
    the uploaded study's own record) and the fitted series; only the design's, only those
    filled in (the spec's validation says what is missing)."""
    out: dict[str, Any] = {}
    if design_uses("objective", design) and not blank(objective):
        out["objective"] = {"metric": objective, "goal": goal or "min"}
        if goal == "target" and not blank(target):
            out["objective"]["value"] = cell(target)
    if design_uses("budget", design) and not blank(budget):
        out["budget"] = cell(budget)
    if design_uses("measurement", design):
        if not blank(measurement):
            out["measurement"] = {"id": cell(measurement)}
        elif isinstance(measurement_file, Mapping) and measurement_file:
            out["measurement"] = dict(measurement_file)
    if design_uses("fit_series", design) and not blank(fit_series):
        out["fit_series"] = fit_series
    return out


def spec_to_form(spec: Mapping[str, Any], parameter_rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The form's values for ``spec`` (a study file's mapping): keyword names of
    :func:`form_to_spec`, with ``base_rows`` = ``parameter_rows`` carrying the base values."""
    base = dict(spec.get("base") or {})
    rows = []
    for row in parameter_rows:
        value = base.get(row["name"], "")
        rows.append({**row, "value": _show_list(value) if isinstance(value, list) else value})
    return {
        "name": spec.get("name", ""),
        "description": spec.get("description", ""),
        "tags": ", ".join(spec.get("tags") or []),
        "model": spec.get("model", DEFAULT_MODEL),
        "design": spec.get("design", DEFAULT_DESIGN),
        "ideal_twin": bool(spec.get("ideal_twin", True)),
        # a calibration's series names the fitted one (below), not the storage policy
        "series": spec["series"] if spec.get("series") in SERIES_POLICIES else "preview",
        "samples": spec.get("samples"),
        "seed": spec.get("seed"),
        "morris_levels": spec.get("morris_levels", 4),
        "metric": spec.get("metric"),
        "base_rows": rows,
        "axis_rows": axis_rows(spec.get("axes") or {}),
        "mechanism": spec.get("mechanism"),
        **_adaptive_form(spec),
    }


def _adaptive_form(spec: Mapping[str, Any]) -> dict[str, Any]:
    """The form's adaptive fields of ``spec`` (a file's mapping: a calibration's fitted
    series is its ``series`` when that is not a storage policy)."""
    objective = spec.get("objective") if isinstance(spec.get("objective"), Mapping) else {}
    measured = spec.get("measurement") if isinstance(spec.get("measurement"), Mapping) else {}
    series = spec.get("fit_series")
    if series is None and spec.get("series") not in (None, *SERIES_POLICIES):
        series = spec.get("series")
    return {
        "objective": objective.get("metric"),
        "goal": objective.get("goal", "min"),
        "target": objective.get("value"),
        "budget": spec.get("budget"),
        "measurement": measured.get("id"),
        # a record the file carries (its csv, or a file beside it): sent back as it came
        "measurement_file": {k: v for k, v in measured.items() if k != "id"} or None,
        "fit_series": series,
    }


SERIES_POLICIES = ("preview", "full", "none")


ERROR_CELL = {"backgroundColor": "#f8d7da", "border": "2px solid #dc3545"}
_ERROR_FIELD = re.compile(r"(axes|base)\.([A-Za-z0-9_]+)(?:\.([a-z_]+))?")
# the base table's value column keeps its tint (the new-study page's look)
BASE_VALUE_TINT = {"if": {"column_id": "value"}, "backgroundColor": "rgba(24, 188, 156, 0.08)"}


def error_cells(errors: Sequence[FieldError]) -> tuple[list[dict], list[dict]]:
    """``style_data_conditional`` entries that mark the cells an error names, for the axes
    table and the base table: ``axes.clearance_mm.values[2]`` -> the clearance row's values
    cell, ``axes.speed_rpm`` -> its parameter cell, ``base.speed_rpm`` -> that base value.
    Fields that name no cell (``name``, ``samples``) mark nothing."""
    axes: list[dict] = []
    base: list[dict] = []
    for err in errors:
        m = _ERROR_FIELD.match(str(err.field))
        if not m:
            continue
        table, name, key = m.groups()
        if table == "axes":
            column = key if key in AXIS_COLUMNS else "parameter"
            axes.append({"if": {"filter_query": f'{{parameter}} = "{name}"',
                                "column_id": column}, **ERROR_CELL})
        else:
            base.append({"if": {"filter_query": f'{{name}} = "{name}"', "column_id": "value"},
                         **ERROR_CELL})
    return axes, base
