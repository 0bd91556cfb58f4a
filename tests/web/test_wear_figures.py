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


def test_a_study_over_k_draws_the_end_of_life_peak_against_the_new_joints():
    """A study swept over k_D: one marker per done worn case on each line, in axis order,
    the end-of-life line the cases' ``wear_peak_settled_end`` and the new joint's their
    ``wear_peak_settled_new``; a case not done or not worn is left out, a study without
    wear gets no figure."""
    from gapsweep.web.figures.wear import wear_peaks_figure

    def case(i, k, new, end, status="done"):
        return {"id": i, "status": status, "params": {"wear_coefficient_m2_per_n": k},
                "metrics": {"wear_peak_settled_new": new, "wear_peak_settled_end": end}}

    cases = [case(3, 1e-15, 2.0e4, 3.1e4), case(1, 1e-17, 2.0e4, 2.01e4),
             case(2, 1e-16, 2.0e4, 2.4e4), case(4, 1e-14, 2.0e4, 9e4, status="failed"),
             {"id": 5, "status": "done", "params": {"wear_coefficient_m2_per_n": 0.0},
              "metrics": {"peak_slider_accel_settled": 2.0e4}}]
    fig = wear_peaks_figure(cases, "wear_coefficient_m2_per_n")
    new, end = fig.data
    assert (new.name, end.name) == ("new joint", "end of life")
    assert list(new.x) == list(end.x) == [1e-17, 1e-16, 1e-15]
    assert list(end.y) == [2.01e4, 2.4e4, 3.1e4] and list(new.y) == [2.0e4] * 3
    assert list(end.customdata) == [1, 2, 3]
    assert fig.layout.xaxis.type == "log"
    assert wear_peaks_figure(cases[-1:], "wear_coefficient_m2_per_n") is None
    assert wear_peaks_figure(cases, "no_such_axis") is None
