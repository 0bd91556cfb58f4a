"""Metrics between the core's dict and a :class:`~.models.Result` row.

A case's metrics go to the contract columns when the model reports them (design.md 4.1) and
to ``Result.extra`` otherwise; reading merges them back. Values become plain JSON numbers:
numpy scalars are unwrapped and non-finite floats are stored as null (PostgreSQL's JSON has
no NaN, SQLite's REAL turns it into NULL anyway, so both databases give the same answer).
A clearance case's ``deviation_*`` from its ideal twin are stored in ``extra`` with its
result (:mod:`.leases`; archives from before, by migration 0006): reading never computes them.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from .models import INT_METRICS, METRIC_COLUMNS, Case, Result


def plain(value: Any) -> Any:
    """A JSON-ready value: numpy scalars unwrapped, NaN/inf -> None, containers recursed."""
    if hasattr(value, "item") and not isinstance(value, (list, tuple, dict, str, bytes)):
        try:
            value = value.item()
        except (TypeError, ValueError):
            value = value.tolist()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value


def split_metrics(metrics: Mapping[str, Any]) -> dict[str, Any]:
    """Keyword arguments of a :class:`Result`: the contract columns plus ``extra``."""
    columns: dict[str, Any] = {}
    extra: dict[str, Any] = {}
    for name, raw in metrics.items():
        value = plain(raw)
        is_number = isinstance(value, (int, float)) and not isinstance(value, bool)
        if name in METRIC_COLUMNS and is_number:
            columns[name] = int(value) if name in INT_METRICS else float(value)
        else:
            extra[str(name)] = value
    return {**columns, "extra": extra}


def result_metrics(result: Result | None) -> dict[str, Any]:
    """The metrics dict of a stored result ({} when the case has none)."""
    if result is None:
        return {}
    out = {name: getattr(result, name) for name in METRIC_COLUMNS}
    out = {k: v for k, v in out.items() if v is not None}
    out.update(result.extra or {})
    return out


def iso(moment: datetime | None) -> str | None:
    """An ISO 8601 timestamp with its UTC offset (JSON-ready), or None."""
    return None if moment is None else moment.isoformat()


def case_entry(case: Case, result: Result | None) -> dict[str, Any]:
    """A case row as ``show --json`` and the API list it: ``{"id", "params", "status",
    "attempts", "reason", "metrics", "twin_id"}``."""
    return {
        "id": case.id,
        "params": case.params,
        "status": case.status,
        "attempts": case.attempts,
        "reason": case.reason,
        "metrics": result_metrics(result),
        "twin_id": case.twin_id,
    }
