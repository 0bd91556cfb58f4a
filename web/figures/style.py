"""The look every figure shares: one template (colours, font, margins) and small helpers.

Tick labels use SI prefixes (``exponentformat="SI"``), so a ``[m]`` axis reads ``20µ`` for
20 µm and a ``[s]`` axis ``5m`` for 5 ms: the axis title names the unit, the tick its prefix
(the units convention is in :mod:`.labels`). Sized for a 1280×800 screen: a figure fills
half to all of the width at 420 px height.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import plotly.graph_objects as go

# Okabe-Ito, colour-blind safe; the order of the lines in a figure.
COLORS = (
    "#0072B2",
    "#E69F00",
    "#009E73",
    "#D55E00",
    "#CC79A7",
    "#56B4E9",
    "#F0E442",
    "#000000",
)
REFERENCE_COLOR = "#444444"  # reference lines: the ideal twin, Richardson estimates
MARKER_COLOR = "#888888"  # crank-harmonic markers, the clearance circle
FONT = {"family": "Inter, system-ui, -apple-system, Segoe UI, Roboto, sans-serif", "size": 13}
MARGIN = {"l": 70, "r": 24, "t": 64, "b": 56}
#: dcc.Graph config of every figure: the modebar's camera saves a PNG at twice the size
#: (the CSV and SVG downloads are web/components/figure_downloads.py's toolbar)
GRAPH_CONFIG: dict[str, Any] = {
    "displaylogo": False,
    "toImageButtonOptions": {"format": "png", "scale": 2, "filename": "gapsweep-figure"},
}
HEIGHT = 420
SEQUENTIAL = "Viridis"  # heatmaps and parallel-coordinate colour scales

_AXIS = {
    "showline": True,
    "linecolor": "#999999",
    "mirror": True,
    "ticks": "outside",
    "gridcolor": "#e5e5e5",
    "zeroline": False,
    "exponentformat": "SI",
    "title": {"standoff": 8},
    # no automargin here: Plotly then draws every figure twice (the case page's seven took
    # 1.6x as long, benchmarks/figure_draw.py); :func:`fit_tick_labels` where labels are long
    "automargin": False,
}

# A legend under the plot, left-aligned, in rows: for figures whose right side holds a
# second y axis (the legend's default place, right of the plot, is over that axis' labels).
LEGEND_BELOW = {
    "orientation": "h",
    "x": 0.0,
    "xanchor": "left",
    "y": -0.2,
    "yanchor": "top",
}

TEMPLATE = go.layout.Template(
    layout={
        "font": FONT,
        "colorway": list(COLORS),
        "margin": MARGIN,
        "height": HEIGHT,
        "paper_bgcolor": "white",
        "plot_bgcolor": "white",
        "hovermode": "closest",
        "legend": {"bgcolor": "rgba(255,255,255,0.8)", "borderwidth": 0},
        "title": {"x": 0.0, "xanchor": "left", "font": {"size": 15}},
        "xaxis": _AXIS,
        "yaxis": _AXIS,
    }
)


SI_PREFIXES = {-12: "p", -9: "n", -6: "µ", -3: "m", 0: "", 3: "k", 6: "M", 9: "G"}


def si_text(value: float, unit: str, digits: int = 3) -> str:
    """A value with its unit and an SI prefix, as the axes' tick labels write it:
    ``si_text(5e-05, "m")`` -> ``"50 µm"``, ``si_text(2.5e-4, "s")`` -> ``"250 µs"``."""
    if value == 0 or not math.isfinite(value):
        return f"{value:g} {unit}"
    exponent = 3 * math.floor(math.log10(abs(value)) / 3)
    exponent = min(max(exponent, min(SI_PREFIXES)), max(SI_PREFIXES))
    return f"{value / 10.0**exponent:.{digits}g} {SI_PREFIXES[exponent]}{unit}"


def color(i: int) -> str:
    """The i-th line colour (cycles)."""
    return COLORS[i % len(COLORS)]


def title_text(title: str, subtitle: str | None = None) -> str:
    """A title with an optional smaller second line (skipped cases, a verdict)."""
    return title if not subtitle else f"{title}<br><sup>{subtitle}</sup>"


def new_figure(title: str, x_title: str, y_title: str, *, subtitle: str | None = None) -> go.Figure:
    """An empty figure in the shared template with its title and axis titles (with units)."""
    fig = go.Figure()
    fig.update_layout(
        template=TEMPLATE,
        title={"text": title_text(title, subtitle)},
        xaxis_title=x_title,
        yaxis_title=y_title,
    )
    return fig


def fit_tick_labels(fig: go.Figure, *axes: str) -> None:
    """Let the margins by ``axes`` (``"yaxis"``, ``"yaxis2"`` ...) grow to fit their tick
    labels and title, for labels longer than the template's margins hold: text ticks (a
    factor's name, "contact (1)"), numbers that differ in their 6th digit. Not the default:
    Plotly draws a figure with automargin twice."""
    fig.update_layout({axis: {"automargin": True} for axis in axes})


def vertical_markers(
    fig: go.Figure, xs: Sequence[float], *, dash: str = "dot", color: str = MARKER_COLOR
) -> None:
    """Full-height vertical lines at ``xs`` (data units of the x axis), as layout shapes.

    Added in one layout update: ``add_shape`` per line re-validates every earlier shape,
    quadratic in their number.
    """
    line = {"color": color, "width": 1, "dash": dash}
    new = [
        {
            "type": "line",
            "xref": "x",
            "yref": "paper",
            "x0": float(x),
            "x1": float(x),
            "y0": 0.0,
            "y1": 1.0,
            "line": line,
            "layer": "below",
        }
        for x in xs
    ]
    fig.update_layout(shapes=[*fig.layout.shapes, *new])
