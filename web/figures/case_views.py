"""The views of one case (design.md 2, seed 000's "three mirrors"): slider acceleration
against the ideal joint, contact forces, penetration against the clearance, the journal orbit
inside the clearance circle, the energy balance, driving torque and contact state.

``series``: ``dict[str, np.ndarray]`` as stored - either one time base ``"t"`` [s] for all
series (``full``) or one per series, ``"t:<name>"`` (``preview``). The penetration is shown
in µm, as the tables show ``max_penetration``; the orbit's eccentricities and the clearance
circle in metres; the clearance parameter arrives as ``clearance_mm`` and is converted.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import plotly.graph_objects as go
from gapsweep.core.series import REGISTRY as SERIES_REGISTRY

from .labels import current_measures, series_label, series_parts, with_unit
from .style import (
    LEGEND_BELOW,
    MARKER_COLOR,
    REFERENCE_COLOR,
    TEMPLATE,
    color,
    new_figure,
)
from .wear import wear_life_figure, wear_profile_figure

TIME_TITLE = with_unit("Time", "s")
ENERGY_TERMS = (
    "kinetic_energy",
    "potential_energy",
    "contact_energy",
    "damping_dissipation",
    "friction_dissipation",
    "driver_work",
)
MM = 1e-3  # m per mm


def time_of(series: Mapping[str, np.ndarray], name: str) -> np.ndarray:
    """The time base [s] of series ``name``: its own ``"t:<name>"`` or the shared ``"t"``."""
    own = series.get(f"t:{name}")
    return np.asarray(series["t"] if own is None else own)


# a step of the time base this many times its median step is a stretch the series does not
# store (a long run keeps its first revolution and its last ones: workers/series_policy.py);
# a preview's min/max buckets space samples up to about twice the median step
GAP_STEPS = 10.0


def _gap_starts(t: np.ndarray) -> np.ndarray:
    """Indices ``k`` whose step to ``t[k + 1]`` is a gap (see :data:`GAP_STEPS`)."""
    if t.size < 3:
        return np.zeros(0, dtype=int)
    dt = np.diff(t)
    median = float(np.median(dt))
    return np.nonzero(dt > GAP_STEPS * median)[0] if median > 0.0 else np.zeros(0, dtype=int)


def gaps(t: np.ndarray) -> list[tuple[float, float]]:
    """The stretches ``(t0, t1)`` [s] between stored samples that the series leaves out."""
    t = np.asarray(t, dtype=float)
    return [(float(t[k]), float(t[k + 1])) for k in _gap_starts(t)]


def broken(t: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(t, y)`` with a NaN inside each gap (:func:`gaps`): the line breaks there rather
    than draw a straight segment across what was not stored."""
    t, y = np.asarray(t, dtype=float), np.asarray(y, dtype=float)
    at = _gap_starts(t)
    if not at.size:
        return t, y
    return np.insert(t, at + 1, (t[at] + t[at + 1]) / 2.0), np.insert(y, at + 1, np.nan)


def mark_gaps(fig: go.Figure, t: np.ndarray) -> go.Figure:
    """A grey band over each stretch the series does not store, said as such."""
    for t0, t1 in gaps(t):
        fig.add_vrect(x0=t0, x1=t1, fillcolor=REFERENCE_COLOR, opacity=0.12, line_width=0,
                      annotation_text="not stored", annotation_position="top left")
    return fig


def line(
    series: Mapping[str, np.ndarray], name: str, *, label: str | None = None, index: int = 0,
    scale: float = 1.0,
) -> go.Scatter:
    """A line trace of series ``name`` (times ``scale``) against its time base, named
    ``label`` or the series, broken where the series has a gap (:func:`broken`)."""
    x, y = broken(time_of(series, name), np.asarray(series[name], dtype=float) * scale)
    return go.Scatter(
        x=x,
        y=y,
        mode="lines",
        name=label or series_parts(name)[0],
        line_color=color(index),
    )


