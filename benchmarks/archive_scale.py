"""Issue 8's archive benchmark: a team-sized archive on SQLite and PostgreSQL.

    .venv/bin/python benchmarks/archive_scale.py [--studies 10000] [--cases-per-study 100]
        [--databases sqlite,postgresql] [--pg-url postgresql+psycopg://postgres@127.0.0.1/postgres]
        [--repeat 5] [--keep]

For each database it

1. fills a fresh database (schema by the real migrations) with ``--studies`` studies and
   ``--cases-per-study`` done cases each (metrics only, design.md 4.5: bulk core inserts,
   executemany; names, tags, models and statuses varied so the filters select something);
2. times, as the archive page, the web API and the CLI call them (median of ``--repeat``,
   each in a fresh session): the archive's first page (newest first, 50 items), the same
   filtered by a search text and a tag, a deep page (offset 5000); one study's summary
   (``study_detail``) and its progress counts (``study_progress``);
3. creates one 1,000-case study and stores its results the worker's way - one claim per
   chunk of 20 cases, ``complete_case`` per case with metrics and preview series (10 series
   x 500 samples and 2 spectra x 600 bins, synthetic), one commit per chunk - and times it;
4. prints the database size per case (whole database / cases) and the series bytes per case;
5. creates one 10,000-case study (statuses mixed: done, failed, running, queued) and times
   what remote ``wait`` polls, ``GET /api/studies/<id>/progress``, through the web app's own
   routing (Flask test client, JSON included), beside ``GET /api/studies/<id>`` (the whole
   detail, what ``wait`` polled before issue 16).

Targets (issues 8 and 16; reports, not gates): list page < 100 ms, summary < 200 ms, 1,000
results stored < 2 s, the progress of a 10,000-case study < 50 ms. The machine may be
shared: the load average is printed with the figures.

Figures (10,000 studies x 100 cases = 1,000,000 cases; 2 shared cores, load 0.9-1.9;
SQLite 3.40 WAL file, PostgreSQL 15 on the same machine; medians of 5):

| | SQLite | PostgreSQL |
|---|---|---|
| fill (bulk, metrics only) | 68 s | 110 s |
| database per case | 552 B | 624 B |
| archive first page / filtered (search + tag) | 2.7 / 11.0 ms | 8.1 / 15.7 ms |
| deep page (offset 5000) / by status + model | 2.4 / 3.0 ms | 7.8 / 6.2 ms |
| study summary (100 cases) / progress | 3.4 / 0.2 ms | 5.5 / 0.9 ms |
| study summary (1,000 cases) | 34 ms | 39 ms |
| 1,000 results + preview series (``complete_cases`` per chunk of 20) | 1.25 s | 1.33 s |
| the same, ``complete_case`` per case | 2.49 s | 3.64 s |

Preview series: 21.7 KB per case (:mod:`gapsweep.db.series_codec`).

Issue 16, the 10,000-case study's poll (``--studies 200 --cases-per-study 50 --repeat 7``,
load 5-6 on the 2 shared cores; medians of 7 through the Flask test client):
``GET /api/studies/<id>/progress`` 7.4 ms on SQLite, 5.7 ms on PostgreSQL (185 bytes),
against 617 / 679 ms for ``GET /api/studies/<id>`` (1.22 MB), which remote ``wait`` polled
before. At load 6-10: 17 / 35 ms.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

import numpy as np
from gapsweep.core.result import CaseResult
from gapsweep.db.engine import open_database
from gapsweep.db.leases import claim_cases, complete_case, complete_cases
from gapsweep.db.models import Case, Result, Series, Study, StudyTag, utcnow
from gapsweep.db.studies import (
    create_study,
    list_studies,
    queued_case_ids,
    study_detail,
    study_progress,
)
from sqlalchemy import create_engine, func, insert, select, text, update
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session, sessionmaker

WORDS = ["clearance", "stiffness", "friction", "speed", "baseline", "flores", "ancf", "wear"]
TAGS = ["baseline", "flores", "nightly", "review", "ancf", "friction"]
MODELS = ["slider-crank", "slider-crank", "slider-crank", "flexible-slider-crank", "cantilever"]


@dataclass
class Spec:
    """The attributes create_study reads of a StudySpec."""

    name: str
    model: str = "slider-crank"
    description: str = "benchmark study"
    tags: list[str] = field(default_factory=lambda: ["bench"])
    design: str = "grid"
    series: str = "preview"

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass
class Plan:
    cases: list[dict[str, Any]]
    twins: list[dict[str, Any]]
    twin_of: list[int | None]


def metrics(rng: random.Random) -> dict[str, Any]:
    peak = rng.uniform(1e4, 2e5)
    return {
        "peak_slider_accel": peak,
        "rms_slider_accel": peak / 12,
        "peak_contact_force": rng.uniform(1e3, 3e4),
        "max_penetration": rng.uniform(1e-6, 3e-5),
        "impacts": rng.randrange(20),
        "peak_slider_accel_steady": peak / 6,
        "rms_slider_accel_steady": peak / 14,
        "peak_contact_force_steady": rng.uniform(1e3, 5e3),
        "max_penetration_steady": rng.uniform(1e-6, 1e-5),
        "impacts_steady": rng.randrange(3),
        "peak_driving_torque": rng.uniform(100, 400),
        "wall_time_s": rng.uniform(0.002, 0.01),
        "contact_time_fraction": rng.random(),
        "energy_balance_error": rng.uniform(1e-7, 1e-5),
        "rhs_evaluations": rng.randrange(5000, 20000),
        "accepted_steps": rng.randrange(500, 3000),
        "dominant_frequency_accel_hz": 83.3,
        "high_frequency_ratio_accel": rng.random(),
    }


def preview_series(rng: np.random.Generator) -> dict[str, np.ndarray]:
    """The size the preview policy stores: 10 series x 500 samples, 2 spectra x 600 bins."""
    t = np.linspace(0.0, 0.024, 500)
    out = {"t": t}
    for k in range(9):
        out[f"series_{k}"] = np.sin((k + 1) * 260 * t) * 1e4 + rng.normal(0, 50, t.size)
    freqs = np.linspace(0.0, 2.5e4, 600)
    out["spectrum_freq"] = freqs
    out["spectrum_accel"] = np.abs(rng.normal(size=600)) / (1 + freqs / 1e3)
    out["spectrum_force"] = np.abs(rng.normal(size=600)) / (1 + freqs / 2e3)
    return out


def fill(factory: sessionmaker[Session], n_studies: int, per_study: int, seed: int = 1) -> float:
    """Bulk-insert the archive (explicit ids, executemany); returns seconds taken."""
    rng = random.Random(seed)
    t0 = time.perf_counter()
    start = utcnow() - timedelta(days=365)
    case_id = 0
    batch = max(1, 20_000 // max(per_study, 1))
    with factory() as s:
        for first in range(0, n_studies, batch):
            studies, tags, cases, results = [], [], [], []
            for sid in range(first + 1, min(first + batch, n_studies) + 1):
                words = rng.sample(WORDS, 3)
                study_tags = rng.sample(TAGS, 2)
                created = start + timedelta(seconds=sid * 365 * 86400 / n_studies)
                status = "done" if rng.random() < 0.95 else "cancelled"
                studies.append(
                    {
                        "id": sid,
                        "name": f"{words[0]} x {words[1]} #{sid}",
                        "model": rng.choice(MODELS),
                        "description": f"{words[2]} study",
                        "tags": study_tags,
                        "spec": {"name": f"study {sid}", "axes": {"clearance_mm": {}}},
                        "design": "grid",
                        "series_policy": "preview",
                        "status": status,
                        "created": created,
                        "started": created,
                        "finished": created + timedelta(minutes=5),
                        "notes": "",
                        "provenance": {"gapsweep": "0.1.0"},
                    }
                )
                tags += [{"study_id": sid, "tag": t} for t in study_tags]
                for index in range(per_study):
                    case_id += 1
                    ok = rng.random() < 0.97
                    cases.append(
                        {
                            "id": case_id,
                            "study_id": sid,
                            "kind": "case",
                            "index": index,
                            "params": {"clearance_mm": 0.02 + index * 1e-3, "speed_rpm": 5000},
                            "status": "done" if ok else "failed",
                            "attempts": 1,
                            "queued_at": created,
                            "finished_at": created,
                            "reason": None if ok else "diverged",
                        }
                    )
                    if ok:
                        m = metrics(rng)
                        columns = {k: m.pop(k) for k in list(m) if k in Result.__table__.c}
                        results.append({"case_id": case_id, **columns, "extra": m})
            s.execute(insert(Study), studies)
            s.execute(insert(StudyTag), tags)
            if cases:
                s.execute(insert(Case), cases)
            if results:
                s.execute(insert(Result), results)
            s.commit()
        if s.get_bind().dialect.name == "postgresql":
            # explicit ids were inserted: move the id sequences past them
            for model in (Study, Case):
                sequence = func.pg_get_serial_sequence(model.__tablename__, "id")
                top = select(func.max(model.id)).scalar_subquery()
                s.execute(select(func.setval(sequence, top)))
            s.commit()
    return time.perf_counter() - t0


def analyse(factory: sessionmaker[Session]) -> None:
    """Planner statistics after a bulk load (what autovacuum / a DBA would have done)."""
    engine = factory.kw["bind"]
    with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
        conn.execute(text("ANALYZE"))


def timed(factory: sessionmaker[Session], fn: Callable[[Session], Any], repeat: int) -> float:
    """Median wall time [ms] of ``fn`` in a fresh session each time."""
    times = []
    for _ in range(repeat):
        with factory() as s:
            t0 = time.perf_counter()
            fn(s)
            times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def store_results(
    factory: sessionmaker[Session], n: int = 1000, chunk: int = 20, batched: bool = True
) -> dict:
    """Create an n-case study, then claim + complete it chunk by chunk (``complete_cases``
    per chunk, or ``complete_case`` per case when not ``batched``); timings [s]."""
    rng, nprng = random.Random(7), np.random.default_rng(7)
    plan = Plan([{"clearance_mm": 0.02 + i * 1e-4} for i in range(n)], [], [None] * n)
    t0 = time.perf_counter()
    with factory.begin() as s:
        sid = create_study(s, spec=Spec(name="results bench"), plan=plan, provenance={}).id
    t_create = time.perf_counter() - t0
    with factory() as s:
        ids = queued_case_ids(s, study_id=sid)
    payload = [(metrics(rng), preview_series(nprng)) for _ in ids]  # made before the clock
    t0 = time.perf_counter()
    for k in range(0, len(ids), chunk):
        with factory.begin() as s:
            claimed = claim_cases(s, case_ids=ids[k : k + chunk], holder="bench", lease_s=600)
        outcomes = [
            (c.id, CaseResult("slider-crank", c.params, metrics=payload[c.index][0]),
             payload[c.index][1])
            for c in claimed
        ]
        with factory.begin() as s:
            if batched:
                assert all(complete_cases(s, holder="bench", outcomes=outcomes))
            else:
                for cid, result, series in outcomes:
                    assert complete_case(
                        s, case_id=cid, holder="bench", result=result, series=series
                    )
    t_store = time.perf_counter() - t0
    with factory() as s:
        blob_bytes = s.scalar(
            select(func.avg(Series.n_bytes)).join(Case, Case.id == Series.case_id)
            .where(Case.study_id == sid)
        )
        status = s.get(Study, sid).status
    return {"create_s": t_create, "store_s": t_store, "series_bytes": float(blob_bytes or 0),
            "status": status, "study_id": sid}


def progress_poll(factory: sessionmaker[Session], url: str, repeat: int,
                  n: int = 10_000) -> dict:
    """A ``n``-case study (a quarter each done, failed, running, queued), then the median
    time [ms] of ``GET /api/studies/<id>/progress`` and of ``GET /api/studies/<id>`` through
    the app's test client (no network: the route, the queries and the JSON)."""
    from gapsweep.web.app import create_app

    from gapsweep.settings import get_settings

    plan = Plan([{"clearance_mm": 0.02 + i * 1e-6} for i in range(n)], [], [None] * n)
    with factory.begin() as s:
        sid = create_study(s, spec=Spec(name="progress bench"), plan=plan, provenance={}).id
    statuses = ["done", "failed", "running", "queued"]
    with factory.begin() as s:
        for k, status in enumerate(statuses[:3]):
            s.execute(
                update(Case)
                .where(Case.study_id == sid, Case.index % 4 == k)
                .values(status=status, attempts=1),
                execution_options={"synchronize_session": False},
            )
        s.execute(update(Study).where(Study.id == sid).values(status="running",
                                                              started=utcnow()))
    analyse(factory)
    folder = Path(tempfile.mkdtemp(prefix="gapsweep-bench-web-"))
    app = create_app(get_settings({"GAPSWEEP_DATA": str(folder),
                                   "GAPSWEEP_DATABASE_URL": url}))
    client = app.server.test_client()

    def get_ms(path: str) -> tuple[float, Any]:
        times, answer = [], None
        for _ in range(repeat):
            t0 = time.perf_counter()
            r = client.get(path)
            times.append((time.perf_counter() - t0) * 1e3)
            assert r.status_code == 200, r.get_data(as_text=True)
            answer = r
        return statistics.median(times), answer

    client.get(f"/api/studies/{sid}/progress")  # first request: the app's lazy setup
    progress_ms, r = get_ms(f"/api/studies/{sid}/progress")
    counts = r.get_json()["counts"]
    assert counts == {"queued": n // 4, "running": n // 4, "done": n // 4, "failed": n // 4,
                      "cancelled": 0, "total": n}, counts
    progress_bytes = len(r.get_data())
    detail_ms, r = get_ms(f"/api/studies/{sid}")
    return {"progress_10k_ms": progress_ms, "progress_10k_bytes": progress_bytes,
            "detail_10k_ms": detail_ms, "detail_10k_bytes": len(r.get_data())}


