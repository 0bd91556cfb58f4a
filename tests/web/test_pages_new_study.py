"""The new-study page: its layout opens on the user's preset, the validation callback gives
the file's and the API's FieldError messages, submit creates the study or nothing."""

from __future__ import annotations

import base64

import pytest
from archive_fixtures import component_ids, find, page, texts
from gapsweep.study.spec import loads_spec
from gapsweep.web import ids


@pytest.fixture
def new_study(archive):
    with archive.request():
        yield page("new_study"), archive


def values(layout, module):
    """The form's values as the layout holds them, in the callbacks' order."""
    return [getattr(find(layout, cid), prop) for _, cid, prop in module.FIELDS]


def marked(module, cells):
    """The cells an error marks (the active/selected cell's look left out)."""
    return [c for c in cells if c not in module.SELECTED_CELL]


def set_value(module, vals, key, value):
    out = list(vals)
    out[[k for k, _, _ in module.FIELDS].index(key)] = value
    return out


def test_layout_has_every_control_and_the_preset(new_study):
    module, _ = new_study
    layout = module.layout()
    assert {ids.NEW_NAME, ids.NEW_MODEL, ids.NEW_DESIGN, ids.NEW_IDEAL_TWIN, ids.NEW_SERIES,
            ids.NEW_BASE_TABLE, ids.NEW_AXES_TABLE, ids.NEW_ADD_AXIS, ids.NEW_CASE_COUNT,
            ids.NEW_ERRORS, ids.NEW_SUBMIT, ids.NEW_UPLOAD, ids.NEW_DOWNLOAD_BUTTON,
            ids.NEW_DOWNLOAD, ids.NEW_REDIRECT} <= component_ids(layout)
    axes = find(layout, ids.NEW_AXES_TABLE).data
    assert [a["parameter"] for a in axes] == ["clearance_mm", "stiffness_scale"]
    assert axes[0]["values"] == "0.02, 0.035, 0.05, 0.08, 0.1"
    assert (axes[1]["nominal"], axes[1]["relative_percent"], axes[1]["levels"]) == (1.0, 30, 3)
    base = {r["name"]: r for r in find(layout, ids.NEW_BASE_TABLE).data}
    # every parameter of the model, with unit and default
    from gapsweep.core.api import get_model

    assert list(base) == list(get_model("slider-crank").defaults())
    assert base["clearance_mm"]["unit"] == "mm" and base["clearance_mm"]["default"] == "0.5"
    assert base["speed_rpm"]["unit"] == "rpm" and base["speed_rpm"]["value"] == 5000
    assert base["max_step"]["default"] == "inf"


def test_preset_validates_to_15_cases_and_one_twin(new_study):
    module, _ = new_study
    summary, errors, disabled = module.validate(*values(module.layout(), module))[:3]
    assert "15 cases + 1 ideal twin" in texts(summary)
    assert "estimated solver time" in texts(summary)
    assert errors is None and disabled is False


def test_bad_clearance_shows_the_field_error_and_blocks_submit(new_study):
    module, archive = new_study
    vals = values(module.layout(), module)
    axes = [dict(r) for r in vals[-1]]
    axes[0]["values"] = "0.02, 0.035, -0.05, 0.08, 0.1"
    vals = set_value(module, vals, "axis_rows", axes)
    summary, errors, disabled = module.validate(*vals)[:3]
    message = texts(errors)
    # the same text the file and the API give (FieldError.__str__)
    assert "axes.clearance_mm.values[2]: -0.05 — > 0 and < bearing radius 10 mm" in message
    assert disabled is True and "Not valid" in texts(summary)
    redirect, shown = module.submit(1, *vals)
    assert redirect is module.no_update
    assert "axes.clearance_mm.values[2]" in texts(shown)
    assert archive.count("studies") == 0 and archive.count("cases") == 0


