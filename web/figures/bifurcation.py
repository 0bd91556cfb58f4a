"""The motion across a study (design.md 4.10): a bifurcation diagram over any numeric axis
and a map of the motion class or the chaos indicator over two axes.

A case is a case dict (:mod:`.cases`: ``{"id", "params", "status", "metrics"}``) whose
metrics carry ``motion`` (``periodic-N``, ``chaotic``, ``irregular``) and
``chaos_indicator`` (0-1); ``sections`` maps a case id to its stored section series
(``poincare_eccentricity_x``/``_y`` [m], see :mod:`.motion`). Section values are shown
relative to the case's clearance c (``|e|/c``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import plotly.graph_objects as go

from .cases import DONE_STATUSES
from .labels import DIMENSIONLESS, level_name, parameter_label, parameter_parts, phrase, with_unit
from .motion import (
    clearance_of,
    driver_period_s,
    section_joints,
    section_points,
    speed_rpm_of,
    window_mask,
)
from .style import SEQUENTIAL, new_figure, title_text

# y of the bifurcation diagram: name -> (title, f(e_x/c, e_y/c)); all dimensionless
QUANTITIES: dict[str, tuple[str, Callable[[np.ndarray, np.ndarray], np.ndarray]]] = {
    "eccentricity_ratio": ("Eccentricity / clearance, |e|/c", lambda x, y: np.hypot(x, y)),
    "eccentricity_x_ratio": ("Eccentricity x / clearance, e_x/c", lambda x, y: x),
    "eccentricity_y_ratio": ("Eccentricity y / clearance, e_y/c", lambda x, y: y),
    "eccentricity_angle_deg": ("Direction of e", lambda x, y: np.degrees(np.arctan2(y, x))),
}
QUANTITY_UNITS = {"eccentricity_angle_deg": "°"}

# motion classes in legend order; periodic-N between periodic-1 and chaotic by N
CLASS_COLORS = {"periodic-1": "#0072B2", "periodic-2": "#009E73", "periodic-3": "#56B4E9",
                "periodic-4": "#E69F00", "chaotic": "#D55E00", "irregular": "#999999"}
OTHER_PERIODIC_COLOR = "#CC79A7"
UNKNOWN = "no class"
UNKNOWN_COLOR = "#000000"
DEPENDS_ON_START = "the settled motion depends on how the machine starts"


def quantity_label(name: str) -> str:
    title, _ = QUANTITIES[name]
    return with_unit(title, QUANTITY_UNITS.get(name, DIMENSIONLESS))


def motion_class(case: Mapping[str, Any]) -> str:
    """A done case's ``motion`` metric (text), :data:`UNKNOWN` without one."""
    value = (case.get("metrics") or {}).get("motion")
    return str(value) if isinstance(value, str) and value else UNKNOWN


def class_order(name: str) -> tuple[int, int, str]:
    """Sort key of a motion class: periodic-1, periodic-2, ..., chaotic, irregular, other."""
    m = re.fullmatch(r"periodic-(\d+)", name)
    if m:
        return (0, int(m.group(1)), name)
    return ({"chaotic": 1, "irregular": 2}.get(name, 3), 0, name)


def class_color(name: str) -> str:
    if name in CLASS_COLORS:
        return CLASS_COLORS[name]
    return OTHER_PERIODIC_COLOR if name.startswith("periodic-") else UNKNOWN_COLOR


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(
        float(value))


def bifurcation_points(
    case: Mapping[str, Any], section: Mapping[str, Any], axis: str, quantity: str,
    joint: str = "",
) -> tuple[np.ndarray, np.ndarray] | None:
    """``(x, y)`` of one case in the diagram: its ``axis`` value repeated once per section
    point of its settled window (:func:`section_window`), and each such point's
    ``quantity`` (:data:`QUANTITIES`) of ``joint``. None
    when the case is not done, has no numeric ``axis`` value, no section or no clearance."""
    params = case.get("params") or {}
    if case.get("status") not in DONE_STATUSES or not _number(params.get(axis)):
        return None
    if joint not in section_joints(section):
        return None
    c = clearance_of(params, joint)
    if c is None:
        return None
    t, ex, ey = section_points(section, joint)
    keep = section_window(case, section, t)
    y = QUANTITIES[quantity][1](ex[keep] / c, ey[keep] / c)
    return np.full(y.size, float(params[axis])), y


def section_window(case: Mapping[str, Any], section: Mapping[str, Any],
                   t: np.ndarray) -> np.ndarray:
    """The mask of a case's section times ``t`` [s] in its settled window
    (:func:`.motion.window_start_revolution`; the transient's points are left out)."""
    params = case.get("params") or {}
    return window_mask(t, case.get("metrics") or {}, params,
                       driver_period_s(section, speed_rpm_of(params)))


