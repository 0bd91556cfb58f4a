"""The flexible slider-crank's energy balance: driver work, contact and material dissipation.

``T + V_g + U_strain + U_contact + E_damping + E_friction - W_driver`` must stay at its
initial value; ``energy_balance_error`` is its largest deviation over every step divided by
the peak kinetic energy (as in the rigid solver). Velocity Verlet makes the residual
``O(dt^2)``; the figures in the comments were measured at the automatic step (7.06e-7 s).
"""

from __future__ import annotations

import numpy as np
import pytest
from gapsweep.core.flexible.flexible_slider_crank import (
    FlexibleSliderCrankCase,
    simulate_flexible_slider_crank,
)

HERTZ = {"contact_law": "hertz", "friction": 0.0}  # conservative clearance joint
BALANCE_SERIES = ("driver_work", "damping_dissipation", "friction_dissipation", "energy_residual")


def run(**values):
    return simulate_flexible_slider_crank(FlexibleSliderCrankCase(**values))


def auto_step() -> float:
    return FlexibleSliderCrankCase().time_step()


def test_ideal_joints_balance_the_driver_work_to_round_off():
    # no contact: crank-pin work against rod inertia, strain and gravity only (measured 6.6e-8)
    r = run(ideal=True)
    s = r.series
    assert r.metrics["energy_balance_error"] < 1e-6
    assert np.max(s["driver_work"]) > 50.0  # J; the crank pin feeds ~110 J in and out
    for key in ("damping_dissipation", "friction_dissipation", "material_dissipation"):
        assert np.all(s[key] == 0.0)


def test_conservative_clearance_joint_closes_and_tightens_with_the_step():
    # Hertz contact, no friction: nothing dissipates, the residual is integration error of
    # ~185 stiff impacts (measured 3.7e-5 at the auto step, 1.6e-6 at a quarter of it)
    coarse = run(**HERTZ)
    fine = run(dt=auto_step() / 4, **HERTZ)
    for r in (coarse, fine):
        assert r.metrics["impacts"] > 50
        for key in ("damping_dissipation", "friction_dissipation"):
            assert np.all(r.series[key] == 0.0)
        assert np.max(np.abs(r.series["driver_work"])) > 50.0
    assert coarse.metrics["energy_balance_error"] < 2e-4
    assert fine.metrics["energy_balance_error"] < 1e-5


def test_dissipative_default_case_balances_within_1e3_of_peak_kinetic_energy():
    # Lankarani-Nikravesh cr 0.9, tanh Coulomb mu 0.01 (measured 2.6e-5)
    r = run()
    m, s = r.metrics, r.series
    assert set(BALANCE_SERIES) <= set(s)
    assert m["energy_balance_error"] <= 1e-3
    assert m["peak_kinetic_energy"] == pytest.approx(np.max(s["energy_kinetic"]), rel=0.01)
    residual = np.max(np.abs(s["energy_residual"]))
    assert residual <= m["energy_balance_error"] * m["peak_kinetic_energy"] * (1 + 1e-12)
    damping, friction = s["damping_dissipation"], s["friction_dissipation"]
    # both only ever grow (measured 1.93 J and 0.81 J over two revolutions), and leaving
    # them out would break the balance by far more than the residual
    for e in (damping, friction):
        assert np.all(np.diff(e) >= -1e-12) and e[-1] > 0.1
    assert damping[-1] + friction[-1] > 100.0 * residual
    assert np.all(s["material_dissipation"] == 0.0)


def test_residual_converges_at_second_order_when_the_step_is_halved():
    # first 3 ms (13 impacts, the same ones at every step): measured 1.94e-5, 3.58e-6,
    # 8.74e-7, i.e. factors 5.4 and 4.1 per halving (2nd order: 4)
    dt = auto_step()
    errors = [run(t_end=0.003, dt=dt / k).metrics["energy_balance_error"] for k in (1, 2, 4)]
    assert errors[0] / errors[1] > 2.5
    assert errors[1] / errors[2] > 2.5
    assert errors[0] / errors[2] > 10.0


def test_material_damping_is_booked_as_damping_dissipation():
    # Kelvin-Voigt eta = 5e-8 s on the rod, first 3 ms: measured 9.6e-6, then 2.4e-6 at dt/2;
    # the rod dissipates 0.27 J
    dt = auto_step()
    coarse = run(damping_time=5e-8, t_end=0.003)
    fine = run(damping_time=5e-8, t_end=0.003, dt=dt / 2)
    s = coarse.series
    material = s["material_dissipation"]
    assert material[-1] > 0.1
    assert np.all(np.diff(material) >= -1e-12)
    assert np.all(s["damping_dissipation"] >= material)
    assert material[-1] > 50.0 * np.max(np.abs(s["energy_residual"]))
    assert coarse.metrics["energy_balance_error"] < 1e-4
    ratio = coarse.metrics["energy_balance_error"] / fine.metrics["energy_balance_error"]
    assert ratio > 2.5
