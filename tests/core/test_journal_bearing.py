"""The oil film of one journal bearing (core/journal_bearing.py, design.md 4.11) against
Friswell, Penny, Garvey & Lees, *Dynamics of Rotating Machines* (2010), Example 5.5.1: a short
bearing, R = 50 mm, L = 30 mm, c = 0.1 mm, mu = 0.1 Pa s, 157.1 rad/s, W = 525 N. Every
reference is computed here from the textbook's closed forms (Ocvirk's load equation and
the short bearing's closed-form coefficients, Friswell section 5.5), then held against
the printed figures."""

import math

import numpy as np
import pytest
from gapsweep.core.journal_bearing import (
    FILM_LIMIT,
    FINITE,
    LONG,
    SHORT,
    Bearing,
    bearing_state,
    film_force,
)
from scipy.optimize import brentq

R, L, C, MU, OMEGA, W = 0.05, 0.03, 1e-4, 0.1, 157.1, 525.0
PI = math.pi


def ocvirk_ratio() -> float:
    """Ocvirk's load: W = mu omega R L^3 / (4 c^2) eps / (1-eps^2)^2 sqrt(16 eps^2 + pi^2
    (1-eps^2)), solved for eps."""
    def load(e):
        return (MU * OMEGA * R * L**3 / (4 * C**2) * e / (1 - e * e) ** 2
                * math.sqrt(16 * e * e + PI**2 * (1 - e * e)))
    return brentq(lambda e: load(e) - W, 1e-9, 0.999, xtol=1e-14)


def friswell_coefficients(e: float) -> tuple[np.ndarray, np.ndarray]:
    """K = W/c [a_ij], C = W/(c omega) [b_ij] of the short bearing (Friswell, short bearing)."""
    h0 = 1.0 / (PI**2 * (1 - e * e) + 16 * e * e) ** 1.5
    q = e * math.sqrt(1 - e * e)
    a = h0 * np.array([
        [4 * (PI**2 * (2 - e * e) + 16 * e * e),
         PI * (PI**2 * (1 - e * e) ** 2 - 16 * e**4) / q],
        [-PI * (PI**2 * (1 - e * e) * (1 + 2 * e * e) + 32 * e * e * (1 + e * e)) / q,
         4 * (PI**2 * (1 + 2 * e * e) + 32 * e * e * (1 + e * e) / (1 - e * e))],
    ])
    b_uv = -8 * (PI**2 * (1 + 2 * e * e) - 16 * e * e)
    b = h0 * np.array([
        [2 * PI * math.sqrt(1 - e * e) * (PI**2 * (1 + 2 * e * e) - 16 * e * e) / e, b_uv],
        [b_uv, 2 * PI * (PI**2 * (1 - e * e) ** 2 + 48 * e * e) / q],
    ])
    return W / C * a, W / (C * OMEGA) * b


def test_friswell_example_5_5_1_equilibrium_and_coefficients():
    state = bearing_state(Bearing(SHORT, R, L, C, MU, OMEGA), load=W)
    eps = ocvirk_ratio()
    assert state["eccentricity_ratio"] == pytest.approx(eps, rel=1e-9)
    assert state["eccentricity_ratio"] == pytest.approx(0.2663, abs=5e-5)  # the book's figure
    attitude = math.degrees(math.atan(PI * math.sqrt(1 - eps * eps) / (4 * eps)))
    assert state["attitude_deg"] == pytest.approx(attitude, rel=1e-9)
    assert state["attitude_deg"] == pytest.approx(70.6, abs=0.05)
    # e makes that angle with -y towards the rotation (counter-clockwise: e_x > 0)
    phi = math.radians(attitude)
    assert state["eccentricity_x_m"] == pytest.approx(eps * C * math.sin(phi), rel=1e-9)
    assert state["eccentricity_y_m"] == pytest.approx(-eps * C * math.cos(phi), rel=1e-9)
    assert state["load_n"] == W
    assert math.hypot(state["force_radial_n"], state["force_tangential_n"]) == pytest.approx(W)
    sommerfeld = MU * (OMEGA / (2 * PI)) * L * (2 * R) / W * (R / C) ** 2
    assert state["sommerfeld_number"] == pytest.approx(sommerfeld, rel=1e-12)
    assert state["sommerfeld_number"] == pytest.approx(3.572, abs=6e-4)
    k_ref, c_ref = friswell_coefficients(eps)
    k, c = np.array(state["stiffness_n_per_m"]), np.array(state["damping_n_s_per_m"])
    np.testing.assert_allclose(k, k_ref, rtol=1e-6)
    np.testing.assert_allclose(c, c_ref, rtol=1e-6)
    printed_k = np.array([[12.81, 16.39], [-25.06, 8.815]]) * 1e6
    printed_c = np.array([[232.9, -81.92], [-81.92, 294.9]]) * 1e3
    np.testing.assert_allclose(k, printed_k, rtol=1e-3)
    np.testing.assert_allclose(c, printed_c, rtol=1e-3)


