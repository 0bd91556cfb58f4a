"""``export --format adm``: a mechanism written as a planar dataset reads back through the
importer to the same mechanism (design.md 4.13, 4.15)."""

from __future__ import annotations

import copy

import pytest
from gapsweep.core.errors import InputError
from gapsweep.core.mechanism.table import parse_table
from gapsweep.study.adams import import_dataset
from gapsweep.study.adams.export import dataset_text
from support.mechanism_tables import quick_return, table


def loaded_quick_return() -> dict:
    """The quick-return (slides on a moving lever) with a spring, a force and a torque."""
    t = quick_return(clearance_mm=0.1)
    t["gravity"] = [0.5, -9.81]
    t["loads"] = {
        "return_spring": {"type": "spring", "bodies": ["ram", "ground"],
                          "at": ["B", [0, 200]], "stiffness_n_per_m": 1500.0,
                          "damping_n_s_per_m": 2.5, "free_length_mm": 80.0},
        "cutting": {"type": "force", "body": "ram", "at": "B", "force_n": [-40.0, 15.0]},
        "brake": {"type": "torque", "body": "lever", "torque_nm": -1.25},
    }
    return t


def round_trip(t: dict) -> tuple:
    spec = parse_table(t)
    result = import_dataset(dataset_text(spec).encode())
    assert not result.refused, result.refused
    return spec, parse_table(result.mechanism), result


@pytest.mark.parametrize("name", ["reference_slider_crank", "four_bar_crank_rocker",
                                  "toggle_press", "two_clearance_slider_crank", "quick_return"])
def test_a_dataset_reads_back_to_the_same_mechanism(name):
    t = loaded_quick_return() if name == "quick_return" else table(name)
    spec, back, result = round_trip(t)
    assert back.name == spec.name
    assert back.gravity == pytest.approx(spec.gravity, abs=1e-12)
    assert [b.name for b in back.bodies] == [b.name for b in spec.bodies]
    for a, b in zip(spec.bodies, back.bodies, strict=True):
        assert (b.mass, b.inertia) == pytest.approx((a.mass, a.inertia), rel=1e-12)
        assert b.cm == pytest.approx(a.cm, abs=1e-12)
    assert [j.name for j in back.joints] == [j.name for j in spec.joints]
    for a, b in zip(spec.joints, back.joints, strict=True):
        assert (b.type, b.body_i, b.body_j) == (a.type, a.body_i, a.body_j)
        assert b.at == pytest.approx(a.at, abs=1e-12)
        if a.direction is not None:
            assert b.direction == pytest.approx(a.direction, abs=1e-12)
    # a clearance joint comes back as its ideal revolute plus a CONTACT naming it
    assert sorted(c.joint for c in result.contacts) == sorted(
        j.name for j in spec.clearance_joints)
    assert (back.driver_joint, back.speed_rpm) == (spec.driver_joint,
                                                   pytest.approx(spec.speed_rpm, rel=1e-12))
    assert [ld.name for ld in back.loads] == [ld.name for ld in spec.loads]
    for a, b in zip(spec.loads, back.loads, strict=True):
        assert (b.type, b.bodies) == (a.type, a.bodies)
        assert [c for p in b.points for c in p] == pytest.approx(
            [c for p in a.points for c in p], abs=1e-12)
        assert b.vector == pytest.approx(a.vector, rel=1e-12)
        assert (b.stiffness, b.damping, b.free_length) == pytest.approx(
            (a.stiffness, a.damping, a.free_length), rel=1e-12)
    # each measured point comes back as a REQUEST's x and y
    points = {(m.body, m.quantity, m.point) for m in spec.measures if m.component != "angle"}
    assert {(m.body, m.quantity, m.point) for m in back.measures} == points


def test_an_exported_dataset_exports_again_unchanged():
    spec, back, _ = round_trip(loaded_quick_return())
    # names of measures become request_<id>_x/_y, the rest is the same text
    first = dataset_text(back)
    again = dataset_text(parse_table(import_dataset(first.encode()).mechanism))
    assert again == first


def test_a_tabled_load_has_no_dataset_form():
    t = copy.deepcopy(table("offset_slider_crank_gas"))
    with pytest.raises(InputError) as exc:
        dataset_text(parse_table(t))
    assert exc.value.field.startswith("mechanism.loads.")
