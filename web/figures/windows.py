"""Which part of a run a study figure reads a metric from (design.md 4.10, issue 23).

The answer an engineer wants is the motion the mechanism settles into: the per-revolution
peaks over the settled window (``peak_slider_accel_settled`` ...). The whole-run peak of a
run from a centred journal is the start-up impact (5-10x the ideal peak), kept as its own
metric ``peak_slider_accel_startup``; the 4.1 names keep their meaning (``peak_slider_accel``
the whole run, ``..._steady`` the last revolution). Every figure names its window.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from gapsweep.core import metrics as metric_registry

from .cases import DONE_STATUSES
from .labels import current_measures

SETTLED, STARTUP, WHOLE, LAST = "settled", "startup", "whole", "steady"
#: the trends' window choices, the default first
WINDOWS = {SETTLED: "settled motion", STARTUP: "start-up peak", WHOLE: "whole run",
           LAST: "last revolution"}
DEFAULT_WINDOW = SETTLED

SUFFIXES = {SETTLED: "_settled", STARTUP: "_startup", LAST: "_steady"}
#: the settled metric every page shows by default
DEFAULT_SETTLED = "peak_slider_accel_settled"
STARTUP_PEAK = "peak_slider_accel_startup"


def window_of(metric: str) -> str | None:
    """The window a metric's name already names (``..._settled`` -> ``"settled"``), None
    for a 4.1 name (whole run)."""
    return next((w for w, suffix in SUFFIXES.items() if metric.endswith(suffix)), None)


def quantities(metrics: Sequence[str]) -> list[str]:
    """The names of ``metrics`` without a window (the trends' metric choices; the window is
    chosen apart), in order."""
    return [m for m in metrics if window_of(m) is None]


def windowed_metric(metric: str, window: str) -> tuple[str, str | None]:
    """The stored metric ``window`` reads for ``metric`` (a 4.1 name), and a note when that
    window has no such metric and the figure shows another (None otherwise): ``("rms_slider_
    accel", "no settled version: whole run")``. A name that already names its window
    (``p95_slider_accel_settled``) is read as it is."""
    if window_of(metric) is not None or window not in SUFFIXES:
        return metric, None
    name = metric + SUFFIXES[window]
    if window == LAST or name in metric_registry.REGISTRY or name in current_measures().metrics:
        return name, None
    word = {SETTLED: "settled", STARTUP: "start-up"}[window]
    return metric, f"no {word} version of this metric: whole run shown"


def has_metric(cases: Sequence[Mapping[str, Any]], metric: str) -> bool:
    """Whether any done case stores ``metric`` (a study run before settled metrics has none)."""
    return any(c.get("status") in DONE_STATUSES and (c.get("metrics") or {}).get(metric)
               is not None for c in cases)


def study_metric(
    cases: Sequence[Mapping[str, Any]], metric: str, window: str
) -> tuple[str, str | None]:
    """:func:`windowed_metric` for a study's ``cases``; when none of its done cases has the
    windowed metric (run before it existed) but some have ``metric``, ``metric`` (the whole
    run) with a note saying so."""
    key, note = windowed_metric(metric, window)
    if key != metric and not has_metric(cases, key) and has_metric(cases, metric):
        return metric, f"cases run before {WINDOWS.get(window, window)} metrics: whole run shown"
    return key, note
