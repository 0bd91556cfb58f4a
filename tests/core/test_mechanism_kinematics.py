"""Ideal kinematics of described mechanisms against closed forms: a crank-rocker four-bar
(Freudenstein's equation and the loop's derivatives) and an offset slider-crank."""

from __future__ import annotations

import math

import numpy as np
import pytest
from gapsweep.core.kinematics import kinematic_analysis
from gapsweep.core.mechanism.build import build_mechanism, kinematics
from gapsweep.core.mechanism.case import MechanismCase
from support.mechanism_tables import table


def _states(mech_table: dict, n: int = 36):
    spec = MechanismCase.from_mapping({"mechanism": mech_table}).spec
    mech = build_mechanism(spec, ideal=True)
    times = np.arange(n) * spec.period / n
    return spec, kinematic_analysis(mech, times), times


def _freudenstein(theta, a, b, c, d):
    """theta4 from Freudenstein's equation (open branch), theta3 from the loop closure."""
    k1, k2, k3 = d / a, d / c, (a * a - b * b + c * c + d * d) / (2 * a * c)
    qa = math.cos(theta) - k1 - k2 * math.cos(theta) + k3
    qb = -2.0 * math.sin(theta)
    qc = k1 - (k2 + 1.0) * math.cos(theta) + k3
    t4 = 2.0 * math.atan2(-qb - math.sqrt(qb * qb - 4 * qa * qc), 2.0 * qa)
    bx, by = d + c * math.cos(t4), c * math.sin(t4)
    t3 = math.atan2(by - a * math.sin(theta), bx - a * math.cos(theta))
    return t3, t4


def test_four_bar_rocker_follows_freudenstein():
    spec, states, times = _states(table("four_bar_crank_rocker"))
    a, b, c, d = 0.040, 0.120, 0.080, 0.100
    w2 = spec.omega
    rocker = 3 * [x.name for x in spec.bodies].index("rocker") + 2
    _, t4_0 = _freudenstein(0.0, a, b, c, d)
    for state, t in zip(states, times, strict=True):
        th = w2 * t
        t3, t4 = _freudenstein(th, a, b, c, d)
        w3 = a * w2 / b * math.sin(t4 - th) / math.sin(t3 - t4)
        w4 = a * w2 / c * math.sin(th - t3) / math.sin(t4 - t3)
        # the loop a e^(i t2) + b e^(i t3) - c e^(i t4) - d = 0 differentiated twice
        r1 = a * w2**2 * math.cos(th) + b * w3**2 * math.cos(t3) - c * w4**2 * math.cos(t4)
        r2 = a * w2**2 * math.sin(th) + b * w3**2 * math.sin(t3) - c * w4**2 * math.sin(t4)
        al4 = -(math.sin(t3) * r2 + math.cos(t3) * r1) / (c * math.sin(t3 - t4))
        angle = t4_0 + state.q[rocker]  # the body's frame is the design position
        assert math.remainder(angle - t4, 2 * math.pi) == pytest.approx(0.0, abs=1e-9)
        assert state.v[rocker] == pytest.approx(w4, rel=1e-8, abs=1e-9 * w2)
        assert state.a[rocker] == pytest.approx(al4, rel=1e-7, abs=1e-8 * w2**2)


def test_offset_slider_crank_follows_its_closed_form():
    spec, states, times = _states(table("offset_slider_crank_gas"))
    r, length, e = 0.045, 0.140, 0.012
    w = spec.omega
    piston = 3 * [x.name for x in spec.bodies].index("piston")
    for state, t in zip(states, times, strict=True):
        th = w * t
        u, du, ddu = r * math.sin(th) - e, r * math.cos(th), -r * math.sin(th)
        s = math.sqrt(length**2 - u * u)
        x = r * math.cos(th) + s
        dx = -r * math.sin(th) - u * du / s
        ddx = -r * math.cos(th) - (du * du + u * ddu) / s - (u * du) ** 2 / s**3
        assert state.q[piston] == pytest.approx(x, abs=1e-12)
        assert state.q[piston + 1] == pytest.approx(e, abs=1e-12)
        assert state.v[piston] == pytest.approx(w * dx, rel=1e-8, abs=1e-9)
        assert state.a[piston] == pytest.approx(w * w * ddx, rel=1e-7, abs=1e-6)


def test_sweep_covers_one_revolution_with_one_degree_of_freedom():
    spec = MechanismCase.from_mapping({"mechanism": table("toggle_press")}).spec
    k = kinematics(spec)
    assert k.dof == 1
    assert k.angles[-1] == pytest.approx(2 * math.pi)
    # after one revolution every body is back where it started (crank: one turn more)
    crank = 3 * [b.name for b in spec.bodies].index("crank") + 2
    back = k.positions[-1] - k.positions[0]
    back[crank] -= 2 * math.pi
    assert np.max(np.abs(back)) < 1e-9
