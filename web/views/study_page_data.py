"""What the study page (``/studies/<id>``, web/pages/study.py) reads, shared by its
sections: the study's id, its progress state, its detail (memoised on the progress
fingerprint), the tabs' names, and whether the page still polls."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

from dash import no_update
from gapsweep.db.models import MAX_ID
from gapsweep.study.design_registry import DEFAULT_DESIGN

from .. import context, data
from ..figures import trend_bands
from . import study_view as view

TAB_CASES, TAB_TRENDS, TAB_SENSITIVITY = "cases", "trends", "sensitivity"
TAB_SPECTRA, TAB_CONVERGENCE, TAB_PARALLEL = "spectra", "convergence", "parallel"
TAB_SEARCH = "search"  # optimize / calibrate (web/views/search_view.py)


def parse_id(value: Any) -> int | None:
    """A study id from the path or the page's store (the browser's to send: anything)."""
    try:
        study_id = int(str(value))
    except (TypeError, ValueError):
        return None
    return study_id if -MAX_ID <= study_id <= MAX_ID else None


MEMO_SIZE = 8  # study details kept per process (a 1,000-case detail is ~0.5 MB)
#: up to this many cases the tabs read the whole detail (every metric, attempts, reasons);
#: above it, the study's table by columns: the metric columns and the metrics a tab asks
#: for (:func:`gapsweep.db.case_pages.study_table`; issue 41.2: the JSON of 100,000 cases'
#: other metrics is not decoded for a figure of one)
WHOLE_UP_TO = 5_000


def load_detail(study_id: int | None, metrics: tuple[str, ...] = ()
                ) -> dict[str, Any] | None:
    """The study's detail (``show --json``), memoised on its progress fingerprint: a tab
    switch or a figure option on a study whose cases did not move costs two small queries,
    not the whole detail (about 0.1 s for 1,000 cases). Past :data:`WHOLE_UP_TO` cases,
    its table by columns with ``metrics`` (and their windows) beside the metric columns."""
    study_id = parse_id(study_id)
    state = load_progress(study_id)
    if state is None:
        return None
    whole = state["counts"]["total"] <= WHOLE_UP_TO
    wanted = () if whole else windowed(metrics)
    key = (study_id, *fingerprint(state), state["analysed"], wanted)
    memo = context.current().memo
    if key in memo:
        return memo[key]
    detail = (data.study_detail(study_id) if whole
              else data.study_table(study_id, metrics=list(wanted)))
    if detail is not None:
        stale = [k for k in list(memo) if k[0] == study_id]  # its earlier states
        oldest = list(memo)[: max(0, len(memo) - MEMO_SIZE + 1)]
        for old in stale + oldest:
            memo.pop(old, None)
        memo[key] = detail
    return detail


def load_progress(study_id: int | None) -> dict[str, Any] | None:
    """What the poll needs, cheaply (:func:`gapsweep.web.data.study_state`); None for an
    unknown or deleted study."""
    return data.study_state(parse_id(study_id))


def load_summary(study_id: int | None) -> dict[str, Any] | None:
    """The study without its cases (the page's frame; the case grid pages them itself, the
    tabs read the detail when opened): fast whatever the study's size."""
    return data.study_summary(study_id)


def windowed(metrics: tuple[str, ...]) -> tuple[str, ...]:
    """``metrics`` (a ratio's without its prefix) and each one's windowed names, sorted."""
    from gapsweep.core import metrics as registry
    from gapsweep.web.figures.windows import WINDOWS, windowed_metric

    out = set()
    for metric in metrics:
        if not isinstance(metric, str):
            continue
        base = metric.removeprefix(registry.RATIO)
        out.add(base)
        out.update(windowed_metric(base, w)[0] for w in WINDOWS)
    return tuple(sorted(out))


def fingerprint(detail: dict[str, Any]) -> list[Any]:
    """What changes when the page must redraw: the status, the case counts and the
    certificates' counts (they run after the study is done)."""
    certs = certificate_counts(detail)
    return [detail["status"], *[detail["counts"].get(s, 0) for s in view.CASE_STATUSES],
            *[certs.get(s, 0) for s in view.CASE_STATUSES]]


#: how long after a study finished the page waits for its certificates to be queued [s]
CERTIFICATE_WAIT_S = 60.0


def certificate_counts(state: dict[str, Any]) -> dict[str, int]:
    """Certificate counts by status, from :func:`load_progress` or a study detail."""
    if "certificate_counts" in state:
        return dict(state["certificate_counts"])
    out: dict[str, int] = {}
    for cert in state.get("certificates") or []:
        out[cert["status"]] = out.get(cert["status"], 0) + 1
    return out


def keep_polling(state: dict[str, Any], now: datetime | None = None) -> bool:
    """Whether the page still has something to wait for: a case, or a certificate, queued
    or running - or a study finished moments ago whose certificates are being queued
    (``CERTIFICATE_WAIT_S``)."""
    from gapsweep.study.certificates import NO_CERTIFICATES

    if state["status"] not in view.FINISHED:
        return True
    certs = certificate_counts(state)
    if certs.get("queued", 0) + certs.get("running", 0):
        return True
    design = state.get("design") or (state.get("spec") or {}).get("design", DEFAULT_DESIGN)
    if (state["status"] != "done" or sum(certs.values()) or design in NO_CERTIFICATES
            or not state["counts"].get("done")):
        return False
    finished = view.as_time(state.get("finished"))
    now = now or datetime.now(timezone.utc)
    return finished is not None and (now - finished).total_seconds() < CERTIFICATE_WAIT_S


def _large(study_id: Any) -> bool:
    """Whether the study has more cases than Trends draws as points: its tabs then read the
    columns they draw (:data:`.figures.trend_bands.POINT_LIMIT`)."""
    state = load_progress(study_id)
    return state is not None and state["counts"]["total"] > trend_bands.POINT_LIMIT


def _when_open(tab, wanted, study_id, render, metrics: tuple[str, ...] = ()):
    """``render(detail)`` while tab ``wanted`` is the open one; a closed tab costs no query."""
    if tab != wanted:
        return no_update
    detail = load_detail(study_id, metrics)
    return no_update if detail is None else render(detail)
