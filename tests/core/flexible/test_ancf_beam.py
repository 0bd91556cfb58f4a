"""The ANCF beam against beam theory: seed 001's cantilever, the elastica, invariance."""

from __future__ import annotations

import math

import numpy as np
import pytest
from gapsweep.core.errors import InputError, SolverError
from gapsweep.core.flexible.ancf_beam import deformed_shape, element_force, gauss_rule
from gapsweep.core.flexible.cantilever import (
    CantileverCase,
    mesh_convergence,
    simulate_cantilever,
    time_step_convergence,
)
from gapsweep.core.flexible.central_difference import integrate
from scipy.optimize import brentq
from scipy.special import ellipe, ellipeinc, ellipk, ellipkinc

SEED = CantileverCase()  # seed 001: steel, 1 m x 0.05 m x 0.01 m, 10 elements, 0.5 s
EI = SEED.youngs_modulus * SEED.width * SEED.height**3 / 12.0
RHO_A = SEED.density * SEED.width * SEED.height
Q = RHO_A * SEED.gravity  # weight per length [N/m]
EB_TIP = Q * SEED.length**4 / (8.0 * EI)  # ~5.50 mm
EB_F1 = 1.875104068711961**2 / (2.0 * math.pi) * math.sqrt(EI / (RHO_A * SEED.length**4))


@pytest.fixture(scope="module")
def seed_run():
    return simulate_cantilever(SEED)


def test_seed_static_tip_deflection_matches_euler_bernoulli(seed_run):
    assert abs(EB_TIP / 5.50e-3 - 1.0) < 2e-3  # design.md's figure
    assert seed_run.metrics["tip_deflection_static"] == pytest.approx(EB_TIP, rel=0.005)


def test_seed_dynamic_tip_oscillates_about_static_at_first_bending_frequency(seed_run):
    m = seed_run.metrics
    assert abs(EB_F1 / 8.35 - 1.0) < 2e-3
    assert m["tip_deflection_mean"] == pytest.approx(EB_TIP, rel=0.02)
    # a suddenly applied weight overshoots to twice the static deflection
    assert m["tip_deflection_max"] == pytest.approx(2.0 * EB_TIP, rel=0.03)
    assert m["first_frequency_hz"] == pytest.approx(EB_F1, rel=0.01)
    assert m["first_frequency_linear_hz"] == pytest.approx(EB_F1, rel=0.01)
    # the beam really moves: the tip history spans 0 .. 2 x static
    tip = seed_run.series["tip_y"]
    assert tip.max() - tip.min() > 1.8 * EB_TIP


def test_seed_undamped_energy_drift_is_tiny(seed_run):
    m = seed_run.metrics
    assert m["energy_drift"] < 1e-4
    s = seed_run.series
    strain = s["energy_axial"] + s["energy_bending"]
    # energy is exchanged, not lost: strain energy peaks at about the work of the weight
    assert strain.max() > 0.5 * np.max(-s["energy_potential"])
    assert np.all(s["energy_kinetic"] >= 0.0)


def test_mesh_convergence_below_one_percent_from_20_to_40_elements():
    study = mesh_convergence(SEED, (10, 20, 40), "tip_deflection_static")
    assert study.relative_changes[-1] < 0.01
    assert study.values[-1] == pytest.approx(EB_TIP, rel=0.005)


def elastica_tip(load: float) -> tuple[float, float]:
    """Inextensible cantilever, dead tip load: (vertical, horizontal) tip displacement / L.

    ``load`` = P L^2 / EI. Bisshopp & Drucker 1945 in Legendre's elliptic integrals, with
    ``m = (1 + sin theta0) / 2`` and ``sin phi1 = 1 / sqrt(2 m)``, theta0 the tip slope.
    """
    al = math.sqrt(load)

    def mismatch(theta0: float) -> float:
        m = (1.0 + math.sin(theta0)) / 2.0
        return ellipk(m) - ellipkinc(math.asin(1.0 / math.sqrt(2.0 * m)), m) - al

    theta0 = brentq(mismatch, 1e-9, math.pi / 2 - 1e-12, xtol=1e-14)
    m = (1.0 + math.sin(theta0)) / 2.0
    phi1 = math.asin(1.0 / math.sqrt(2.0 * m))
    vertical = 1.0 - 2.0 / al * (ellipe(m) - ellipeinc(phi1, m))
    horizontal = 1.0 - math.sqrt(2.0 * math.sin(theta0)) / al
    return vertical, horizontal


