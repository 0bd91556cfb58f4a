"""A study's detail (``gapsweep show --json``, design.md 4.3) shaped for its page: progress
text, ETA, the case table's rows and columns, the axes a figure can use. Pure functions."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime, timezone
from typing import Any

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


def single_twin_metrics(detail: Mapping[str, Any]) -> dict[str, Any] | None:
    """The ideal twin's metrics when the study has exactly one done twin (the trends
    baseline); None otherwise (no twin, or one per setting: see each case's deviations)."""
    twins = [t for t in detail.get("twins") or [] if t.get("status") == "done"]
    return dict(twins[0].get("metrics") or {}) if len(twins) == 1 else None


def compare_href(case_ids: Sequence[int]) -> str:
    return "/compare?cases=" + ",".join(str(int(i)) for i in case_ids)
