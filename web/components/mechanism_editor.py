"""The new-study form's body and joint editor (design.md 4.7): a mechanism's points, bodies,
joints, driver, loads and measures as editable tables, turned into the study's
``[mechanism]`` table and back.

Pure functions first (no Dash): :func:`to_rows` splits a ``[mechanism]`` mapping into one
list of rows per section, :func:`to_table` joins the rows back (``to_table(to_rows(t), t)
== t`` for every table the parser reads), :func:`check` is the mechanism parser's verdict
on a table (its :class:`InputError` with field, value and allowed). Then :func:`editor`,
the tables themselves, whose ids the new-study page wires to its mechanism store.

A cell holds a number, a name or an arithmetic expression of the variables, as the TOML
would; a list (a load's ``at`` of two points, a periodic table of values) is written as
``[a, b, ...]``. Pairs in mm that the engineer types often (a point, a centre of mass, a
joint's ``at``, a direction) have an x and a y column; a point name in the x column with
the y column empty means that point.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from dash import dash_table, html

SECTIONS = ("points", "bodies", "joints", "driver", "loads", "measures")
EDITOR_TABLE = "new-mechanism-editor-{}"  # one DataTable per section
EDITOR_ERRORS = "new-mechanism-editor-errors"  # the parser's verdict beside the drawing
EDITOR_NAME = "new-mechanism-editor-name"
EDITOR_ADD = "new-mechanism-editor-add-{}"  # "Add row" under each table

# (column, header); a pair (key, "<key>_y") is one TOML pair or a point name
_COLUMNS: dict[str, tuple[tuple[str, str], ...]] = {
    "points": (("name", "Point"), ("x", "x [mm]"), ("y", "y [mm]")),
    "bodies": (("name", "Body"), ("mass_kg", "mass [kg]"), ("inertia_kgm2", "inertia [kg m²]"),
               ("cm", "cm: point, or x [mm]"), ("cm_y", "cm y [mm]")),
    "joints": (("name", "Joint"), ("type", "type"), ("body_i", "body 1 (bearing)"),
               ("body_j", "body 2 (journal)"), ("at", "at: point, or x [mm]"),
               ("at_y", "at y [mm]"), ("direction", "direction x"),
               ("direction_y", "direction y"), ("clearance_mm", "clearance [mm]"),
               ("bearing_radius_mm", "bearing radius [mm]")),
    "driver": (("joint", "Driven joint"), ("speed_rpm", "speed [rpm]")),
    "loads": (("name", "Load"), ("type", "type"), ("body", "body"), ("bodies", "bodies"),
              ("at", "at"), ("force_n", "force [N]"), ("frame", "frame"),
              ("torque_nm", "torque [N m]"), ("direction", "direction"),
              ("angle_deg", "angle [deg]"), ("scale", "scale"),
              ("stiffness_n_per_m", "stiffness [N/m]"),
              ("damping_n_s_per_m", "damping [N s/m]"), ("free_length_mm", "free length [mm]")),
    "measures": (("name", "Measure"), ("body", "body"), ("quantity", "quantity"),
                 ("component", "component"), ("point", "point: name, or x [mm]"),
                 ("point_y", "point y [mm]")),
}
# the keys whose value is a pair or a point name: split over two columns
_PAIRS = {"points": (), "bodies": ("cm",), "joints": ("at", "direction"), "driver": (),
          "loads": (), "measures": ("point",)}
# joint parameters shown even when no joint has them (the clearance joint's oil film, where
# the parameter registry has it); any other contact key a table uses gets its column too
_JOINT_EXTRAS = ("lubrication", "viscosity_pa_s")


def _named(section: str) -> bool:
    return section not in ("driver",)


def _cell(value: Any) -> Any:
    """One TOML value as a table cell: numbers and text as they are, a list as ``[...]``."""
    if isinstance(value, (list, tuple)):
        return json.dumps(list(value))
    return value


def _value(cell: Any) -> Any:
    """A cell back to a TOML value: a number where the text is one, a list where it is
    ``[...]``, else the text (a name or an expression); None for an empty cell."""
    if cell is None:
        return None
    if isinstance(cell, bool) or not isinstance(cell, str):
        return cell
    text = cell.strip()
    if not text:
        return None
    if text.startswith("["):
        try:
            return json.loads(text)
        except ValueError:
            return text  # the parser names the field and why
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    if text.lower() in ("true", "false"):
        return text.lower() == "true"
    return text


def joint_extras(table: Mapping[str, Any] | None) -> tuple[str, ...]:
    """The joint columns beyond the fixed ones: the film's where the registry has them, then
    every other key the table's joints carry (restitution, friction, contact_law, ...)."""
    from gapsweep.core.mechanism.table import CONTACT_KEYS

    fixed = {c for c, _ in _COLUMNS["joints"]} | {"bodies", "type"}
    out = [k for k in _JOINT_EXTRAS if k in CONTACT_KEYS]
    for raw in ((table or {}).get("joints") or {}).values():
        for key in (raw if isinstance(raw, Mapping) else {}):
            if key not in fixed and key not in out:
                out.append(key)
    return tuple(out)


