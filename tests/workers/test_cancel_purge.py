"""A cancelled study costs nothing afterwards (issue 28): its queue messages are dropped.

Before, a 100,000-case study cancelled at 2 % left ~12,000 messages on the embedded broker
that the workers took one by one - a poll, a claim of nothing, an ack each - for almost
4 minutes before the next study's first case. Now ``cancel`` deletes the dead messages at
once, and a worker handed a dead chunk sweeps the rest of them in one go."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from gapsweep.db import leases, studies
from gapsweep.db.engine import open_database
from gapsweep.db.models import Case
from gapsweep.study.spec import parse_spec
from gapsweep.workers import case_runner
from gapsweep.workers.celery_app import broker_folders, make_celery
from gapsweep.workers.dispatch import CeleryDispatcher
from gapsweep.workers.submit import submit_study
from sqlalchemy import func, select
from support.processes import Procs, gapsweep_cli, start_worker, submit, wait_for  # noqa: E402

from gapsweep.settings import get_settings

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "clearance_x_stiffness.toml"


def small(name: str, n: int) -> dict:
    return {"name": name, "ideal_twin": False, "series": "none", "base": {"t_end": 0.002},
            "axes": {"clearance_mm": {"values": [0.02 + 0.001 * k for k in range(n)]}}}


def messages(data: Path) -> list[Path]:
    return sorted(broker_folders(data)["queue"].glob("*.msg"))


def test_a_dead_chunk_makes_the_worker_drop_the_cancelled_studys_other_messages(tmp_path):
    settings = get_settings({"GAPSWEEP_DATA": str(tmp_path), "GAPSWEEP_CHUNK_SIZE": "4"})
    sessions = open_database(settings.database_url)
    dispatcher = CeleryDispatcher(make_celery(settings))
    cancelled = submit_study(parse_spec(small("cancelled", 20)), sessions=sessions,
                             settings=settings, dispatcher=dispatcher)
    live = submit_study(parse_spec(small("live", 6)), sessions=sessions, settings=settings,
                        dispatcher=dispatcher)
    assert len(messages(tmp_path)) == 5 + 2
    with sessions() as s:
        first_chunk = leases.queued_case_ids(s, study_id=cancelled)[:4]
    with sessions.begin() as s:  # cancelled in the database only: no purge here
        assert studies.cancel_study(s, study_id=cancelled) == 20
    report = case_runner.run_chunk(first_chunk, sessions=sessions, holder="test:1",
                                   settings=settings)
    assert report.claimed == 0
    left = messages(tmp_path)
    assert len(left) == 2, [p.name for p in left]  # the live study's two, untouched
    with sessions() as s:
        live_ids = set(leases.queued_case_ids(s, study_id=live))
    carried = {i for p in left for i in json.loads(json.loads(p.read_text())["headers"][
        "argsrepr"])[0]}
    assert carried == live_ids


def test_the_next_study_starts_within_seconds_of_cancelling_20000_cases(tmp_path):
    """The issue's 100,000 cases scaled to 20,000 (2,500 messages; writing 100,000 rows
    takes over a minute here): without the purge the worker works through the 2,500 dead
    messages first, far longer than the 20 s allowed."""
    data = tmp_path / "data"
    env = {k: v for k, v in os.environ.items() if not k.startswith("GAPSWEEP_")}
    env.update(GAPSWEEP_DATA=str(data), NUMBA_NUM_THREADS="1")
    big = tmp_path / "big.json"
    big.write_text(json.dumps({
        "name": "20,000 cases", "model": "slider-crank", "design": "grid",
        "ideal_twin": False, "series": "none",
        "axes": {"clearance_mm": {"start": 0.02, "stop": 0.1, "count": 200},
                 "stiffness_scale": {"start": 0.7, "stop": 1.3, "count": 100}}}))
    big_id = int(json.loads(gapsweep_cli(["submit", str(big), "--json"], env, 300))["study_id"])
    assert len(messages(data)) == 2_500  # at most 2,500 messages: 8 case ids a message
    gapsweep_cli(["cancel", str(big_id)], env)
    assert messages(data) == []
    procs = Procs(tmp_path)
    try:
        next_id = submit(EXAMPLE, env)
        start_worker(procs, env, concurrency=1)
        t0 = time.monotonic()
        sessions = open_database(get_settings(env).database_url)

        def first_done() -> bool:
            with sessions() as s:
                return bool(s.scalar(select(func.count()).select_from(Case).where(
                    Case.study_id == next_id, Case.status == "done")))

        wait_for("the next study's first case", first_done, 20.0)
        took = time.monotonic() - t0
        with sessions() as s:
            p = studies.study_progress(s, big_id)
        assert p["cancelled"] == 20_000 and p["done"] == 0, p
    finally:
        procs.close()
    assert took < 20.0
