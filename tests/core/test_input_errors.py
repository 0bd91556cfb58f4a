"""Bad input gets one clear error type naming the field; a case that blows up stops with a
reason instead of returning numbers.

Each bad value is tried through the case API (``SliderCrankCase.validate``, which
``simulate`` calls) and, where it is a string a user would type, through ``from_mapping``
(what ``gapsweep simulate --set`` and a study's rows use). Mechanism-level checks go through
``Mechanism.validate``, which assembly calls before anything is compiled.
"""

from __future__ import annotations

import math
from dataclasses import fields

import pytest
from gapsweep.core.assembly import assemble
from gapsweep.core.cases import SliderCrankCase
from gapsweep.core.errors import InputError
from gapsweep.core.model import Body, ClearanceJoint, ContactModel, Mechanism
from gapsweep.core.simulation import simulate
from gapsweep.core.solver import PENETRATION_BOUND

NAN, INF = math.nan, math.inf


def assert_names_field(exc: pytest.ExceptionInfo, field: str) -> None:
    """The error carries the field, and its message names it and what is allowed."""
    err = exc.value
    assert isinstance(err, InputError)
    assert err.field == field
    assert str(err).startswith(f"{field} = ")
    assert "must be" in str(err) and err.allowed


BAD_CASE_VALUES = [
    ("clearance_mm", -0.1),
    ("clearance_mm", 0.0),
    ("clearance_mm", NAN),
    ("clearance_mm", INF),
    ("clearance_mm", -INF),
    ("clearance_mm", 10.0),  # = bearing radius: no journal left
    ("clearance_mm", 12.0),  # > bearing radius
    ("bearing_radius_mm", 0.0),
    ("bearing_radius_mm", -10.0),
    ("stiffness", -1e11),  # 0 means "computed from materials", so only < 0 is bad
    ("stiffness", NAN),
    ("stiffness_scale", 0.0),
    ("stiffness_scale", -1.0),
    ("stiffness_scale", NAN),
    ("restitution", 0.0),
    ("restitution", -0.5),
    ("restitution", 1.5),
    ("restitution", NAN),
    ("contact_law", "hertzian"),
    ("friction_law", "viscous"),
    ("youngs_modulus", 0.0),
    ("speed_rpm", 0.0),
]


@pytest.mark.parametrize(("field", "value"), BAD_CASE_VALUES, ids=str)
def test_bad_case_value_names_its_field(field, value):
    with pytest.raises(InputError) as exc:
        SliderCrankCase(**{field: value}).validate()
    assert_names_field(exc, field)
    # simulate() raises the same error before integrating anything
    with pytest.raises(InputError) as exc:
        simulate(SliderCrankCase(**{field: value}))
    assert_names_field(exc, field)


@pytest.mark.parametrize(
    ("field", "text"),
    [("clearance_mm", "nan"), ("clearance_mm", "-0.05"), ("clearance_mm", "abc"),
     ("restitution", "1.5"), ("contact_law", "nope")],
)  # fmt: skip
def test_bad_text_value_names_its_field(field, text):
    with pytest.raises(InputError) as exc:
        SliderCrankCase.from_mapping({field: text})
    assert_names_field(exc, field)


def test_clearance_not_smaller_than_bearing_says_so():
    with pytest.raises(InputError) as exc:
        SliderCrankCase(clearance_mm=10.0, bearing_radius_mm=10.0).validate()
    assert "bearing radius" in str(exc.value)


def test_valid_edges_are_accepted():
    SliderCrankCase(restitution=1.0).validate()  # cr = 1 is the closed end of (0, 1]
    SliderCrankCase(clearance_mm=9.99).validate()
    SliderCrankCase(stiffness=0.0).validate()  # computed K


def test_unknown_parameter_name_is_named():
    with pytest.raises(InputError) as exc:
        simulate({"clearence_mm": 0.1})  # typo
    assert_names_field(exc, "parameter")
    assert exc.value.value == "clearence_mm"
    assert "clearance_mm" in exc.value.allowed  # the message lists the right spelling


def _free_journal(mass=0.14, inertia=1e-4, **joint) -> Mechanism:
    spec = {"bearing_radius": 0.01, "clearance": 5e-4, **joint}
    return Mechanism(
        "journal-in-bearing",
        bodies=(Body("journal", mass, inertia),),
        clearance_joints=(ClearanceJoint("ground", "journal", **spec),),
        gravity=(0.0, 0.0),
    )


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"mass": 0.0}, "journal.mass"),
        ({"mass": -0.14}, "journal.mass"),
        ({"mass": NAN}, "journal.mass"),
        ({"inertia": 0.0}, "journal.inertia"),
        ({"bearing_radius": 0.0}, "bearing_radius"),
        ({"bearing_radius": -0.01}, "bearing_radius"),
        ({"clearance": 0.0}, "clearance"),
        ({"clearance": 0.01}, "clearance"),
        ({"clearance": INF}, "clearance"),
        ({"contact": ContactModel(stiffness=0.0)}, "stiffness"),
        ({"contact": ContactModel(stiffness=-1e10)}, "stiffness"),
        ({"contact": ContactModel(stiffness_scale=0.0)}, "stiffness_scale"),
        ({"contact": ContactModel(restitution=0.0)}, "restitution"),
        ({"contact": ContactModel(restitution=1.5)}, "restitution"),
        ({"contact": ContactModel(restitution=NAN)}, "restitution"),
    ],
    ids=str,
)
def test_bad_mechanism_names_its_field(kwargs, field):
    body = {k: kwargs.pop(k) for k in ("mass", "inertia") if k in kwargs}
    mech = _free_journal(**body, **kwargs)
    with pytest.raises(InputError) as exc:
        mech.validate()
    assert_names_field(exc, field)
    with pytest.raises(InputError):
        assemble(mech)  # assembly validates before building any array