def columns(section: str, table: Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
    """The DataTable columns of ``section`` (a joint table's extras from ``table``)."""
    cols = list(_COLUMNS[section])
    if section == "joints":
        cols += [(k, k) for k in joint_extras(table)]
    out = []
    for cid, name in cols:
        col: dict[str, Any] = {"id": cid, "name": name, "editable": True}
        if (section, cid) in (("joints", "type"), ("loads", "type"), ("loads", "frame"),
                              ("measures", "quantity"), ("measures", "component")):
            col["presentation"] = "dropdown"
        out.append(col)
    return out


def dropdowns() -> dict[str, dict[str, Any]]:
    """The choice columns' options per section (the parser's allowed values)."""
    from gapsweep.core.mechanism.table import (
        COMPONENTS,
        JOINT_TYPES,
        LOAD_FRAMES,
        LOAD_TYPES,
        QUANTITIES,
    )

    def opts(values: tuple[str, ...]) -> dict[str, Any]:
        return {"options": [{"label": v, "value": v} for v in values], "clearable": False}

    return {"joints": {"type": opts(JOINT_TYPES)},
            "loads": {"type": opts(LOAD_TYPES), "frame": opts(LOAD_FRAMES)},
            "measures": {"quantity": opts(QUANTITIES), "component": opts(COMPONENTS)}}


def _split_pair(row: dict[str, Any], key: str, value: Any) -> None:
    if isinstance(value, (list, tuple)) and len(value) == 2:
        row[key], row[f"{key}_y"] = _cell(value[0]), _cell(value[1])
    else:  # a point name (or something the parser will refuse, kept as it is)
        row[key] = _cell(value)


def _row(section: str, name: str | None, raw: Mapping[str, Any]) -> dict[str, Any]:
    row: dict[str, Any] = {} if name is None else {"name": name}
    for key, value in raw.items():
        if section == "joints" and key == "bodies" and isinstance(value, (list, tuple)) \
                and len(value) == 2:
            row["body_i"], row["body_j"] = value
        elif key in _PAIRS[section]:
            _split_pair(row, key, value)
        else:
            row[key] = _cell(value)
    return row


def to_rows(table: Mapping[str, Any] | None) -> dict[str, list[dict[str, Any]]]:
    """``{section: rows}`` of a ``[mechanism]`` mapping, in the table's order."""
    table = table or {}
    out: dict[str, list[dict[str, Any]]] = {}
    for section in SECTIONS:
        raw = table.get(section)
        if section == "points":
            out[section] = [_row(section, n, {}) | _pair_row(v) for n, v in (raw or {}).items()]
        elif section == "driver":
            out[section] = [_row(section, None, raw)] if isinstance(raw, Mapping) else []
        else:
            out[section] = [_row(section, n, v if isinstance(v, Mapping) else {})
                            for n, v in (raw or {}).items()]
    return out


def _pair_row(value: Any) -> dict[str, Any]:
    if isinstance(value, (list, tuple)) and len(value) == 2:
        return {"x": _cell(value[0]), "y": _cell(value[1])}
    return {"x": _cell(value)}


def _join_pair(row: Mapping[str, Any], key: str) -> Any:
    x, y = _value(row.get(key)), _value(row.get(f"{key}_y"))
    if y is None:
        return x  # a point name (or None: not given)
    return [x, y]


def _entry(section: str, row: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    pairs = _PAIRS[section]
    skip = {"name", *(f"{k}_y" for k in pairs)}
    if section == "joints":
        skip |= {"body_i", "body_j"}
        first, second = _value(row.get("body_i")), _value(row.get("body_j"))
        if first is not None or second is not None:
            out["bodies"] = [first, second]
    for key, cell in row.items():
        if key in skip:
            continue
        value = _join_pair(row, key) if key in pairs else _value(cell)
        if value is not None:
            out[key] = value
    if section == "joints" and "bodies" in out:  # the TOML's order: type, bodies, at, ...
        out = {k: out[k] for k in ("type", "bodies") if k in out} | out
    return out


def to_table(rows: Mapping[str, list[Mapping[str, Any]] | None],
             base: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The ``[mechanism]`` mapping of the editor's rows; ``base`` gives what the editor does
    not show (name, gravity, variables). Empty rows are left out; a row with no name gets
    ``<section>_<n>`` so that the parser can name it."""
    out = {k: v for k, v in (base or {}).items() if k not in SECTIONS}
    for section in SECTIONS:
        kept = [r for r in rows.get(section) or [] if any(_value(v) is not None
                                                          for v in r.values())]
        if section == "driver":
            if kept:
                out["driver"] = _entry(section, kept[0])
            continue
        if not kept:
            continue
        named: dict[str, Any] = {}
        for n, row in enumerate(kept, start=1):
            name = str(_value(row.get("name")) or f"{section.rstrip('s')}_{n}")
            if section == "points":
                x, y = _value(row.get("x")), _value(row.get("y"))
                named[name] = x if y is None else [x, y]
            else:
                named[name] = _entry(section, row)
        out[section] = named
    return out


def check(table: Mapping[str, Any] | None):
    """The parser's and the assembly's verdict: None when ``table`` is a mechanism, else
    its :class:`InputError` (field, value, allowed)."""
    from gapsweep.core.errors import InputError
    from gapsweep.core.mechanism.case import MechanismCase

    if not table:
        return InputError("mechanism", None, "a mechanism: pick one, upload one or fill "
                          "the tables")
    try:
        MechanismCase.from_mapping({"mechanism": dict(table)})
    except InputError as exc:
        return exc
    except (TypeError, ValueError) as exc:  # a cell of a shape the parser did not expect
        return InputError("mechanism", str(exc)[:120], "the shapes of design.md 4.7")
    return None


_FIELD = re.compile(r"^mechanism\.(\w+)(?:\.(\w+)(?:\[(\d)\])?)?(?:\.(\w+)(?:\[(\d)\])?)?")


def error_cell(table: Mapping[str, Any] | None, field: str) -> tuple[str, int, str] | None:
    """(section, row, column) of the cell an error's ``field`` names
    (``mechanism.joints.j2.bodies[1]`` -> joints, j2's row, body_j), or None when the field
    is not one cell of the editor (a variable, the whole table)."""
    m = _FIELD.match(field or "")
    if not m or m.group(1) not in SECTIONS:
        return None
    section, name, name_index, key, key_index = m.groups()
    if section == "driver":
        return (section, 0, name) if name in ("joint", "speed_rpm") else None
    names = list((table or {}).get(section) or {})
    if name not in names:
        return None
    row = names.index(name)
    if section == "points":
        return section, row, "y" if name_index == "1" else "x"
    if key is None:
        return section, row, "name"
    if section == "joints" and key == "bodies":
        return section, row, "body_j" if key_index == "1" else "body_i"
    if key in _PAIRS[section] and key_index == "1":
        return section, row, f"{key}_y"
    return section, row, key


def error_styles(table: Mapping[str, Any] | None, exc: Any) -> dict[str, list[dict]]:
    """Each section table's conditional styles: the selected cells' blue, and the cell the
    refusal names tinted red."""
    out = {s: list(SELECTED_CELL) for s in SECTIONS}
    cell = error_cell(table, exc.field) if exc is not None else None
    if cell is not None:
        section, row, column = cell
        out[section].append({"if": {"row_index": row, "column_id": column},
                             "backgroundColor": "rgba(220, 53, 69, 0.15)",
                             "border": "1px solid #dc3545"})
    return out


# --- the design variables (``[mechanism.variables]``): name, value, unit rows ---------------

def variable_rows(table: Mapping[str, Any] | None) -> list[dict[str, Any]]:
    """The design variables of ``table`` as the variables table's rows (unit from the name)."""
    from gapsweep.core.mechanism.table import unit_of

    return [{"variable": k, "value": v, "unit": unit_of(k) or "–"}
            for k, v in ((table or {}).get("variables") or {}).items()]


def variable_row() -> dict[str, Any]:
    """A new, empty variable row ("Add variable")."""
    return {"variable": "", "value": "", "unit": "–"}


def _variable_value(cell: Any) -> Any:
    """A value cell: a number where it parses, else the text (an expression of the other
    variables, ``2 * crank_mm``, ``pi / 6``, read by the core's whitelisted evaluator)."""
    if isinstance(cell, str):
        try:
            return float(cell)
        except ValueError:
            return cell.strip()
    return cell


def variables_of(rows: list[Mapping[str, Any]] | None) -> dict[str, Any]:
    """``[mechanism.variables]`` from the rows, in their order: the rows are the whole list
    (a row deleted or renamed is gone from the table); an empty row is left out, a row
    with a value and no name is ``variable_<n>`` (so that the parser can name it)."""
    out: dict[str, Any] = {}
    for n, r in enumerate(rows or [], start=1):
        name = str(r.get("variable") or "").strip()
        value = r.get("value")
        if not name and value in (None, ""):
            continue
        out.setdefault(name or f"variable_{n}", _variable_value(value))
    return out


def variable_errors(rows: list[Mapping[str, Any]] | None) -> list[Any]:
    """What is wrong with the variables table as typed, each an :class:`InputError` naming
    the field (``mechanism.variables.<name>``), the value and what is allowed: a name the
    parser refuses, a name given twice, a name without a value, more than the parser takes.
    An expression's own errors (an unknown name, a cycle) are the parser's verdict."""
    from gapsweep.core.errors import InputError
    from gapsweep.core.mechanism.table import MAX_ITEMS, NAME

    errors = []
    seen: dict[str, int] = {}
    kept = [r for r in rows or []
            if str(r.get("variable") or "").strip() or r.get("value") not in (None, "")]
    if len(kept) > MAX_ITEMS:
        errors.append(InputError("mechanism.variables", f"{len(kept)} variables",
                                 f"at most {MAX_ITEMS}"))
    for n, r in enumerate(rows or [], start=1):
        name = str(r.get("variable") or "").strip()
        value = r.get("value")
        if not name and value in (None, ""):
            continue
        if not name:
            errors.append(InputError(f"mechanism.variables (row {n})", "", "a name of letters,"
                                     " digits and _ (up to 40, not starting with a digit)"))
            continue
        if not NAME.match(name) or name == "ground":
            errors.append(InputError(f"mechanism.variables.{name}", name, "a name of letters, "
                                     "digits and _ (up to 40, not starting with a digit, not "
                                     "'ground')"))
        if name in seen:
            errors.append(InputError(f"mechanism.variables.{name}", name,
                                     f"a name used once (rows {seen[name]} and {n})"))
        seen.setdefault(name, n)
        if value is None or (isinstance(value, str) and not value.strip()):
            errors.append(InputError(f"mechanism.variables.{name}", "", "a number or an "
                                     "expression of the other variables (in "
                                     f"{_unit_word(name)})"))
    return errors


def _unit_word(name: str) -> str:
    from gapsweep.core.mechanism.table import unit_of

    unit = unit_of(name)
    return unit if unit else "the unit its name's suffix gives: _mm, _deg, _kg ... (none here)"


# --- the component -------------------------------------------------------------------------

def verdict(exc: Any) -> Any:
    """What is shown beside the drawing: the refusal's (:func:`check`) field, value and
    allowed, or an OK when ``exc`` is None."""
    import dash_bootstrap_components as dbc

    if exc is None:
        return dbc.Alert("The mechanism assembles.", color="success", className="py-1 small",
                         id="new-mechanism-editor-ok")
    value = exc.value if isinstance(exc.value, str) else json.dumps(exc.value, default=str)
    return dbc.Alert([html.Div(html.Strong(exc.field), className="editor-error-field"),
                      html.Div(f"value: {value}"[:200], className="editor-error-value"),
                      html.Div(f"allowed: {exc.allowed}"[:300], className="editor-error-allowed"),
                      html.Div(exc.detail[:200]) if exc.detail else None],
                     color="danger", className="py-1 small", id="new-mechanism-editor-error")


# the active and selected cells a quiet blue, as the form's other tables (Dash's default red
# reads as an error; the errors are said beside the drawing)
SELECTED_CELL = [
    {"if": {"state": "active"}, "backgroundColor": "rgba(13, 110, 253, 0.08)",
     "border": "1px solid #0d6efd"},
    {"if": {"state": "selected"}, "backgroundColor": "rgba(13, 110, 253, 0.08)",
     "border": "1px solid #0d6efd"},
]

HELP = {
    "points": "Hardpoints [mm] in the assembly position: numbers or expressions of the "
              "variables.",
    "bodies": "Moving bodies (ground is implied). cm: a point name, or x and y [mm].",
    "joints": "revolute | translational | fixed between body 1 and body 2 (ground allowed). "
              "A clearance [mm] makes a revolute a clearance joint (sweep it on an axis "
              "joints.<joint>.clearance_mm).",
    "driver": "One row: a revolute joint whose first body is ground, at a constant speed.",
    "loads": "force | torque | spring; lists as [a, b].",
    "measures": "What the metrics are taken of: a body's position, velocity or acceleration.",
}


def section_table(section: str, table: Mapping[str, Any] | None) -> html.Div:
    """One section's heading, editable table and "Add row" button."""
    import dash_bootstrap_components as dbc

    return html.Div([
        html.H6(section.capitalize(), className="mt-2 mb-1"),
        html.Div(HELP[section], className="small text-muted mb-1"),
        dash_table.DataTable(
            id=EDITOR_TABLE.format(section), columns=columns(section, table),
            data=to_rows(table)[section], editable=True, row_deletable=True,
            dropdown=dropdowns().get(section, {}),
            css=[{"selector": ".Select-menu-outer",  # dash-table hides the menu: show it,
                  # over the rows below (one rule: a second of the same selector
                  # replaced the first, and the menu stayed hidden)
                  "rule": "display: block !important; z-index: 1000 !important"}],
            style_cell={"textAlign": "left", "fontSize": "0.8rem", "minWidth": "60px"},
            style_data_conditional=SELECTED_CELL,
            style_table={"overflowX": "auto"}),
        dbc.Button("Add row", id=EDITOR_ADD.format(section), size="sm", color="secondary",
                   outline=True, className="mt-1"),
    ])


def editor(table: Mapping[str, Any] | None) -> html.Div:
    """The six section tables of ``table`` (empty tables for a mechanism from nothing)."""
    return html.Div([section_table(s, table) for s in SECTIONS], id="new-mechanism-editor")


# --- its callbacks: a table edited makes the study's table; a row added; the verdict -------

def register_callbacks() -> None:
    """Wire the editor's callbacks; called by the new-study page, which Dash runs once per
    app (web/page_callbacks.py says why not at import)."""
    from dash import Input, Output, State, callback, no_update

    from .. import ids

    @callback(
        Output(ids.NEW_MECHANISM, "data", allow_duplicate=True),
        *[Input(EDITOR_TABLE.format(s), "data_timestamp") for s in SECTIONS],
        *[State(EDITOR_TABLE.format(s), "data") for s in SECTIONS],
        State(ids.NEW_MECHANISM, "data"),
        prevent_initial_call=True,
    )
    def edit(*values):
        """A cell edited or a row deleted: the study's table is the editor's rows (with the
        stored name, gravity and variables), redrawn and checked by the store's callbacks."""
        rows = dict(zip(SECTIONS, values[len(SECTIONS):2 * len(SECTIONS)], strict=True))
        return to_table(rows, values[-1])

    for section in SECTIONS:
        @callback(
            Output(EDITOR_TABLE.format(section), "data", allow_duplicate=True),
            Input(EDITOR_ADD.format(section), "n_clicks"),
            State(EDITOR_TABLE.format(section), "data"),
            prevent_initial_call=True,
        )
        def add_row(_n, rows, section=section):
            if section == "driver" and rows:
                return no_update  # one driver
            return [*(rows or []), {c["id"]: "" for c in columns(section)}]

    @callback(
        Output(EDITOR_ERRORS, "children"),
        *[Output(EDITOR_TABLE.format(s), "style_data_conditional") for s in SECTIONS],
        Input(ids.NEW_MECHANISM, "data"),
        *[State(EDITOR_TABLE.format(s), "style_data_conditional") for s in SECTIONS],
    )
    def show_verdict(table, *shown):
        """The verdict beside the drawing, and the cell it names tinted in its table (a
        table's styles sent only when they change: each update re-renders the table the
        engineer is typing in)."""
        exc = check(table)
        styles = error_styles(table, exc)
        return verdict(exc), *[styles[s] if styles[s] != old else no_update
                               for s, old in zip(SECTIONS, shown, strict=True)]


def outputs() -> list:
    """The editor's outputs a callback filling it sets (see :func:`fill`)."""
    from dash import Output

    return [*[Output(EDITOR_TABLE.format(s), "data", allow_duplicate=True) for s in SECTIONS],
            Output(EDITOR_TABLE.format("joints"), "columns", allow_duplicate=True)]


def fill(table: Mapping[str, Any] | None) -> list:
    """The values of :func:`outputs` for ``table`` (picked, uploaded or imported)."""
    rows = to_rows(table)
    return [*[rows[s] for s in SECTIONS], columns("joints", table)]
