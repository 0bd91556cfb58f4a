"""The mechanism figures (design.md 4.7) without a browser: the drawing's joints at the
hardpoints, and the animation's frames - decimated to the budget - placing the crank pin at
the driver angle of their time and drawing each journal orbit from the stored series."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
import tomllib
from gapsweep.core.mechanism.case import MechanismCase
from gapsweep.web.figures.mechanism import FRAME_BUDGET, animation_figure, mechanism_figure

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _spec(name: str):
    with open(EXAMPLES / f"mechanism_{name}.toml", "rb") as f:
        table = tomllib.load(f)["mechanism"]
    return MechanismCase.from_mapping({"mechanism": table}).spec


def _joint(fig, name: str, trace: int = -1) -> tuple[float, float]:
    data = fig.data[trace] if isinstance(trace, int) else trace
    k = [t.split(" ")[0] for t in data.text].index(name)
    return data.x[k], data.y[k]


def test_drawing_puts_the_joints_at_the_hardpoints():
    spec = _spec("four_bar_crank_rocker")
    fig = mechanism_figure(spec)
    points = dict(spec.points)
    for joint, point in (("crank_pin", "A"), ("rocker_pin", "B"), ("rocker_bearing", "O4")):
        assert _joint(fig, joint) == pytest.approx(tuple(v * 1e3 for v in points[point]))
    labels = list(fig.data[-1].text)
    assert "rocker_pin (clearance)" in labels
    assert fig.layout.xaxis.title.text == "x [mm]"


def test_animation_frames_follow_the_driver_and_the_stored_orbits():
    spec = _spec("two_clearance_slider_crank")
    t = np.linspace(0.0, 2 * spec.period, 2401)
    series = {"t": t}
    for k, name in enumerate(("crank_pin", "piston_pin")):
        c = (0.05 + 0.05 * k) * 1e-3
        series[f"eccentricity_x.{name}"] = c * np.cos(7 * t / spec.period)
        series[f"eccentricity_y.{name}"] = c * np.sin(3 * t / spec.period)
    fig = animation_figure(spec, series)
    assert 2 <= len(fig.frames) <= FRAME_BUDGET
    assert fig.layout.updatemenus[0].buttons[0].label == "Play"
    assert len(fig.layout.sliders[0].steps) == len(fig.frames)
    for frame in fig.frames[:: max(1, len(fig.frames) // 7)]:
        time = float(frame.name)
        i = int(np.searchsorted(t, time, side="right")) - 1
        theta = spec.omega * time
        joints = next(d for d in frame.data if d.text is not None)
        x, y = _joint(fig, "crank_pin", joints)
        # the sweep is linear between positions 2 degrees apart: within a 0.08 mm chord
        assert math.hypot(x - 50 * math.cos(theta), y - 50 * math.sin(theta)) < 0.1
        orbits = frame.data[len(spec.bodies) + 1 :]  # after the bodies and the joints
        ex = series["eccentricity_x.piston_pin"][: i + 1] * 1e6
        assert np.allclose(orbits[2].x, ex)  # crank_pin's orbit and journal, then the pin's
        assert orbits[3].x[0] == pytest.approx(ex[-1])
