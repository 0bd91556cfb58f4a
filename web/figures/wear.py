"""A worn joint's figures (design.md 4.12, issue 37): the bearing's worn profile as a polar
drawing with the journal's orbit over it, and the life (clearance and settled peak against
cycles). Series: ``wear_angle`` [rad, the bearing body's frame], ``wear_depth`` [m] (the
final profile), per life step ``wear_cycle``, ``wear_max_depth`` [m], ``wear_peak_settled``;
the orbit ``eccentricity_x``/``_y`` [m] (global frame)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import plotly.graph_objects as go

from .style import MARKER_COLOR, color, new_figure


def wear_profile_figure(series: Mapping[str, Any], clearance_m: float) -> go.Figure:
    """The worn hole drawn at radius (c + h)/c about the bearing's centre - the clearance
    circle (1, dashed) grown by the depth in units of c: the depth is magnified R_B/c times
    against the bearing's true shape (the scale the subtitle states) - with the journal
    centre's stored orbit e/c over it (global frame: the bearing body turns under it)."""
    theta = np.append(np.asarray(series["wear_angle"], float), 2 * np.pi)
    depth = np.asarray(series["wear_depth"], float)
    depth = np.append(depth, depth[:1])
    r = (clearance_m + depth) / clearance_m
    fig = new_figure("Worn bearing profile and the journal's orbit", "x / c", "y / c",
                     subtitle=f"radius (c + h)/c, c = {clearance_m * 1e3:g} mm; deepest "
                              f"{depth.max() * 1e6:.3g} µm")
    if "eccentricity_x" in series and "eccentricity_y" in series:
        fig.add_trace(go.Scatter(
            x=np.asarray(series["eccentricity_x"], float) / clearance_m,
            y=np.asarray(series["eccentricity_y"], float) / clearance_m, mode="lines",
            name="journal orbit (global frame)", line={"color": color(1), "width": 1}))
    fig.add_trace(go.Scatter(x=r * np.cos(theta), y=r * np.sin(theta), mode="lines",
                             name="worn hole (bearing frame)", line={"color": color(0)}))
    span = 1.1 * float(max(r.max(), 1.0))
    fig.add_shape(type="circle", xref="x", yref="y", x0=-1, y0=-1, x1=1, y1=1,
                  line={"color": MARKER_COLOR, "dash": "dash"})
    fig.update_xaxes(range=[-span, span], constrain="domain")
    fig.update_yaxes(range=[-span, span], scaleanchor="x", scaleratio=1)
    return fig


def wear_life_figure(series: Mapping[str, Any], clearance_m: float) -> go.Figure:
    """Clearance c + the largest depth [µm] and the settled headline peak against the life's
    cycles, one marker a life step (the new joint at 0)."""
    cycle = np.asarray(series["wear_cycle"], float)
    fig = new_figure("The joint's life", "cycles (driver revolutions)", "clearance (µm)")
    fig.add_trace(go.Scatter(
        x=cycle, y=(clearance_m + np.asarray(series["wear_max_depth"], float)) * 1e6,
        mode="lines+markers", name="clearance c + largest depth", line={"color": color(0)}))
    if "wear_peak_settled" in series:
        fig.add_trace(go.Scatter(
            x=cycle, y=np.asarray(series["wear_peak_settled"], float), yaxis="y2",
            mode="lines+markers", name="settled peak", line={"color": color(1)}))
        fig.update_layout(yaxis2={"title": "settled peak", "overlaying": "y", "side": "right"})
    return fig


#: the metrics of a worn case the study's figure reads (core/wear_life.py)
PEAK_NEW, PEAK_END = "wear_peak_settled_new", "wear_peak_settled_end"


def worn_cases(cases: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The done cases of a study that carry both life peaks."""
    return [c for c in cases if c.get("status") == "done"
            and PEAK_NEW in (c.get("metrics") or {}) and PEAK_END in (c.get("metrics") or {})]


def wear_peaks_figure(cases: Sequence[Mapping[str, Any]], x_axis: str) -> go.Figure | None:
    """The settled headline peak at the end of life against the new joint's, over the
    study's axis ``x_axis`` (k_D, a fit's clearance, ...; design.md 4.8, 4.12): one marker
    per worn case on each line, sorted by x; None when no done case wore or ``x_axis`` is
    not numeric in them."""
    worn = [c for c in worn_cases(cases)
            if isinstance((c.get("params") or {}).get(x_axis), (int, float))]
    if not worn:
        return None
    worn.sort(key=lambda c: float(c["params"][x_axis]))
    x = [float(c["params"][x_axis]) for c in worn]
    fig = new_figure("Settled peak: new joint and end of life", x_axis, "settled peak",
                     subtitle="each case's headline peak on the new profile and on the "
                              "profile worn over its wear_cycles")
    for k, (key, name) in enumerate(((PEAK_NEW, "new joint"), (PEAK_END, "end of life"))):
        fig.add_trace(go.Scatter(
            x=x, y=[float(c["metrics"][key]) for c in worn], mode="lines+markers", name=name,
            customdata=[c.get("id") for c in worn], line={"color": color(k)}))
    if x_axis.endswith("wear_coefficient_m2_per_n") and min(x) > 0.0:
        fig.update_xaxes(type="log")
    return fig