def bifurcation_figure(
    cases: Sequence[Mapping[str, Any]],
    sections: Mapping[int, Mapping[str, Any]],
    *,
    axis: str,
    quantity: str = "eccentricity_ratio",
    joint: str = "",
) -> go.Figure:
    """The bifurcation diagram: x the value of ``axis`` (its unit), y every section point's
    ``quantity`` of each case (``sections[case id]``), one marker trace per motion class
    (coloured by :func:`class_color`, named by the class, in :func:`class_order`); every
    point's ``customdata`` is ``[case id, revolution time [s]]``. A fixed point is one dot
    per x, period-N N dots, chaos a vertical smear. Cases without a section are counted in
    the subtitle."""
    by_class: dict[str, list[tuple[np.ndarray, np.ndarray, np.ndarray]]] = {}
    skipped = 0
    for case in cases:
        section = sections.get(case.get("id"))  # type: ignore[arg-type]
        points = None if section is None else bifurcation_points(case, section, axis,
                                                                 quantity, joint)
        if points is None:
            skipped += 1
            continue
        t, _, _ = section_points(section, joint)
        t = t[section_window(case, section, t)]
        ids = np.full(t.size, case["id"])
        by_class.setdefault(motion_class(case), []).append((*points, np.c_[ids, t]))
    who = f" of {joint.replace('_', ' ')}" if joint else ""
    fig = new_figure(
        f"Bifurcation diagram{who}: the section once per revolution vs "
        f"{phrase(parameter_parts(axis)[0])}",
        parameter_label(axis), quantity_label(quantity),
        subtitle=(f"{skipped} of {len(cases)} cases without a section (not done, or stored "
                  "before sections existed)" if skipped else None))
    for name in sorted(by_class, key=class_order):
        parts = by_class[name]
        fig.add_trace(go.Scatter(
            x=np.concatenate([p[0] for p in parts]), y=np.concatenate([p[1] for p in parts]),
            mode="markers", name=name,
            marker={"color": class_color(name), "size": 5, "opacity": 0.8},
            customdata=np.concatenate([p[2] for p in parts]),
            hovertemplate=("%{x:.4g}: %{y:.4g}, case %{customdata[0]:.0f}, t = "
                           f"%{{customdata[1]:.4g}} s<extra>{name}</extra>")))
    return fig


def map_points(
    cases: Sequence[Mapping[str, Any]], x_axis: str, y_axis: str
) -> tuple[list[Mapping[str, Any]], int]:
    """The done cases with numeric ``x_axis`` and ``y_axis`` values, and how many others."""
    kept = [c for c in cases if c.get("status") in DONE_STATUSES
            and _number((c.get("params") or {}).get(x_axis))
            and _number((c.get("params") or {}).get(y_axis))]
    return kept, len(cases) - len(kept)


