"""The parameter registry (gapsweep.core.parameters): complete for every model, the lists the
other layers derive from it equal to the hand-kept lists they replace, its unit conversions
equal to the solver's, and its allowed ranges the ones parse() applies.

The expected sets below are copied from the code before the registry (commit fe8d1c6):
``core/simulation.py`` ``_NOT_INITIAL``, ``study/twins.py`` ``IDEAL_IGNORES`` and
``workers/provenance.py`` ``SOLVER_FIELDS``, plus the two contact fields issue 18 added to the
first two lists (``STIFFNESS_FIELDS``); where the derived list differs, the difference is
spelled out here with the reason.
"""

import math

import numpy as np
import pytest
from gapsweep.core import parameters as reg
from gapsweep.core.api import MODELS, get_model
from gapsweep.core.cases import SliderCrankCase
from gapsweep.core.contact_laws import CONTACT_LAWS
from gapsweep.core.errors import InputError
from gapsweep.core.friction_laws import FRICTION_LAWS
from gapsweep.core.simulation import _NOT_INITIAL, build_mechanism
from gapsweep.study.twins import IDEAL_IGNORES, twin_params
from gapsweep.workers.provenance import SOLVER_FIELDS

from gapsweep.commands.simulate import JOINT_ONLY

NOT_INITIAL_BEFORE = {
    "stiffness_scale", "stiffness", "contact_law", "restitution", "exponent",
    "youngs_modulus", "poisson_ratio", "impact_damping", "impact_depth", "friction_law",
    "friction", "static_friction", "friction_velocity", "friction_velocity_full",
    "integrator", "rtol", "atol", "max_step", "contact_max_step", "initial_step",
    "event_location", "stabilization", "baumgarte_alpha", "baumgarte_beta", "n_output",
    "refine_peaks",
}  # fmt: skip
IDEAL_IGNORES_BEFORE = {
    "clearance_mm", "bearing_radius_mm", "stiffness_scale", "stiffness", "contact_law",
    "restitution", "exponent", "youngs_modulus", "poisson_ratio", "impact_damping",
    "impact_depth", "friction_law", "friction", "static_friction", "friction_velocity",
    "friction_velocity_full", "initial", "contact_max_step", "event_location",
    "damping_max", "damping_depth",
}  # fmt: skip
# issue 18's conformal stiffness models: contact fields, so the twin and the start ignore them
STIFFNESS_FIELDS = {"stiffness_model", "axial_length_mm"}
NOT_INITIAL_BEFORE |= STIFFNESS_FIELDS
IDEAL_IGNORES_BEFORE |= STIFFNESS_FIELDS
# issue 36's oil film: contact fields too (an ideal joint has no film; a start reads none)
LUBRICATION_FIELDS = {"lubrication", "viscosity_pa_s"}
NOT_INITIAL_BEFORE |= LUBRICATION_FIELDS
IDEAL_IGNORES_BEFORE |= LUBRICATION_FIELDS
# issue 37's wear life: joint fields (an ideal joint has no hole to wear)
WEAR_FIELDS = {"wear_coefficient_m2_per_n", "wear_cycles", "wear_steps", "wear_nodes"}
IDEAL_IGNORES_BEFORE |= WEAR_FIELDS
SOLVER_FIELDS_BEFORE = {
    "integrator", "rtol", "atol", "max_step", "contact_max_step", "initial_step",
    "event_location", "stabilization", "n_output", "refine_peaks", "t_end", "dt",
}  # fmt: skip


def test_every_parameter_of_every_model_is_registered_and_nothing_else():
    assert set(reg.REGISTRY) == set(MODELS)
    for model in MODELS:
        fields = list(get_model(model).defaults())
        registered = [p.name for p in reg.model_parameters(model)]
        assert sorted(registered) == sorted(fields), model
        assert len(set(registered)) == len(registered), f"{model}: a name registered twice"


def test_a_name_means_one_label_and_one_unit_in_every_model():
    """Labels and the form look a parameter up by name alone: entries of one name agree."""
    seen: dict[str, tuple[str, str, float]] = {}
    for model in MODELS:
        for p in reg.model_parameters(model):
            key = (p.label, p.unit, p.to_si)
            assert seen.setdefault(p.name, key) == key, (model, p.name)
            assert p.kind in reg.KINDS


def test_fields_that_cannot_change_the_start_are_the_old_list_plus_t_end():
    # t_end is a solver setting now (the run's span): the initial state never read it, so the
    # start cache now also ignores it
    # issue 23's run length and settled-window settings cannot change the start either
    settled = {"max_revolutions", "transient_revolutions", "settle_tolerance"}
    assert set(_NOT_INITIAL) == NOT_INITIAL_BEFORE | {"t_end"} | settled
    assert set(_NOT_INITIAL) <= set(get_model("slider-crank").defaults())


