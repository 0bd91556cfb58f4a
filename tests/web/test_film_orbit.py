"""The case page's orbit of a lubricated joint (issue 36): the journal's path inside the
clearance circle, coloured by the oil film's thickness h = c - |e| along it."""

import numpy as np
import pytest

from web.figures.case_views import case_figures, orbit_figure


def spiral() -> dict[str, np.ndarray]:
    t = np.linspace(0.0, 1.0, 50)
    r = 0.05e-3 * np.linspace(0.0, 1.02, 50)  # out to 2 % past the wall
    return {"t": t, "eccentricity_x": r * np.cos(9 * t), "eccentricity_y": r * np.sin(9 * t)}


def test_the_orbit_carries_the_film_thickness_along_it():
    series = spiral()
    fig = orbit_figure(series, 0.05, film=True)
    line, film = fig.data
    np.testing.assert_array_equal(line.x, series["eccentricity_x"])
    h = np.asarray(film.marker.color)
    r = np.hypot(series["eccentricity_x"], series["eccentricity_y"])
    np.testing.assert_allclose(h, np.maximum(0.05e-3 - r, 0.0) * 1e6)
    assert h[0] == pytest.approx(50.0) and h[-1] == 0.0  # centred: c; at the wall: none
    assert "Film thickness" in film.marker.colorbar.title.text
    assert len(orbit_figure(series, 0.05).data) == 1  # a dry joint's orbit as before


def test_case_figures_colour_the_orbit_only_when_lubricated():
    series = spiral()
    wet = case_figures(series, params={"clearance_mm": 0.05, "lubrication": "finite"})
    dry = case_figures(series, params={"clearance_mm": 0.05, "lubrication": "none"})
    assert len(wet["orbit"].data) == 2 and len(dry["orbit"].data) == 1