def time_series_figure(
    series: Mapping[str, np.ndarray], names: Sequence[str], title: str, y_title: str
) -> go.Figure:
    """Series ``names`` (one unit, named by ``y_title``) against time [s], one trace each."""
    fig = new_figure(title, TIME_TITLE, y_title)
    for i, name in enumerate(names):
        fig.add_trace(line(series, name, index=i))
    return mark_gaps(fig, time_of(series, names[0])) if names else fig


def measured_figure(
    series: Mapping[str, np.ndarray], name: str,
    twin_series: Mapping[str, np.ndarray] | None = None,
) -> go.Figure:
    """Series ``name`` of the case and, given ``twin_series``, of its ideal twin (dashed,
    named ``"ideal joint"``, the second trace), titled and labelled by the series registry
    with the study's measures (a mechanism's measure in its own unit)."""
    fig = new_figure(series_parts(name)[0], TIME_TITLE, series_label(name))
    fig.add_trace(line(series, name, label="clearance joint"))
    if twin_series is not None and name in twin_series:
        twin = line(twin_series, name, label="ideal joint")
        twin.line.update(color=REFERENCE_COLOR, dash="dash")
        fig.add_trace(twin)
    return mark_gaps(fig, time_of(series, name))


def slider_acceleration_figure(
    series: Mapping[str, np.ndarray], twin_series: Mapping[str, np.ndarray] | None = None
) -> go.Figure:
    """Slider acceleration [m/s²] of the case and, given ``twin_series``, of its ideal twin
    (dashed, named ``"ideal joint"``, the second trace); a mechanism's probe is named for
    what it is (its first measure's body coordinate)."""
    return measured_figure(series, "slider_acceleration", twin_series)


def contact_force_figure(series: Mapping[str, np.ndarray]) -> go.Figure:
    """Normal and tangential (friction) contact force in the joint [N]."""
    return time_series_figure(
        series,
        ("contact_normal_force", "contact_tangential_force"),
        "Contact force",
        with_unit("Contact force", "N"),
    )


UM_PER_M = 1e6  # penetrations are micrometres, as the tables show max_penetration


def penetration_figure(series: Mapping[str, np.ndarray], clearance_mm: float | None) -> go.Figure:
    """Penetration depth [µm] (the stored series in m × 1e6, the unit the metric tables use),
    with the radial clearance c [µm] as a dashed line labelled as the clearance, for scale:
    the penetration must stay far below it (design.md 2). No line when c is unknown."""
    trace = line(series, "penetration", scale=UM_PER_M)
    fig = new_figure("Contact penetration", TIME_TITLE, with_unit("Penetration", "µm"))
    fig.add_trace(trace)
    mark_gaps(fig, time_of(series, "penetration"))
    if clearance_mm is None:
        return fig
    c_um = clearance_mm * 1e3
    fig.add_hline(
        y=c_um,
        line={"color": MARKER_COLOR, "dash": "dash", "width": 1},
        annotation_text=f"radial clearance c = {c_um:.3g} µm (for scale)",
        annotation_position="top left",
    )
    return fig


