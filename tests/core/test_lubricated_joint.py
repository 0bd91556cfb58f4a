"""The oil film in the dynamics (design.md 4.11, 4.15, 4.16): a lubricated clearance joint's
physics, on the rotor fixture (one driven rotor in a lubricated clearance bearing under a
constant ground-frame load) and on the reference slider-crank."""

from __future__ import annotations

import math

import numpy as np
import pytest
from gapsweep.core.assembly import assemble, case_model
from gapsweep.core.cases import SliderCrankCase
from gapsweep.core.dynamics import AUX_FILM, N_AUX, derivative, inverse_mass, make_workspace
from gapsweep.core.errors import InputError
from gapsweep.core.journal_bearing import SHORT, Bearing, bearing_state, film_force
from gapsweep.core.mechanism.case import simulate_mechanism
from gapsweep.core.simulation import build_mechanism, initial_state, simulate
from scipy.integrate import solve_ivp
from scipy.optimize import fsolve

# the rotor fixture: c = 0.05 mm, R_B = 10 mm (the film's R = R_J = 9.95 mm), L = 10 mm (the
# default axial length), mu = 0.05 Pa s, 3000 rpm, 47 N along -y: eps = 0.50 at equilibrium
C, RB, SPEED_RPM, LOAD, MU = 0.05e-3, 10e-3, 3000.0, 47.0, 0.05


def rotor(load: dict | None = None, **joint) -> dict:
    """The fixture's mechanism; ``load`` replaces the ground-frame load's table."""
    bearing = {"type": "revolute", "bodies": ["ground", "rotor"], "at": "O",
               "clearance_mm": C * 1e3, "bearing_radius_mm": RB * 1e3, "friction": 0.0,
               "lubrication": "short-bearing", "viscosity_pa_s": MU, **joint}
    return {
        "name": "rotor in a lubricated bearing", "gravity": [0, 0],
        "points": {"O": [0, 0]},
        "bodies": {"rotor": {"mass_kg": 1.0, "inertia_kgm2": 1e-3, "cm": "O"}},
        "joints": {"bearing": bearing},
        "driver": {"joint": "bearing", "speed_rpm": SPEED_RPM},
        "loads": {"w": load or {"type": "force", "body": "rotor", "force_n": [0, -LOAD],
                                "frame": "ground"}},  # design.md 4.15's fixture: along -y
        "measures": {"x": {"body": "rotor", "quantity": "position", "component": "x"}},
    }


def test_rotor_settles_at_the_bearings_static_equilibrium():
    """The journal comes to rest where `gapsweep bearing` puts it (design.md 4.15's
    lubricated fixture): eps within 1 %, the attitude within 1 degree."""
    result = simulate_mechanism({"mechanism": rotor(), "t_end": 0.2, "n_output": 401})
    assert result.ok, result.reason
    ex = np.asarray(result.series["eccentricity_x.bearing"])
    ey = np.asarray(result.series["eccentricity_y.bearing"])
    omega = SPEED_RPM * 2 * math.pi / 60
    ref = bearing_state(Bearing(SHORT, RB - C, 10e-3, C, MU, omega), load=LOAD)
    eps = math.hypot(ex[-1], ey[-1]) / C
    assert eps == pytest.approx(ref["eccentricity_ratio"], rel=0.01)
    attitude = math.degrees(math.atan2(ex[-1], -ey[-1]))
    assert attitude == pytest.approx(ref["attitude_deg"], abs=1.0)
    # and it stayed in the film all along: no contact, the film's energy its own term
    m = result.metrics
    assert m["impacts"] == 0 and m["max_eccentricity_ratio"] < 0.98
    assert m["min_film_thickness"] == pytest.approx(C * (1 - m["max_eccentricity_ratio"]))
    assert m["film_dissipated_energy"] > 0
    assert m["energy_balance_error"] < 1e-6
    for name in ("max_eccentricity_ratio", "min_film_thickness", "film_dissipated_energy"):
        assert m[f"{name}.bearing"] == m[name]  # per joint (design.md 4.15); one joint here