def test_short_bearing_spot_values_at_half_eccentricity():
    k_s = MU * R * L**3 / (2 * C**2)
    e = 0.5
    f_r = -k_s * 2 * e * e * OMEGA / (1 - e * e) ** 2
    f_t = k_s * PI * e * OMEGA / (2 * (1 - e * e) ** 1.5)
    assert (f_r, f_t) == pytest.approx((-942.6, 1282.3), abs=0.05)
    state = bearing_state(Bearing(SHORT, R, L, C, MU, OMEGA), eccentricity_ratio=e)
    assert state["force_radial_n"] == pytest.approx(f_r, rel=1e-12)
    assert state["force_tangential_n"] == pytest.approx(f_t, rel=1e-12)
    assert state["load_n"] == pytest.approx(math.hypot(f_r, f_t), rel=1e-12)


def test_long_bearing_spot_value_and_the_ratio_to_the_short_one():
    e = 0.5
    f_r = -12 * MU * OMEGA * R**3 * L * e * e / (C**2 * (2 + e * e) * (1 - e * e))
    f_t = 6 * PI * MU * OMEGA * R**3 * L * e / (C**2 * (2 + e * e) * math.sqrt(1 - e * e))
    load, angle = math.hypot(f_r, f_t), math.degrees(math.atan2(f_t, -f_r))
    assert load == pytest.approx(30.36e3, abs=5)
    assert angle == pytest.approx(69.8, abs=0.05)
    state = bearing_state(Bearing(LONG, R, L, C, MU, OMEGA), eccentricity_ratio=e)
    assert state["load_n"] == pytest.approx(load, rel=1e-12)
    assert state["attitude_deg"] == pytest.approx(angle, rel=1e-12)
    # L/D = 0.3: the long-bearing load is about 30 times the short one at small eps (the
    # issue's warning): 12 R^2 / L^2 = 33 from the two formulas' leading terms
    small = {kind: bearing_state(Bearing(kind, R, L, C, MU, OMEGA),
                                 eccentricity_ratio=1e-3)["load_n"] for kind in (SHORT, LONG)}
    assert small[LONG] / small[SHORT] == pytest.approx(12 * R * R / (L * L), rel=1e-3)


@pytest.mark.parametrize("length", [0.005, 0.03, 0.1, 0.4, 2.0])
def test_finite_lies_between_and_tends_to_each_limit(length):
    """The harmonic combination is never above the smaller of the two solutions' loads
    (nearly parallel forces), and within 2 % of the short bearing at L/D <= 0.05 and of the
    long one at L/D >= 20."""
    loads = {}
    for kind in (SHORT, LONG, FINITE):
        loads[kind] = bearing_state(Bearing(kind, R, length, C, MU, OMEGA),
                                    eccentricity_ratio=0.5)["load_n"]
    harmonic = loads[SHORT] * loads[LONG] / (loads[SHORT] + loads[LONG])
    assert loads[FINITE] == pytest.approx(harmonic, rel=0.05)
    assert loads[FINITE] <= min(loads[SHORT], loads[LONG])
    ratio = length / (2 * R)
    if ratio <= 0.05:
        assert loads[FINITE] == pytest.approx(loads[SHORT], rel=0.02)
    if ratio >= 20:
        assert loads[FINITE] == pytest.approx(loads[LONG], rel=0.02)


@pytest.mark.parametrize("kind", [SHORT, LONG, FINITE])
def test_the_film_never_makes_energy(kind):
    """Seen from the frame turning at the mean surface speed, the film's power on the
    journal's motion is <= 0 for any state (random states over the film's range and past
    it, both surfaces turning)."""
    rng = np.random.default_rng(7)
    worst = -math.inf
    for _ in range(5000):
        eps = rng.uniform(0.0, 1.05)
        angle = rng.uniform(0, 2 * PI)
        e = eps * C * np.array([math.cos(angle), math.sin(angle)])
        v = rng.normal(size=2) * C * 10.0 ** rng.uniform(-1, 4)
        w_j, w_b = rng.normal(size=2) * 300
        fx, fy = film_force(kind, MU, R, L, C, e[0], e[1], v[0], v[1], w_j + w_b)
        v_rot = v - 0.5 * (w_j + w_b) * np.array([-e[1], e[0]])
        power = fx * v_rot[0] + fy * v_rot[1]
        scale = math.hypot(fx, fy) * np.linalg.norm(v_rot)
        if scale > 0:
            worst = max(worst, power / scale)
    assert worst <= 0.0


