"""The new-study form with a described mechanism (design.md 4.7): picked from the library,
drawn at its hardpoints, its sweepable names offered on the axes with units, validated and
submitted as the file and the API would be."""

from __future__ import annotations

import pytest
from archive_fixtures import find, page, texts
from gapsweep.web import ids
from test_pages_new_study import axis_row, set_value, values


@pytest.fixture
def new_study(archive):
    with archive.request():
        yield page("new_study"), archive


FOUR_BAR = "Crank-rocker 100/40/120/80 (example)"


def test_pick_draw_offer_and_submit_a_four_bar(new_study):
    module, archive = new_study
    assert FOUR_BAR in module.mechanism_library()
    table, rows, *_ = module.pick_mechanism(FOUR_BAR)
    assert {r["variable"]: (r["value"], r["unit"]) for r in rows}["coupler_mm"] == (120, "mm")
    figure, dropdown, style = module.show_mechanism(table, "mechanism")
    assert style == {}
    joints = figure.data[-1]
    pin = list(joints.text).index("rocker_pin (clearance)")
    # B in closed form at crank angle 0 (40, 120, 80, 100 mm): x = 40 + 64/60 ... see example
    d, a, b, c = 100.0, 40.0, 120.0, 80.0
    x = ((d - a) ** 2 + b * b - c * c) / (2 * (d - a))
    assert (joints.x[pin], joints.y[pin]) == pytest.approx((a + x, (b * b - x * x) ** 0.5))
    options = {o["value"]: o["label"] for o in dropdown["parameter"]["options"]}
    assert options["joints.rocker_pin.clearance_mm"] == "joints.rocker_pin.clearance_mm [mm]"
    assert options["variables.coupler_mm"] == "variables.coupler_mm [mm]"
    assert options["driver.speed_rpm"] == "driver.speed_rpm [rpm]"
    # a coupler of another length: the drawing follows it
    rows = [{**r, "value": "125"} if r["variable"] == "coupler_mm" else r for r in rows]
    longer = module.edit_variables(1, rows, table)
    assert longer["variables"]["coupler_mm"] == 125.0
    moved = module.show_mechanism(longer, "mechanism")[0].data[-1]
    assert moved.x[pin] != pytest.approx(joints.x[pin])

    vals = values(module.layout(), module)
    vals = set_value(module, vals, "model", "mechanism")
    vals = set_value(module, vals, "mechanism", table)
    vals = set_value(module, vals, "base_rows", [])
    vals = set_value(module, vals, "axis_rows", [
        axis_row("joints.rocker_pin.clearance_mm", values="0.05, 0.1")])
    summary, errors, disabled = module.validate(*vals)[:3]
    assert errors is None and disabled is False, texts(errors)
    assert "2 cases + 1 ideal twin" in texts(summary)
    module.submit(1, *vals)
    assert archive.count("studies") == 1 and archive.count("cases") == 3


def test_a_mechanism_study_without_its_table_is_refused_on_the_form(new_study):
    module, archive = new_study
    vals = values(module.layout(), module)
    vals = set_value(module, vals, "model", "mechanism")
    vals = set_value(module, vals, "base_rows", [])
    vals = set_value(module, vals, "axis_rows", [axis_row("t_end", values="0.1")])
    summary, errors, disabled = module.validate(*vals)[:3]
    assert disabled is True
    assert "mechanism: null — a [mechanism] table" in texts(errors)
    assert archive.count("studies") == 0


