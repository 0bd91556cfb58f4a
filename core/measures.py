"""What a study of a model measures: the metrics and series its pages offer, with their
labels and units, and the metric they open on.

A built-in model measures what the metric registry (:mod:`.metrics`) and the series
registry (:mod:`.series`) list: the slider's acceleration, the contact force... A described
mechanism (``model = "mechanism"``, design.md 4.7) measures what its ``[mechanism.measures]``
table names: each measure ``m`` gives ``peak_m``, ``rms_m``, ``peak_m_steady`` and the
settled ``peak_m_settled`` (its headline), and a series ``m`` in the unit its quantity and
component give; the contact figures (force, penetration, impacts) are the model's as for the
built-in models, and each clearance joint has its own (``<name>.<joint>``). The slider's names
mean nothing there and are left out. Which of the two a model is, is its registry entry's
``measures_from_table`` capability (:mod:`.api`), never a comparison of its name.

Pure data: this module imports neither the solver nor the case types.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from . import metrics as metric_registry
from . import series as series_registry
from .metrics import Metric
from .series import Series

#: the built-in models' headline metric: the slider's settled peak (design.md 4.10)
BUILT_IN_DEFAULT_METRIC = "peak_slider_accel_settled"
# the part of a built-in model's names that names its slider: left out of a mechanism's lists
_SLIDER = "slider_accel"
# the probe series of a mechanism's main run (the first measure's body coordinate)
_PROBE_SERIES = {"slider_position": "position", "slider_velocity": "velocity",
                 "slider_acceleration": "acceleration"}


@dataclass(frozen=True)
class Measures:
    """A study's measures.

    ``metrics``/``series``: entries the registries do not hold (a mechanism's measures),
    looked up first (:meth:`metric`, :meth:`series_entry`); ``headline``: the case table's
    and the metric pickers' metrics; ``trend``: the trends tab's (each also read over its
    window, :mod:`gapsweep.web.figures.windows`); ``default_metric``: the one the pages open
    on; ``spectrum_series``: the series whose spectra are stored; ``joints``: the named
    clearance joints ("" for a built-in model's one)."""

    metrics: Mapping[str, Metric] = field(default_factory=dict)
    series: Mapping[str, Series] = field(default_factory=dict)
    headline: tuple[str, ...] = ()
    trend: tuple[str, ...] = ()
    default_metric: str = BUILT_IN_DEFAULT_METRIC
    spectrum_series: tuple[str, ...] = series_registry.SPECTRUM_SERIES
    joints: tuple[str, ...] = ("",)

    def metric(self, name: str) -> Metric:
        """The entry of metric ``name`` (``metrics.lookup`` with this study's first)."""
        return metric_registry.lookup(name, self.metrics)

    def series_entry(self, name: str) -> Series:
        """The entry of series ``name`` (``series.lookup`` with this study's first)."""
        return series_registry.lookup(name, self.series)


@functools.cache  # the labels ask for it for every cell of a table
def built_in() -> Measures:
    """A built-in model's measures: the registries' lists."""
    return Measures(headline=metric_registry.headline(), trend=metric_registry.trend_metrics())


def _not_slider(names: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(n for n in names if _SLIDER not in n)


def of_table(table: Mapping[str, Any] | None) -> Measures:
    """A described mechanism's measures from its ``[mechanism]`` table (a malformed table
    gives what can be read: the contact figures at least, never an error - the spec's
    validation reports it)."""
    table = table if isinstance(table, Mapping) else {}
    found = table.get("measures")
    measures = found if isinstance(found, Mapping) else {}
    known: dict[str, Metric] = {}
    series: dict[str, Series] = {}
    headline: list[str] = []
    trend: list[str] = []
    for name, m in measures.items():
        m = m if isinstance(m, Mapping) else {}
        quantity, component = m.get("quantity", ""), m.get("component", "")
        try:
            unit = metric_registry.measure_unit(quantity, component)
        except ValueError:
            continue
        words = str(name).replace("_", " ")
        family = (*metric_registry.measure_metrics(name, quantity, component),
                  *metric_registry.settled_metrics(name, words, unit))
        known.update({e.name: e for e in family})
        series[name] = series_registry.measure_series(name, quantity, component)
        headline.append(f"peak_{name}_settled")
        trend += [f"peak_{name}_settled", f"peak_{name}", f"rms_{name}"]
    first = next(iter(measures.items()), None)
    if first is not None and isinstance(first[1], Mapping):
        series.update(_probe_series(*first))
    joints_table = table.get("joints")
    joints = tuple(j for j, spec in (joints_table or {}).items()
                   if isinstance(spec, Mapping) and "clearance_mm" in spec) \
        if isinstance(joints_table, Mapping) else ()
    plain = _not_slider(metric_registry.headline())
    ratios = tuple(metric_registry.ratio_name(n) for n in trend
                   if known[n].has_deviation)
    return Measures(
        metrics=known, series=series,
        headline=(*headline, *plain),
        trend=(*trend, *_not_slider(metric_registry.trend_metrics()), *ratios),
        default_metric=headline[0] if headline else "peak_contact_force_settled",
        # the worker stores the probe's and the contact force's, and each joint's force
        spectrum_series=(*series_registry.SPECTRUM_SERIES,
                         *(metric_registry.per_joint("contact_normal_force", j)
                           for j in joints if len(joints) > 1)),
        joints=joints or ("",))


def _probe_series(name: str, m: Mapping[str, Any]) -> dict[str, Series]:
    """The main run's probe series (``slider_*``: the solver grid's names) of a mechanism,
    named for what they are: its first measure's body coordinate (``rocker angle
    acceleration [rad/s²]``), never the slider's."""
    body = str(m.get("body", name))
    component = str(m.get("component", ""))
    coordinate = component if component in ("x", "y", "angle") else "x"
    out = {}
    for probe, quantity in _PROBE_SERIES.items():
        unit = metric_registry.measure_unit(quantity, coordinate)
        label = f"{body.replace('_', ' ').capitalize()} {coordinate} {quantity}"
        out[probe] = Series(probe, label, unit,
                            spectrum=series_registry.REGISTRY[probe].spectrum)
    return out
