"""A worn joint's case page figures (design.md 4.12, issue 37): the worn profile drawn at
(c + h)/c with the orbit over it, and the life's clearance and peak against cycles."""

from __future__ import annotations

import numpy as np
from gapsweep.web.figures.case_views import case_figures


def _series(c=2e-5):
    theta = 2 * np.pi * np.arange(360) / 360
    t = np.linspace(0.0, 0.012, 50)
    return {
        "t": t, "eccentricity_x": c * np.cos(t * 500), "eccentricity_y": c * np.sin(t * 500),
        "wear_angle": theta, "wear_depth": np.maximum(1e-5 * np.cos(theta - np.pi), 0.0),
        "wear_cycle": np.array([0.0, 5e5, 1e6]), "wear_max_depth": np.array([0.0, 6e-6, 1e-5]),
        "wear_peak_settled": np.array([2.0e4, 2.05e4, 1.95e4]),
    }


def test_wear_life_gets_its_profile_and_life_figures():
    figs = case_figures(_series(), params={"clearance_mm": 0.02})
    profile = figs["wear_profile"]
    hole = next(tr for tr in profile.data if tr.name.startswith("worn hole"))
    r = np.hypot(hole.x, hole.y)
    # the deepest point (180 deg, 10 um) at (c + h)/c = 1.5, the unworn half on the circle
    assert abs(r.max() - 1.5) < 1e-12
    assert abs(hole.x[180] + 1.5) < 1e-12 and abs(r[0] - 1.0) < 1e-12
    life = figs["wear_life"]
    clearance = life.data[0]
    assert np.allclose(clearance.y, [20.0, 26.0, 30.0])  # um: c + the largest depth
    assert np.allclose(life.data[1].y, [2.0e4, 2.05e4, 1.95e4])


def test_no_wear_figures_without_a_life():
    series = {k: v for k, v in _series().items() if not k.startswith("wear_")}
    figs = case_figures(series, params={"clearance_mm": 0.02})
    assert "wear_profile" not in figs and "wear_life" not in figs