def test_a_variable_may_be_an_expression_of_the_others(new_study):
    module, archive = new_study
    table, rows, *_ = module.pick_mechanism(FOUR_BAR)
    base = module.show_mechanism(table, "mechanism")[0].data[-1]
    # the coupler as 1.5 x the rocker (120 mm): the same geometry, drawn the same
    rows = [{**r, "value": "1.5 * rocker_mm"} if r["variable"] == "coupler_mm" else r
            for r in rows]
    scaled = module.edit_variables(1, rows, table)
    assert scaled["variables"]["coupler_mm"] == "1.5 * rocker_mm"
    drawn = module.show_mechanism(scaled, "mechanism")[0].data[-1]
    assert list(drawn.x) == pytest.approx(list(base.x))
    assert list(drawn.y) == pytest.approx(list(base.y))
    # and the rocker as the coupler / 1.5: a cycle, named on the drawing and the form
    rows = [{**r, "value": "coupler_mm / 1.5"} if r["variable"] == "rocker_mm" else r
            for r in rows]
    cyclic = module.edit_variables(2, rows, scaled)
    title = module.show_mechanism(cyclic, "mechanism")[0].layout.title.text
    assert "mechanism.variables." in title and "->" in title
    vals = values(module.layout(), module)
    vals = set_value(module, vals, "model", "mechanism")
    vals = set_value(module, vals, "mechanism", cyclic)
    vals = set_value(module, vals, "base_rows", [])
    vals = set_value(module, vals, "axis_rows", [axis_row("driver.speed_rpm", values="600")])
    summary, errors, disabled = module.validate(*vals)[:3]
    assert disabled is True
    assert "mechanism.variables.coupler_mm" in texts(errors)
    assert "coupler_mm -> rocker_mm -> coupler_mm" in texts(errors)
    # an expression that evaluates submits as the file would
    vals = set_value(module, vals, "mechanism", scaled)
    summary, errors, disabled = module.validate(*vals)[:3]
    assert errors is None and disabled is False, texts(errors)
    module.submit(1, *vals)
    assert archive.count("studies") == 1


def test_the_archive_mechanisms_are_picked_as_the_shipped_ones(new_study):
    module, archive = new_study
    examples = set(module.mechanism_library())
    table, rows, *_ = module.pick_mechanism(FOUR_BAR)
    rows = [{**r, "value": "125"} if r["variable"] == "coupler_mm" else r for r in rows]
    mine = module.edit_variables(1, rows, table)
    mine = {**mine, "name": "My press linkage"}
    vals = values(module.layout(), module)
    vals = set_value(module, vals, "model", "mechanism")
    vals = set_value(module, vals, "name", "Press study")
    vals = set_value(module, vals, "mechanism", mine)
    vals = set_value(module, vals, "base_rows", [])
    vals = set_value(module, vals, "axis_rows", [axis_row("driver.speed_rpm", values="600")])
    assert module.validate(*vals)[1] is None
    module.submit(1, *vals)
    # the same table again: listed once, under the newest study (ids count from 1)
    module.submit(2, *vals)
    assert archive.count("studies") == 2
    library = module.mechanism_library()
    added = [k for k in library if k not in examples]
    assert added == ["My press linkage (study 2: Press study)"]
    # the layout offers it, and picking it loads the table and its variables as stored
    assert added[0] in find(module.layout(), ids.NEW_MECHANISM_LIBRARY).options
    picked, picked_rows, *_ = module.pick_mechanism(added[0])
    assert picked["variables"]["coupler_mm"] == 125.0
    assert picked["name"] == "My press linkage"
    assert {r["variable"]: r["value"] for r in picked_rows}["coupler_mm"] == 125.0