def database_bytes(factory: sessionmaker[Session], sqlite_path: Path | None) -> int:
    with factory() as s:
        if sqlite_path is not None:
            s.execute(text("PRAGMA wal_checkpoint(TRUNCATE)"))
            return sqlite_path.stat().st_size
        return int(s.scalar(select(func.pg_database_size(func.current_database()))))


def bench(url: str, sqlite_path: Path | None, args: argparse.Namespace) -> dict:
    factory = open_database(url)
    try:
        fill_s = fill(factory, args.studies, args.cases_per_study)
        analyse(factory)
        n_cases = args.studies * args.cases_per_study
        size = database_bytes(factory, sqlite_path)
        mid = max(1, args.studies // 2)
        r = args.repeat
        out = {
            "fill_s": fill_s,
            "cases": n_cases,
            "bytes_per_case": size / max(n_cases, 1),
            "db_mb": size / 1e6,
            "list_first_page_ms": timed(factory, lambda s: list_studies(s, limit=50), r),
            "list_filtered_ms": timed(
                factory, lambda s: list_studies(s, search="clearance", tag="baseline"), r
            ),
            "list_by_status_ms": timed(
                factory, lambda s: list_studies(s, status="cancelled", model="slider-crank"), r
            ),
            "list_deep_page_ms": timed(
                factory, lambda s: list_studies(s, offset=min(5000, args.studies // 2)), r
            ),
            "summary_ms": timed(factory, lambda s: study_detail(s, mid), r),
            "progress_ms": timed(factory, lambda s: study_progress(s, mid), r),
        }
        out.update(store_results(factory))
        out["store_one_by_one_s"] = store_results(factory, batched=False)["store_s"]
        out["summary_1000_ms"] = timed(factory, lambda s: study_detail(s, out["study_id"]), r)
        out.update(progress_poll(factory, url, r))
        return out
    finally:
        factory.kw["bind"].dispose()


@dataclass
class Target:
    key: str
    limit: float
    unit: str


TARGETS = [
    Target("list_first_page_ms", 100, "ms"),
    Target("list_filtered_ms", 100, "ms"),
    Target("summary_ms", 200, "ms"),
    Target("store_s", 2, "s"),
    Target("progress_10k_ms", 50, "ms"),
]


def databases(args: argparse.Namespace) -> Iterator[tuple[str, str, Path | None]]:
    for name in args.databases.split(","):
        if name == "sqlite":
            folder = Path(tempfile.mkdtemp(prefix="gapsweep-bench-"))
            path = folder / "archive.db"
            yield name, f"sqlite:///{path}", path
            if not args.keep:
                for p in folder.iterdir():
                    p.unlink()
                folder.rmdir()
        elif name == "postgresql":
            admin = create_engine(args.pg_url, isolation_level="AUTOCOMMIT")
            db = f"gapsweep_bench_{uuid.uuid4().hex[:10]}"
            with admin.connect() as conn:
                conn.execute(text(f'CREATE DATABASE "{db}"'))  # hex-only name
            try:
                url = make_url(args.pg_url).set(database=db)
                yield name, url.render_as_string(hide_password=False), None
            finally:
                if not args.keep:
                    with admin.connect() as conn:
                        conn.execute(text(f'DROP DATABASE IF EXISTS "{db}" WITH (FORCE)'))
                admin.dispose()
        else:
            raise SystemExit(f"unknown database {name!r} (sqlite, postgresql)")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--studies", type=int, default=10_000)
    p.add_argument("--cases-per-study", type=int, default=100)
    p.add_argument("--databases", default="sqlite,postgresql")
    p.add_argument("--pg-url", default="postgresql+psycopg://postgres@127.0.0.1:5432/postgres")
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--keep", action="store_true", help="keep the databases (names printed)")
    args = p.parse_args()
    print(f"{args.studies} studies x {args.cases_per_study} cases; load {os.getloadavg()}")
    for name, url, path in databases(args):
        r = bench(url, path, args)
        print(f"\n== {name} ({url if args.keep else 'dropped after'})")
        print(f"fill {r['cases']} cases: {r['fill_s']:.1f} s; database {r['db_mb']:.1f} MB, "
              f"{r['bytes_per_case']:.0f} B per case (metrics only)")
        for key in ("list_first_page_ms", "list_filtered_ms", "list_by_status_ms",
                    "list_deep_page_ms", "summary_ms", "progress_ms", "summary_1000_ms"):
            print(f"  {key:22s} {r[key]:8.1f} ms")
        print(f"  create 1000-case study {r['create_s']:.2f} s; store 1000 results + preview "
              f"series {r['store_s']:.2f} s ({r['series_bytes']:.0f} B series per case); "
              f"study {r['status']}")
        print(f"  (the same with complete_case per case: {r['store_one_by_one_s']:.2f} s)")
        print(f"  10,000-case study: GET .../progress {r['progress_10k_ms']:.1f} ms "
              f"({r['progress_10k_bytes']} B); GET /api/studies/<id> (whole detail) "
              f"{r['detail_10k_ms']:.1f} ms ({r['detail_10k_bytes'] / 1e6:.2f} MB)")
        for t in TARGETS:
            value = r[t.key]
            verdict = "ok" if value < t.limit else "MISSED"
            print(f"  target {t.key} < {t.limit} {t.unit}: {value:.3g} {verdict}")
    print(f"\nload {os.getloadavg()}")


if __name__ == "__main__":
    main()
