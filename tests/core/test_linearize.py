"""Static equilibrium and linearised eigenfrequencies against textbook closed forms.

A mass on a linear spring (a body on a translational joint): ``f = sqrt(k/m) / (2 pi)`` and,
hanging under gravity, the static extension ``m g / k``. A compound pendulum (a body on a
revolute to the ground): ``f = sqrt(m g l / (J + m l^2)) / (2 pi)`` - which in absolute
coordinates only comes out right with the geometric stiffness of the pin reaction.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from gapsweep.core.errors import InputError
from gapsweep.core.linearize import eigenfrequencies, linearize
from gapsweep.core.model import (
    GROUND,
    AngleDriver,
    Body,
    Mechanism,
    Revolute,
    Spring,
    Translational,
)
from gapsweep.core.statics import static_equilibrium
from gapsweep.core.templates.four_bar import (
    LINEAR_DENSITY,
    OPEN,
    four_bar,
    freudenstein_rocker_angle,
)

M, J = 0.7, 0.02  # [kg], [kg m^2]
K, FREE = 400.0, 0.2  # [N/m], [m]
L = 0.3  # [m] pivot to centre of mass
G = 9.81
RTOL = 1e-6


def oscillator(gravity: float, direction=(1.0, 0.0), start=0.25) -> Mechanism:
    """A body sliding along ``direction`` through the origin, on a spring from the origin."""
    pose = (start * direction[0], start * direction[1], 0.0)
    return Mechanism(
        "mass-spring",
        (Body("mass", M, J, pose),),
        joints=(Translational("mass", direction=direction),),
        loads=(Spring(GROUND, "mass", K, FREE),),
        gravity=(0.0, -gravity),
    )


def pendulum(angle_off: float = 0.4) -> Mechanism:
    """Body x axis from the pivot to the centre of mass; hanging means phi = -pi/2."""
    phi = -math.pi / 2 + angle_off
    pose = (L * math.cos(phi), L * math.sin(phi), phi)
    return Mechanism(
        "pendulum",
        (Body("bob", M, J, pose),),
        joints=(Revolute(GROUND, "bob", (0.0, 0.0), (-L, 0.0)),),
        gravity=(0.0, -G),
    )


def test_mass_on_a_spring():
    f = eigenfrequencies(oscillator(0.0))
    exact = math.sqrt(K / M) / (2.0 * math.pi)
    print(f"\nmass-spring: {f[0]:.10g} Hz, exact {exact:.10g}, rel. err {f[0] / exact - 1:.1e}")
    assert f.shape == (1,)
    assert f[0] == pytest.approx(exact, rel=RTOL)


def test_hanging_mass_static_extension_and_frequency():
    mech = oscillator(G, direction=(0.0, -1.0))
    eq = static_equilibrium(mech)
    extension = math.hypot(*eq.q[:2]) - FREE
    print(f"\nhanging mass: extension {extension:.12g} m, m g / k {M * G / K:.12g} m")
    assert extension == pytest.approx(M * G / K, rel=1e-9)
    assert eq.force_residual <= 1e-9 * M * G
    # gravity shifts the equilibrium, not the frequency of a linear spring
    assert eigenfrequencies(mech)[0] == pytest.approx(math.sqrt(K / M) / (2 * math.pi), rel=RTOL)


def test_compound_pendulum():
    modes = linearize(pendulum())
    exact = math.sqrt(M * G * L / (J + M * L * L)) / (2.0 * math.pi)
    f = modes.frequencies
    print(f"\npendulum: {f[0]:.10g} Hz, exact {exact:.10g}, rel. err {f[0] / exact - 1:.1e}")
    assert f.shape == (1,) and modes.stable
    assert f[0] == pytest.approx(exact, rel=RTOL)
    # statics found the hanging position, and the pin carries the weight
    assert modes.q[2] == pytest.approx(-math.pi / 2, abs=1e-12)
    assert modes.lam == pytest.approx([0.0, M * G], abs=1e-9)
    # the mode is a rotation about the pivot: mass-normalised, phi amplitude 1/sqrt(J + m l^2)
    shape = modes.shapes[:, 0] * np.sign(modes.shapes[2, 0])
    assert shape == pytest.approx([L, 0.0, 1.0] / np.sqrt(J + M * L * L), abs=1e-9)


def test_inverted_pendulum_is_unstable():
    # Newton from near the top lands on the upright equilibrium: omega^2 < 0 there
    modes = linearize(pendulum(angle_off=math.pi - 0.2))
    assert modes.q[2] == pytest.approx(math.pi / 2, abs=1e-12)
    assert not modes.stable
    exact = math.sqrt(M * G * L / (J + M * L * L)) / (2.0 * math.pi)
    assert modes.frequencies[0] == pytest.approx(-exact, rel=RTOL)


def derivative(f, x, h=1e-4):
    """Sixth-order central difference of a smooth scalar function."""
    ahead = 45 * (f(x + h) - f(x - h)) - 9 * (f(x + 2 * h) - f(x - 2 * h))
    return (ahead + f(x + 3 * h) - f(x - 3 * h)) / (60 * h)


def test_free_four_bar_swinging_under_gravity():
    """One degree of freedom, three bodies, four pins: omega^2 = V''(theta) / I(theta).

    Reference from Lagrange's equation in the crank angle theta, with every body's pose
    written from Freudenstein's closed form: ``I = sum m |dr/dtheta|^2 + J (dphi/dtheta)^2``
    and the gravity potential ``V``, differentiated numerically to sixth order.
    """
    a, b, c, d = 0.03, 0.09, 0.07, 0.10
    mech = four_bar(
        ground=d, crank=a, coupler=b, rocker=c, omega=0.0, driven=False, crank_angle=-1.5
    )
    modes = linearize(mech)  # statics from crank angle -1.5 rad: the hanging position
    masses = [LINEAR_DENSITY * s for s in (a, b, c)]
    inertias = [m * s * s / 12.0 for m, s in zip(masses, (a, b, c), strict=True)]

    def poses(theta):  # (x, y, phi) of crank, coupler, rocker
        t4 = freudenstein_rocker_angle(theta, a, b, c, d, OPEN)
        ax, ay = a * math.cos(theta), a * math.sin(theta)
        bx, by = d + c * math.cos(t4), c * math.sin(t4)
        t3 = math.atan2(by - ay, bx - ax)
        return [
            (ax / 2, ay / 2, theta),
            ((ax + bx) / 2, (ay + by) / 2, t3),
            ((d + bx) / 2, by / 2, t4),
        ]

    def potential(theta):
        return sum(m * G * p[1] for m, p in zip(masses, poses(theta), strict=True))

    theta = modes.q[2]  # the crank angle statics found
    assert abs(derivative(potential, theta)) < 1e-9  # it is an equilibrium of V
    inertia = 0.0
    for k in range(3):
        for i, weight in enumerate((masses[k], masses[k], inertias[k])):
            rate = derivative(lambda t, k=k, i=i: poses(t)[k][i], theta)
            inertia += weight * rate * rate
    stiffness = derivative(lambda t: derivative(potential, t), theta)
    exact = math.sqrt(stiffness / inertia) / (2.0 * math.pi)
    f = modes.frequencies
    print(f"\nfree four-bar: {f[0]:.10g} Hz, energy method {exact:.10g}, {f[0] / exact - 1:.1e}")
    assert modes.stable and f.shape == (1,) and f[0] == pytest.approx(exact, rel=RTOL)


def test_given_equilibrium_is_checked():
    hanging = np.array([0.0, -L, -math.pi / 2])
    exact = math.sqrt(M * G * L / (J + M * L * L)) / (2.0 * math.pi)
    assert eigenfrequencies(pendulum(), hanging)[0] == pytest.approx(exact, rel=RTOL)
    tilted = np.array([L * math.sin(0.1), -L * math.cos(0.1), -math.pi / 2 + 0.1])
    with pytest.raises(InputError) as info:
        eigenfrequencies(pendulum(), tilted)  # on the joint, but gravity is unbalanced
    assert info.value.field == "q_eq"


def test_free_fall_has_no_equilibrium():
    falling = Mechanism("falling", (Body("brick", M, J, (0.0, 0.0, 0.0)),), gravity=(0.0, -G))
    with pytest.raises(InputError) as info:
        static_equilibrium(falling)
    assert info.value.field == "equilibrium"


def test_driven_linkage_is_locked():
    # a driver held at t locks the four-bar's single degree of freedom: nothing vibrates
    mech = four_bar(ground=0.10, crank=0.03, coupler=0.09, rocker=0.07, omega=10.0)
    assert linearize(mech).frequencies.shape == (0,)
    # a driven pendulum likewise; the driver's multiplier is the holding torque m g l cos(phi)
    held = Mechanism(
        "held", pendulum().bodies, pendulum().joints, drivers=(AngleDriver("bob", 0.0, -1.0),)
    )
    eq = static_equilibrium(held)
    assert eq.q[2] == pytest.approx(-1.0, abs=1e-12)
    assert abs(eq.lam[-1]) == pytest.approx(M * G * L * math.cos(1.0), rel=1e-9)
