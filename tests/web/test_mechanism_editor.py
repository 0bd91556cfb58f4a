"""The form's body and joint editor (design.md 4.7) without a browser: every shipped
mechanism's table through the editor's rows and back is the same table; a four-bar typed
row by row is a mechanism that assembles; a bad cell is refused naming its field."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
import tomllib
from gapsweep.web.components import mechanism_editor as me

EXAMPLES = sorted((Path(__file__).resolve().parents[2] / "examples").glob("mechanism_*.toml"))


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_every_shipped_mechanism_round_trips_through_the_rows(path):
    with open(path, "rb") as f:
        table = tomllib.load(f)["mechanism"]
    rows = me.to_rows(table)
    assert len(rows["joints"]) == len(table["joints"])
    assert me.to_table(rows, table) == table
    assert me.check(me.to_table(rows, table)) is None


def test_rows_typed_as_text_give_numbers_lists_and_expressions():
    # what the browser sends after an edit: every cell a string
    rows = me.to_rows({"loads": {"spring": {"type": "spring", "bodies": ["ground", "s"],
                                             "at": ["S", "B"], "stiffness_n_per_m": 20}}})
    assert rows["loads"][0]["at"] == '["S", "B"]'
    typed = {"points": [{"name": "A", "x": "40", "y": "0.5"},
                        {"name": "B", "x": "crank_mm + 1", "y": " "}]}
    assert me.to_table(typed) == {"points": {"A": [40, 0.5], "B": "crank_mm + 1"}}


def _four_bar_rows(clearance: str = "0.1") -> dict:
    return {
        "points": [{"name": "O2", "x": "0", "y": "0"}, {"name": "A", "x": "40", "y": "0"},
                   {"name": "B", "x": "100", "y": "80"}, {"name": "O4", "x": "100", "y": "0"}],
        "bodies": [{"name": n, "mass_kg": "0.1", "inertia_kgm2": "1e-4", "cm": p}
                   for n, p in (("crank", "A"), ("coupler", "B"), ("rocker", "O4"))],
        "joints": [
            {"name": "j1", "type": "revolute", "body_i": "ground", "body_j": "crank",
             "at": "O2"},
            {"name": "j2", "type": "revolute", "body_i": "crank", "body_j": "coupler",
             "at": "A"},
            {"name": "j3", "type": "revolute", "body_i": "coupler", "body_j": "rocker",
             "at": "B", "clearance_mm": clearance, "bearing_radius_mm": "6"},
            {"name": "j4", "type": "revolute", "body_i": "ground", "body_j": "rocker",
             "at": "O4", "clearance_mm": ""}],
        "driver": [{"joint": "j1", "speed_rpm": "600"}],
        "loads": [],
        "measures": [{"name": "rocker_alpha", "body": "rocker", "quantity": "acceleration",
                      "component": "angle"}],
    }


def test_a_four_bar_typed_row_by_row_assembles_with_one_clearance_joint():
    from gapsweep.core.mechanism.table import parse_table

    table = me.to_table(_four_bar_rows(), {"name": "typed"})
    assert me.check(table) is None
    spec = parse_table(table)
    assert [j.name for j in spec.clearance_joints] == ["j3"]
    assert dict(spec.joint("j3").contact)["clearance_mm"] == 0.1
    assert spec.joint("j3").at == pytest.approx((0.1, 0.08))
    assert spec.speed_rpm == 600 and spec.omega == pytest.approx(600 * 2 * math.pi / 60)
    assert "driver" in table and "loads" not in table


def test_a_bad_cell_is_refused_naming_its_field_value_and_allowed():
    rows = _four_bar_rows(clearance="-1")
    exc = me.check(me.to_table(rows))
    assert exc is not None and exc.field == "mechanism.joints.j3.clearance_mm"
    rows = _four_bar_rows()
    rows["joints"][1]["body_j"] = "conrod"
    exc = me.check(me.to_table(rows))
    assert exc.field == "mechanism.joints.j2.bodies[1]" and exc.value == "conrod"
    assert "coupler" in exc.allowed



@pytest.mark.parametrize(("field", "cell"), [
    ("mechanism.joints.j2.bodies[1]", ("joints", 1, "body_j")),
    ("mechanism.joints.j3.clearance_mm", ("joints", 2, "clearance_mm")),
    ("mechanism.points.B[1]", ("points", 2, "y")),
    ("mechanism.bodies.rocker.cm[1]", ("bodies", 2, "cm_y")),
    ("mechanism.driver.joint", ("driver", 0, "joint")),
    ("mechanism.variables.crank_mm", None),
])
def test_the_refused_field_names_its_cell(field, cell):
    table = me.to_table(_four_bar_rows())
    assert me.error_cell(table, field) == cell


def test_a_refusal_tints_the_cell_it_names():
    rows = _four_bar_rows()
    rows["joints"][1]["body_j"] = "conrod"
    table = me.to_table(rows)
    styles = me.error_styles(table, me.check(table))
    tinted = [s["if"] for s in styles["joints"] if "row_index" in s["if"]]
    assert tinted == [{"row_index": 1, "column_id": "body_j"}]
    assert all("row_index" not in s["if"] for sec in me.SECTIONS if sec != "joints"
               for s in styles[sec])


def test_a_loads_frame_is_a_column_with_its_choices():
    """``frame`` (ground | body, design.md 4.15) shows as a load's dropdown column and goes
    through the rows and back; a body-frame load there is the parser's."""
    assert "frame" in [c["id"] for c in me.columns("loads")]
    assert [o["value"] for o in me.dropdowns()["loads"]["frame"]["options"]] == ["ground", "body"]
    loads = {"w": {"type": "force", "body": "rotor", "force_n": [0, -47], "frame": "body"}}
    assert me.to_table(me.to_rows({"loads": loads}))["loads"] == loads
