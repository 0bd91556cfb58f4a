"""The motion of one case over many revolutions (design.md 4.10): its Poincaré map, the phase
portrait of the journal, the orbit coloured by time with the settled part set apart, the
case's own spectrum from the settled window, and the settled/motion/drift/chaos verdict in
words.

``series``: a case's stored series (``dict[str, np.ndarray]``, see :mod:`.case_views`). The
section is ``poincare_time`` [s] with ``poincare_eccentricity_x``/``_y`` [m] (the journal
centre minus the bearing centre, global frame, at t = k·T); a mechanism with several
clearance joints stores one pair per joint, ``poincare_eccentricity_x.<joint>``. Lengths are
shown relative to the clearance c (``e/c``, dimensionless: 1 is the bearing wall), so that
cases of different clearance share one scale. ``metrics``: the case's metrics as stored
(SI; ``settled``, ``revolutions``, ``settled_after_revolutions``, ``section_drift`` [c per
revolution], ``motion``, ``motion_period``, ``chaos_indicator``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import plotly.graph_objects as go
from gapsweep.core.metrics import joint_of, per_joint

from .case_views import orbit_points, time_of
from .labels import DIMENSIONLESS, phrase, series_parts, series_unit, with_unit
from .spectra import FREQUENCY_TITLE, mark_harmonics, spectrum_arrays
from .style import MARKER_COLOR, REFERENCE_COLOR, SEQUENTIAL, color, new_figure

SECTION_TIME = "poincare_time"
SECTION_X = "poincare_eccentricity_x"
SECTION_Y = "poincare_eccentricity_y"
E_X_TITLE = with_unit("Eccentricity x / clearance, e_x/c", DIMENSIONLESS)
E_Y_TITLE = with_unit("Eccentricity y / clearance, e_y/c", DIMENSIONLESS)
E_RATIO_TITLE = with_unit("Eccentricity / clearance, |e|/c", DIMENSIONLESS)
E_RATE_TITLE = with_unit("Rate of |e|/c", "1/s")
TIME_TITLE = with_unit("Time", "s")
START_NAME = "start"
SETTLED_NAME = "settled motion"
TRANSIENT_NAME = "before settling (colour: time)"
BEFORE_WINDOW_NAME = "before the settled window"
MM = 1e-3  # m per mm


def section_joints(series: Mapping[str, Any]) -> list[str]:
    """The clearance joints whose section is stored, in stored order: ``""`` for the single
    joint of a built-in model (``poincare_eccentricity_x``), a described mechanism's joint
    names (``poincare_eccentricity_x.<joint>``; the core's one rule,
    :func:`gapsweep.core.metrics.per_joint`)."""
    joints = []
    for name in series:
        joint = joint_of(name, SECTION_X)
        if joint is not None and per_joint(SECTION_Y, joint) in series:
            joints.append(joint)
    return joints


def section_names(joint: str = "") -> tuple[str, str]:
    """The series names of a joint's section: ``(x, y)``."""
    return per_joint(SECTION_X, joint), per_joint(SECTION_Y, joint)


ORBIT_SERIES = ("eccentricity_x", "eccentricity_y")


def orbit_joints(series: Mapping[str, Any]) -> list[str]:
    """The clearance joints whose journal orbit is stored (``eccentricity_x``/``_y``, per
    joint for a described mechanism): ``""`` for a built-in model's joint, else the joint
    names in stored order (a mechanism's bare pair, its first joint again, is left out)."""
    named = []
    for name in series:
        joint = joint_of(name, ORBIT_SERIES[0])
        if joint and per_joint(ORBIT_SERIES[1], joint) in series:
            named.append(joint)
    if named:
        return named
    return [""] if all(k in series for k in ORBIT_SERIES) else []


def joint_series(series: Mapping[str, Any], joint: str) -> Mapping[str, Any]:
    """``series`` with joint ``joint``'s orbit under the bare names ``eccentricity_x``/``_y``
    (and their own time bases), for the figures that draw one journal."""
    if not joint:
        return series
    out = dict(series)
    for base in ORBIT_SERIES:
        out[base] = series[per_joint(base, joint)]
        own = series.get(f"t:{per_joint(base, joint)}")
        out.pop(f"t:{base}", None)
        if own is not None:
            out[f"t:{base}"] = own
    return out


