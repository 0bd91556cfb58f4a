"""Reading a metric off a case dict, the one rule for which cases a study figure shows.

A case is ``{"id": int, "params": dict, "status": str, "metrics": dict[str, float | int |
None]}``. It counts when its status is ``done`` (the core's ``ok`` is accepted too) and the
metric is a finite number; anything else (failed, queued, cancelled, a missing, None or NaN
metric) is skipped and counted by the figure. Values come in the unit the metric's label
names (:func:`.labels.metric_display`: penetrations in µm).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from .labels import metric_scale

DONE_STATUSES = frozenset({"done", "ok"})


def metric_value(case: Mapping[str, Any], metric: str) -> float | None:
    """The case's ``metric`` as a float in the unit its label names (the stored SI value x
    :func:`~.labels.metric_scale`), or None if the case is not done or has no value."""
    if case.get("status") not in DONE_STATUSES:
        return None
    value = (case.get("metrics") or {}).get(metric)
    if value is None or isinstance(value, bool):
        return None
    value = float(value) * metric_scale(metric)
    return value if math.isfinite(value) else None


def skipped_note(skipped: int, total: int) -> str | None:
    """``"2 of 15 cases skipped (failed or without a value)"``, None when none was skipped."""
    if skipped == 0:
        return None
    return f"{skipped} of {total} cases skipped (failed or without a value)"
