"""The README tour's two pictures, made by the project's own drawing and figure functions.

    .venv/bin/python docs/make_pictures.py [--out docs/img]

1. ``four_bar.png``: ``gapsweep mechanism draw examples/mechanism_four_bar_crank_rocker.toml
   -o four_bar.png`` (the command itself; Pillow draws it).
2. ``trends.png``: the 15-case study (``examples/clearance_x_stiffness.toml``) submitted to an
   embedded archive in a temporary data folder and waited for (``gapsweep.open(folder)``:
   local workers, as ``gapsweep run`` does), its cases drawn by
   ``web.figures.trends.trend_figure`` - the study page's Trends tab: the settled peak slider
   acceleration against clearance, one line per stiffness scale, the ideal twin dashed -
   written by Plotly's ``write_image`` when kaleido is installed (``pip install kaleido``;
   it drives the system's Chromium), else drawn from the same figure's traces with Pillow.

It prints the study's submit -> done wall time and the load average (the machine may be
shared); the pictures are not timed figures.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "clearance_x_stiffness.toml"
FOUR_BAR = ROOT / "examples" / "mechanism_four_bar_crank_rocker.toml"
GAPSWEEP = Path(sys.executable).with_name("gapsweep")
WIDTH, HEIGHT = 800, 450


def draw_mechanism(out: Path) -> None:
    """The four-bar example's drawing, by the CLI command the docs show."""
    subprocess.run([str(GAPSWEEP), "mechanism", "draw", str(FOUR_BAR), "-o", str(out)],
                   check=True)


def study_cases() -> tuple[list[dict], list[dict], float]:
    """The 15-case study run to the end in a temporary data folder: its cases, its twins and
    the submit -> done wall time [s]."""
    import gapsweep

    with tempfile.TemporaryDirectory(prefix="gapsweep-pictures-") as folder:
        os.environ["GAPSWEEP_DATA"] = folder
        archive = gapsweep.open(folder)
        t0 = time.perf_counter()
        study_id = archive.submit(str(EXAMPLE))
        if not archive.wait(study_id):
            raise SystemExit("the example study did not finish")
        wall = time.perf_counter() - t0
        study = archive.study(study_id)
    return list(study["cases"]), list(study.get("twins") or []), wall


def trends(cases: list[dict], twins: list[dict]):
    """The Trends tab's figure of the study (web/figures/trends.py)."""
    from gapsweep.web.figures.trends import trend_figure

    fig = trend_figure(cases, "peak_slider_accel_settled", x_axis="clearance_mm",
                       group_axis="stiffness_scale", twins=twins)
    fig.update_layout(width=WIDTH, height=HEIGHT)
    return fig


def write_with_pillow(fig, out: Path) -> None:
    """Without kaleido: the figure's line traces drawn on linear axes with Pillow (title,
    axis titles and legend from the figure itself)."""
    from PIL import Image, ImageDraw

    img = Image.new("RGB", (WIDTH, HEIGHT), "white")
    d = ImageDraw.Draw(img)
    left, right, top, bottom = 90, WIDTH - 200, 50, HEIGHT - 60
    traces = [t for t in fig.data if t.x is not None and len(t.x)]
    xs = [float(x) for t in traces for x in t.x]
    ys = [float(y) for t in traces for y in t.y if y is not None]
    x0, x1, y0, y1 = min(xs), max(xs), 0.0, max(ys) * 1.05

    def p(x: float, y: float) -> tuple[float, float]:
        return (left + (x - x0) / (x1 - x0) * (right - left),
                bottom - (y - y0) / (y1 - y0) * (bottom - top))

    d.rectangle((left, top, right, bottom), outline="#888888")
    for k in range(6):
        y = y0 + k * (y1 - y0) / 5
        d.text((8, p(x0, y)[1] - 6), f"{y:,.0f}", fill="black")
    for x in sorted(set(xs)):
        d.text((p(x, y0)[0] - 12, bottom + 6), f"{x:g}", fill="black")
    d.text((left, 12), fig.layout.title.text.split("<")[0], fill="black")
    d.text((left + 200, bottom + 30), fig.layout.xaxis.title.text or "", fill="black")
    d.text((8, top - 30), fig.layout.yaxis.title.text or "", fill="black")
    for i, t in enumerate(traces):
        colour = (t.line.color or "black") if t.line else "black"
        pts = [p(float(x), float(y)) for x, y in zip(t.x, t.y, strict=True) if y is not None]
        d.line(pts, fill=colour, width=3)
        d.line((right + 15, top + 20 * i + 6, right + 40, top + 20 * i + 6), fill=colour,
               width=3)
        d.text((right + 45, top + 20 * i), str(t.name), fill="black")
    img.save(out, format="PNG")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "img")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    draw_mechanism(args.out / "four_bar.png")
    cases, twins, wall = study_cases()
    fig = trends(cases, twins)
    out = args.out / "trends.png"
    try:
        import kaleido  # noqa: F401

        fig.write_image(str(out), width=WIDTH, height=HEIGHT, scale=1)
        how = "plotly + kaleido"
    except ImportError:
        write_with_pillow(fig, out)
        how = "Pillow (kaleido not installed)"
    print(f"{out} ({how}); the study: {len(cases)} cases, {len(twins)} twins, "
          f"submit -> done {wall:.1f} s, load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