def test_form_errors_of_base_and_levels(new_study):
    module, _ = new_study
    vals = values(module.layout(), module)
    base = [dict(r) for r in vals[-2]]
    next(r for r in base if r["name"] == "restitution")["value"] = "1.5"
    axes = [dict(r) for r in vals[-1]]
    axes[1]["levels"] = "0"
    vals = set_value(module, set_value(module, vals, "base_rows", base), "axis_rows", axes)
    message = texts(module.validate(*vals)[1])
    assert "base.restitution: 1.5" in message
    assert "axes.stiffness_scale.levels: 0 — >= 1" in message


def test_submit_creates_the_study_and_navigates_to_it(new_study):
    module, archive = new_study
    path, message = module.submit(1, *values(module.layout(), module))
    study_id = int(path.rsplit("/", 1)[1])
    assert path == f"/studies/{study_id}"
    assert f"Study {study_id} created" in texts(message)
    assert archive.count("studies") == 1 and archive.count("cases") == 16
    assert len(archive.sent) == 1 and len(archive.sent[0]) == 16


def test_download_gives_the_study_file_that_parses_back(new_study):
    module, _ = new_study
    data, message = module.download(1, *values(module.layout(), module))
    assert message is None and data["filename"] == "clearance_x_stiffness.toml"
    spec = loads_spec(data["content"], "toml")
    assert spec.name == "Clearance x stiffness"
    assert spec.axes["clearance_mm"].level_values() == [0.02, 0.035, 0.05, 0.08, 0.1]
    assert spec.levels("stiffness_scale") == [0.7, 1.0, 1.3]


def _upload(text: str) -> str:
    return "data:application/octet-stream;base64," + base64.b64encode(text.encode()).decode()


def test_upload_fills_the_form(new_study):
    module, _ = new_study
    toml = (
        'name = "Friction sweep"\ndesign = "grid"\n[base]\nrestitution = 0.5\n'
        "[axes.friction]\nstart = 0.0\nstop = 0.1\ncount = 5\n"
    )
    out = module.upload(_upload(toml), "friction.toml")
    form = dict(zip([k for k, _, _ in module.FIELDS], out[: len(module.FIELDS)], strict=True))
    assert form["name"] == "Friction sweep"
    axis = form["axis_rows"][0]
    assert (axis["parameter"], axis["form"], axis["start"], axis["stop"], axis["count"]) == (
        "friction", "range", 0.0, 0.1, 5)
    base = {r["name"]: r["value"] for r in form["base_rows"]}
    assert base["restitution"] == 0.5 and base["speed_rpm"] == ""
    assert "Loaded friction.toml" in texts(out[len(module.FIELDS)])
    summary, errors, _ = module.validate(*out[: len(module.FIELDS)])[:3]
    assert errors is None and "5 cases" in texts(summary)


def test_malformed_upload_says_so_and_changes_nothing(new_study):
    module, _ = new_study
    out = module.upload(_upload('name = "x\n'), "bad.toml")
    assert all(v is module.no_update for v in out[: len(module.FIELDS)])
    assert "file: malformed TOML" in texts(out[len(module.FIELDS)])


def test_add_axis_and_change_model(new_study):
    module, _ = new_study
    rows = module.add_axis(1, [{"parameter": "clearance_mm"}])
    assert len(rows) == 2 and rows[1]["parameter"] == "" and rows[1]["form"] == "values"
    base, dropdown = module.change_model("flexible-slider-crank", [
        {"name": "speed_rpm", "value": 3000}, {"name": "template", "value": "seed002"}])
    names = [r["name"] for r in base]
    assert "elements" in names and "template" not in names
    assert next(r for r in base if r["name"] == "speed_rpm")["value"] == 3000
    assert "elements" in [o["value"] for o in dropdown["parameter"]["options"]]


# --- three axes, one-at-a-time from a range, stray cells, design fields, marked cells -------


def axis_row(parameter, form="values", **cells):
    from gapsweep.web.views.study_form import AXIS_COLUMNS

    return {**{c: "" for c in AXIS_COLUMNS}, "parameter": parameter, "form": form, **cells}


