"""A translational joint between two moving bodies (design.md 4.15, S2): a Whitworth
crank-and-slotted-lever quick-return against its closed form.

The crank (length r, pivot O2 = (0, d)) carries a block A that slides in the slot of the
lever (pivot O4 = (0, 0)); a second block B slides in the same slot and is pinned to the
ram, which slides along the ground line y = h. So the lever's angle is
theta4 = atan2(d + r sin theta2, r cos theta2) and the ram's x is h cot(theta4): two slides
on a moving link, one of them carrying a revolute to a slider on the ground.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from gapsweep.core.mechanism.build import kinematics
from gapsweep.core.mechanism.case import simulate_mechanism
from gapsweep.core.mechanism.table import parse_table
from support.mechanism_tables import D_MM, H_MM, R_MM, RPM, quick_return


def lever_angle(theta2: np.ndarray) -> np.ndarray:
    return np.arctan2(D_MM + R_MM * np.sin(theta2), R_MM * np.cos(theta2))


def ram_x(theta2: np.ndarray) -> np.ndarray:
    """The ram's x [m] at crank angle theta2 [rad]."""
    return 1e-3 * H_MM / np.tan(lever_angle(theta2))


def test_quick_return_follows_its_closed_form_through_a_revolution():
    spec = parse_table(quick_return())
    k = kinematics(spec)
    names = [b.name for b in spec.bodies]
    lever, ram, crank = (names.index(n) for n in ("lever", "ram", "crank"))
    theta2 = k.positions[:, 3 * crank + 2]
    assert np.allclose(theta2, k.angles, atol=1e-10)
    phi_lever = k.positions[:, 3 * lever + 2]
    expected = np.unwrap(lever_angle(theta2)) - lever_angle(np.array(0.0))
    assert np.max(np.abs(phi_lever - expected)) < 1e-9
    assert np.max(np.abs(k.positions[:, 3 * ram] - ram_x(theta2))) < 1e-9
    # the ram does not turn, the blocks turn with the lever
    assert np.max(np.abs(k.positions[:, 3 * ram + 2])) < 1e-12
    block_b = names.index("block_b")
    assert np.max(np.abs(k.positions[:, 3 * block_b + 2] - phi_lever)) < 1e-9
    # quick return: the working stroke (the ram moving towards -x, lever turning up through
    # the vertical) takes longer than the return
    assert k.dof == 1


def test_quick_return_dynamics_keep_the_ram_on_its_closed_form():
    # the acceleration right-hand side (gamma) of the two slides integrated over a
    # revolution: the ram's peak position and speed are the closed form's
    result = simulate_mechanism({"mechanism": quick_return(), "t_end": 1.0, "rtol": 1e-9,
                                 "atol": 1e-12})
    assert result.ok, result.reason
    theta = np.linspace(0.0, 2.0 * math.pi, 200001)
    x = ram_x(theta)
    omega = RPM * 2.0 * math.pi / 60.0
    v = np.gradient(x, theta) * omega
    assert result.metrics["peak_ram_x"] == pytest.approx(np.max(np.abs(x)), rel=1e-6)
    assert result.metrics["peak_ram_v"] == pytest.approx(np.max(np.abs(v)), rel=1e-5)
    # the closed form's quick-return ratio: the ram's two strokes differ in speed
    assert np.max(v) != pytest.approx(-np.min(v), rel=0.1)


def test_quick_return_with_a_clearance_pin_runs():
    result = simulate_mechanism({"mechanism": quick_return(clearance_mm=0.05), "t_end": 0.5})
    assert result.ok, result.reason
    ideal = simulate_mechanism({"mechanism": quick_return(), "t_end": 0.5})
    assert result.metrics["impacts"] >= 1
    assert 0.0 < result.metrics["max_penetration"] < 0.05e-3
    # the clearance moves the ram by about the clearance times the lever's leverage
    assert result.metrics["peak_ram_x"] == pytest.approx(ideal.metrics["peak_ram_x"], rel=1e-2)
