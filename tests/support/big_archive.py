"""A synthetic study inserted directly (no solver run), for the paging and aggregate tests:
a grid of clearances x stiffness scales with one ideal twin per stiffness scale, its cases'
statuses mixed (done, failed, queued: some with no result, so sorts meet empty values) and
metrics from a seeded generator, ties in ``impacts`` included."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from gapsweep.db.models import METRIC_COLUMNS, Case, Result, Study, utcnow
from gapsweep.study.twins import deviations
from sqlalchemy import insert


def fill_study(session: Any, *, n_clearance: int = 12, n_stiffness: int = 5,
               seed: int = 3, stored_deviations: bool = True) -> int:
    """Insert one study of ``n_clearance * n_stiffness`` cases and ``n_stiffness`` twins;
    its id. Every 7th case failed (no result), every 11th still queued (no result). A case's
    ``deviation_*`` from its twin are stored in ``extra`` as the worker's store writes them
    (``stored_deviations=False``: an archive from before they were stored)."""
    rng = random.Random(seed)
    clearances = [round(0.005 + 0.001 * i, 4) for i in range(n_clearance)]  # < 10 mm bearing
    scales = [round(0.5 + 0.25 * j, 4) for j in range(n_stiffness)]
    spec = {"name": "synthetic", "model": "slider-crank", "design": "grid", "series": "none",
            "ideal_twin": True, "description": "", "tags": [], "base": {"t_end": 0.002},
            "axes": {"clearance_mm": {"values": clearances},
                     "stiffness_scale": {"values": scales}}}
    now = utcnow()
    study = Study(name="synthetic", model="slider-crank", description="", tags=[], spec=spec,
                  design="grid", series_policy="none", status="running", created=now,
                  provenance={})
    session.add(study)
    session.flush()
    twin_ids = list(session.scalars(insert(Case).returning(Case.id, sort_by_parameter_order=True), [
        {"study_id": study.id, "kind": "twin", "index": j, "status": "done", "attempts": 1,
         "params": {"t_end": 0.002, "stiffness_scale": k, "ideal": True}, "queued_at": now}
        for j, k in enumerate(scales)]))
    rows, index = [], 0
    for c in clearances:
        for j, k in enumerate(scales):
            status = "failed" if index % 7 == 3 else "queued" if index % 11 == 5 else "done"
            rows.append({"study_id": study.id, "kind": "case", "index": index,
                         "twin_id": twin_ids[j], "status": status, "attempts": 1,
                         "reason": "diverged" if status == "failed" else None,
                         "params": {"t_end": 0.002, "clearance_mm": c, "stiffness_scale": k},
                         "queued_at": now})
            index += 1
    case_ids = list(session.scalars(insert(Case).returning(Case.id, sort_by_parameter_order=True),
                                    rows))
    results = [{"case_id": i, **metrics(rng)} for i in twin_ids]
    twin_of = {r["case_id"]: _flat(r) for r in results}
    for i, r in zip(case_ids, rows, strict=True):
        if r["status"] == "done":
            result = {"case_id": i, **metrics(rng)}
            if stored_deviations:
                result["extra"].update(deviations(_flat(result), twin_of[r["twin_id"]]))
            results.append(result)
    session.execute(insert(Result), results)
    session.flush()
    return study.id


def _flat(result: dict[str, Any]) -> dict[str, Any]:
    """A result row's metrics as one dict (columns and ``extra``)."""
    return {**{m: result[m] for m in METRIC_COLUMNS}, **result["extra"]}


def metrics(rng: random.Random) -> dict[str, Any]:
    """A result row's columns: every metric column, ``impacts`` with ties, two extras."""
    out: dict[str, Any] = {m: rng.uniform(1.0, 100.0) for m in METRIC_COLUMNS}
    out["impacts"] = rng.randrange(4)
    out["impacts_steady"] = rng.randrange(2)
    out["extra"] = {"contact_time_fraction": rng.random(), "energy_balance_error": 1e-6}
    return out


@contextmanager
def big_app(kind: str, tmp_path: Any, monkeypatch: Any,
            fill: Callable[[Any], int]) -> Iterator[tuple[Any, int]]:
    """An app over a new database of ``kind`` ("sqlite" or "postgresql") that ``fill`` fills
    through the archive's session factory: ``(archive, fill's study id)``; a PostgreSQL
    database is dropped after (its connections closed first)."""
    from archive_fixtures import make_archive

    from support.database_fixtures import create_postgres_database, drop_postgres_database

    url = create_postgres_database() if kind == "postgresql" else None
    try:
        archive = make_archive(tmp_path, monkeypatch, database_url=url)
        yield archive, fill(archive.sessions)
    finally:
        if url:
            from gapsweep.web import context

            archive.app.server.extensions[context.EXTENSION].sessions.kw["bind"].dispose()
            drop_postgres_database(url)
