"""A study's detail (``gapsweep show --json``, design.md 4.3) shaped for its page: progress
text, ETA, the case table's rows and columns, the axes a figure can use. Pure functions."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from datetime import datetime, timezone
from typing import Any

from .figures.labels import metric_label, parameter_label

FINISHED = ("done", "cancelled")
CASE_STATUSES = ("queued", "running", "done", "failed", "cancelled")
TABLE_METRICS = ("peak_slider_accel", "rms_slider_accel", "peak_contact_force",
                 "max_penetration", "impacts", "peak_slider_accel_steady")


def axes_of(detail: Mapping[str, Any]) -> list[str]:
    """The study's axis names, in the spec's order (the first is a grid's outermost)."""
    return list((detail.get("spec") or {}).get("axes") or {})


def counts(progress: Mapping[str, Any]) -> dict[str, int]:
    """Case counts by status and the total (twins are not cases, design.md 4.5)."""
    out = {s: int(progress.get(s) or 0) for s in CASE_STATUSES}
    out["total"] = int(progress.get("total") or sum(out.values()))
    return out


def progress_bar(progress: Mapping[str, Any]) -> tuple[float, str]:
    """(percent finished, label) — failed and cancelled cases are finished too."""
    c = counts(progress)
    finished = c["done"] + c["failed"] + c["cancelled"]
    percent = 100.0 * finished / c["total"] if c["total"] else 0.0
    return percent, f"{finished} / {c['total']}"


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
        return "finished"
    if seconds is None:
        return "ETA: after the first case"
    if seconds < 90:
        return f"ETA ≈ {seconds:.0f} s"
    if seconds < 5400:
        return f"ETA ≈ {seconds / 60:.0f} min"
    return f"ETA ≈ {seconds / 3600:.1f} h"


def _round(value: Any) -> Any:
    if isinstance(value, float):
        return float(f"{value:.6g}") if math.isfinite(value) else None
    return value


def case_columns(axes: Sequence[str]) -> list[dict[str, Any]]:
    """The case table's columns: id link, status, attempts, reason, time, axes, metrics."""
    cols: list[dict[str, Any]] = [
        {"id": "case", "name": "Case", "presentation": "markdown"},
        {"id": "status", "name": "Status"},
        {"id": "attempts", "name": "Attempts", "type": "numeric"},
        {"id": "reason", "name": "Reason"},
        {"id": "wall_time_s", "name": "Time [s]", "type": "numeric"},
    ]
    cols += [{"id": a, "name": parameter_label(a), "type": "numeric"} for a in axes]
    cols += [{"id": m, "name": metric_label(m), "type": "numeric"} for m in TABLE_METRICS]
    return cols


def case_rows(detail: Mapping[str, Any]) -> list[dict[str, Any]]:
    """One row per design case (twins are listed apart): status, reason, time, axis values,
    headline metrics (rounded to 6 digits for display)."""
    axes = axes_of(detail)
    rows = []
    for case in detail.get("cases") or []:
        params, metrics = case.get("params") or {}, case.get("metrics") or {}
        row = {
            "id": case["id"],
            "case": f"[{case['id']}](/cases/{case['id']})",
            "status": case.get("status", ""),
            "attempts": case.get("attempts", 0),
            "reason": case.get("reason") or "",
            "wall_time_s": _round(metrics.get("wall_time_s")),
        }
        for a in axes:
            value = params.get(a)
            row[a] = _round(value) if not isinstance(value, (list, dict)) else str(value)
        for m in TABLE_METRICS:
            row[m] = _round(metrics.get(m))
        rows.append(row)
    return rows


def single_twin_metrics(detail: Mapping[str, Any]) -> dict[str, Any] | None:
    """The ideal twin's metrics when the study has exactly one done twin (the trends
    baseline); None otherwise (no twin, or one per setting: see each case's deviations)."""
    twins = [t for t in detail.get("twins") or [] if t.get("status") == "done"]
    return dict(twins[0].get("metrics") or {}) if len(twins) == 1 else None


def compare_href(case_ids: Sequence[int]) -> str:
    return "/compare?cases=" + ",".join(str(int(i)) for i in case_ids)