def test_the_ideal_twin_drops_exactly_the_old_fields():
    # and `starts` (issue 23: the other starts of a clearance case; an ideal joint has none)
    assert IDEAL_IGNORES_BEFORE | {"starts"} == IDEAL_IGNORES
    assert IDEAL_IGNORES_BEFORE | {"starts"} == JOINT_ONLY
    params = {"clearance_mm": 0.05, "stiffness_scale": 0.7, "speed_rpm": 3000.0,
              "rtol": 1e-8, "event_location": "bisect", "crank_angle_deg": 30.0}
    assert twin_params(params) == {"speed_rpm": 3000.0, "rtol": 1e-8,
                                   "crank_angle_deg": 30.0, "ideal": True}


def test_provenance_records_the_old_solver_fields_and_the_settings_it_missed():
    # every model's solver and output settings: the Baumgarte gains change a run with
    # stabilization = "baumgarte"; the flexible models' mesh, quadrature, mass matrix and
    # output grid change theirs
    missed = {"baumgarte_alpha", "baumgarte_beta", "elements", "gauss_points", "mass",
              "output_interval", "shape_times",
              # issue 23: the run's length and the settled window
              "max_revolutions", "transient_revolutions", "settle_tolerance"}
    assert set(SOLVER_FIELDS) == SOLVER_FIELDS_BEFORE | missed
    assert len(SOLVER_FIELDS) == len(set(SOLVER_FIELDS))


def test_the_start_does_not_depend_on_any_field_said_not_to_change_it():
    """Two cases differing in every _NOT_INITIAL field (a wall start reads the ideal joint's
    reaction, the most a start reads) start from the same state."""
    from gapsweep.core.simulation import initial_state

    base = SliderCrankCase(initial="wall", clearance_mm=0.1)
    other = base.replace(stiffness_scale=1.3, restitution=0.5, contact_law="hertz",
                         friction=0.2, friction_law="ambrosio", rtol=1e-8, t_end=0.05,
                         n_output=101, stabilization="baumgarte", youngs_modulus=70e9)
    changed = {k for k in _NOT_INITIAL if getattr(base, k) != getattr(other, k)}
    assert len(changed) >= 10
    np.testing.assert_array_equal(initial_state(base), initial_state(other))


def test_unit_conversions_are_the_ones_the_solver_applies():
    case = SliderCrankCase(clearance_mm=0.035, bearing_radius_mm=12.0, speed_rpm=3000.0,
                           crank_angle_deg=30.0)
    mech = build_mechanism(case)
    joint = mech.clearance_joints[0]
    assert reg.find("clearance_mm").si(case.clearance_mm) == pytest.approx(joint.clearance,
                                                                           rel=1e-15)
    assert reg.find("bearing_radius_mm").si(12.0) == pytest.approx(joint.bearing_radius,
                                                                   rel=1e-15)
    assert reg.find("speed_rpm").si(3000.0) == pytest.approx(case.omega, rel=1e-15)
    assert reg.find("speed_rpm").si(3000.0) == pytest.approx(100.0 * math.pi, rel=1e-15)
    assert reg.find("crank_angle_deg").si(30.0) == pytest.approx(math.pi / 6, rel=1e-15)
    for name in ("clearance_mm", "bearing_radius_mm", "speed_rpm", "crank_angle_deg"):
        p = reg.find(name)
        assert p.unit == name.rsplit("_", 1)[1] and p.si_unit in ("m", "rad/s", "rad")
    # SI inputs convert by 1 to their own unit
    for p in reg.model_parameters("slider-crank"):
        if p.unit and not p.name.endswith(("_mm", "_rpm", "_deg")):
            assert (p.to_si, p.si_unit) == (1.0, p.unit), p.name


# the ranges and choices each model documents (design.md 4.1, `gapsweep params`), written
# out: a refusal and the registry's listing must both say exactly this
@pytest.mark.parametrize(("model", "name", "bad", "expected"), [
    ("slider-crank", "restitution", 1.5, "in (0, 1]"),
    ("slider-crank", "clearance_mm", -0.1, "> 0 and < bearing radius 10 mm"),
    ("slider-crank", "rtol", 0.5, "in [1e-13, 1e-2]"),
    ("slider-crank", "n_output", 1, "an integer in [2, 1000000]"),
    ("slider-crank", "t_end", 200.0, "0 (until settled) or in (0, 100] s"),
    ("slider-crank", "contact_law", "elastic",
     "one of hertz, hunt-crossley, lankarani-nikravesh, flores, gonthier, impact"),
    ("cantilever", "elements", 2000, "an integer in [1, 1000]"),
    ("cantilever", "mass", "diagonal", "one of: consistent, lumped"),
    ("flexible-slider-crank", "elements", 60, "an integer in [1, 50]"),
    ("flexible-slider-crank", "clearance_mm", 11.0, "in (0, 10)"),
])  # fmt: skip
def test_allowed_is_what_parse_says_when_it_refuses(model, name, bad, expected):
    with pytest.raises(InputError) as exc:
        get_model(model).parse({name: bad})
    assert (exc.value.field, exc.value.allowed) == (name, expected)
    assert reg.allowed(model, name) == expected


