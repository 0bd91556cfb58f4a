"""A mechanism drawn as plain shapes: each body a polyline through its points, each joint a
marker with its name, clearance joints ringed in red; :func:`svg` writes them as SVG text.

Pure functions over :func:`.build.geometry` (coordinates in mm), so that a browser figure or
an animation frame can draw the same shapes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from html import escape

import numpy as np

from .build import geometry, kinematics
from .table import MechanismSpec

COLOURS = ("#1f77b4", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22")


@dataclass(frozen=True)
class Shapes:
    """``lines``: (body, [(x, y) mm, ...], colour); ``joints``: (name, x, y, type,
    clearance); ``box``: (xmin, ymin, xmax, ymax) mm with a margin."""

    lines: tuple
    joints: tuple
    box: tuple[float, float, float, float]


def shapes(spec: MechanismSpec, q: np.ndarray | None = None) -> Shapes:
    """The shapes of ``spec`` at positions ``q`` (default: closed at driver angle 0)."""
    if q is None:
        q = kinematics(spec).q0
    geo = geometry(spec, q)
    lines = []
    for k, (name, pts) in enumerate(geo["bodies"].items()):
        pts = list(dict.fromkeys((round(x, 9), round(y, 9)) for x, y in pts))
        if len(pts) == 1:
            x, y = pts[0]
            pts = [(x - 6.0, y - 4.0), (x + 6.0, y - 4.0), (x + 6.0, y + 4.0), (x - 6.0, y + 4.0),
                   (x - 6.0, y - 4.0)]  # a block: a body with one point (a slider)
        elif len(pts) > 2:
            pts = pts + [pts[0]]
        lines.append((name, pts, COLOURS[k % len(COLOURS)]))
    joints = tuple((n, j["x"], j["y"], j["type"], j["clearance"]) for n, j in geo["joints"].items())
    xs = [x for _, pts, _ in lines for x, _ in pts] + [j[1] for j in joints]
    ys = [y for _, pts, _ in lines for _, y in pts] + [j[2] for j in joints]
    span = max(max(xs) - min(xs), max(ys) - min(ys), 1.0)
    m = 0.12 * span + 10.0
    return Shapes(tuple(lines), joints, (min(xs) - m, min(ys) - m, max(xs) + m, max(ys) + m))


def svg(s: Shapes, *, width: int = 800) -> str:
    """SVG text of the shapes (y up, as the mechanism's frame), ``width`` pixels wide."""
    x0, y0, x1, y1 = s.box
    scale = width / (x1 - x0)
    height = max(int((y1 - y0) * scale), 50)

    def p(x: float, y: float) -> str:
        return f"{(x - x0) * scale:.2f},{(y1 - y) * scale:.2f}"

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="12">',
           '<rect width="100%" height="100%" fill="white"/>']
    for name, pts, colour in s.lines:
        out.append(f'<polyline class="body" data-body="{escape(name)}" fill="none" '
                   f'stroke="{colour}" stroke-width="5" stroke-linejoin="round" '
                   f'points="{" ".join(p(x, y) for x, y in pts)}"/>')
    placed: dict[tuple[int, int], int] = {}  # joints at one point: labels one under another
    for name, x, y, kind, clearance in s.joints:
        cx, cy = p(x, y).split(",")
        spot = (round(float(cx)), round(float(cy)))
        row = placed[spot] = placed.get(spot, -1) + 1
        if kind == "translational":
            out.append(f'<rect x="{float(cx) - 5:.2f}" y="{float(cy) - 5:.2f}" width="10" '
                       'height="10" fill="none" stroke="black"/>')
        else:
            out.append(f'<circle class="joint" data-joint="{escape(name)}" cx="{cx}" cy="{cy}" '
                       'r="4" fill="white" stroke="black" stroke-width="1.5"/>')
        if clearance:
            out.append(f'<circle cx="{cx}" cy="{cy}" r="9" fill="none" stroke="#d62728" '
                       'stroke-width="2"/>')
        label = escape(name + (" (clearance)" if clearance else ""))
        out.append(f'<text x="{float(cx) + 8:.2f}" y="{float(cy) - 8 + 14 * row:.2f}">'
                   f"{label}</text>")
    out.append("</svg>")
    return "\n".join(out)


def png(s: Shapes, path: str, *, width: int = 800) -> None:
    """Write the shapes as a PNG (Pillow, a dependency of the project)."""
    from PIL import Image, ImageDraw
    x0, y0, x1, y1 = s.box
    scale = width / (x1 - x0)
    height = max(int((y1 - y0) * scale), 50)
    img = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(img)

    def p(x: float, y: float) -> tuple[float, float]:
        return ((x - x0) * scale, (y1 - y) * scale)

    for _, pts, colour in s.lines:
        draw.line([p(x, y) for x, y in pts], fill=colour, width=5, joint="curve")
    placed: dict[tuple[int, int], int] = {}
    for name, x, y, _, clearance in s.joints:
        cx, cy = p(x, y)
        spot = (round(cx), round(cy))
        row = placed[spot] = placed.get(spot, -1) + 1
        draw.ellipse((cx - 4, cy - 4, cx + 4, cy + 4), fill="white", outline="black")
        if clearance:
            draw.ellipse((cx - 9, cy - 9, cx + 9, cy + 9), outline="#d62728", width=2)
        draw.text((cx + 8, cy - 18 + 14 * row), name, fill="black")
    img.save(path, format="PNG")


def frame(spec: MechanismSpec, angle: float) -> Shapes:
    """The shapes at driver angle ``angle`` [rad], from the kinematic sweep (nearest)."""
    k = kinematics(spec)
    i = int(round((angle % (2.0 * math.pi)) / (2.0 * math.pi) * (len(k.angles) - 1)))
    return shapes(spec, k.positions[i])
