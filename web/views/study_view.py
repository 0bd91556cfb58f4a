"""A study's detail (``gapsweep show --json``, design.md 4.3) shaped for its page: progress
text, ETA, the case table's rows and columns, the axes a figure can use. Pure functions."""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime, timezone
from typing import Any, TypeVar

from gapsweep.core import metrics as metric_registry
from gapsweep.core.api import DEFAULT_MODEL
from gapsweep.core.api import measures_of as core_measures_of
from gapsweep.study.design_registry import (
    DEFAULT_DESIGN,
    TREND_PANELS,
    TREND_SCATTER,
    get_design,
)
from gapsweep.study.twins import ratio as twin_ratio

from ..figures.labels import (
    format_value,
    measuring,
    metric_label,
    parameter_label,
    phrase,
    series_parts,
)
from ..figures.windows import SETTLED, SUFFIXES, window_of
from .parameters import label as plabel

T = TypeVar("T")
FINISHED = ("done", "cancelled")
CASE_STATUSES = ("queued", "running", "done", "failed", "cancelled")
TABLE_METRICS = metric_registry.headline()  # the case table's metric columns


def axes_of(detail: Mapping[str, Any]) -> list[str]:
    """The study's axis names, in the spec's order (the first is a grid's outermost)."""
    return list((detail.get("spec") or {}).get("axes") or {})


ALL_FACTORS = "__each__"  # the trends' x choice of a one-at-a-time study: a panel per factor
NO_GROUP = "__none__"


def _axis_text(axis: Mapping[str, Any]) -> str:
    """An axis of the spec as a person reads it: ``0.02, 0.035, 0.05``; ``1 ± 30 % (3
    levels)``; ``0.02 to 0.1 (5 levels)``; ``0.02 to 0.1`` (a sampling design's bounds)."""
    if "values" in axis:
        text = ", ".join(format_value(v) for v in axis["values"])
        return text + (f" (nominal {format_value(axis['nominal'])})" if "nominal" in axis
                       else "")
    if "relative_percent" in axis:
        # a sampling design draws within nominal ± % and needs no level count
        levels = f" ({axis['levels']} levels)" if axis.get("levels") is not None else ""
        return (f"{format_value(axis.get('nominal'))} ± {format_value(axis['relative_percent'])} "
                f"%{levels}")
    if "start" in axis:
        span = f"{format_value(axis['start'])} to {format_value(axis.get('stop'))}"
        return span + (f" ({axis['count']} levels)" if "count" in axis else "")
    return ", ".join(f"{k} = {format_value(v)}" for k, v in axis.items())  # another form


def setting_lines(spec: Mapping[str, Any]) -> tuple[list[str], list[str]]:
    """(fixed base parameters, axes) of a spec, one ``name [unit]: value`` line each, in the
    spec's order: what the study held fixed and what it varied (the page's header)."""
    base = [f"{plabel(n)} = {format_value(v)}" for n, v in (spec.get("base") or {}).items()]
    axes = [f"{plabel(n)}: {_axis_text(a)}" for n, a in (spec.get("axes") or {}).items()]
    return base, axes


def design_of(detail: Mapping[str, Any]) -> str:
    return str((detail.get("spec") or {}).get("design", DEFAULT_DESIGN))


def model_of(detail: Mapping[str, Any]) -> str:
    return str(detail.get("model") or (detail.get("spec") or {}).get("model") or DEFAULT_MODEL)


def measures_of(detail: Mapping[str, Any]) -> Any:
    """What the study measures (:class:`gapsweep.core.measures.Measures`): its model's
    registry entry read with its ``[mechanism]`` table - the metrics and series a page offers,
    labels them with and opens on."""
    return core_measures_of(model_of(detail), (detail.get("spec") or {}).get("mechanism"))


def drawn(fn: Callable[..., T]) -> Callable[..., T]:
    """``fn(detail, ...)`` drawn with the study's measures (:func:`measures_of`): every label,
    unit and default metric of the figures it makes is the study's own."""
    @functools.wraps(fn)
    def with_measures(detail: Mapping[str, Any], *args: Any, **kwargs: Any) -> T:
        with measuring(measures_of(detail)):
            return fn(detail, *args, **kwargs)

    return with_measures


def metric_choices(detail: Mapping[str, Any]) -> tuple[list[dict[str, str]], str]:
    """The metric pickers' (sensitivity, parallel coordinates) options and default: the
    study's headline metrics (a mechanism's measures' settled peaks first), labelled."""
    m = measures_of(detail)
    with measuring(m):
        options = [{"label": metric_label(n), "value": n} for n in m.headline]
    return options, m.default_metric


