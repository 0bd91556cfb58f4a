"""A described mechanism (design.md 4.7) as Plotly figures: the drawing (bodies, joints
named, clearance joints ringed) and the animation of a case over its run with each clearance
joint's journal orbit drawn magnified beside it.

The bodies' positions of a frame come from the mechanism's ideal kinematics at the driver
angle of that time (:func:`gapsweep.core.mechanism.build.kinematics`: the clearance motion is
microns, invisible at the mechanism's scale); the orbits are the stored eccentricity series
(``eccentricity_x.<joint>``, ``eccentricity_y.<joint>``) in µm. Frames are decimated to a
stated budget (:data:`FRAME_BUDGET`) so that the page stays fast. Pure functions: data in,
``go.Figure`` out.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np
import plotly.graph_objects as go
from gapsweep.core.mechanism.build import kinematics
from gapsweep.core.mechanism.drawing import shapes
from gapsweep.core.mechanism.table import MechanismSpec
from gapsweep.core.metrics import per_joint
from plotly.subplots import make_subplots

from .labels import with_unit
from .style import new_figure

FRAME_BUDGET = 120  # animation frames per case, whatever the stored series' length
CLEARANCE_COLOR = "#d62728"
UM = 1e6  # µm per m
SLIDER_X = 0.14  # the animation's slider starts here (paper); its buttons end here


# a joint label's extent, for the drawing's ranges: Plotly's autorange leaves text out, so a
# label drawn "top right" of its joint was clipped at the figure's edge ("j3 (clearan…").
# Its size in mm is estimated from the drawing's span: about 1/60 of it per character
# (12 px text in a drawing some 600 px across) and a line of 1/30 of it above the joint.
LABEL_CHAR = 1.0 / 60.0
LABEL_HEIGHT = 1.0 / 30.0


def joint_label(joint: tuple) -> str:
    """The text beside a joint of :func:`shapes` (name, x, y, type, clearance)."""
    return joint[0] + (" (clearance)" if joint[4] else "")


def drawing_ranges(spec: MechanismSpec, qs: list[np.ndarray]) -> tuple[list[float], list[float]]:
    """The x and y ranges [mm] that hold the bodies and every joint with its label (text
    right of and above the joint) at all positions ``qs``, with a margin."""
    xs, ys, labels = [], [], []
    for q in qs:
        s = shapes(spec, q)
        xs += [p[0] for _, pts, _ in s.lines for p in pts] + [j[1] for j in s.joints]
        ys += [p[1] for _, pts, _ in s.lines for p in pts] + [j[2] for j in s.joints]
        labels += [(j[1], j[2], len(joint_label(j))) for j in s.joints]
    span = max(max(xs) - min(xs), max(ys) - min(ys), 1.0)
    right = max([x + (n + 2) * LABEL_CHAR * span for x, _, n in labels] + xs)
    top = max([y + 2 * LABEL_HEIGHT * span for _, y, _ in labels] + ys)
    pad = 0.05 * span
    return [min(xs) - pad, right + pad], [min(ys) - pad, top + pad]


def _traces(spec: MechanismSpec, q: np.ndarray) -> list[go.Scatter]:
    s = shapes(spec, q)
    out = [go.Scatter(x=[p[0] for p in pts], y=[p[1] for p in pts], mode="lines",
                      line={"color": colour, "width": 6}, name=name, hoverinfo="name")
           for name, pts, colour in s.lines]
    out.append(go.Scatter(
        x=[j[1] for j in s.joints], y=[j[2] for j in s.joints], mode="markers+text",
        text=[joint_label(j) for j in s.joints],
        textposition="top right", name="joints",
        marker={"size": [14 if j[4] else 8 for j in s.joints], "color": "white",
                "line": {"width": 2, "color": [CLEARANCE_COLOR if j[4] else "black"
                                               for j in s.joints]}}))
    return out


def mechanism_figure(spec: MechanismSpec, q: np.ndarray | None = None) -> go.Figure:
    """The mechanism at positions ``q`` (default: closed at driver angle 0), lengths in mm."""
    fig = new_figure(spec.name, with_unit("x", "mm"), with_unit("y", "mm"))
    q = kinematics(spec).q0 if q is None else q
    for trace in _traces(spec, q):
        fig.add_trace(trace)
    x_range, y_range = drawing_ranges(spec, [q])
    fig.update_xaxes(range=x_range)
    fig.update_yaxes(range=y_range, scaleanchor="x", scaleratio=1)
    fig.update_layout(showlegend=False)
    return fig


def frame_times(t_end: float, budget: int = FRAME_BUDGET) -> np.ndarray:
    """``budget`` evenly spread frame times [s] over ``[0, t_end]`` (both ends kept)."""
    return np.linspace(0.0, t_end, max(2, budget))


def _time_base(series: Mapping[str, np.ndarray], name: str) -> np.ndarray:
    """The time base of stored series ``name``: its own (preview) or the shared ``t``."""
    t = series.get(f"t:{name}")
    return np.asarray(series["t"] if t is None else t, dtype=float)


def frame_positions(spec: MechanismSpec, times: np.ndarray) -> list[np.ndarray]:
    """Body positions ``q`` [3 nb] at ``times`` [s], from the kinematic sweep at the driver
    angle ``omega t`` (linear between the sweep's positions, 2 degrees apart)."""
    k = kinematics(spec)
    if not spec.driver_joint:  # no driver, no sweep to follow: the assembly position
        return [k.q0.copy() for _ in times]
    two_pi = 2.0 * math.pi
    out = []
    for t in times:
        a = (abs(spec.omega) * float(t)) % two_pi
        x = a / two_pi * (len(k.angles) - 1)
        i = min(int(x), len(k.angles) - 2)
        w = x - i
        q = (1 - w) * k.positions[i] + w * k.positions[i + 1]
        turns = math.floor(abs(spec.omega) * float(t) / two_pi)
        driven = [b.name for b in spec.bodies].index(spec.joint(spec.driver_joint).body_j)
        q = q.copy()
        q[3 * driven + 2] += math.copysign(turns * two_pi, spec.omega)
        out.append(q)
    return out


def animation_figure(spec: MechanismSpec, series: Mapping[str, np.ndarray],
                     budget: int = FRAME_BUDGET) -> go.Figure:
    """The case's run as an animation (play, pause, a slider to scrub): the mechanism on the
    left, each clearance joint's journal orbit [µm] on the right with the clearance circle,
    the orbit drawn up to the frame's time and the journal's position marked. ``series``
    as stored: one time base ``t`` or one per series (``t:<name>``, a preview)."""
    joints = [j.name for j in spec.clearance_joints]
    orbits = {}
    for name in joints:
        x_name, y_name = per_joint("eccentricity_x", name), per_joint("eccentricity_y", name)
        if x_name in series:
            tj = _time_base(series, x_name)
            orbits[name] = (tj, np.asarray(series[x_name]) * UM,
                            np.asarray(series[y_name]) * UM)
        else:  # an ideal run: the journal stays centred
            orbits[name] = (np.zeros(1), np.zeros(1), np.zeros(1))
    ends = [float(np.asarray(v)[-1]) for k, v in series.items()
            if (k == "t" or k.startswith("t:")) and np.asarray(v).size]
    times = frame_times(max(ends) if ends else (2.0 * spec.period if spec.driver_joint
                                                 else 1.0), budget)
    fig = make_subplots(rows=1, cols=2, column_widths=[0.62, 0.38],
                        subplot_titles=(spec.name, "Journal orbits (magnified)"))
    qs = frame_positions(spec, times)
    base = _traces(spec, qs[0])
    for trace in base:
        fig.add_trace(trace, row=1, col=1)
    for k, name in enumerate(joints):
        c_um = dict(spec.joint(name).contact)["clearance_mm"] * 1e3
        circle = np.linspace(0, 2 * math.pi, 73)
        fig.add_trace(go.Scatter(x=c_um * np.cos(circle), y=c_um * np.sin(circle),
                                 mode="lines", line={"color": "grey", "dash": "dot"},
                                 name=f"clearance {name}", showlegend=k == 0), row=1, col=2)
    n_static = len(fig.data)

    def upto(name: str, time: float) -> int:
        return max(int(np.searchsorted(orbits[name][0], time, side="right")) - 1, 0)

    dynamic = []
    for name in joints:
        _, ex, ey = orbits[name]
        i = upto(name, times[0])
        dynamic.append(go.Scatter(x=ex[: i + 1], y=ey[: i + 1], mode="lines",
                                  name=f"orbit {name}"))
        dynamic.append(go.Scatter(x=ex[i : i + 1], y=ey[i : i + 1], mode="markers",
                                  marker={"size": 9}, name=f"journal {name}"))
    for trace in dynamic:
        fig.add_trace(trace, row=1, col=2)
    frames = []
    mech_ids = list(range(len(base)))
    orbit_ids = list(range(n_static, n_static + len(dynamic)))
    for q, time in zip(qs, times, strict=True):
        data = _traces(spec, q)
        for name in joints:
            _, ex, ey = orbits[name]
            i = upto(name, time)
            data.append(go.Scatter(x=ex[: i + 1], y=ey[: i + 1]))
            data.append(go.Scatter(x=ex[i : i + 1], y=ey[i : i + 1]))
        frames.append(go.Frame(data=data, name=f"{time:.9g}", traces=mech_ids + orbit_ids))
    fig.frames = frames
    fig.update_xaxes(title_text=with_unit("x", "mm"), row=1, col=1)
    fig.update_yaxes(title_text=with_unit("y", "mm"), scaleanchor="x", row=1, col=1)
    fig.update_xaxes(title_text=with_unit("e_x", "µm"), row=1, col=2)
    fig.update_yaxes(title_text=with_unit("e_y", "µm"), scaleanchor="x2", row=1, col=2)
    # every frame's bodies and labels inside the fixed ranges (the frames do not rescale)
    x_range, y_range = drawing_ranges(spec, qs)
    fig.update_xaxes(range=x_range, row=1, col=1)
    fig.update_yaxes(range=y_range, row=1, col=1)
    play = {"label": "Play", "method": "animate",
            "args": [None, {"frame": {"duration": 40, "redraw": True}, "fromcurrent": True}]}
    pause = {"label": "Pause", "method": "animate",
             "args": [[None], {"frame": {"duration": 0}, "mode": "immediate"}]}
    steps = [{"label": f"{time * 1e3:.1f}", "method": "animate",
              "args": [[f"{time:.9g}"], {"mode": "immediate", "frame": {"duration": 0}}]}
             for time in times]
    # the buttons left of the slider, the time label above the slider's own span: stacked
    # at the left edge (buttons under the slider's start) they covered the time label
    fig.update_layout(
        updatemenus=[{"type": "buttons", "buttons": [play, pause], "direction": "left",
                      "x": SLIDER_X, "xanchor": "right", "y": 0, "yanchor": "top",
                      "pad": {"t": 60, "r": 10}}],
        sliders=[{"steps": steps, "x": SLIDER_X, "len": 1.0 - SLIDER_X, "xanchor": "left",
                  "y": 0, "yanchor": "top", "pad": {"t": 50},
                  "currentvalue": {"prefix": "t [ms] = ", "xanchor": "left"}}],
        showlegend=False, margin={"b": 130},
    )
    return fig
