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


def _label_ends(data, span: float) -> list[tuple[float, float, float]]:
    """Each joint label's anchor (x, y) and its right end [mm] (text right of its joint,
    about span / 60 per character)."""
    return [(x, y, x + len(text) * span / 60.0)
            for x, y, text in zip(data.x, data.y, data.text, strict=True)]


def _inside(value: float, axis_range) -> bool:
    return axis_range[0] <= value <= axis_range[1]


def test_drawing_ranges_hold_every_joint_label():
    # Plotly's autorange leaves text out: "j3 (clearance)" was clipped at the figure's edge
    spec = _spec("four_bar_crank_rocker")
    fig = mechanism_figure(spec)
    joints = fig.data[-1]
    xs = [x for t in fig.data for x in t.x]
    ys = [y for t in fig.data for y in t.y]
    span = max(max(xs) - min(xs), max(ys) - min(ys))
    x_range, y_range = fig.layout.xaxis.range, fig.layout.yaxis.range
    assert x_range is not None and y_range is not None
    for x, y, right in _label_ends(joints, span):
        assert _inside(x, x_range) and _inside(y, y_range)
        assert _inside(right, x_range)
    # the bodies too
    assert all(_inside(x, x_range) for x in xs) and all(_inside(y, y_range) for y in ys)


def test_animation_ranges_hold_every_frame_and_its_labels():
    spec = _spec("four_bar_crank_rocker")
    fig = animation_figure(spec, {"t": np.linspace(0.0, spec.period, 50)}, budget=24)
    x_range, y_range = fig.layout.xaxis.range, fig.layout.yaxis.range
    n_mech = len([t for t in fig.data if t.xaxis in (None, "x")])
    for frame in fig.frames:
        mech = frame.data[:n_mech]
        xs = [x for t in mech for x in t.x]
        ys = [y for t in mech for y in t.y]
        span = max(max(xs) - min(xs), max(ys) - min(ys))
        assert all(_inside(x, x_range) for x in xs) and all(_inside(y, y_range) for y in ys)
        for _, _, right in _label_ends(mech[-1], span):
            assert _inside(right, x_range)


def test_animation_buttons_sit_beside_the_slider_not_on_its_time_label():
    spec = _spec("four_bar_crank_rocker")
    fig = animation_figure(spec, {"t": np.linspace(0.0, spec.period, 50)}, budget=12)
    (menu,) = fig.layout.updatemenus
    (slider,) = fig.layout.sliders
    # the buttons end (right-anchored) where the slider starts (left-anchored), at the same
    # height; the time label is drawn over the slider's own span, so nothing covers it
    assert menu.xanchor == "right" and slider.xanchor == "left"
    assert slider.currentvalue.xanchor == "left"
    assert menu.x <= slider.x
    assert slider.x + slider.len <= 1.0 + 1e-12
    assert menu.y == slider.y and menu.yanchor == slider.yanchor == "top"
    assert slider.currentvalue.prefix.startswith("t [ms]")