def test_an_axis_replaces_its_base_value_with_a_note(new_study):
    module, _ = new_study
    layout = module.layout()
    vals = values(layout, module)
    rows = [*find(layout, ids.NEW_AXES_TABLE).data,
            axis_row("speed_rpm", "range", start=3000, stop=6000, count=3)]
    vals = set_value(module, vals, "axis_rows", rows)
    summary, errors, disabled, notes, axes_cells, _ = module.validate(*vals)
    assert errors is None and disabled is False
    assert "45 cases" in texts(summary)  # 5 x 3 x 3, speed_rpm = 5000 in base was replaced
    assert texts(notes) == "speed_rpm: the axis replaces the base value 5000"
    assert axes_cells == module.SELECTED_CELL  # no cell marked as an error
    spec, _, _ = module.check_form(module.form_kwargs(vals))
    assert "speed_rpm" not in spec["base"]
    assert spec["axes"]["speed_rpm"] == {"start": 3000.0, "stop": 6000.0, "count": 3}


def test_a_range_axis_with_a_nominal_serves_one_at_a_time(new_study):
    module, _ = new_study
    vals = values(module.layout(), module)
    vals = set_value(module, vals, "design", "one-at-a-time")
    vals = set_value(module, vals, "axis_rows", [
        axis_row("clearance_mm", values="0.02, 0.05, 0.1", nominal=0.05),
        axis_row("stiffness_scale", "range", start=0.5, stop=1.5, count=5, nominal=1.0),
        axis_row("speed_rpm", "nominal ± %", nominal=5000, relative_percent=20, levels=3)])
    summary, errors, *_ = module.validate(*vals)
    assert errors is None
    assert texts(summary).startswith("9 cases")  # the nominal + (3-1) + (5-1) + (3-1)
    spec, _, _ = module.check_form(module.form_kwargs(vals))
    assert spec["axes"]["stiffness_scale"] == {"values": [0.5, 0.75, 1.0, 1.25, 1.5],
                                               "nominal": 1.0}
    # a nominal that is not a level is refused on the nominal's cell
    vals = set_value(module, vals, "axis_rows", [
        axis_row("stiffness_scale", "range", start=0.5, stop=1.5, count=5, nominal=0.9)])
    _, errors, disabled, _, axes_cells, _ = module.validate(*vals)
    assert disabled is True and "axes.stiffness_scale.nominal: 0.9" in texts(errors)
    assert marked(module, axes_cells)[0]["if"] == {
        "filter_query": '{parameter} = "stiffness_scale"', "column_id": "nominal"}


def test_a_value_in_a_cell_the_form_ignores_is_refused_not_dropped(new_study):
    module, _ = new_study
    vals = values(module.layout(), module)
    vals = set_value(module, vals, "axis_rows", [
        axis_row("clearance_mm", values="0.02, 0.1", levels=3)])
    _, errors, disabled, _, axes_cells, _ = module.validate(*vals)
    assert disabled is True
    assert ("axes.clearance_mm.levels: 3 — empty for the form 'values' (it reads values, "
            "nominal); clear the cell or choose another form") in texts(errors)
    assert marked(module, axes_cells)[0]["if"]["column_id"] == "levels"


def test_the_offending_cell_is_marked(new_study):
    module, _ = new_study
    layout = module.layout()
    vals = values(layout, module)
    rows = [dict(r) for r in find(layout, ids.NEW_AXES_TABLE).data]
    rows[0]["values"] = "0.02, 0.035, -0.05"
    vals = set_value(module, vals, "axis_rows", rows)
    base = [dict(r) for r in find(layout, ids.NEW_BASE_TABLE).data]
    next(r for r in base if r["name"] == "restitution")["value"] = "7"
    vals = set_value(module, vals, "base_rows", base)
    *_, axes_cells, base_cells = module.validate(*vals)
    assert [c["if"] for c in marked(module, axes_cells)] == [
        {"filter_query": '{parameter} = "clearance_mm"', "column_id": "values"}]
    assert base_cells[0]["if"] == {"column_id": "value"}  # the column's own tint stays
    assert [c["if"] for c in marked(module, base_cells[1:])] == [
        {"filter_query": '{name} = "restitution"', "column_id": "value"}]
    # the error's red comes last, over the selection's blue; the selection is not red
    assert axes_cells[-1]["backgroundColor"] == "#f8d7da"
    assert all("rgba(13, 110, 253" in c["backgroundColor"] for c in module.SELECTED_CELL)


