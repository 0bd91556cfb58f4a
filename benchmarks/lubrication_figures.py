"""Issue 36's figures for docs/lubrication.md: the film under a turning load, and the
lubricated slider-crank's table.

    .venv/bin/python benchmarks/lubrication_figures.py

1. The rotor fixture of tests/core/test_lubricated_joint.py (c = 0.05 mm, R_B = 10 mm,
   L = 10 mm, mu = 0.05 Pa s, 3000 rpm, 47 N) with its load fixed in the ground and turning
   with the rotor (``frame = "body"``, omega_bar = -omega): the eccentricity ratio over the
   last quarter of 0.2 s (mean, min, max), impacts, energy balance.
2. examples/lubricated_slider_crank.toml's lubricated cases run one by one until settled
   (``simulate``, 2 threads; the dry ones do not meet the film): settled peak slider
   acceleration against the ideal joint's, motion class, revolutions to settle, eps_max,
   minimum film thickness, impacts, the film's dissipated energy, the energy balance; and
   Flores et al.'s case (0.5 mm, 0.4 Pa s) with the long and finite films. Deterministic:
   the figures do not depend on the machine's load.
"""

from __future__ import annotations

import numpy as np
from gapsweep.core.cases import SliderCrankCase
from gapsweep.core.mechanism.case import simulate_mechanism
from gapsweep.core.simulation import simulate_batch

C, LOAD = 0.05e-3, 47.0


def rotor(frame: str) -> dict:
    """The rotor fixture (tests/core/test_lubricated_joint.py) with its load in ``frame``."""
    bearing = {"type": "revolute", "bodies": ["ground", "rotor"], "at": "O",
               "clearance_mm": C * 1e3, "bearing_radius_mm": 10.0, "friction": 0.0,
               "lubrication": "short-bearing", "viscosity_pa_s": 0.05}
    return {
        "name": "rotor in a lubricated bearing", "gravity": [0, 0], "points": {"O": [0, 0]},
        "bodies": {"rotor": {"mass_kg": 1.0, "inertia_kgm2": 1e-3, "cm": "O"}},
        "joints": {"bearing": bearing},
        "driver": {"joint": "bearing", "speed_rpm": 3000.0},
        "loads": {"w": {"type": "force", "body": "rotor", "force_n": [0, -LOAD],
                        "frame": frame}},
        "measures": {"x": {"body": "rotor", "quantity": "position", "component": "x"}},
    }


def rotor_figures() -> None:
    for frame in ("ground", "body"):
        r = simulate_mechanism({"mechanism": rotor(frame), "t_end": 0.2, "n_output": 801})
        ex = np.asarray(r.series["eccentricity_x.bearing"])
        ey = np.asarray(r.series["eccentricity_y.bearing"])
        eps = (np.hypot(ex, ey) / C)[600:]
        print(f"rotor, load in the {frame:>6} frame: ok {r.ok}, eps over the last quarter "
              f"mean {eps.mean():.4f} min {eps.min():.4f} max {eps.max():.4f}, impacts "
              f"{r.metrics['impacts']}, energy balance {r.metrics['energy_balance_error']:.1e}")


def example_table() -> None:
    base = {"speed_rpm": 5000.0, "axial_length_mm": 40.0}
    cases = [SliderCrankCase(ideal=True, **base)]
    for c in (0.1, 0.25, 0.5):
        for mu in (0.04, 0.4):
            cases.append(SliderCrankCase(clearance_mm=c, lubrication="short-bearing",
                                         viscosity_pa_s=mu, **base))
    for kind in ("long-bearing", "finite"):
        cases.append(SliderCrankCase(clearance_mm=0.5, lubrication=kind, viscosity_pa_s=0.4,
                                     **base))
    results = simulate_batch(cases, threads=2)
    ideal = results[0].metrics["peak_slider_accel_settled"]
    print(f"ideal joint: settled peak {ideal:,.0f} m/s^2")
    print(f"{'film':>13} {'c mm':>5} {'mu':>5} {'peak m/s^2':>11} {'x ideal':>7} "
          f"{'motion':>11} {'rev':>4} {'eps_max':>7} {'h_min um':>8} {'impacts':>7} "
          f"{'E_film J':>8} {'balance':>8}")
    for case, r in zip(cases[1:], results[1:], strict=True):
        m = r.metrics
        peak = m["peak_slider_accel_settled"]
        print(f"{case.lubrication:>13} {case.clearance_mm:5.2f} "
              f"{case.viscosity_pa_s:5.2f} {peak:11,.0f} "
              f"{peak / ideal:7.3f} {m.get('motion', '?'):>11} "
              f"{m.get('settled_after_revolutions', -1):4d} "
              f"{m.get('max_eccentricity_ratio', float('nan')):7.3f} "
              f"{1e6 * m.get('min_film_thickness', float('nan')):8.1f} {m['impacts']:7d} "
              f"{m.get('film_dissipated_energy', float('nan')):8.3g} "
              f"{m['energy_balance_error']:8.1e}")


if __name__ == "__main__":
    rotor_figures()
    example_table()