def motion_map_figure(
    cases: Sequence[Mapping[str, Any]], *, x_axis: str, y_axis: str, show: str = "motion",
) -> go.Figure:
    """A map over two axes (e.g. clearance x speed): one square marker per case at its
    (``x_axis``, ``y_axis``) values, coloured by its motion class (``show="motion"``, one
    trace per class) or by its chaos indicator (``show="chaos_indicator"``, 0 regular ... 1
    chaotic, a colour bar). A case that runs from several starts and whose settled motion
    depends on it is ringed (``"depends on the start"``); one with no impact in its settled
    window (``contact_mode``) is struck through (``"no impact in the settled window"``).
    ``customdata[0]`` is the case id."""
    kept, skipped = map_points(cases, x_axis, y_axis)
    what = "motion class" if show == "motion" else "chaos indicator (0-1 test K)"
    fig = new_figure(
        f"{what[:1].upper() + what[1:]} over {phrase(parameter_parts(x_axis)[0])} and "
        f"{phrase(parameter_parts(y_axis)[0])}",
        parameter_label(x_axis), parameter_label(y_axis),
        subtitle=f"{skipped} of {len(cases)} cases not done" if skipped else None)

    def xy(group: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
        return {"x": [float(c["params"][x_axis]) for c in group],
                "y": [float(c["params"][y_axis]) for c in group],
                "customdata": [[c["id"]] for c in group],
                "text": [_map_text(c, x_axis, y_axis) for c in group],
                "hovertemplate": "%{text}<extra></extra>", "mode": "markers"}

    marker = {"symbol": "square", "size": 18, "line": {"width": 0.5, "color": "#333"}}
    if show == "motion":
        classes: dict[str, list[Mapping[str, Any]]] = {}
        for c in kept:
            classes.setdefault(motion_class(c), []).append(c)
        for name in sorted(classes, key=class_order):
            fig.add_trace(go.Scatter(name=name, marker={**marker, "color": class_color(name)},
                                     **xy(classes[name])))
    else:
        values = [(c.get("metrics") or {}).get("chaos_indicator") for c in kept]
        have = [c for c, v in zip(kept, values, strict=True) if _number(v)]
        fig.add_trace(go.Scatter(
            name="chaos indicator", showlegend=False, **xy(have),
            marker={**marker, "color": [float(c["metrics"]["chaos_indicator"]) for c in have],
                    "colorscale": SEQUENTIAL, "cmin": 0.0, "cmax": 1.0, "showscale": True,
                    "colorbar": {"title": {"text": with_unit("K", DIMENSIONLESS),
                                           "side": "right"}}}))
    # chaotic is not rattling: at low speed the journal rides the wall with no impact and
    # rocks irregularly along it (README, "Rattle map"); those cases are crossed out
    quiet = [c for c in kept if (c.get("metrics") or {}).get("contact_mode")
             in ("continuous contact", "free flight")]
    if quiet:
        fig.add_trace(go.Scatter(
            name="no impact in the settled window",
            marker={"symbol": "line-ew", "size": 14, "color": "#000",
                    "line": {"width": 2, "color": "#000"}}, **xy(quiet)))
    ringed = [c for c in kept if depends_on_start(c)]
    if ringed:
        fig.add_trace(go.Scatter(
            name="depends on the start",
            marker={"symbol": "circle-open", "size": 26, "color": "#000",
                    "line": {"width": 2}}, **xy(ringed)))
    return fig


def _map_text(case: Mapping[str, Any], x_axis: str, y_axis: str) -> str:
    m = case.get("metrics") or {}
    k = m.get("chaos_indicator")
    parts = [level_name(x_axis, case["params"][x_axis]),
             level_name(y_axis, case["params"][y_axis]), motion_class(case)]
    if _number(k):
        parts.append(f"K = {float(k):.2f}")
    if m.get("contact_mode"):
        parts.append(str(m["contact_mode"]))
    parts.append(f"case {case.get('id')}")
    return " · ".join(parts)


# The several-starts setting's report (a case with ``starts``, core/simulation.py): the
# relative spread of the settled peak slider acceleration over the starts, and the solver's
# verdict (that spread above 5 %, or another class of motion from another start).
START_SPREAD = "start_spread"
START_DEPENDENT = "start_dependent"
#: without the solver's verdict: a spread above this (relative) depends on the start (the
#: solver's own threshold, core/simulation.py START_SPREAD_TOLERANCE)
START_SPREAD_TOLERANCE = 0.05


def depends_on_start(case: Mapping[str, Any]) -> bool:
    """Whether a case run from several starts settles differently: its own verdict
    ``start_dependent`` when stored, else its ``start_spread`` above
    :data:`START_SPREAD_TOLERANCE`. False for a case run from one start."""
    m = case.get("metrics") or {}
    verdict = m.get(START_DEPENDENT)
    if isinstance(verdict, (bool, int, float)) and not (
            isinstance(verdict, float) and math.isnan(verdict)):
        return bool(verdict)
    spread = m.get(START_SPREAD)
    return _number(spread) and float(spread) > START_SPREAD_TOLERANCE


def start_dependence_note(cases: Sequence[Mapping[str, Any]]) -> str | None:
    """The study's flag: ``"the settled motion depends on how the machine starts: cases 3,
    7 (spread up to 27 %)"``; None when no case says so."""
    flagged = [c for c in cases if c.get("status") in DONE_STATUSES and depends_on_start(c)]
    if not flagged:
        return None
    spreads = [float(c["metrics"][START_SPREAD]) for c in flagged
               if _number((c.get("metrics") or {}).get(START_SPREAD))]
    return start_dependence_text([c.get("id") for c in flagged[:12]], len(flagged),
                                 max(spreads) if spreads else None)


def start_dependence_text(ids: Sequence[Any], count: int, largest_spread: float | None
                          ) -> str:
    """The flag's words: the first flagged cases' ``ids`` (12 are named), how many are
    flagged, and the largest relative spread among them (None: none stored)."""
    named = ", ".join(str(i) for i in list(ids)[:12])
    more = f" and {count - 12} more" if count > 12 else ""
    spread = (f" (spread up to {100 * largest_spread:.3g} %)"
              if largest_spread is not None else "")
    cases_word = "cases" if count > 1 else "case"
    flag = DEPENDS_ON_START[:1].upper() + DEPENDS_ON_START[1:]
    return f"{flag}: {cases_word} {named}{more}{spread}."


def title_with(fig: go.Figure, note: str | None) -> go.Figure:
    """``fig`` with ``note`` as its subtitle (kept when None)."""
    if note:
        fig.update_layout(title_text=title_text(fig.layout.title.text or "", note))
    return fig
