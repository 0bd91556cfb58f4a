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

from gapsweep.study.errors import FieldError

# the three axis forms of design.md 4.2, as the axes table's "form" column names them
FORM_VALUES = "values"
FORM_FACTOR = "nominal ± %"
FORM_RANGE = "range"
AXIS_FORMS = (FORM_VALUES, FORM_FACTOR, FORM_RANGE)
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
)
FORM_KEYS = {
    FORM_VALUES: ("values", "nominal"),
    FORM_FACTOR: ("nominal", "relative_percent", "levels"),
    FORM_RANGE: ("start", "stop", "count"),
}

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
        if "values" in keys:
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
    """The spec's ``axes`` from the table (rows without a parameter are ignored), and the
    errors only the table can make (a parameter in two rows, a form not chosen)."""
    axes: dict[str, dict[str, Any]] = {}
    errors: list[FieldError] = []
    for row in _rows(rows):
        name = str(row.get("parameter") or "").strip()
        if not name:
            continue
        if name in axes:
            errors.append(FieldError(f"axes.{name}", name, "each parameter on one row only"))
            continue
        form = row.get("form") or FORM_VALUES
        if not isinstance(form, str) or form not in FORM_KEYS:
            errors.append(FieldError(f"axes.{name}.form", form, "one of " + ", ".join(AXIS_FORMS)))
            continue
        axis: dict[str, Any] = {}
        for key in FORM_KEYS[form]:
            value = row.get(key)
            if key == "values":
                axis["values"] = cell_list(value)
            elif not blank(value):
                axis[key] = cell(value)
        axes[name] = axis
    return axes, errors


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
) -> tuple[dict[str, Any], list[FieldError]]:
    """The study file's mapping from the form, and the table-only errors (see
    :func:`axes_from_rows`). Optional fields left empty are left out, as in a file."""
    axes, errors = axes_from_rows(axis_rows)
    spec: dict[str, Any] = {
        "name": name or "",
        "model": model or "slider-crank",
        "description": description or "",
        "tags": tags_from_text(tags),
        "design": design or "grid",
        "ideal_twin": bool(ideal_twin),
        "series": series or "preview",
    }
    for key, value in (("samples", samples), ("seed", seed)):
        if not blank(value):
            spec[key] = cell(value)
    if not blank(morris_levels):
        spec["morris_levels"] = cell(morris_levels)
    if not blank(metric):
        spec["metric"] = metric
    spec["base"] = base_from_rows(base_rows)
    spec["axes"] = axes
    return spec, errors


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
        "model": spec.get("model", "slider-crank"),
        "design": spec.get("design", "grid"),
        "ideal_twin": bool(spec.get("ideal_twin", True)),
        "series": spec.get("series", "preview"),
        "samples": spec.get("samples"),
        "seed": spec.get("seed"),
        "morris_levels": spec.get("morris_levels", 4),
        "metric": spec.get("metric"),
        "base_rows": rows,
        "axis_rows": axis_rows(spec.get("axes") or {}),
    }