def test_an_imported_adams_dataset_fills_the_editor_and_a_marked_joint_can_be_swept(new_study):
    # the .adm upload's study text -> the form's callback: the store and the editor's rows
    # hold the imported mechanism; a clearance typed in a joint's row offers it on the axes
    import base64
    from pathlib import Path

    import tomllib
    from gapsweep.web.components import mechanism_editor as me
    from gapsweep.web.components.adams_upload import preview

    raw = (Path(__file__).resolve().parents[1] / "study" / "adams_data" / "slider_crank.adm")
    url = "data:application/octet-stream;base64," + base64.b64encode(raw.read_bytes()).decode()
    _, text = preview(url, "slider_crank.adm")
    module, _ = new_study
    table, variables, *filled = module.import_adams(text)
    assert table == tomllib.loads(text)["mechanism"]
    rows = dict(zip(me.SECTIONS, filled[:len(me.SECTIONS)], strict=True))
    assert me.to_table(rows, table) == table
    assert "joints.piston_pin.clearance_mm" not in module.mechanism_names(table)
    pin = next(r for r in rows["joints"] if r["name"] == "piston_pin")
    pin.update(clearance_mm="0.05", bearing_radius_mm="10")
    marked = me.to_table(rows, table)
    assert me.check(marked) is None
    assert module.mechanism_names(marked)["joints.piston_pin.clearance_mm"] == "mm"


def test_objective_and_convergence_metric_lists_are_the_mechanisms_measures(new_study):
    # issue 35: for a mechanism the objective and the convergence metric offer its own
    # measures (and each clearance joint's figures where it has several), never the slider's
    module, _ = new_study
    table, *_ = module.pick_mechanism(FOUR_BAR)
    objective, metric = module.metric_lists("mechanism", table, None, None)
    assert objective == metric
    names = [o["value"] for o in objective]
    measures = list(table["measures"])  # rocker_alpha, rocker_angle: the file's order
    assert names[:len(measures)] == [f"peak_{m}_settled" for m in measures]
    assert {f"peak_{m}" for m in measures} <= set(names)
    assert "peak_contact_force_settled" in names or "peak_contact_force" in names
    assert not [n for n in names if "slider" in n]
    labels = {o["value"]: o["label"] for o in objective}
    assert "[rad/s²]" in labels[f"peak_{measures[0]}_settled"]
    # one clearance joint: its figures are the model's own, no per-joint names
    assert not [n for n in names if "." in n]
    # two clearance joints: each joint's peak force, penetration and impacts besides
    two = next(t for t in module.mechanism_library().values()
               if sum("clearance_mm" in j for j in t["joints"].values()) == 2)
    joints = [j for j, spec in two["joints"].items() if "clearance_mm" in spec]
    names = [o["value"] for o in module.metric_lists("mechanism", two, None, None)[0]]
    for joint in joints:
        assert {f"peak_contact_force.{joint}", f"max_penetration.{joint}",
                f"impacts.{joint}"} <= set(names)
    # the built-in model: the slider's headline metrics, whatever table the store holds
    built_in = [o["value"] for o in module.metric_lists("slider-crank", table, None, None)[0]]
    assert "peak_slider_accel" in built_in and not [n for n in built_in if "rocker" in n]
    # a metric set already (an uploaded file's) stays offered
    kept = module.metric_lists("mechanism", table, "peak_contact_force_steady", None)[0]
    assert kept[-1]["value"] == "peak_contact_force_steady"
    # the form drawn for a mechanism study (a clone, an upload) opens on its lists
    assert [o["value"] for o in find(module.layout(), ids.NEW_METRIC).options][0] \
        == "peak_slider_accel_settled"