def trend_metric_choices(detail: Mapping[str, Any]) -> tuple[list[dict[str, str]], str]:
    """The trends' metric options (without their window, which is chosen apart) and the
    default: the study's measures' (a mechanism's own, never the slider's)."""
    m = measures_of(detail)
    plain = [n for n in m.trend if window_of(n) is None]
    with measuring(m):
        options = [{"label": metric_label(n), "value": n} for n in plain]
    default = m.default_metric
    base = default.removesuffix(SUFFIXES[SETTLED])
    return options, base if base in plain else (plain[0] if plain else default)


def spectrum_choices(detail: Mapping[str, Any]) -> tuple[list[dict[str, str]], str]:
    """The spectra's signal options (the series whose spectra the worker stores, labelled
    by the series registry with the study's measures) and the first as default."""
    m = measures_of(detail)
    with measuring(m):
        options = [{"label": phrase(series_parts(n)[0]), "value": n}
                   for n in m.spectrum_series]
    return options, m.spectrum_series[0]


def trend_choices(detail: Mapping[str, Any]) -> dict[str, Any]:
    """The trends tab's x and grouping dropdowns for the study's design:
    ``{"x_options", "x", "group_options", "group", "group_label", "group_shown"}``.

    grid: x = the clearance axis when there is one (else the first axis), one line per level
    of the next axis; one-at-a-time: x = every factor (a panel each) or one of them, no
    grouping; sampled designs: x = the first factor, colour by the second."""
    axes = axes_of(detail)
    design = design_of(detail)
    options = [{"label": parameter_label(a), "value": a} for a in axes]
    none = {"label": "none", "value": NO_GROUP}
    if get_design(design).trends == TREND_PANELS:
        return {"x_options": [{"label": "each factor (a panel each)", "value": ALL_FACTORS},
                              *options],
                "x": ALL_FACTORS, "group_options": [none], "group": NO_GROUP,
                "group_label": "one run per factor, the others at their nominal",
                "group_shown": False}
    # the clearance when it is an axis (a mechanism's joints.<joint>.clearance_mm too)
    x = next((a for a in axes if a.split(".")[-1] == "clearance_mm"), axes[0] if axes else None)
    group = next((a for a in axes if a != x), NO_GROUP)
    sampled = get_design(design).trends == TREND_SCATTER
    return {"x_options": options, "x": x, "group_options": [*options, none], "group": group,
            "group_label": "colour by" if sampled else "one line per",
            "group_shown": True}


def clicked_case(click: Any) -> int | None:
    """The case id of a clicked figure point (``customdata[0]``), None for anything else
    (the ideal-joint line, a hand-made request)."""
    try:
        data = click["points"][0]["customdata"]
        value = data[0] if isinstance(data, list) else data
    except (KeyError, IndexError, TypeError):
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        return None
    return value if value > 0 else None


def counts(progress: Mapping[str, Any]) -> dict[str, int]:
    """Case counts by status and the total (twins are not cases, design.md 4.5)."""
    out = {s: int(progress.get(s) or 0) for s in CASE_STATUSES}
    out["total"] = int(progress.get("total") or sum(out.values()))
    return out


def progress_bar(progress: Mapping[str, Any]) -> tuple[float, str]:
    """(percent run, label): done and failed cases fill the bar; cancelled ones are said,
    not counted (a study cancelled at 2 % read "100000 / 100000" before, issue 28)."""
    c = counts(progress)
    ran = c["done"] + c["failed"]
    percent = 100.0 * ran / c["total"] if c["total"] else 0.0
    label = f"{ran} / {c['total']}"
    return percent, label + (f" · {c['cancelled']} cancelled" if c["cancelled"] else "")


def counts_text(progress: Mapping[str, Any]) -> str:
    c = counts(progress)
    return " · ".join(f"{c[s]} {s}" for s in CASE_STATUSES if c[s] or s in ("done", "queued"))


def _as_time(value: Any) -> datetime | None:
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=timezone.utc)
    if isinstance(value, str) and value:
        try:
            t = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return None
        return t if t.tzinfo else t.replace(tzinfo=timezone.utc)
    return None


def as_time(value: Any) -> datetime | None:
    """An aware UTC time from a datetime or an ISO 8601 string (None if neither)."""
    return _as_time(value)


def eta_seconds(
    progress: Mapping[str, Any], started: Any, now: datetime | None = None
) -> float | None:
    """Seconds left at the pace so far (finished cases per wall second since the study
    started, whatever the number of workers); None before the first case finished."""
    c = counts(progress)
    finished = c["done"] + c["failed"] + c["cancelled"]
    left = c["queued"] + c["running"]
    start = _as_time(started)
    if not left:
        return 0.0
    if start is None or finished == 0:
        return None
    elapsed = ((now or datetime.now(timezone.utc)) - start).total_seconds()
    return max(0.0, elapsed / finished * left)


