"""The film laws (core/journal_bearing.py) against the Reynolds equation they come from, solved
here numerically - so the closed forms, the squeeze terms above all, are checked against their
problem rather than against a copy of themselves.

Geometry as the module's: the journal displaced along +x by e = eps c, the surfaces turning
counter-clockwise at omega_bar (= omega_J + omega_B - 2 gamma_dot), the gap at the bearing
angle a is h(a) = c (1 - eps cos a) and closes at de/dt = c eps_dot as dh/dt = -c eps_dot cos a.
The pi-film is the converging half at ambient pressure outside: a in [pi, 2 pi] (from the
largest gap to the smallest in the surfaces' direction) for omega_bar > 0, a in [0, pi] for
omega_bar < 0; across omega_bar = 0 the law mixes the two (``expected``). The pressure
pushes the journal with F = -R L int p (cos a, sin a) da (the short bearing: over z in
[-L/2, L/2] too).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from gapsweep.core.journal_bearing import LONG, SHORT, film_force
from scipy.integrate import cumulative_trapezoid, trapezoid

MU, R, L, C = 0.1, 0.05, 0.03, 1e-4  # Friswell 5.5.1's bearing
GRID = 100_001


UPPER, LOWER = (math.pi, 2.0 * math.pi), (0.0, math.pi)  # the converging half: omega_bar >/< 0


def long_film(eps: float, eps_dot: float, omega_bar: float, full: bool = False,
              half: tuple[float, float] = UPPER):
    """The long bearing: d/da (h^3 dp/da) = 6 mu R^2 omega_bar dh/da + 12 mu R^2 dh/dt, i.e.
    h^3 p' = 6 mu R^2 omega_bar h - 12 mu R^2 c eps_dot sin a + A, with p = 0 at both ends of
    the pi-film (A from the far end), or over the whole 2 pi film periodic (``full``: A from
    p(2 pi) = p(0), the pressure level does not move the force)."""
    a = np.linspace(0.0, 2.0 * math.pi, GRID) if full else np.linspace(*half, GRID)
    h = C * (1.0 - eps * np.cos(a))
    source = 6 * MU * R**2 * omega_bar * h - 12 * MU * R**2 * C * eps_dot * np.sin(a)
    i_source = cumulative_trapezoid(source / h**3, a, initial=0.0)
    i_one = cumulative_trapezoid(1.0 / h**3, a, initial=0.0)
    p = i_source - i_source[-1] / i_one[-1] * i_one
    return -R * L * trapezoid(p * np.cos(a), a), -R * L * trapezoid(p * np.sin(a), a)


def short_film(eps: float, eps_dot: float, omega_bar: float,
               half: tuple[float, float] = UPPER):
    """The short bearing: d/dz (h^3 dp/dz) = 12 mu (omega_bar/2 dh/da + dh/dt), p = 0 at
    z = +-L/2: p = (6 mu / h^3)(omega_bar/2 dh/da + dh/dt)(z^2 - L^2/4), whose integral over
    the length is -(mu L^3 / h^3)(omega_bar/2 dh/da + dh/dt); on the pi-film only."""
    a = np.linspace(*half, GRID)
    h = C * (1.0 - eps * np.cos(a))
    dh_da = C * eps * np.sin(a)
    dh_dt = -C * eps_dot * np.cos(a)
    line = -(MU * L**3 / h**3) * (0.5 * omega_bar * dh_da + dh_dt)
    return -R * trapezoid(line * np.cos(a), a), -R * trapezoid(line * np.sin(a), a)


def expected(solver, eps: float, eps_dot: float, omega_bar: float):
    """The film the law should give: on the half that converges for the sign of omega_bar,
    mixed across omega_bar = 0 as the module states - (1 + sigma)/2 of the upper half's film
    and (1 - sigma)/2 of the lower's, sigma = z / sqrt(z^2 + 4 eps_dot^2), z = eps omega_bar
    (sigma = 1 - 1.8e-3 at eps 0.1, omega_bar 100, eps_dot 0.3: the upper half nearly alone;
    pure squeeze is the mean of the two halves)."""
    z = eps * omega_bar
    sigma = z / math.hypot(z, 2.0 * eps_dot)
    up = solver(eps, eps_dot, omega_bar, half=UPPER)
    low = solver(eps, eps_dot, omega_bar, half=LOWER)
    w = 0.5 * (1.0 + sigma)
    return w * up[0] + (1 - w) * low[0], w * up[1] + (1 - w) * low[1]


def law(kind: int, eps: float, eps_dot: float, omega_bar: float):
    """The module's force, its whirl-free form: omega_bar is the surfaces' speed here."""
    return film_force(kind, MU, R, L, C, eps * C, 0.0, eps_dot * C, 0.0, omega_bar)


def test_the_reynolds_solver_meets_the_full_film_squeeze_force():
    """The solver above, over the whole film in pure squeeze, against the closed form
    W = 12 pi mu R^3 L (de/dt) / (c^3 (1 - eps^2)^(3/2)) (Hamrock, Fundamentals of Fluid Film
    Lubrication, the squeeze-film journal bearing): the periodic pressure is
    p = 6 mu R^2 eps_dot / (c^2 eps) / (1 - eps cos a)^2 + const, and int cos a /
    (1 - eps cos a)^2 da = 2 pi eps / (1 - eps^2)^(3/2) over 2 pi."""
    e_dot = 0.3 * C
    for eps in (0.1, 0.5, 0.8):
        fx, fy = long_film(eps, e_dot / C, 0.0, full=True)
        w = 12 * math.pi * MU * R**3 * L * e_dot / (C**3 * (1 - eps**2) ** 1.5)
        assert fx == pytest.approx(-w, rel=1e-6)
        assert abs(fy) < 1e-9 * w


@pytest.mark.parametrize("eps", [0.1, 0.5, 0.8, 0.95])
def test_the_long_bearing_is_the_pi_film_solution(eps):
    """Squeeze alone, wedge alone and both (the problem is linear on a fixed half film, so
    the law must be the sum), approaching and receding, the surfaces either way: the
    long-bearing law equals the numerical pi-film solution on the half that converges. In
    pure squeeze its radial force is below the full film's (the half film at ambient ends
    carries less than the whole)."""
    for eps_dot, omega_bar in ((0.3, 0.0), (-0.3, 0.0), (0.0, 100.0), (0.3, 100.0),
                               (-0.3, 50.0), (0.2, -80.0), (0.0, -100.0), (-0.3, -50.0)):
        ref = expected(long_film, eps, eps_dot, omega_bar)
        got = law(LONG, eps, eps_dot, omega_bar)
        scale = math.hypot(*ref)
        assert got[0] == pytest.approx(ref[0], abs=1e-6 * scale)
        assert got[1] == pytest.approx(ref[1], abs=1e-6 * scale)
    full = long_film(eps, 0.3, 0.0, full=True)
    assert 0.0 < -law(LONG, eps, 0.3, 0.0)[0] < -full[0]


@pytest.mark.parametrize("eps", [0.1, 0.5, 0.8, 0.95])
def test_the_short_bearing_is_the_pi_film_solution(eps):
    for eps_dot, omega_bar in ((0.3, 0.0), (-0.3, 0.0), (0.0, 100.0), (0.3, 100.0),
                               (0.2, -80.0), (0.0, -100.0), (-0.3, -50.0)):
        ref = expected(short_film, eps, eps_dot, omega_bar)
        got = law(SHORT, eps, eps_dot, omega_bar)
        scale = math.hypot(*ref)
        assert got[0] == pytest.approx(ref[0], abs=1e-6 * scale)
        assert got[1] == pytest.approx(ref[1], abs=1e-6 * scale)