def test_a_load_turning_with_the_rotor_is_carried_like_a_fixed_one():
    """The fixture's 47 N load in the rotor's frame turns with the journal: the film sees
    omega_bar = omega - 2 omega = -omega and, on the half that converges for it, carries the
    load as the steady film does (Hamrock's dynamically loaded bearing: the capacity follows
    |omega_J + omega_B - 2 omega_load|), not pushed out to the wall (Flores et al.'s fixed
    half: eps 0.93-0.94). In the rotor's frame the journal comes to rest where the film at
    whirl omega, the load and the journal's centrifugal force m omega^2 e (1 kg, 2.5 N at
    eps 0.5) balance (solved here from the film law; the film law itself is held against
    its mirror image and Hamrock in test_journal_bearing.py), on the other side of the load
    from the fixed load's attitude. Statistics of the settled motion: over the last quarter
    eps stays within 1e-3 of its mean, the mean within 1 % of that balance and within 0.05
    of the ground-fixed load's eps, the attitude to the load within 1 degree."""
    omega = SPEED_RPM * 2 * math.pi / 60
    mech = rotor({"type": "force", "body": "rotor", "force_n": [0, -LOAD], "frame": "body"})
    mech["measures"]["angle"] = {"body": "rotor", "quantity": "position", "component": "angle"}
    result = simulate_mechanism({"mechanism": mech, "t_end": 0.2, "n_output": 401})
    assert result.ok, result.reason
    assert result.metrics["impacts"] == 0 and result.metrics["max_eccentricity_ratio"] < 0.98
    assert result.metrics["energy_balance_error"] < 1e-6
    ex = np.asarray(result.series["eccentricity_x.bearing"])[300:]
    ey = np.asarray(result.series["eccentricity_y.bearing"])[300:]
    angle = np.asarray(result.series["angle"])[300:]
    eps = np.hypot(ex, ey) / C
    # the attitude: the angle from the load's direction, R(angle) (0, -1), to e
    attitude = np.degrees(np.angle((ex + 1j * ey) / (np.sin(angle) - 1j * np.cos(angle))))

    def balance(e):
        """Film + load + centrifugal force [N / LOAD] in the rotor's frame at angle 0."""
        fx, fy = film_force(SHORT, MU, RB - C, 10e-3, C, e[0] * C, e[1] * C,
                            -omega * e[1] * C, omega * e[0] * C, omega)
        return np.array([fx + omega**2 * e[0] * C, fy - LOAD + omega**2 * e[1] * C]) / LOAD

    fixed = bearing_state(Bearing(SHORT, RB - C, 10e-3, C, MU, omega), load=LOAD)
    e_ref = fsolve(balance, [-fixed["eccentricity_x_m"] / C, fixed["eccentricity_y_m"] / C],
                   xtol=1e-12)
    assert np.max(np.abs(balance(e_ref))) < 1e-9
    assert np.ptp(eps) < 1e-3
    assert eps.mean() == pytest.approx(math.hypot(*e_ref), rel=0.01)
    assert abs(eps.mean() - fixed["eccentricity_ratio"]) < 0.05
    ref_attitude = math.degrees(math.atan2(e_ref[0], -e_ref[1]))
    assert ref_attitude < 0.0 < fixed["attitude_deg"]  # the mirror side of the load
    assert np.max(np.abs(attitude - ref_attitude)) < 1.0


LUBRICATED = {"clearance_mm": 0.5, "lubrication": "short-bearing", "viscosity_pa_s": 0.4,
              "axial_length_mm": 40.0}