def test_design_fields_show_only_for_their_designs(new_study):
    module, _ = new_study
    layout = module.layout()
    assert find(layout, ids.NEW_SAMPLES_ROW).style == {"display": "none"}  # the preset: grid
    hidden = {"display": "none"}
    assert module.design_fields("grid")[:4] == (hidden,) * 4
    assert module.design_fields("latin-hypercube")[:4] == ({}, {}, hidden, hidden)
    assert module.design_fields("morris")[:4] == ({}, {}, {}, hidden)
    assert module.design_fields("convergence")[:4] == (hidden, hidden, hidden, {})
    # a hidden field is not sent: samples typed, then the design set to grid
    vals = set_value(module, values(layout, module), "samples", 40)
    spec, errors, _ = module.check_form(module.form_kwargs(vals))
    assert errors == [] and spec.get("samples") is None
    vals = set_value(module, vals, "design", "latin-hypercube")
    spec, errors, _ = module.check_form(module.form_kwargs(vals))
    assert errors == [] and spec["samples"] == 40


def test_monte_carlo_rows_build_distribution_axes_and_the_fit_shows_its_limits(new_study):
    module, _ = new_study
    vals = values(module.layout(), module)
    vals = set_value(module, vals, "design", "monte-carlo")
    vals = set_value(module, vals, "samples", 120)
    vals = set_value(module, vals, "seed", 4)
    rows = [axis_row("clearance_mm", "ISO 286 fit", fit="H7/g6", diameter_mm="20"),
            axis_row("stiffness_scale", "normal (3σ)", nominal=1.0, relative_percent=30),
            axis_row("friction", "uniform", low="0", high="0.02")]
    vals = set_value(module, vals, "axis_rows", rows)
    summary, errors, disabled, *_ = module.validate(*vals)
    assert errors is None and disabled is False
    assert texts(summary).startswith("120 cases + 1 ideal twin")
    spec, _, _ = module.check_form(module.form_kwargs(vals))
    assert spec["axes"] == {
        "clearance_mm": {"fit": "H7/g6", "diameter_mm": 20},
        "stiffness_scale": {"distribution": "normal", "nominal": 1.0, "relative_percent": 30},
        "friction": {"distribution": "uniform", "low": 0, "high": 0.02}}
    picker = find(module.layout(), ids.NEW_AXES_TABLE).dropdown["fit"]["options"]
    assert picker[0]["value"] == "H7/g6" and len(picker) == 294
    # the fit's limits as typed (ISO 286-2: H7 0/+21 µm, g6 -7/-20 µm on 18-30 mm)
    shown = texts(module.fit_limits(rows))
    assert ("H7/g6 on 20 mm: hole 20.000–20.021 mm, shaft 19.980–19.993 mm, radial "
            "clearance 0.0035–0.0205 mm (bearing radius 10 mm)") in shown
    assert "not allowed" in texts(module.fit_limits(
        [axis_row("clearance_mm", "ISO 286 fit", fit="H7/z6", diameter_mm=20)]))
    # and the form reads the spec back into the same rows
    back = module.spec_to_form(spec, [])["axis_rows"]
    assert [r["form"] for r in back] == ["ISO 286 fit", "normal (3σ)", "uniform"]