def test_unknown_contact_law_in_a_mechanism_is_named():
    mech = _free_journal(contact=ContactModel(law="hertzian"))
    with pytest.raises(InputError) as exc:
        assemble(mech)
    assert_names_field(exc, "contact_law")


def test_blow_up_stops_with_a_reason():
    """A contact 1e4x too soft lets the journal sink past the stated bound (the fraction
    solver.PENETRATION_BOUND of the clearance): the case fails with that reason and its time
    instead of integrating the journal through the bearing."""
    case = SliderCrankCase(stiffness=1e7)
    r = simulate(case)
    assert r.status == "failed"
    assert "penetration" in r.reason and "t = " in r.reason
    # metrics stop at the last accepted step, inside the bound
    assert 0.0 < r.metrics["max_penetration"] <= PENETRATION_BOUND * case.clearance_mm * 1e-3
    assert r.summary()["reason"] == r.reason  # it reaches every consumer


# --- every parameter `gapsweep params` lists, out of its range -----------------------------

OUT_OF_RANGE = [
    ("friction", -0.1), ("friction", NAN), ("static_friction", -1.0),
    ("impact_damping", -1.0), ("impact_damping", INF), ("impact_depth", 0.0),
    ("impact_depth", -1e-6), ("exponent", 0.0), ("exponent", -1.5), ("exponent", NAN),
    ("poisson_ratio", 0.5), ("poisson_ratio", -1.0), ("poisson_ratio", NAN),
    ("youngs_modulus", -1.0), ("youngs_modulus", INF), ("bearing_radius_mm", NAN),
    ("friction_velocity", 0.0), ("friction_velocity_full", 1e-4),  # = friction_velocity
    ("friction_velocity_full", 5e-5), ("speed_rpm", -100.0), ("speed_rpm", NAN),
    ("crank_angle_deg", NAN), ("crank_angle_deg", INF), ("gravity", -9.81), ("gravity", NAN),
    # t_end = 0 is "until settled" (issue 23)
    ("t_end", -0.01), ("t_end", 101.0), ("t_end", NAN), ("t_end", INF),
    ("max_revolutions", 1), ("transient_revolutions", -1), ("transient_revolutions", 80),
    ("settle_tolerance", 0.0), ("settle_tolerance", 1.0), ("run_up_revolutions", 0.0),
    ("starts", "sideways"),
    ("n_output", 1), ("n_output", 0), ("n_output", 2_000_000),
    ("rtol", 0.0), ("rtol", 1e-14), ("rtol", 0.1), ("rtol", NAN),
    ("atol", 0.0), ("atol", -1e-10), ("atol", NAN), ("initial_step", 0.0),
    ("max_step", 0.0), ("max_step", -1.0), ("max_step", NAN),
    ("contact_max_step", 0.0), ("contact_max_step", NAN),
    ("baumgarte_alpha", 0.0), ("baumgarte_beta", -5.0),
    ("integrator", "rk4"), ("integrator", "rosenbrock23"),  # not with a clearance joint
    ("event_location", "newton"), ("stabilization", "magic"),
    ("initial", "left"), ("template", "four-bar"), ("drive", "fast"),
]  # fmt: skip


@pytest.mark.parametrize(("field", "value"), OUT_OF_RANGE, ids=str)
def test_every_case_parameter_out_of_range_names_its_field(field, value):
    with pytest.raises(InputError) as exc:
        SliderCrankCase(**{field: value}).validate()
    assert_names_field(exc, field)


def _unparsable(default):
    if isinstance(default, bool):
        return "maybe"
    if isinstance(default, int):
        return "1.5"
    if isinstance(default, float):
        return "abc"
    return "no-such-choice"


@pytest.mark.parametrize("field", [f.name for f in fields(SliderCrankCase)])
def test_every_case_parameter_refuses_text_it_cannot_read(field):
    """What `--set NAME=VALUE` and a study row give: each field `gapsweep params` lists."""
    default = getattr(SliderCrankCase, field)
    with pytest.raises(InputError) as exc:
        SliderCrankCase.from_mapping({field: _unparsable(default)})
    assert_names_field(exc, field)
