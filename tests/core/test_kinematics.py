"""Kinematic analysis against closed forms: the Flores slider-crank and Freudenstein's four-bar.

Newton-Raphson positions, then ``Phi_q v = -Phi_t`` and ``Phi_q a = gamma``, must reproduce
the analytic motion to 1e-9: positions relative to the value at each instant, velocities and
accelerations relative to the peak of the series (they pass through zero).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from gapsweep.core.errors import InputError
from gapsweep.core.kinematics import kinematic_analysis
from gapsweep.core.model import ContactModel
from gapsweep.core.templates.four_bar import (
    CROSSED,
    OPEN,
    four_bar,
    freudenstein_rocker_angle,
)
from gapsweep.core.templates.slider_crank import FLORES, slider_crank

TOL = 1e-9
OMEGA = 5000.0 * 2.0 * math.pi / 60.0  # [rad/s]


def slider_closed_form(theta, r, length, omega):
    """Slider x, x', x'' [m, m/s, m/s^2] at crank angle theta = omega t, constant omega."""
    s, c = np.sin(theta), np.cos(theta)
    root = np.sqrt(length**2 - (r * s) ** 2)
    x = r * c + root
    dx = -r * s - r * r * s * c / root  # dx/dtheta
    ddx = -r * c - r * r * (c * c - s * s) / root - r**4 * s * s * c * c / root**3
    return x, omega * dx, omega**2 * ddx


def test_slider_crank_matches_closed_form():
    mech = slider_crank(
        FLORES, omega=OMEGA, clearance=5e-4, bearing_radius=0.01, contact=ContactModel()
    )
    period = 2.0 * math.pi / OMEGA
    times = np.linspace(0.0, period, 361)
    states = kinematic_analysis(mech, times)
    slider = 3 * mech.body_index("slider")
    got = np.array([[s.q[slider], s.v[slider], s.a[slider]] for s in states])
    x, v, a = slider_closed_form(OMEGA * times, FLORES.crank_length, FLORES.rod_length, OMEGA)
    err_x = np.max(np.abs(got[:, 0] - x) / np.abs(x))
    err_v = np.max(np.abs(got[:, 1] - v)) / np.max(np.abs(v))
    err_a = np.max(np.abs(got[:, 2] - a)) / np.max(np.abs(a))
    print(f"\nslider-crank kinematics: rel. error x {err_x:.2e}, v {err_v:.2e}, a {err_a:.2e}")
    assert err_x <= TOL and err_v <= TOL and err_a <= TOL


def rocker_closed_form(theta, a, b, c, d, omega, branch):
    """theta4 and its first two time derivatives from Freudenstein's closed form.

    The rates follow by implicit differentiation of Freudenstein's equation
    ``F = K1 cos t4 - K2 cos t + K3 - cos(t - t4) = 0`` at constant crank speed.
    """
    t4 = np.array([freudenstein_rocker_angle(t, a, b, c, d, branch) for t in theta])
    k1, k2 = d / a, d / c
    u = theta - t4
    f_t = k2 * np.sin(theta) + np.sin(u)
    f_4 = -k1 * np.sin(t4) - np.sin(u)
    f_tt = k2 * np.cos(theta) + np.cos(u)
    f_t4 = -np.cos(u)
    f_44 = -k1 * np.cos(t4) + np.cos(u)
    d1 = -f_t / f_4
    d2 = -(f_tt + 2.0 * f_t4 * d1 + f_44 * d1 * d1) / f_4
    return t4, omega * d1, omega**2 * d2


# a Grashof crank-rocker: shortest (crank) + longest (ground) < the other two
LINKS = {"ground": 0.10, "crank": 0.03, "coupler": 0.09, "rocker": 0.07}


@pytest.mark.parametrize("branch", [OPEN, CROSSED])
def test_freudenstein_closed_form_closes_the_loop(branch):
    a, b, c, d = LINKS["crank"], LINKS["coupler"], LINKS["rocker"], LINKS["ground"]
    for theta in np.linspace(-math.pi, math.pi, 37):
        t4 = freudenstein_rocker_angle(theta, a, b, c, d, branch)
        pin_a = (a * math.cos(theta), a * math.sin(theta))
        pin_b = (d + c * math.cos(t4), c * math.sin(t4))
        assert math.dist(pin_a, pin_b) == pytest.approx(b, rel=1e-12)
    # the two branches are mirror images about the line O4-A: different unless folded
    other = freudenstein_rocker_angle(1.0, a, b, c, d, -branch)
    assert abs(freudenstein_rocker_angle(1.0, a, b, c, d, branch) - other) > 0.1


@pytest.mark.parametrize("branch", [OPEN, CROSSED])
def test_four_bar_matches_freudenstein(branch):
    omega, theta0 = 100.0, 0.3
    mech = four_bar(**LINKS, omega=omega, crank_angle=theta0, branch=branch)
    times = np.linspace(0.0, 2.0 * math.pi / omega, 145)  # 2.5 degree steps, one revolution
    states = kinematic_analysis(mech, times)
    rocker = 3 * mech.body_index("rocker") + 2
    got = np.array([[s.q[rocker], s.v[rocker], s.a[rocker]] for s in states])
    a, b, c, d = LINKS["crank"], LINKS["coupler"], LINKS["rocker"], LINKS["ground"]
    t4, w4, al4 = rocker_closed_form(theta0 + omega * times, a, b, c, d, omega, branch)
    wrapped = np.angle(np.exp(1j * (got[:, 0] - t4)))  # same angle modulo 2 pi
    err_t = np.max(np.abs(wrapped)) / np.max(np.abs(t4))
    err_w = np.max(np.abs(got[:, 1] - w4)) / np.max(np.abs(w4))
    err_a = np.max(np.abs(got[:, 2] - al4)) / np.max(np.abs(al4))
    print(f"\nfour-bar ({branch=}): rel. error theta4 {err_t:.2e}, w4 {err_w:.2e}, a4 {err_a:.2e}")
    assert err_t <= TOL and err_w <= TOL and err_a <= TOL


def test_four_bar_that_cannot_close_is_rejected():
    # crank + coupler + rocker shorter than the ground link: the links never meet
    with pytest.raises(InputError) as info:
        four_bar(ground=0.2, crank=0.03, coupler=0.05, rocker=0.04, omega=10.0)
    assert info.value.field == "assembly"


def test_kinematic_analysis_stops_where_the_linkage_cannot_close():
    # non-Grashof (0.06 + 0.10 > 0.07 + 0.08): it assembles at theta = 0, but at theta = pi
    # the crank pin is 0.16 m from O4, beyond coupler + rocker = 0.15 m
    mech = four_bar(ground=0.10, crank=0.06, coupler=0.07, rocker=0.08, omega=1.0)
    kinematic_analysis(mech, [0.0, 0.5])  # closes here
    with pytest.raises(InputError) as info:
        kinematic_analysis(mech, np.linspace(0.0, math.pi, 37))
    assert info.value.field == "assembly"
    assert "assembl" in str(info.value)
