"""A mechanism without a driver (design.md 4.13): it moves under its loads and gravity from
rest for its t_end; without one it is refused, naming t_end."""

from __future__ import annotations

import math

import pytest
from gapsweep.core.errors import InputError
from gapsweep.core.mechanism.case import MechanismCase, simulate_mechanism
from gapsweep.core.mechanism.table import parse_table, sweepable


def pendulum(length_mm: float = 500.0) -> dict:
    """A slender bar (a point mass would have no inertia) hanging from a pin, released
    horizontal: no driver."""
    return {
        "gravity": [0, -9.81],
        "bodies": {"bar": {"mass_kg": 2.0, "inertia_kgm2": 2.0 * (2 * length_mm * 1e-3) ** 2 / 12,
                           "cm": [length_mm, 0]}},
        "joints": {"pin": {"type": "revolute", "bodies": ["ground", "bar"], "at": [0, 0]}},
        "measures": {"tip_y": {"body": "bar", "quantity": "position", "component": "y"},
                     "speed": {"body": "bar", "quantity": "velocity", "component": "magnitude"}},
    }


def test_a_table_without_driver_reads():
    spec = parse_table(pendulum())
    assert spec.driver_joint is None and math.isnan(spec.period)
    assert "driver.speed_rpm" not in sweepable(pendulum())


def test_t_end_is_required_and_a_run_up_refused():
    with pytest.raises(InputError) as exc:
        MechanismCase.from_mapping({"mechanism": pendulum()})
    assert exc.value.field == "t_end"
    with pytest.raises(InputError) as exc:
        MechanismCase.from_mapping({"mechanism": pendulum(), "t_end": 1.0,
                                    "initial": "run-up"})
    assert exc.value.field == "initial"


def test_a_tabled_load_needs_a_driver():
    t = pendulum()
    t["loads"] = {"kick": {"type": "torque", "body": "bar", "torque_nm": [1.0, 2.0],
                           "angle_deg": [0, 180]}}
    with pytest.raises(InputError) as exc:
        parse_table(t)
    assert exc.value.field == "mechanism.loads.kick.angle_deg"


def test_it_falls_from_rest_and_keeps_its_energy():
    # released horizontal: the CM (0.5 m out) swings down through the bottom, where
    # energy conservation gives its speed: m g r = (m r^2 + I) w^2 / 2
    r, m = 0.5, 2.0
    inertia = m * (2 * r) ** 2 / 12
    result = simulate_mechanism({"mechanism": pendulum(), "t_end": 1.0, "rtol": 1e-9,
                                 "atol": 1e-12})
    assert result.ok, result.reason
    assert result.metrics["peak_tip_y"] == pytest.approx(r, rel=1e-6)
    w = math.sqrt(2 * m * 9.81 * r / (m * r**2 + inertia))
    assert result.metrics["peak_speed"] == pytest.approx(w * r, rel=1e-4)