def orbit_points(series: Mapping[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Eccentricity x and y [m] at the same instants, shape (n,) each.

    As stored when both share a time base (``full``, or a preview that decimated them
    together); with two different time bases (a preview stored before they were decimated
    together) a point would pair x of one instant with y of another, so both are taken on
    the union of the instants, each component interpolated linearly at the other's."""
    x, y = np.asarray(series["eccentricity_x"]), np.asarray(series["eccentricity_y"])
    if "t:eccentricity_x" not in series and "t:eccentricity_y" not in series:
        return x, y  # one shared time base "t" (or none given)
    tx, ty = time_of(series, "eccentricity_x"), time_of(series, "eccentricity_y")
    if np.array_equal(tx, ty):
        return x, y
    t = np.union1d(tx, ty)
    return np.interp(t, tx, x), np.interp(t, ty, y)


def orbit_figure(
    series: Mapping[str, np.ndarray], clearance_mm: float, *, film: bool = False
) -> go.Figure:
    """The journal orbit: eccentricity y against x [m] inside the clearance circle of radius
    c = clearance_mm / 1000 m (a circle shape), equal aspect; the journal leaves the circle
    by the penetration depth. The points are :func:`orbit_points`. ``film`` (a lubricated
    joint, design.md 4.11): the points also coloured by the oil film's thickness there,
    ``h = c - |e|`` [µm] (0 where the journal reached the wall), with its colour bar."""
    c = clearance_mm * MM
    ex, ey = orbit_points(series)
    fig = new_figure(
        "Journal orbit in the clearance circle",
        series_label("eccentricity_x"),
        series_label("eccentricity_y"),
    )
    fig.add_trace(
        go.Scatter(
            x=ex,
            y=ey,
            mode="lines",
            name="journal centre",
            line={"color": color(0), "width": 1},
        )
    )
    if film:
        thickness = np.maximum(c - np.hypot(ex, ey), 0.0) * UM_PER_M
        fig.add_trace(
            go.Scatter(
                x=ex,
                y=ey,
                mode="markers",
                name="film thickness",
                marker={
                    "size": 4,
                    "color": thickness,
                    "colorscale": "Viridis",
                    "colorbar": {"title": with_unit("Film thickness", "µm")},
                },
            )
        )
    fig.add_shape(
        type="circle",
        xref="x",
        yref="y",
        x0=-c,
        y0=-c,
        x1=c,
        y1=c,
        line={"color": MARKER_COLOR, "dash": "dash"},
    )
    span = 1.1 * max(c, float(np.max(np.hypot(ex, ey))))
    fig.update_xaxes(range=[-span, span], constrain="domain")
    fig.update_yaxes(range=[-span, span], scaleanchor="x", scaleratio=1)
    return fig


# A term is "small" below this share of the largest term's range: drawn on the large terms'
# scale it would lie flat on zero (contact energy, damping and friction dissipation next to
# 160 J of kinetic energy and driver work)
SMALL_TERM_SHARE = 0.02


def energy_panels(series: Mapping[str, np.ndarray]) -> tuple[list[str], list[str]]:
    """The terms of :data:`ENERGY_TERMS` present, split into (large, small): a term whose
    largest magnitude is below :data:`SMALL_TERM_SHARE` of the largest term's is small."""
    names = [n for n in ENERGY_TERMS if n in series]
    size = {n: float(np.max(np.abs(series[n]))) if len(series[n]) else 0.0 for n in names}
    top = max(size.values(), default=0.0)
    small = [n for n in names if top > 0 and size[n] < SMALL_TERM_SHARE * top]
    return [n for n in names if n not in small], small


def energy_figure(series: Mapping[str, np.ndarray]) -> go.Figure:
    """The energy balance [J] in stacked panels on one time axis, each with its own scale and
    ticks at round values: the large terms (kinetic energy, driver work ...), the small ones
    (:func:`energy_panels`: contact energy, the dissipations), and the residual (driver work
    - the stored and dissipated energies), orders of magnitude smaller still."""
    from plotly.subplots import make_subplots

    large, small = energy_panels(series)
    panels = [(large, "Energy [J]"), (small, "Small terms [J]")]
    if "energy_residual" in series:
        panels.append((["energy_residual"], series_label("energy_residual")))
    panels = [(names, title) for names, title in panels if names]
    fig = make_subplots(rows=len(panels), cols=1, shared_xaxes=True, vertical_spacing=0.1)
    fig.update_layout(template=TEMPLATE, title={"text": "Energy balance"}, legend=LEGEND_BELOW,
                      height=180 + 150 * len(panels))
    index = 0
    for row, (names, title) in enumerate(panels, start=1):
        for name in names:
            trace = line(series, name, index=index)
            if name == "energy_residual":
                # dark grey, not the 7th line colour (yellow, unreadable dotted on white)
                trace.update(line_dash="dot", line_color=REFERENCE_COLOR)
            fig.add_trace(trace, row=row, col=1)
            index += 1
        # ticks at round values in plain SI prefixes (not the "−40µ, −190µ" of an axis
        # synchronised with another's grid)
        fig.update_yaxes(title_text=title, tickformat="~s", row=row, col=1)
    fig.update_xaxes(title_text=TIME_TITLE)  # every panel's: one time axis, each labelled
    return fig


def driving_torque_figure(series: Mapping[str, np.ndarray]) -> go.Figure:
    """The torque [N m] the driver applies to hold the crank speed."""
    return time_series_figure(
        series, ("driving_torque",), "Driving torque", series_label("driving_torque")
    )


def contact_state_figure(series: Mapping[str, np.ndarray]) -> go.Figure:
    """Contact state (0 free flight, 1 contact) as a step line."""
    fig = time_series_figure(
        series, ("contact_state",), "Contact state", series_label("contact_state")
    )
    fig.update_traces(line_shape="hv")
    fig.update_yaxes(tickvals=[0, 1], ticktext=["free (0)", "contact (1)"], range=[-0.1, 1.1])
    # "contact (1)" and the title need more than the template's margin: a fixed one costs
    # nothing, automargin a second drawing (benchmarks/figure_draw.py)
    fig.update_layout(margin_l=110)
    return fig


def case_figures(
    series: Mapping[str, np.ndarray],
    *,
    params: Mapping[str, Any],
    twin_series: Mapping[str, np.ndarray] | None = None,
) -> dict[str, go.Figure]:
    """Every view of a case whose series are present, by name: ``acceleration``,
    ``contact_force``, ``penetration``, ``orbit``, ``energy``, ``driving_torque``,
    ``contact_state``. ``params``: the case's parameters; ``clearance_mm`` (absent: the
    model's default, which the caller may put in) gives c. An ideal case has no joint views."""
    c = params.get("clearance_mm")
    c = float(c) if isinstance(c, (int, float)) and not isinstance(c, bool) else None
    ideal = bool(params.get("ideal"))
    film = params.get("lubrication", "none") not in (None, "none")
    views: dict[str, tuple[tuple[str, ...], Any]] = {
        "acceleration": (
            ("slider_acceleration",),
            lambda: slider_acceleration_figure(series, twin_series),
        ),
        "contact_force": (
            ("contact_normal_force", "contact_tangential_force"),
            lambda: contact_force_figure(series),
        ),
        "penetration": (("penetration",), lambda: penetration_figure(series, c)),
        "orbit": (("eccentricity_x", "eccentricity_y"), lambda: orbit_figure(series, c, film=film)),
        "energy": (("kinetic_energy",), lambda: energy_figure(series)),
        "driving_torque": (("driving_torque",), lambda: driving_torque_figure(series)),
        "contact_state": (("contact_state",), lambda: contact_state_figure(series)),
        # a wear life (design.md 4.12): the worn profile and the life, c needed for both
        "wear_profile": (("wear_angle", "wear_depth"),
                         lambda: wear_profile_figure(series, c * 1e-3)),
        "wear_life": (("wear_cycle", "wear_max_depth"),
                      lambda: wear_life_figure(series, c * 1e-3)),
    }
    # a described mechanism's measures first, each in its own unit (design.md 4.7)
    measured = {f"measure_{m}": ((m,), lambda m=m: measured_figure(series, m, twin_series))
                for m, entry in current_measures().series.items() if m == entry.name
                and m not in SERIES_REGISTRY}
    views = {**measured, **views}
    joint_views = {"contact_force", "penetration", "orbit", "contact_state"}
    return {
        name: make()
        for name, (needs, make) in views.items()
        if all(n in series for n in needs)
        and not (ideal and name in joint_views)
        and not (name in ("orbit", "wear_profile", "wear_life") and c is None)
    }