def test_elastica_reference_reproduces_bisshopp_drucker_table():
    assert elastica_tip(1.0)[0] == pytest.approx(0.3017, abs=1e-4)
    assert elastica_tip(5.0)[0] == pytest.approx(0.7138, abs=1e-4)


@pytest.mark.parametrize("load", [2.0, 5.0])
def test_large_deflection_matches_elastica(load):
    case = CantileverCase(gravity=0.0, elements=20, tip_load=load * EI / SEED.length**2)
    m = simulate_cantilever(case, dynamic=False).metrics
    vertical, horizontal = elastica_tip(load)
    assert vertical > 0.45  # a large fraction of the length
    assert m["tip_deflection_static"] / SEED.length == pytest.approx(vertical, rel=0.01)
    assert m["tip_shortening_static"] / SEED.length == pytest.approx(horizontal, rel=0.01)


def test_rigid_motion_of_unstressed_beam_gives_no_elastic_force():
    beam = SEED.beam()
    for angle, origin in [(0.0, (0.0, 0.0)), (0.7, (0.3, -0.2)), (2.5, (-4.0, 7.0))]:
        f, ua, ub = beam.elastic_forces(beam.reference_coordinates(origin, angle))
        assert np.max(np.abs(f)) < 1e-12 * beam.axial_rigidity
        assert ua + ub < 1e-18


