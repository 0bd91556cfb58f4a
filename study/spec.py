"""Reading a study spec: what a study file, the web form and ``POST /api/studies`` describe.

One schema for all three (design.md 4.2; its models live in :mod:`.schema` and are importable
from here). :func:`parse_spec` validates a mapping once, at the edge, and refuses it with
*every* problem found (:class:`~.errors.SpecError`), each naming its field path, the value
and what is allowed. Parameter values are checked by the core itself
(``get_model(model).parse``, through :mod:`.checks`), so the solver's ranges are the only
ones.
"""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import ValidationError

from .checks import check_spec
from .errors import FieldError, SpecError
from .measurement_files import embed_measurement
from .schema import (  # noqa: F401 - the schema's names, importable from here as before
    LEVEL_DIGITS,
    SAMPLING_DESIGNS,
    Axis,
    DesignName,
    StudySpec,
    param_kinds,
    typed,
)
from .toml_writer import write_study

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib


def parse_spec(data: Mapping[str, Any]) -> StudySpec:
    """Validate a study spec; raise :class:`SpecError` listing every problem found."""
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


def loads_spec(text: str, fmt: Literal["toml", "json"], folder: Path | None = None) -> StudySpec:
    """Parse a study file's text; a malformed file is refused with field ``file``. With the
    study file's ``folder``, a calibration's ``measurement.file`` is read from there and
    embedded (:func:`.measurement_files.embed_measurement`)."""
    try:
        if fmt == "toml":
            data = tomllib.loads(text)
        elif fmt == "json":
            data = json.loads(text)
        else:
            raise SpecError([FieldError("format", fmt, "toml or json")])
    except (tomllib.TOMLDecodeError, json.JSONDecodeError) as exc:
        raise SpecError([FieldError("file", f"malformed {fmt.upper()}", str(exc))]) from None
    if folder is not None:
        data = embed_measurement(data, folder)
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
    return loads_spec(text, fmt, p.parent)


def dumps_toml(spec: StudySpec) -> str:
    """The study file of ``spec`` (TOML); :func:`loads_spec` gives ``spec`` back."""
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