def test_allowed_lists_every_choice_and_every_default_is_allowed():
    assert all(law in reg.allowed("slider-crank", "contact_law") for law in CONTACT_LAWS)
    assert all(law in reg.allowed("slider-crank", "friction_law") for law in FRICTION_LAWS)
    assert reg.allowed("slider-crank", "restitution") == "in (0, 1]"
    assert reg.allowed("slider-crank", "crank_angle_deg") == "a finite number"
    for model in MODELS:
        rows = reg.describe(model)
        assert [r["name"] for r in rows] == list(get_model(model).defaults())
        # a described mechanism has no default: its table is required (design.md 4.7)
        given = {"mechanism": _reference_table()} if model == "mechanism" else {}
        get_model(model).parse({**{r["name"]: r["default"] for r in rows
                                   if r["default"] is not None}, **given})


def _reference_table() -> dict:
    from pathlib import Path

    import tomllib

    path = Path(__file__).resolve().parents[2] / "examples"
    with open(path / "mechanism_reference_slider_crank.toml", "rb") as f:
        return tomllib.load(f)["mechanism"]


def test_every_parameter_title_carries_its_unit():
    for model in MODELS:
        for p in reg.model_parameters(model):
            assert p.title == f"{p.label} [{p.unit or reg.DIMENSIONLESS}]"
    assert reg.find("clearance_mm").title == "Clearance [mm]"
    assert reg.find("friction_velocity").title == "Friction velocity v0 [m/s]"


def test_a_new_parameter_is_one_entry():
    """The stiffness model (issue 18) was added as two entries: its ideal flag and start
    behaviour come from the kind, with no list to edit."""
    p = reg.find("stiffness_model")
    assert p.ideal_reads is False and p.title == "Stiffness model [–]"
    assert reg.find("axial_length_mm").si(20.0) == pytest.approx(0.02)
    with pytest.raises(ValueError, match="kind"):
        reg.Parameter("x", "geometry", "X")


def test_an_unknown_model_names_the_field_and_the_models():
    with pytest.raises(InputError) as exc:
        reg.model_parameters("pendulum")
    assert exc.value.field == "model" and "slider-crank" in exc.value.allowed


def test_a_flexible_twin_keeps_the_rods_modulus_a_rigid_twin_drops_the_contacts():
    """youngs_modulus is the contact's modulus in the rigid slider-crank (an ideal run never
    reads it) but the ANCF rod's in the flexible one (it changes the ideal run)."""
    from gapsweep.study.designs import plan_study
    from gapsweep.study.spec import parse_spec

    assert "youngs_modulus" in reg.ideal_ignored("slider-crank")
    assert "youngs_modulus" not in reg.ideal_ignored("flexible-slider-crank")
    axes = {"youngs_modulus": {"values": [1.5e11, 2.07e11]},
            "clearance_mm": {"values": [0.05, 0.1]}}
    rigid = plan_study(parse_spec({"name": "r", "axes": axes}))
    flexible = plan_study(parse_spec({"name": "f", "model": "flexible-slider-crank",
                                      "axes": axes}))
    assert len(rigid.cases) == len(flexible.cases) == 4
    assert rigid.twins == [{"ideal": True}] and rigid.twin_of == [0, 0, 0, 0]
    assert flexible.twins == [{"youngs_modulus": 1.5e11, "ideal": True},
                              {"youngs_modulus": 2.07e11, "ideal": True}]
    assert flexible.twin_of == [0, 0, 1, 1]


def test_a_field_without_an_entry_is_still_listed_with_its_default_and_range(monkeypatch):
    """A model field added before its registry entry (as at a merge): `gapsweep params` and
    the form still list it, with no kind; the completeness test above is what fails."""
    kept = tuple(p for p in reg.REGISTRY["slider-crank"] if p.name != "clearance_mm")
    monkeypatch.setitem(reg.REGISTRY, "slider-crank", kept)
    row = next(r for r in reg.describe("slider-crank") if r["name"] == "clearance_mm")
    assert row == {"name": "clearance_mm", "kind": "", "label": "Clearance mm", "unit": "mm",
                   "default": 0.5, "allowed": "> 0 and < bearing radius 10 mm"}