def section_points(
    series: Mapping[str, Any], joint: str = ""
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(t, e_x, e_y)`` of a joint's section [s, m, m], shape (k,) each. The time is
    ``poincare_time`` (``poincare_time.<joint>`` if stored), else the revolution index."""
    name_x, name_y = section_names(joint)
    ex, ey = np.asarray(series[name_x], dtype=float), np.asarray(series[name_y], dtype=float)
    t = series.get(per_joint(SECTION_TIME, joint)) if joint else None
    if t is None:
        t = series.get(SECTION_TIME)
    t = np.arange(ex.size, dtype=float) if t is None else np.asarray(t, dtype=float)
    return t, ex, ey


def clearance_of(params: Mapping[str, Any], joint: str = "") -> float | None:
    """The radial clearance c [m] of ``joint`` from a case's parameters: the mechanism's
    ``joints.<joint>.clearance_mm`` (a value the case set, else its ``[mechanism]`` table's,
    read by the core), else ``clearance_mm`` (None when none is a number)."""
    for name in ((f"joints.{joint}.clearance_mm",) if joint else ()) + ("clearance_mm",):
        value = params.get(name)
        if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0:
            return float(value) * MM
        if joint and "mechanism" in params:
            from gapsweep.core.mechanism.case import joint_clearances

            c = joint_clearances(params).get(joint)
            if c is not None and c > 0:
                return c
    return None


def _joint_name(joint: str) -> str:
    return joint.replace("_", " ") if joint else "journal"


def poincare_figure(
    series: Mapping[str, Any], clearances_m: Mapping[str, float], *, first: int = 0,
    period_s: float | None = None,
) -> go.Figure:
    """The Poincaré map: each stored joint's section points e_y/c against e_x/c (one marker
    trace per joint, named by the joint, in revolution order; hover gives the time) from
    section ``first`` on (the settled window, :func:`in_window` with the driver period
    ``period_s`` [s]); the sections before it as one faint trace ``"before the settled
    window"``. Inside the clearance circle |e|/c = 1 (dashed), equal aspect.
    ``clearances_m``: c [m] by joint (``""`` for the one joint of a built-in model); a joint
    without one is left out. A fixed point is periodic-1, N points visited in turn
    periodic-N, a cloud chaotic."""
    fig = new_figure("Poincaré map: the journal once per revolution", E_X_TITLE, E_Y_TITLE,
                     subtitle=f"settled window from revolution {first}" if first else None)
    span = 1.0
    early: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    for i, joint in enumerate(section_joints(series)):
        c = clearances_m.get(joint)
        if not c:
            continue
        t, ex, ey = section_points(series, joint)
        x, y = ex / c, ey / c
        if x.size:
            span = max(span, float(np.max(np.hypot(x, y))))
        keep = in_window(t, first, period_s)
        early.append((x[~keep], y[~keep], t[~keep]))
        fig.add_trace(go.Scatter(
            x=x[keep], y=y[keep], mode="markers", name=_joint_name(joint), meta=joint,
            marker={"color": color(i), "size": 7, "line": {"width": 0.5, "color": "#333"}},
            customdata=t[keep], hovertemplate="t = %{customdata:.4g} s<br>e_x/c %{x:.4f}, "
                                              "e_y/c %{y:.4f}<extra>%{fullData.name}</extra>"))
    if any(e[0].size for e in early):
        fig.add_trace(go.Scatter(
            x=np.concatenate([e[0] for e in early]), y=np.concatenate([e[1] for e in early]),
            mode="markers", name=BEFORE_WINDOW_NAME,
            marker={"color": "rgba(120,120,120,0.35)", "size": 5},
            customdata=np.concatenate([e[2] for e in early]),
            hovertemplate="t = %{customdata:.4g} s (before the window)<extra></extra>"))
    _unit_circle(fig, 1.1 * span)
    return fig


def _unit_circle(fig: go.Figure, span: float) -> None:
    fig.add_shape(type="circle", xref="x", yref="y", x0=-1, y0=-1, x1=1, y1=1,
                  line={"color": MARKER_COLOR, "dash": "dash"})
    fig.update_xaxes(range=[-span, span], constrain="domain")
    fig.update_yaxes(range=[-span, span], scaleanchor="x", scaleratio=1)


#: a step this many times the median step is a gap: a long run keeps its first revolution
#: and a ring of its last ones (core/cases.py), nothing in between
GAP_FACTOR = 20.0


def stretches(t: np.ndarray) -> list[slice]:
    """The gapless stretches of increasing times ``t`` [s]: slices between steps longer than
    :data:`GAP_FACTOR` x the median step (a preview's min/max picks are uneven, but not by
    that much)."""
    if t.size < 3:
        return [slice(0, t.size)]
    dt = np.diff(t)
    cuts = np.flatnonzero(dt > GAP_FACTOR * np.median(dt)) + 1
    edges = [0, *cuts.tolist(), t.size]
    return [slice(a, b) for a, b in zip(edges[:-1], edges[1:], strict=True)]


def eccentricity_rate(t: np.ndarray, r: np.ndarray) -> np.ndarray:
    """d r / d t [1/s] of samples ``r`` at strictly increasing times ``t`` [s], second
    order on an uneven grid (``np.gradient``); shape of ``r``."""
    if r.size < 2:
        return np.zeros_like(r)
    return np.gradient(r, t)


def _of_joint(title: str, joint: str) -> str:
    return f"{title}: {_joint_name(joint)}" if joint else title


def phase_portrait_figure(series: Mapping[str, Any], clearance_m: float,
                          joint: str = "") -> go.Figure:
    """The phase portrait of the journal: the rate of |e|/c [1/s] against |e|/c [–] over
    the run (a line, a closed loop for a periodic motion; 1 is the bearing wall, dashed,
    where impacts reverse the rate). From ``eccentricity_x``/``_y``
    (:func:`~.case_views.orbit_points`), the rate by :func:`eccentricity_rate`; a
    mechanism's ``joint`` named in the title (its orbit: :func:`joint_series`)."""
    ex, ey = orbit_points(series)
    t = _orbit_time(series, ex.size)
    r = np.hypot(ex, ey) / clearance_m
    keep = np.r_[True, np.diff(t) > 0]  # a repeated instant has no rate
    t, r = t[keep], r[keep]
    xs, ys = [], []
    for part in stretches(t):  # no rate across a gap of the stored series
        xs += [r[part], [np.nan]]
        ys += [eccentricity_rate(t[part], r[part]), [np.nan]]
    fig = new_figure(_of_joint("Phase portrait of the journal", joint), E_RATIO_TITLE,
                     E_RATE_TITLE)
    fig.add_trace(go.Scatter(x=np.concatenate(xs[:-1]) if xs else r,
                             y=np.concatenate(ys[:-1]) if ys else r, mode="lines",
                             name="journal", line={"color": color(0), "width": 1}))
    fig.add_vline(x=1.0, line={"color": MARKER_COLOR, "dash": "dash", "width": 1})
    return fig