def eta_text(seconds: float | None, status: str) -> str:
    if status in FINISHED:
        return "cancelled" if status == "cancelled" else "finished"
    if seconds is None:
        return "ETA: after the first case"
    if seconds < 90:
        return f"ETA ≈ {seconds:.0f} s"
    if seconds < 5400:
        return f"ETA ≈ {seconds / 60:.0f} min"
    return f"ETA ≈ {seconds / 3600:.1f} h"


# The solver integrates a chunk of cases together and reports one time for the chunk: each
# case stores an equal share of it (core/solver.py), not its own cost. The label says so;
# the case's own work is its count of right-hand-side evaluations, on its page.
TIME_COLUMN = "Time [s] (equal share of its batch)"
TIME_TOOLTIP = ("The solver runs a chunk of cases together and times the chunk; each case "
                "shows the chunk's time divided by its number of cases. A case's own cost is "
                "its RHS evaluations, on its page.")


def owner_text(owner: str | None, accounts_on: bool) -> str:
    """Who made the study: its owner's user name; without one, the machine's user when the
    app runs without accounts (the form and the command line both act as that user), else
    nobody (made on the command line or before accounts existed)."""
    if owner:
        return owner
    if not accounts_on:
        return "local user on this machine (no accounts)"
    return "nobody (made on the command line, or before accounts existed)"


def single_twin_metrics(detail: Mapping[str, Any]) -> dict[str, Any] | None:
    """The ideal twin's metrics when the study has exactly one done twin (the trends
    line); None otherwise (no twin, or one per setting: see each case's deviations)."""
    twins = [t for t in detail.get("twins") or [] if t.get("status") == "done"]
    return dict(twins[0].get("metrics") or {}) if len(twins) == 1 else None


def compare_href(case_ids: Sequence[int]) -> str:
    return "/compare?cases=" + ",".join(str(int(i)) for i in case_ids)


def with_ratio(
    cases: Sequence[Mapping[str, Any]], twins: Sequence[Mapping[str, Any]] | None, key: str
) -> list[dict[str, Any]]:
    """``cases`` with metric ``key`` = ``ratio_to_ideal_<m>`` set to the case's ``m`` over
    its ideal twin's (``m`` may be a ``_steady`` metric): from the deviation the case stores
    where it has one of ``m`` (:func:`gapsweep.study.twins.ratio`), else over its done twin's
    value; a case without either gets none (the figure counts it as skipped)."""
    base = key.removeprefix(metric_registry.RATIO)
    by_id = {t.get("id"): t for t in twins or []}
    out = []
    for case in cases:
        twin = by_id.get(case.get("twin_id")) or {}
        twin_metrics = twin.get("metrics") if twin.get("status") == "done" else None
        value = twin_ratio(case.get("metrics"), base, twin_metrics)
        out.append({**case, "metrics": {**(case.get("metrics") or {}), key: value}})
    return out


def group_for(axes: Sequence[str], x_axis: str | None, group: str | None) -> str:
    """The trends' grouping once x is ``x_axis``: the group kept while it is another axis,
    else the first axis that is not x (the lines the figure then draws), else none."""
    if group in axes and group != x_axis:
        return str(group)
    return next((a for a in axes if a != x_axis), NO_GROUP)


def differing_settings(specs: Sequence[Mapping[str, Any]]) -> list[dict[str, str]]:
    """The parameters whose setting differs between studies ``specs``: one row each,
    ``{"parameter": "friction", "0": "0.1", "1": "default", ...}`` keyed by the study's
    position - a base value, ``varied: <levels>`` for an axis, ``default`` for neither;
    the model and design too when they differ. Parameters set alike in all are left out."""
    def setting(spec: Mapping[str, Any], name: str) -> str:
        if name in (spec.get("axes") or {}):
            return f"varied: {_axis_text(spec['axes'][name])}"
        if name in (spec.get("base") or {}):
            return format_value(spec["base"][name])
        return "default"

    names: dict[str, None] = {}
    for spec in specs:
        names.update(dict.fromkeys(spec.get("base") or {}))
        names.update(dict.fromkeys(spec.get("axes") or {}))
    rows = []
    for key in ("model", "design"):
        values = [str(spec.get(key, DEFAULT_DESIGN if key == "design" else DEFAULT_MODEL))
                  for spec in specs]
        if len(set(values)) > 1:
            rows.append({"parameter": key, **{str(i): v for i, v in enumerate(values)}})
    for name in names:
        values = [setting(spec, name) for spec in specs]
        if len(set(values)) > 1:
            rows.append({"parameter": plabel(name), **{str(i): v for i, v in enumerate(values)}})
    return rows