def mirrored(x: float, y: float) -> tuple[float, float]:
    return x, -y


@pytest.mark.parametrize("kind", [SHORT, LONG, FINITE])
def test_the_film_is_the_mirror_image_of_itself(kind):
    """Reflect the bearing in the x axis: the gap h(a) -> h(-a), the journal's eccentricity
    and velocity reflect, and both surfaces turn the other way (a rotation's sense flips in a
    mirror). The Reynolds equation d/da (h^3 dp/da) = 6 mu R^2 omega_bar dh/da + 12 mu R^2
    dh/dt is unchanged by a -> -a with omega_bar -> -omega_bar, so p(a) -> p(-a) and the film
    force reflects: F(mirror state) = mirror F(state). Along the line of centres this is
    F_r(-z) = F_r(z), F_t(-z) = -F_t(z) with u_r kept: the film under z < 0 is the image of
    the one under z > 0 (Flores et al.'s fixed half would give F(-z) = -F(z) in the wedge,
    the journal pushed outwards). Random states, both surfaces turning, the band around
    z = 0 included (slow surfaces, fast radial motion)."""
    rng = np.random.default_rng(11)
    for i in range(3000):
        eps = rng.uniform(0.0, 0.999)
        angle = rng.uniform(0, 2 * PI)
        ex, ey = eps * C * math.cos(angle), eps * C * math.sin(angle)
        vx, vy = rng.normal(size=2) * C * 10.0 ** rng.uniform(-1, 3)
        speed = rng.normal() * (300.0 if i % 2 else 1.0)
        f = film_force(kind, MU, R, L, C, ex, ey, vx, vy, speed)
        g = film_force(kind, MU, R, L, C, *mirrored(ex, ey), *mirrored(vx, vy), -speed)
        scale = math.hypot(*f)
        assert g == pytest.approx(mirrored(*f), abs=1e-12 * scale)
    # and the image of the steady film is a film under z < 0 that carries the journal
    steady = film_force(kind, MU, R, L, C, 0.5 * C, 0.0, 0.0, 0.0, OMEGA)
    image = film_force(kind, MU, R, L, C, 0.5 * C, 0.0, 0.0, 0.0, -OMEGA)
    assert image == pytest.approx(mirrored(*steady), rel=1e-12)
    assert image[0] < 0.0  # towards the centre


@pytest.mark.parametrize("kind", [SHORT, LONG, FINITE])
def test_a_whirling_load_is_carried_as_hamrock_says(kind):
    """A load turning at omega_L, the journal at rest in the load's frame (whirling at
    omega_L at eps, no radial motion), the surfaces at omega_J + omega_B = OMEGA: the film
    sees omega_bar = OMEGA - 2 omega_L and carries what a steady film at |omega_bar| carries
    (Hamrock, Fundamentals of Fluid Film Lubrication, the dynamically loaded journal bearing:
    the capacity follows |omega_J + omega_B - 2 omega_L|). A load turning with the journal
    (omega_L = OMEGA) is carried as a steady one; at half-speed whirl nothing carries it."""
    for eps in (0.2, 0.5, 0.8):
        angle = 0.7
        ex, ey = eps * C * math.cos(angle), eps * C * math.sin(angle)
        for omega_load in (-0.5 * OMEGA, 0.25 * OMEGA, 0.5 * OMEGA, OMEGA, 1.7 * OMEGA):
            f = film_force(kind, MU, R, L, C, ex, ey, -omega_load * ey, omega_load * ex, OMEGA)
            omega_bar = abs(OMEGA - 2 * omega_load)
            steady = Bearing(kind, R, L, C, MU, omega_bar).steady_polar(eps) if omega_bar else 0
            carried = math.hypot(*steady) if omega_bar else 0.0
            assert math.hypot(*f) == pytest.approx(carried, rel=1e-12, abs=1e-9)
            if omega_bar:
                assert f[0] * ex + f[1] * ey < 0.0  # towards the bearing's centre


def test_the_film_hands_over_smoothly_and_vanishes_at_the_wall():
    b = Bearing(SHORT, R, L, C, MU, OMEGA)
    at_limit = np.hypot(*b.steady_polar(FILM_LIMIT))
    ratios = np.linspace(FILM_LIMIT, 1.0, 41)
    loads = np.array([np.hypot(*b.steady_polar(e)) for e in ratios])
    assert loads[0] == pytest.approx(at_limit)
    assert loads[-1] == 0.0 and np.hypot(*b.steady_polar(1.01)) == 0.0
    assert np.all(np.diff(loads) <= 1e-9 * at_limit)  # fades monotonically, never jumps
    assert np.max(np.abs(np.diff(loads))) < 0.05 * at_limit