def _orbit_time(series: Mapping[str, Any], n: int) -> np.ndarray:
    """The instants of :func:`~.case_views.orbit_points` (its union of both time bases)."""
    tx, ty = time_of(series, "eccentricity_x"), time_of(series, "eccentricity_y")
    t = tx if np.array_equal(tx, ty) else np.union1d(tx, ty)
    return np.asarray(t, dtype=float)[:n]


def orbit_in_time_figure(
    series: Mapping[str, Any], clearance_m: float, settled_from_s: float | None,
    joint: str = "",
) -> go.Figure:
    """The journal orbit e_y/c against e_x/c coloured by time: the part before
    ``settled_from_s`` [s] as markers on a time colour scale (colour bar ``Time [s]``), the
    settled part from it on as a dark line (``"settled motion"``), the first instant a star
    (``"start"``), inside the clearance circle (dashed). ``settled_from_s`` None: the case did
    not settle, the whole orbit is coloured by time."""
    ex, ey = orbit_points(series)
    t = _orbit_time(series, ex.size)
    x, y = ex / clearance_m, ey / clearance_m
    settled = np.zeros(t.size, bool) if settled_from_s is None else t >= settled_from_s
    title = ("Journal orbit in time" if settled_from_s is None else
             f"Journal orbit in time: settled from t = {settled_from_s:.4g} s")
    fig = new_figure(_of_joint(title, joint), E_X_TITLE, E_Y_TITLE)
    early = ~settled
    if settled_from_s is not None and early.any() and settled.any():
        early[np.argmax(settled)] = True  # the coloured part reaches the settled line
    fig.add_trace(go.Scatter(
        x=x[early], y=y[early], mode="markers+lines", name=TRANSIENT_NAME,
        line={"color": "rgba(150,150,150,0.35)", "width": 0.5},
        marker={"size": 4, "color": t[early], "colorscale": SEQUENTIAL, "showscale": True,
                "colorbar": {"title": {"text": TIME_TITLE, "side": "right"}, "x": 1.02}},
        customdata=t[early], hovertemplate="t = %{customdata:.4g} s<extra></extra>"))
    if settled.any():
        fig.add_trace(go.Scatter(
            x=x[settled], y=y[settled], mode="lines", name=SETTLED_NAME,
            line={"color": REFERENCE_COLOR, "width": 2}, customdata=t[settled],
            hovertemplate="t = %{customdata:.4g} s (settled)<extra></extra>"))
    if t.size:
        fig.add_trace(go.Scatter(
            x=x[:1], y=y[:1], mode="markers", name=START_NAME,
            marker={"symbol": "star", "size": 15, "color": color(3),
                    "line": {"width": 1, "color": "#000"}},
            hovertemplate=f"start, t = {t[0]:.4g} s<extra></extra>"))
    span = max(1.0, float(np.max(np.hypot(x, y)))) if t.size else 1.0
    _unit_circle(fig, 1.1 * span)
    fig.update_layout(legend={"orientation": "h", "x": 0.0, "y": -0.2, "yanchor": "top"},
                      margin_b=90)
    return fig