def test_the_film_does_no_positive_work_over_a_whole_run():
    """One crank revolution of Flores et al.'s lubricated slider-crank (c = 0.5 mm,
    mu = 0.4 Pa s, L = 40 mm), integrated with scipy through the compiled equations of
    motion: at every accepted step the film's dissipation - minus its power on the journal's
    motion relative to the bearing, seen from the frame turning at the mean surface speed (the
    rod turns, the pin does not) - is >= 0."""
    case = SliderCrankCase(**LUBRICATED)
    topo, arrays = assemble(build_mechanism(case))
    n = topo.n_coordinates
    inv = np.empty(n)
    inverse_mass(arrays.mass[0], arrays.inertia[0], topo.prescribed, inv)
    ws = make_workspace(n, topo.n_constraints, 1)
    model = case_model(topo, arrays)
    contact, approach = np.ones(1, np.int64), np.full(1, 1.0)  # the dry law wherever delta > 0
    dydt = np.zeros(2 * n + N_AUX)

    def rhs(t, y):
        assert derivative(t, y, model, contact, approach, 5.0, 5.0, -1, inv, ws, dydt)
        return dydt.copy()

    y0 = np.zeros(2 * n + N_AUX)
    y0[: 2 * n] = initial_state(case)
    sol = solve_ivp(rhs, (0.0, case.period), y0, rtol=1e-6, atol=1e-10)
    assert sol.success
    rates = np.array([rhs(t, y)[2 * n + AUX_FILM] for t, y in zip(sol.t, sol.y.T, strict=True)])
    assert sol.t.size > 100
    assert rates.min() >= 0.0
    assert sol.y[2 * n + AUX_FILM, -1] > 0.0  # and it did dissipate


def test_energy_balance_closes_with_the_films_dissipation():
    dry = simulate(SliderCrankCase(clearance_mm=0.5, t_end=0.024))
    wet = simulate(SliderCrankCase(**LUBRICATED, t_end=0.024))
    assert wet.ok, wet.reason
    m = wet.metrics
    # the film's energy is a real share of the motion's, and the balance closes as dry
    assert m["film_dissipated_energy"] > 1e-3 * m["peak_kinetic_energy"]
    assert m["energy_balance_error"] < max(10 * dry.metrics["energy_balance_error"], 1e-6)
    assert "film_dissipated_energy" not in dry.metrics  # a dry case is as it was


def settled_peak(**params) -> float:
    result = simulate(SliderCrankCase(clearance_mm=0.02, **params))
    assert result.ok, result.reason
    return result.metrics["peak_slider_accel_settled"]


def test_a_vanishing_film_tends_to_the_dry_run():
    dry = settled_peak()
    wet = settled_peak(lubrication="short-bearing", viscosity_pa_s=1e-6)
    assert wet == pytest.approx(dry, rel=0.02)


def test_a_thick_film_tends_to_the_ideal_joint():
    """Flores et al.'s lubricated slider-crank with a 12.5x thicker oil (5 Pa s): the journal
    stays within 0.3 c of the centre and the slider moves as with an ideal joint."""
    result = simulate(SliderCrankCase(**{**LUBRICATED, "viscosity_pa_s": 5.0}))
    assert result.ok, result.reason
    assert result.metrics["max_eccentricity_ratio"] < 0.3
    ideal = simulate(SliderCrankCase(ideal=True)).metrics["peak_slider_accel_settled"]
    assert result.metrics["peak_slider_accel_settled"] == pytest.approx(ideal, rel=0.02)


def test_lubrication_is_checked_at_the_edge():
    with pytest.raises(InputError) as err:
        SliderCrankCase.from_mapping({"lubrication": "short-bearing", "viscosity_pa_s": 0.0})
    assert err.value.field == "viscosity_pa_s"
    with pytest.raises(InputError) as err:
        SliderCrankCase.from_mapping({"lubrication": "grease", "viscosity_pa_s": 0.1})
    assert err.value.field == "lubrication"
    with pytest.raises(InputError) as err:
        SliderCrankCase.from_mapping({"lubrication": "finite", "viscosity_pa_s": 0.1,
                                      "axial_length_mm": 0})
    assert err.value.field == "axial_length_mm"
    with pytest.raises(InputError) as err:
        simulate_mechanism({"mechanism": rotor(viscosity_pa_s=-1.0), "t_end": 0.01})
    assert err.value.field.endswith("viscosity_pa_s")


def test_the_ideal_twin_stays_ideal():
    from study.twins import twin_params

    wet = {"clearance_mm": 0.05, "speed_rpm": 4000, **LUBRICATED}
    assert twin_params(wet, "slider-crank") == {"speed_rpm": 4000, "ideal": True}
    mech = twin_params({"joints.bearing.viscosity_pa_s": 0.1,
                        "joints.bearing.lubrication": "finite",
                        "joints.bearing.axial_length_mm": 20, "t_end": 0.1}, "mechanism")
    assert mech == {"t_end": 0.1, "ideal": True}