def test_a_distribution_row_in_a_grid_is_refused(new_study):
    module, _ = new_study
    vals = values(module.layout(), module)
    vals = set_value(module, vals, "axis_rows", [
        axis_row("stiffness_scale", "normal (3σ)", nominal=1.0, three_sigma=0.3)])
    _, errors, disabled, *_ = module.validate(*vals)
    assert disabled is True and "monte-carlo" in texts(errors)


def test_the_help_texts_follow_the_design(new_study):
    """The design's help, the axes card's header and what Samples means in cases change with
    the design picked (the form once said "grid: every combination" whatever was chosen)."""
    module, _ = new_study
    layout = module.layout()
    assert find(layout, ids.NEW_DESIGN_HELP).children.startswith("every combination")
    assert "outermost" in find(layout, ids.NEW_AXES_HEADER).children
    said = {d: module.design_fields(d)[len(module.DESIGN_ROWS):] for d in module.DESIGNS}
    assert len({help_text for help_text, _, _ in said.values()}) == len(module.DESIGNS)
    assert "outermost" not in said["latin-hypercube"][1]
    assert "bounds" in said["latin-hypercube"][1]
    assert "each moved alone" in said["one-at-a-time"][1]
    # Samples in cases: latin-hypercube N, sobol N(2D+2), morris N(D+1)
    assert said["latin-hypercube"][2] == "the number of cases (one per sample)"
    assert "N × (2 × axes + 2) cases" in said["sobol"][2]
    assert "N × (axes + 1) cases" in said["morris"][2]
    assert said["grid"][2] == ""


def test_a_latin_hypercube_range_needs_no_count(new_study):
    module, _ = new_study
    vals = values(module.layout(), module)
    vals = set_value(module, vals, "design", "latin-hypercube")
    vals = set_value(module, vals, "samples", 8)
    vals = set_value(module, vals, "axis_rows", [
        axis_row("clearance_mm", "range", start=0.02, stop=0.1),
        axis_row("stiffness_scale", "range", start=0.7, stop=1.3)])
    spec, errors, summary = module.check_form(module.form_kwargs(vals))
    assert errors == [] and summary.startswith("8 cases")
    assert spec["axes"]["clearance_mm"] == {"start": 0.02, "stop": 0.1}
    # a grid runs each level: there the count is asked for, in words
    vals = set_value(module, vals, "design", "grid")
    _, errors, _ = module.check_form(module.form_kwargs(vals))
    assert [e.field for e in errors] == ["axes.clearance_mm.count", "axes.stiffness_scale.count"]
    assert errors[0].allowed.startswith("the number of evenly spaced levels from start to stop")


def test_a_blank_axis_row_is_refused_naming_the_row(new_study):
    module, _ = new_study
    vals = values(module.layout(), module)
    rows = module.add_axis(1, find(module.layout(), ids.NEW_AXES_TABLE).data)
    vals = set_value(module, vals, "axis_rows", rows)
    spec, errors, summary = module.check_form(module.form_kwargs(vals))
    assert spec is None and summary == "Not valid yet"
    assert [(e.field, e.value) for e in errors] == [("axes (row 3)", "no parameter")]
    assert "delete" in errors[0].allowed
    assert module.submit(1, *vals)[0] is module.no_update  # nothing created


@pytest.mark.parametrize(("seconds", "text"), [(0.0004, "< 0.1 s"), (0.1, "100 ms"),
                                               (0.34, "340 ms"), (4.24, "4.2 s"),
                                               (42, "42 s"), (720, "12 min")])
def test_the_time_estimate_reads_as_a_time(new_study, seconds, text):
    module, _ = new_study
    assert module._fmt_seconds(seconds) == text


def test_parameters_are_listed_by_name_a_name_before_its_longer_names(new_study):
    module, _ = new_study
    options = [o["value"] for o in module.axis_dropdowns("slider-crank")["parameter"]["options"]]
    assert options == sorted(options)
    assert options.index("friction") < options.index("friction_law")
    label = next(o["label"] for o in module.axis_dropdowns("slider-crank")["parameter"]["options"]
                 if o["value"] == "friction")
    assert label.startswith("friction — ")