def case_spectrum_figure(
    series: Mapping[str, Any], signal: str, speed_rpm: float | None,
    window: str = "settled window",
) -> go.Figure:
    """The case's own amplitude spectrum of ``signal`` (the stored
    ``spectrum_freq_hz``/``spectrum_<signal>``, taken by the worker over ``window``), the
    crank orders marked (dotted, labelled "1×", "5×" ...) when ``speed_rpm`` is known. The
    subtitle gives the window and the frequency resolution (the bin width; f1/N over N whole
    revolutions). x in Hz, y in the signal's unit."""
    freq, amp = spectrum_arrays(series, signal)
    name = series_parts(signal)[0]
    bin_hz = float(freq[1] - freq[0]) if freq.size > 1 else math.nan
    f1 = speed_rpm / 60.0 if speed_rpm else None
    resolution = f"resolution {bin_hz:.4g} Hz"
    if f1 and bin_hz > 0:
        # f1/N: the window spans N whole crank revolutions (the settled window's, issue 23)
        resolution += f" = f1/{f1 / bin_hz:.3g}, over {f1 / bin_hz:.3g} revolutions"
    fig = new_figure(f"Spectrum of {phrase(name)}", FREQUENCY_TITLE,
                     with_unit(f"{name} amplitude", series_unit(signal)),
                     subtitle=f"{window}, {resolution}")
    fig.add_trace(go.Scatter(x=freq, y=amp, mode="lines", name=name,
                             line={"color": color(0)}))
    top = float(min(freq[-1], 40 * f1)) if f1 and freq.size else float(freq[-1] if freq.size
                                                                         else 1.0)
    if f1:
        mark_harmonics(fig, float(speed_rpm), top)
    fig.update_xaxes(range=[0.0, top])
    return fig


def finite_number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    value = float(value)
    return value if math.isfinite(value) else None


def short_number(value: float) -> str:
    """One significant digit, powers of ten as engineers write them: ``0.0031`` -> ``"3e-3"``,
    ``0.25`` -> ``"0.3"``, ``0`` -> ``"0"``."""
    if value == 0 or not math.isfinite(value):
        return f"{value:g}"
    if 1e-2 <= abs(value) < 1e3:
        return f"{value:.1g}"
    mantissa, exponent = f"{value:.0e}".split("e")
    return f"{mantissa}e{int(exponent)}"


def motion_words(metrics: Mapping[str, Any]) -> str | None:
    """The settled motion of a case in words, from its metrics (None when it has none):

    ``"settled after 14 revolutions, periodic-1"``, ``"did not settle within 80
    revolutions: drift 3e-3 c per revolution, chaotic (0-1 test K = 0.93), 77 impacts"``,
    ``"..., chaotic (0-1 test K = 0.99), no impact: continuous contact"`` (``contact_mode``
    and ``impacts_settled``: the settled window)."""
    settled = finite_number(metrics.get("settled"))
    motion = metrics.get("motion")
    revolutions = finite_number(metrics.get("revolutions"))
    if settled is None and not motion:
        return None
    parts = []
    if settled is not None and settled >= 0.5:
        after = finite_number(metrics.get("settled_after_revolutions"))
        parts.append(f"settled after {after:.0f} revolutions" if after is not None
                     else "settled")
    elif settled is not None:
        text = "did not settle"
        if revolutions is not None:
            text += f" within {revolutions:.0f} revolutions"
        drift = finite_number(metrics.get("section_drift"))
        if drift is not None:
            text += f": drift {short_number(drift)} c per revolution"
        parts.append(text)
    if motion:
        text = str(motion)
        k = finite_number(metrics.get("chaos_indicator"))
        if k is not None:
            text += f" (0-1 test K = {k:.2f})"
        parts.append(text)
    mode = metrics.get("contact_mode")
    if mode and mode != "impacting":
        # chaotic is not rattling (README, "Rattle map"): say when nothing hits
        parts.append(f"no impact: {mode}")
    elif mode:
        impacts = finite_number(metrics.get("impacts_settled"))
        parts.append(f"{impacts:.0f} impacts" if impacts is not None else "impacting")
    return ", ".join(parts)


