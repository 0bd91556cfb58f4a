"""Axis titles, table headers and legend names, each with its unit: the one units convention
of every figure and table.

Convention: a quantity is shown in the SI unit the solver stores it in (m, s, N, N m, J,
m/s², Hz), with one exception: penetration *metrics* (``max_penetration``, the onset error,
the free-flight penetration) are micrometres of a clearance of tens of µm, so they are shown
in µm - :func:`metric_scale` is the factor from the stored SI value, and every figure and
table that shows a metric's value multiplies by it (:func:`metric_display`). A metric's title,
unit and factor are the core's metric registry's (:mod:`gapsweep.core.metrics`), which the
CLI's tables read too, so the terminal and the pages show the same units. Series
(penetration, eccentricity, the clearance circle of the case views) stay in metres, whose
tick labels carry SI prefixes (``20µ`` on a ``[m]`` axis is 20 µm, see :mod:`.style`).
A study parameter is shown in the unit its name carries (``clearance_mm`` in mm,
``speed_rpm`` in rpm), with the title the core's parameter registry gives it;
dimensionless quantities say ``[–]``, counts ``[count]``.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from gapsweep.core import metrics
from gapsweep.core import parameters as registry
from gapsweep.core import series as series_registry
from gapsweep.core.measures import Measures, built_in
from gapsweep.core.metrics import DIMENSIONLESS

# series name -> (title, unit): the core's series registry's
SERIES = {s.name: (s.label, s.unit) for s in series_registry.REGISTRY.values()}

# What the study at hand measures (gapsweep.core.measures): a described mechanism's measures
# and its probe's series named for what they are. A view sets it around the figures of one
# study (:func:`measuring`); every label and default metric below reads it, so no figure
# function needs to be told. The built-in models' by default.
_MEASURES: ContextVar[Measures | None] = ContextVar("gapsweep_measures", default=None)


def current_measures() -> Measures:
    """The measures of the study being drawn (the built-in models' outside :func:`measuring`)."""
    return _MEASURES.get() or built_in()


@contextmanager
def measuring(measures: Measures) -> Iterator[Measures]:
    """Labels, units and default metrics read ``measures`` inside the block."""
    token = _MEASURES.set(measures)
    try:
        yield measures
    finally:
        _MEASURES.reset(token)


def default_metric() -> str:
    """The metric a figure shows when it is given none: the study's headline quantity over
    the whole run (``peak_slider_accel``; a mechanism's first measure's ``peak_<measure>``),
    which the figure's window may then read settled."""
    return current_measures().default_metric.removesuffix("_settled")

# metric name -> (title, unit shown): the core's metric registry, which also resolves the
# "_steady", "deviation_" and per-joint names (tests/web/test_labels.py: every metric a model
# reports is registered, so none falls back to [–] by omission)
METRICS = {m.name: (m.label, str(m.display_unit)) for m in metrics.REGISTRY.values()}

# parameters that scale a nominal value: legend "stiffness ×0.7"
SCALE_SUFFIX = "_scale"


def with_unit(title: str, unit: str) -> str:
    """``"Clearance", "mm"`` -> ``"Clearance [mm]"``."""
    return f"{title} [{unit}]"


def series_parts(name: str) -> tuple[str, str]:
    """(title, unit) of series ``name``: the series registry's, the study's measures first
    (a mechanism's probe is its first measure's body coordinate, not a slider)."""
    entry = current_measures().series_entry(name)
    return entry.label, entry.unit


def series_unit(name: str) -> str:
    """The unit of series ``name`` (``"m/s²"`` for slider_acceleration)."""
    return series_parts(name)[1]


def series_label(name: str) -> str:
    """Axis title of a series: ``"Slider acceleration [m/s²]"``."""
    return with_unit(*series_parts(name))


def metric_parts(name: str) -> tuple[str, str]:
    """(title, unit shown) of a metric, with the ``_steady``, ``deviation_`` and per-joint
    variants (the core's metric registry).

    ``deviation_*`` metrics are relative to the ideal twin (m / m_twin - 1), so dimensionless.
    """
    entry = current_measures().metric(name)
    return entry.label, str(entry.display_unit)


def metric_unit(name: str) -> str:
    """The unit of metric ``name`` (``"N"`` for peak_contact_force_steady)."""
    return metric_parts(name)[1]


def metric_label(name: str) -> str:
    """Axis title of a metric: ``"Peak slider acceleration [m/s²]"``."""
    return with_unit(*metric_parts(name))


def metric_scale(name: str) -> float:
    """Factor from the stored (SI) value of metric ``name`` to the unit it is shown in
    (1e6 for the penetrations shown in µm, else 1)."""
    return current_measures().metric(name).scale


def metric_display(name: str, value: Any) -> Any:
    """A stored value of metric ``name`` in the unit its label names; anything not a number
    (None, a bool, text) is returned as it is, an int only when the scale is 1."""
    return current_measures().metric(name).display(value)


def parameter_parts(name: str) -> tuple[str, str]:
    """(title, unit) of a study parameter, from the core's registry; ``[–]`` when it has no
    unit. A name the registry does not know is titled from its words."""
    entry = registry.find(name)
    if entry is not None:
        return entry.label, entry.unit or DIMENSIONLESS
    if metrics.JOINT_SEPARATOR in name:
        return _dotted_parts(name)
    return _stem(name).capitalize(), registry.unit(name) or DIMENSIONLESS


def _stem(name: str) -> str:
    """A name's words without its unit suffix: ``mass_kg`` -> ``mass``."""
    for suffix in ("_mm", "_rpm", "_deg", "_s", "_kgm2", "_kg", "_n_per_m", "_n"):
        if name.endswith(suffix) and len(name) > len(suffix):
            return name.removesuffix(suffix).replace("_", " ")
    return name.replace("_", " ")


def _dotted_parts(name: str) -> tuple[str, str]:
    """(title, unit) of a described mechanism's sweepable name (design.md 4.7), the thing it
    belongs to first: ``joints.out_pin.clearance_mm`` -> ("Out pin clearance", "mm"),
    ``driver.speed_rpm`` -> ("Driver speed", "rpm"), ``variables.rod_mm`` -> ("Rod", "mm")."""
    from gapsweep.core.mechanism.table import unit_of

    *path, last = name.split(metrics.JOINT_SEPARATOR)
    unit = registry.unit(last) or unit_of(last) or DIMENSIONLESS
    if path[0] == "variables" and len(path) == 1:
        return _stem(last).capitalize(), unit
    owner = path[-1] if len(path) > 1 else path[0]
    return f"{owner.replace('_', ' ')} {_stem(last)}".capitalize(), unit


def parameter_label(name: str) -> str:
    """Axis title of a parameter: ``"Clearance [mm]"``, ``"Stiffness scale [–]"``."""
    return with_unit(*parameter_parts(name))


def format_value(value: Any) -> str:
    """A parameter value as a legend shows it: ``0.7``, ``1e-07``, ``True``, ``hertz``."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return str(value)
    return f"{value:g}" if math.isfinite(value) else str(value)


def level_name(name: str, value: Any) -> str:
    """Legend entry of one level of a parameter: ``"stiffness ×0.7"``, ``"c = 0.05 mm"``."""
    entry = registry.find(name)
    short = entry.symbol if entry is not None and entry.symbol else name
    if entry is None and metrics.JOINT_SEPARATOR in name:
        short = phrase(_dotted_parts(name)[0])
    if name.endswith(SCALE_SUFFIX):
        return f"{short} ×{format_value(value)}"
    u = registry.unit(name) or (parameter_parts(name)[1] if entry is None and
                                metrics.JOINT_SEPARATOR in name else "")
    u = "" if u == DIMENSIONLESS else u
    return f"{short} = {format_value(value)}" + (f" {u}" if u else "")


def phrase(title: str) -> str:
    """A title inside a sentence: ``"Peak contact force"`` -> ``"peak contact force"``, an
    acronym kept (``"RMS slider acceleration"``)."""
    if len(title) > 1 and title[1].isupper():
        return title
    return title[:1].lower() + title[1:]