def count_calls(monkeypatch, targets):
    """Wrap each (module, name) so calls are counted; the counts by name."""
    counts = {}
    for module, name in targets:
        original = getattr(module, name)
        counts.setdefault(name, 0)

        def counted(*args, _original=original, _name=name, **kwargs):
            counts[_name] += 1
            return _original(*args, **kwargs)

        monkeypatch.setattr(module, name, counted)
    return counts


def test_a_submit_parses_and_plans_the_spec_once(new_study, monkeypatch):
    # issue 28: the form's check, the submit action and the study's rows each parsed or
    # planned the spec again (parse 2x, plan 2x per click); the check's spec and plan go on
    import gapsweep.study.designs as designs
    import gapsweep.study.spec as spec_module
    import gapsweep.workers.submit as submit_module

    module, archive = new_study
    vals = values(module.layout(), module)
    counts = count_calls(monkeypatch, [(spec_module, "parse_spec"), (designs, "plan_study"),
                                       (submit_module, "plan_study")])
    path, _ = module.submit(1, *vals)
    assert path.startswith("/studies/") and archive.count("cases") == 16
    assert counts == {"parse_spec": 1, "plan_study": 1}


def test_the_form_sets_up_optimize_and_calibrate(new_study):
    """Issue 35.5: both designs offered; a calibrate file's budget, seed, fitted series and
    embedded record reach the form and come back in the spec (they read "null" before); an
    optimize study's objective, goal, target and budget are sent from the form's fields."""
    module, _ = new_study
    assert {"optimize", "calibrate"} <= set(module.DESIGNS)
    rows = "".join(f"{0.001 * k!r},{(-1) ** k * 100.0 * k!r}\n" for k in range(20))
    csv = "time_s,slider_acceleration\n" + rows
    toml = ('name = "Fit the rig"\ndesign = "calibrate"\nbudget = 24\nseed = 7\n'
            'series = "slider_acceleration"\n'
            "[axes.restitution]\nstart = 0.3\nstop = 0.9\n"
            f"[measurement]\ncsv = '''{csv}'''\n")
    out = module.upload(_upload(toml), "fit.toml")
    form = dict(zip([k for k, _, _ in module.FIELDS], out[: len(module.FIELDS)], strict=True))
    assert (form["design"], form["budget"], form["seed"]) == ("calibrate", 24, 7)
    assert form["fit_series"] == "slider_acceleration" and form["series"] == "preview"
    assert form["measurement"] is None and form["measurement_file"] == {"csv": csv}
    shown = module.design_fields("calibrate")
    rows_shown = dict(zip([f for f, _ in module.DESIGN_ROWS], shown, strict=False))
    assert rows_shown["budget"] == {} and rows_shown["measurement"] == {}
    assert rows_shown["objective"] == {"display": "none"}
    summary, errors, _ = module.validate(*out[: len(module.FIELDS)])[:3]
    assert errors is None, texts(errors)
    assert "null" not in texts(summary)
    # a stored measurement's id replaces the file's record
    vals = set_value(module, out[: len(module.FIELDS)], "measurement", 3)
    spec, _ = module.form_to_spec(**module.form_kwargs(vals))
    assert spec["measurement"] == {"id": 3} and spec["budget"] == 24

    vals = values(module.layout(), module)
    for key, value in (("design", "optimize"), ("objective", "peak_contact_force_settled"),
                       ("goal", "target"), ("target", 800), ("budget", 30), ("seed", 2),
                       ("axis_rows", [axis_row("clearance_mm", "range", start=0.02,
                                               stop=0.1, count="")])):
        vals = set_value(module, vals, key, value)
    spec, _ = module.form_to_spec(**module.form_kwargs(vals))
    assert spec["objective"] == {"metric": "peak_contact_force_settled", "goal": "target",
                                 "value": 800}
    assert (spec["budget"], spec["seed"]) == (30, 2) and "measurement" not in spec