def settled_from_s(metrics: Mapping[str, Any], period_s: float | None) -> float | None:
    """Where the settled window of a case that settled starts [s]: the solver's
    ``settled_from_s``, else ``settled_after_revolutions`` x the driver period ``period_s``
    [s]; None when the case did not settle or neither is known."""
    settled = finite_number(metrics.get("settled"))
    if settled is None or settled < 0.5:
        return None
    stored = finite_number(metrics.get("settled_from_s"))  # the solver's own
    if stored is not None:
        return stored
    after = finite_number(metrics.get("settled_after_revolutions"))
    if after is None or not period_s:
        return None
    return after * period_s


def window_start_revolution(metrics: Mapping[str, Any], params: Mapping[str, Any]) -> int:
    """The first section of the settled window (the revolution count k of t = k·T): where
    the case settled (``settled_after_revolutions``), else its ``transient_revolutions``,
    else half its ``revolutions`` (the solver's rule, core/settled.py); 0 when unknown."""
    after = finite_number(metrics.get("settled_after_revolutions"))
    if after is not None and after >= 0 and (finite_number(metrics.get("settled")) or 0) >= 0.5:
        return int(after)
    transient = finite_number(params.get("transient_revolutions"))
    if transient is not None and transient > 0:
        return int(transient)
    revolutions = finite_number(metrics.get("revolutions"))
    return int(revolutions) // 2 if revolutions is not None else 0


def window_first_revolution(metrics: Mapping[str, Any], params: Mapping[str, Any],
                            period_s: float | None) -> int:
    """:func:`window_start_revolution`, from the solver's ``settled_from_s`` when stored."""
    start = finite_number(metrics.get("settled_from_s"))
    if start is not None and period_s:
        return int(round(start / period_s))
    return window_start_revolution(metrics, params)


def in_window(t: np.ndarray, first: int, period_s: float | None) -> np.ndarray:
    """Which section times ``t`` [s] (t = k·T) lie in the settled window from section
    ``first`` on: a boolean mask (all True when the period is unknown)."""
    t = np.asarray(t, dtype=float)
    if not period_s or first <= 0:
        return np.ones(t.shape, bool)
    return t >= (first - 0.5) * period_s


def window_mask(t: np.ndarray, metrics: Mapping[str, Any], params: Mapping[str, Any],
                period_s: float | None) -> np.ndarray:
    """Which section times ``t`` [s] lie in the case's settled window: from the solver's
    ``settled_from_s`` [s] when stored, else from :func:`window_start_revolution`."""
    start = finite_number(metrics.get("settled_from_s"))
    if start is not None and start > 0:
        half = 0.5 * period_s if period_s else 1e-9 * start
        return np.asarray(t, dtype=float) >= start - half
    return in_window(t, window_start_revolution(metrics, params), period_s)


def starts_words(metrics: Mapping[str, Any]) -> str | None:
    """A case run from several starts (``starts``): each other start's settled peak and
    motion and the spread, e.g. ``"from the wall start: periodic-2, settled peak 25.9 km/s²;
    spread between starts 27 %"``; None for a case run from one start."""
    from .hover import quantity

    others = sorted(k.split(".", 1)[1] for k in metrics if k.startswith("motion."))
    if not others:
        return None
    parts = []
    for start in others:
        peak = finite_number(metrics.get(f"peak_slider_accel_settled.{start}"))
        text = f"from the {start} start: {metrics.get(f'motion.{start}')}"
        if peak is not None:
            text += f", settled peak {quantity(peak, 'm/s²')}"
        parts.append(text)
    spread = finite_number(metrics.get("start_spread"))
    tail = f"; spread between starts {100 * spread:.3g} %" if spread is not None else ""
    return "; ".join(parts) + tail


def speed_rpm_of(params: Mapping[str, Any]) -> float | None:
    """The driver speed [rpm] of a case's parameters (``speed_rpm``, a mechanism's
    ``driver.speed_rpm``), None when it is not among them."""
    for name in ("speed_rpm", "driver.speed_rpm"):
        value = finite_number(params.get(name))
        if value is not None and value > 0:
            return value
    return None


def driver_period_s(series: Mapping[str, Any], speed_rpm: float | None) -> float | None:
    """The driver period T [s]: 60 / ``speed_rpm``, else the spacing of the stored section
    times (they are t = k·T); None when neither is known."""
    if speed_rpm:
        return 60.0 / float(speed_rpm)
    t = series.get(SECTION_TIME)
    if t is not None and np.asarray(t).size > 1:
        return float(np.median(np.diff(np.asarray(t, dtype=float))))
    return None