def test_rotating_a_bent_beam_rotates_its_forces_and_keeps_its_energy():
    beam = SEED.beam()
    rng = np.random.default_rng(1)
    q = beam.reference_coordinates() + 1e-3 * rng.standard_normal(beam.n_coords)
    f, ua, ub = beam.elastic_forces(q)
    assert ua > 0.0 and ub > 0.0
    c, s = math.cos(1.1), math.sin(1.1)
    rot = np.kron(np.eye(beam.n_coords // 2), np.array([[c, -s], [s, c]]))
    shift = np.tile([2.0, -1.0, 0.0, 0.0], beam.n_el + 1)
    f_rot, ua_rot, ub_rot = beam.elastic_forces(rot @ q + shift)
    assert np.allclose(f_rot, rot @ f, rtol=1e-9, atol=1e-9 * np.abs(f).max())
    assert ua_rot == pytest.approx(ua, rel=1e-9)
    assert ub_rot == pytest.approx(ub, rel=1e-9)


def test_gauss_point_count_two_misses_the_axial_force_five_is_exact():
    # one stretched and rotated element: r_x varies quadratically, eps^2 is degree 8
    le, ea = 0.1, 1.0e8
    e = np.array([0.0, 0.0, 1.2, 0.1, 0.11, 0.02, 0.9, 0.3])
    forces = {}
    for n in (2, 3, 5, 6, 8):
        gp, gw = gauss_rule(n)
        f = np.zeros(8)
        ua, _ = element_force(e, np.zeros(8), 0, le, ea, 0.0, 0.0, gp, gw, f)
        forces[n] = (f.copy(), ua)
    exact, ua_exact = forces[8]
    scale = np.abs(exact).max()
    assert np.max(np.abs(forces[5][0] - exact)) < 1e-12 * scale
    assert np.max(np.abs(forces[6][0] - exact)) < 1e-12 * scale
    assert np.max(np.abs(forces[2][0] - exact)) > 1e-3 * scale
    assert abs(forces[2][1] - ua_exact) > 1e-3 * ua_exact
    assert abs(forces[3][1] - ua_exact) < abs(forces[2][1] - ua_exact)


def test_deformed_shape_is_interpolated_inside_elements():
    case = CantileverCase(elements=4)
    beam = case.beam()
    from gapsweep.core.flexible.statics import solve_static

    q0 = beam.reference_coordinates()
    static = solve_static(beam, q0, case.free_coordinates(), beam.gravity_load((0.0, -9.81)))
    shape = deformed_shape(static.q, 41, case.length)
    x = np.linspace(0.0, case.length, 41)
    w = Q * x**2 * (6 * case.length**2 - 4 * case.length * x + x**2) / (24 * EI)
    assert np.max(np.abs(-shape[:, 1] - w)) < 0.005 * EB_TIP
    chord = np.interp(x, x[::10], -shape[::10, 1])  # straight lines between the 5 nodes
    assert np.max(np.abs(chord - w)) > 0.02 * EB_TIP


def test_simply_supported_beam_matches_five_384ths():
    case = CantileverCase(boundary="pinned-pinned", height=0.05, elements=10)
    ei = case.youngs_modulus * case.width * case.height**3 / 12.0
    q = case.density * case.width * case.height * case.gravity
    m = simulate_cantilever(case, dynamic=False).metrics
    expected = 5.0 * q * case.length**4 / (384.0 * ei)
    assert m["tip_deflection_static"] == pytest.approx(expected, rel=5e-3)


def test_seed_step_is_refused_and_the_limit_is_real():
    with pytest.raises(InputError) as err:
        CantileverCase(dt=5e-6)  # seed 001's step: above 4.05e-6 s for 10 Hermite elements
    assert err.value.field == "dt"
    limit = SEED.stable_dt()
    beam = SEED.beam()
    q0 = beam.reference_coordinates()
    free = SEED.free_coordinates()
    load = beam.gravity_load((0.0, -9.81))
    run = {"t_end": 0.01, "output_interval": 1e-3, "watch": 4 * SEED.elements + 1}
    ok = integrate(beam, q0, free, load, dt=0.97 * limit, stable_dt=limit, **run)
    assert np.all(np.abs(ok.q[:, -3]) < 1e-3)
    with pytest.raises(SolverError):
        integrate(beam, q0, free, load, dt=1.05 * limit, stable_dt=2.0 * limit, **run)


def test_time_step_refinement_changes_are_negligible_at_the_stable_step():
    # the stable step is set by an axial mode ~1e5 x faster than the first bending mode, so
    # halving it twice moves the peak tip deflection only at round-off level
    study = time_step_convergence(CantileverCase(t_end=0.07), metric="tip_deflection_max")
    assert len(study.values) == 3 and study.converged
    assert max(study.relative_changes) < 1e-5
    assert study.values[-1] == pytest.approx(2.0 * EB_TIP, rel=0.03)


def test_lumped_mass_and_damping_variants_run():
    lumped = simulate_cantilever(CantileverCase(mass="lumped", t_end=0.25)).metrics
    assert lumped["first_frequency_hz"] == pytest.approx(EB_F1, rel=0.01)
    damped = simulate_cantilever(CantileverCase(damping_time=1e-7, t_end=0.1))
    total = damped.series["energy_total"]
    peak = np.max(damped.series["energy_bending"])
    # material damping removes energy (1000 x the undamped drift) and never adds any
    assert total[0] - total[-1] > 1e-6 * peak
    assert np.all(np.diff(total) < 1e-9 * peak)


@pytest.mark.parametrize(
    ("values", "field"),
    [
        ({"length": "-1"}, "length"),
        ({"width": 0}, "width"),
        ({"height": "nan"}, "height"),
        ({"youngs_modulus": "0"}, "youngs_modulus"),
        ({"density": "-7850"}, "density"),
        ({"elements": "0"}, "elements"),
        ({"elements": "2.5"}, "elements"),
        ({"gauss_points": "0"}, "gauss_points"),
        ({"dt": "1e-3"}, "dt"),
        ({"dt": "fast"}, "dt"),
        ({"t_end": "0"}, "t_end"),
        ({"mass": "diagonal"}, "mass"),
        ({"boundary": "welded"}, "boundary"),
        ({"height": "0.5"}, "height"),
        ({"colour": "red"}, "colour"),
    ],
)
def test_bad_input_names_the_field(values, field):
    with pytest.raises(InputError) as err:
        CantileverCase.from_mapping(values)
    assert err.value.field == field


def test_from_mapping_converts_strings():
    case = CantileverCase.from_mapping({"length": "2", "elements": "20", "dt": "auto"})
    assert case.length == 2.0 and case.elements == 20 and case.dt is None
