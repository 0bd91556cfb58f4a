"""The mechanism drawing: joints drawn where the hardpoints are, and where the closed-form
four-bar puts them at another driver angle."""

from __future__ import annotations

import math
import re

import pytest
from gapsweep.core.mechanism.build import geometry, kinematics
from gapsweep.core.mechanism.case import MechanismCase
from gapsweep.core.mechanism.drawing import frame, shapes, svg
from support.mechanism_tables import table


def _joint_positions(text: str, box, width: int = 800) -> dict[str, tuple[float, float]]:
    """Joint centres [mm] read back from the SVG's circles."""
    x0, _, x1, y1 = box
    scale = width / (x1 - x0)
    found = re.findall(r'data-joint="(\w+)" cx="([-\d.]+)" cy="([-\d.]+)"', text)
    return {n: (float(cx) / scale + x0, y1 - float(cy) / scale) for n, cx, cy in found}


def test_the_svg_puts_each_joint_at_its_hardpoint():
    spec = MechanismCase.from_mapping({"mechanism": table("four_bar_crank_rocker")}).spec
    s = shapes(spec)
    drawn = _joint_positions(svg(s), s.box)
    points = dict(spec.points)
    expected = {"crank_bearing": "O2", "crank_pin": "A", "rocker_pin": "B",
                "rocker_bearing": "O4"}
    for joint, point in expected.items():
        px, py = points[point]
        assert drawn[joint] == pytest.approx((px * 1e3, py * 1e3), abs=0.02)
    assert "rocker_pin (clearance)" in svg(s)


def test_a_frame_follows_the_driver():
    spec = MechanismCase.from_mapping({"mechanism": table("four_bar_crank_rocker")}).spec
    k = kinematics(spec)
    theta = k.angles[45]  # 90 degrees
    geo = geometry(spec, k.positions[45])
    a = 40.0
    assert (geo["joints"]["crank_pin"]["x"], geo["joints"]["crank_pin"]["y"]) == pytest.approx(
        (a * math.cos(theta), a * math.sin(theta)), abs=1e-9)
    b = geo["joints"]["rocker_pin"]
    assert math.dist((b["x"], b["y"]), (100.0, 0.0)) == pytest.approx(80.0, abs=1e-9)
    assert math.dist((b["x"], b["y"]), (0.0, a)) == pytest.approx(120.0, abs=1e-9)
    assert frame(spec, theta).joints == shapes(spec, k.positions[45]).joints


def test_the_png_is_the_drawing_at_the_asked_width_in_the_boxes_proportions(tmp_path):
    from gapsweep.core.mechanism.drawing import png
    from PIL import Image

    s = shapes(MechanismCase.from_mapping({"mechanism": table("four_bar_crank_rocker")}).spec)
    path = tmp_path / "four_bar.png"
    png(s, str(path), width=640)
    with Image.open(path) as img:
        assert img.format == "PNG" and img.width == 640
        x0, y0, x1, y1 = s.box
        assert img.height == max(int((y1 - y0) * 640 / (x1 - x0)), 50)
        # something is drawn on the white (getcolors: None past maxcolors, else one per colour)
        colours = img.getcolors(maxcolors=img.width * img.height)
        assert colours is not None and len(colours) > 1