def test_a_variable_is_added_renamed_and_refused_with_its_field(new_study):
    # issue 35: the editor adds design variables; what is wrong names the field, the value
    # and what is allowed, under the table, and the drawing and the axes follow the rows
    module, _ = new_study
    table, rows, *_ = module.pick_mechanism(FOUR_BAR)
    rows = module.add_variable(1, rows)
    assert rows[-1] == {"variable": "", "value": "", "unit": "–"}
    # an empty new row changes nothing and says nothing
    assert module.check_variables(1, rows)[0] is None
    assert module.edit_variables(1, rows, table)["variables"] == table["variables"]
    # a name without a value
    rows[-1] = {**rows[-1], "variable": "offset_mm"}
    message, units = module.check_variables(2, rows)
    assert ("mechanism.variables.offset_mm = '' is not allowed: must be a number or an "
            "expression of the other variables (in mm)") in texts(message)
    assert units[-1]["unit"] == "mm"
    # a name the parser refuses, and a name given twice
    bad = [*rows[:-1], {"variable": "2nd_mm", "value": "3", "unit": "–"},
           {"variable": "coupler_mm", "value": "5", "unit": "mm"}]
    text = texts(module.check_variables(3, bad)[0])
    assert "mechanism.variables.2nd_mm = '2nd_mm' is not allowed: must be a name of " in text
    first = [r["variable"] for r in bad].index("coupler_mm") + 1
    assert (f"mechanism.variables.coupler_mm = 'coupler_mm' is not allowed: must be a name "
            f"used once (rows {first} and {len(bad)})") in text
    # a value: the new variable is the table's, usable by the others' expressions, and
    # offered on the axes with its unit
    rows[-1] = {**rows[-1], "value": "2 * crank_mm"}
    assert module.check_variables(4, rows)[0] is None
    grown = module.edit_variables(4, rows, table)
    assert grown["variables"]["offset_mm"] == "2 * crank_mm"
    assert list(grown["variables"])[:-1] == list(table["variables"])
    _, dropdown, _ = module.show_mechanism(grown, "mechanism")
    options = {o["value"]: o["label"] for o in dropdown["parameter"]["options"]}
    assert options["variables.offset_mm"] == "variables.offset_mm [mm]"
    assert module.mechanism_editor.check(grown) is None
    # a row deleted is gone; one an expression needs is refused by the parser, by name
    gone = [r for r in rows if r["variable"] != "crank_mm"]
    shorter = module.edit_variables(5, gone, grown)
    assert "crank_mm" not in shorter["variables"]
    exc = module.mechanism_editor.check(shorter)
    assert exc is not None and "crank_mm" in str(exc)


def _adm(name):
    import base64
    from pathlib import Path

    from gapsweep.web.components.adams_upload import preview

    raw = (Path(__file__).resolve().parents[1] / "study" / "adams_data" / name).read_bytes()
    url = "data:application/octet-stream;base64," + base64.b64encode(raw).decode()
    return raw.decode().splitlines()[0].strip(), preview(url, name)[1]


def test_an_imported_dataset_names_the_study_and_sets_its_length(new_study):
    # design.md 4.16: an .adm file's first line is its title, kept as the study's name; a
    # dataset with no MOTION moves from rest for the t_end its study file gives
    module, _ = new_study
    vals = values(module.layout(), module)
    vals = set_value(module, vals, "model", "mechanism")
    base_rows = module.change_model("mechanism", [], None)[0]
    title, text = _adm("pendulum.adm")
    *_, name, rows = module.import_adams(text, base_rows)
    assert name == title == "Pendulum released from rest: 1 kg, CM 2 m from the pivot " \
                            "(gapsweep test dataset)"
    import tomllib

    t_end = tomllib.loads(text)["base"]["t_end"]
    assert {r["name"]: r["value"] for r in rows}["t_end"] == t_end > 0
    # the other base values are the form's as they were
    assert [r for r in rows if r["name"] != "t_end"] == [
        r for r in base_rows if r["name"] != "t_end"]
    # the form submits as `gapsweep run` would take the file: that name and that length
    table = module.import_adams(text, base_rows)[0]
    vals = set_value(module, vals, "name", name)
    vals = set_value(module, vals, "mechanism", table)
    vals = set_value(module, vals, "base_rows", rows)
    vals = set_value(module, vals, "axis_rows", [])
    spec, errors, _ = module.check_form(module.form_kwargs(vals))
    assert spec is not None, errors
    assert spec["name"] == title and spec["base"]["t_end"] == t_end
    # a driven dataset (a MOTION) runs until settled: the name is set, the base left alone
    title, text = _adm("slider_crank.adm")
    *_, name, rows = module.import_adams(text, base_rows)
    assert name == title and rows is module.no_update