def test_each_lubricated_joints_film_energy_is_its_own():
    """Two lubricated joints (crank pin and piston pin of the two-clearance slider-crank):
    each joint's ``film_dissipated_energy.<joint>`` is its own quadrature, both dissipate, the
    unsuffixed name is the larger (design.md 4.15's per-joint rule), and the two sum to the
    energy balance's film term (the state's total E_film, which closes the balance)."""
    from support.mechanism_tables import table

    mech = table("two_clearance_slider_crank")
    for name in ("crank_pin", "piston_pin"):
        mech["joints"][name].update(clearance_mm=0.2, lubrication="short-bearing",
                                    viscosity_pa_s=0.2, axial_length_mm=20.0)
    result = simulate_mechanism({"mechanism": mech, "t_end": 0.01})
    assert result.ok, result.reason
    m = result.metrics
    crank, piston = m["film_dissipated_energy.crank_pin"], m["film_dissipated_energy.piston_pin"]
    assert crank > 0.0 and piston > 0.0 and crank != piston
    assert m["film_dissipated_energy"] == max(crank, piston)
    n = (len(result.series["final_state"]) - N_AUX - 2) // 2  # two per-joint columns
    total = result.series["final_state"][2 * n + AUX_FILM]
    assert crank + piston == pytest.approx(total, rel=1e-12)
    assert m["energy_balance_error"] < 1e-6
    for name in ("max_eccentricity_ratio", "min_film_thickness"):
        per = [m[f"{name}.crank_pin"], m[f"{name}.piston_pin"]]
        assert m[name] == (max(per) if name.startswith("max") else min(per))
    assert m["max_eccentricity_ratio.crank_pin"] != m["max_eccentricity_ratio.piston_pin"]


def test_a_body_frame_load_turns_with_the_rotor():
    """The rotor fixture with its 47 N load at s = (5, 0) mm from the rotor's centre O, given
    in the rotor's frame (``frame = "body"``) or in the ground's. The rotor turns at constant
    speed about O, its centre of mass, where the film acts (no moment: design.md 4.16), so the
    driver's torque balances the load's moment about O alone, exactly, whatever the journal's
    orbit: tau = -(s(t) x f(t)). Turning with the rotor, s and f keep their angle and the
    torque is constant, |tau| = |s| |f| = 0.235 N m; fixed in the ground, f stays (0, -47) N
    while s turns, and tau_ground(t) = tau_body cos(omega t). The turning load's work enters
    the energy balance, which closes as with a fixed one."""
    omega = SPEED_RPM * 2 * math.pi / 60
    torque = {}
    for frame in ("body", "ground"):
        load = {"type": "force", "body": "rotor", "force_n": [0, -LOAD], "at": "P",
                "frame": frame}
        mech = rotor(load)
        mech["points"]["P"] = [5, 0]
        result = simulate_mechanism({"mechanism": mech, "t_end": 0.05, "n_output": 401})
        assert result.ok, result.reason
        assert result.metrics["energy_balance_error"] < 1e-6
        assert result.metrics["impacts"] == 0
        t = np.asarray(result.series["t"])
        torque[frame] = np.asarray(result.series["driving_torque"])
    moment = 5e-3 * LOAD
    assert np.allclose(np.abs(torque["body"]), moment, rtol=1e-6)
    assert np.ptp(torque["body"]) < 1e-6 * moment
    assert np.allclose(torque["ground"], torque["body"][0] * np.cos(omega * t),
                       rtol=0, atol=1e-6 * moment)


def test_a_loads_frame_is_checked_at_the_edge():
    field = "mechanism.loads.w.frame"
    for frame in ("sideways", None):
        load = {"type": "force", "body": "rotor", "force_n": [0, -LOAD], "frame": frame}
        with pytest.raises(InputError) as err:
            simulate_mechanism({"mechanism": rotor(load), "t_end": 0.01})
        assert err.value.field == field and "ground" in str(err.value.allowed)
    torque = {"type": "torque", "body": "rotor", "torque_nm": 1.0, "frame": "body"}
    with pytest.raises(InputError) as err:
        simulate_mechanism({"mechanism": rotor(torque), "t_end": 0.01})
    assert "frame" in err.value.field or "frame" in str(err.value.value)
