"""The study commands as other tools drive them (design.md 4.3, 4.5): real subprocesses,
each with its own data folder (the embedded default: SQLite there, local workers for
``run``), and a cluster of two ``gapsweep worker`` processes on Redis + PostgreSQL.

One ``gapsweep run`` of the user's file is shared by the module (``archive``); the tests
that change the archive submit studies of their own.
"""

from __future__ import annotations

import contextlib
import csv
import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from sqlalchemy import create_engine, func, select
from support.database_fixtures import (  # noqa: E402
    create_postgres_database,
    drop_postgres_database,
)

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "clearance_x_stiffness.toml"
RUN_KEYS = {"study_id", "status", "cases", "done", "failed"}
ITEM_KEYS = {"id", "name", "model", "status", "tags", "created", "cases", "done", "failed"}
SHOW_KEYS = {"id", "name", "model", "status", "spec", "provenance", "cases"}
CASE_KEYS = {"id", "params", "status", "attempts", "reason", "metrics"}
UNKNOWN = "987654"
REDIS_HOST, REDIS_PORT = "127.0.0.1", 6379


def clean_env(data: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GAPSWEEP_")}
    env.update(GAPSWEEP_DATA=str(data), **extra)
    return env


def gapsweep(env: dict[str, str], *args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "gapsweep", *map(str, args)],
        env=env, capture_output=True, text=True, timeout=timeout,
    )


def as_json(out: subprocess.CompletedProcess) -> object:
    assert out.stdout.strip(), f"no stdout (exit {out.returncode}): {out.stderr[-2000:]}"
    return json.loads(out.stdout)


def write_study(folder: Path, name: str, tag: str, values: str = "[0.05]") -> Path:
    path = folder / f"{name.replace(' ', '_')}.toml"
    path.write_text(
        f'name = "{name}"\ntags = ["{tag}"]\nseries = "none"\n[base]\nspeed_rpm = 5000\n'
        f"[axes.clearance_mm]\nvalues = {values}\n"
    )
    return path


@pytest.fixture(scope="module")
def archive(tmp_path_factory):
    """The user's study run once with ``gapsweep run --json`` in a fresh data folder."""
    data = tmp_path_factory.mktemp("data")
    env = clean_env(data)
    t0 = time.perf_counter()
    out = gapsweep(env, "run", EXAMPLE, "--json", timeout=300)
    print(f"gapsweep run: {time.perf_counter() - t0:.1f} s")
    assert out.returncode == 0, out.stderr[-3000:]
    summary = as_json(out)
    show = gapsweep(env, "show", summary["study_id"], "--json")
    assert show.returncode == 0, show.stderr
    return {"env": env, "data": data, "summary": summary, "detail": as_json(show)}


def sqlite_rows(data: Path, table: str) -> int:
    from gapsweep.db import models

    engine = create_engine(f"sqlite:///{data / 'gapsweep.db'}")
    try:
        with engine.connect() as conn:
            model = {"studies": models.Study, "cases": models.Case}[table]
            return int(conn.scalar(select(func.count()).select_from(model)))
    finally:
        engine.dispose()


# --- study validate ------------------------------------------------------------------------

def test_validate_text_and_json(tmp_path):
    env = clean_env(tmp_path)
    out = gapsweep(env, "study", "validate", EXAMPLE)
    assert out.returncode == 0, out.stderr
    assert "15 case(s)" in out.stdout and "1 ideal twin" in out.stdout
    out = gapsweep(env, "study", "validate", EXAMPLE, "--json")
    assert out.returncode == 0, out.stderr
    data = as_json(out)
    assert set(data) == {"cases", "estimated_s"}
    assert data["cases"] == 15
    assert isinstance(data["estimated_s"], float) and 0 < data["estimated_s"] < 60


def test_a_bad_file_names_field_value_and_allowed(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text(EXAMPLE.read_text().replace("0.05, 0.08, 0.1]", "-0.01, 0.08, 0.1]"))
    env = clean_env(tmp_path / "data")
    out = gapsweep(env, "study", "validate", bad)
    assert out.returncode == 2
    assert out.stdout == ""
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1
    field, rest = lines[0].split(": ", 1)
    value, allowed = rest.split(" — ", 1)
    assert (field, value) == ("axes.clearance_mm.values[2]", "-0.01")
    assert "bearing radius" in allowed or "> 0" in allowed, allowed

    out = gapsweep(env, "study", "validate", bad, "--json")
    assert out.returncode == 2
    data = as_json(out)
    assert list(data) == ["errors"] and len(data["errors"]) == 1
    error = data["errors"][0]
    assert set(error) == {"field", "value", "allowed"}
    assert (error["field"], error["value"], error["allowed"]) == (
        "axes.clearance_mm.values[2]", -0.01, allowed
    )

    # run refuses it too, before anything is written
    out = gapsweep(env, "run", bad, "--json")
    assert out.returncode == 2 and as_json(out)["errors"][0]["field"] == field
    assert gapsweep(env, "studies", "--json").stdout.strip() == '{"total": 0, "items": []}'


# --- run, show, studies, export --------------------------------------------------------------

def test_run_json(archive):
    summary = archive["summary"]
    assert set(summary) == RUN_KEYS
    assert isinstance(summary["study_id"], int)
    assert {k: summary[k] for k in RUN_KEYS - {"study_id"}} == {
        "status": "done", "cases": 15, "done": 15, "failed": 0
    }


def test_show_json(archive):
    detail = archive["detail"]
    assert set(detail) >= SHOW_KEYS
    assert detail["id"] == archive["summary"]["study_id"]
    assert (detail["name"], detail["model"], detail["status"]) == (
        "Clearance x stiffness", "slider-crank", "done"
    )
    assert detail["spec"]["axes"]["clearance_mm"] == {"values": [0.02, 0.035, 0.05, 0.08, 0.1]}
    assert detail["provenance"]["host"] and detail["provenance"]["numba"]
    assert len(detail["cases"]) == 15 and len(detail["twins"]) == 1
    assert detail["twins"][0]["params"]["ideal"] is True
    twin_id = detail["twins"][0]["id"]
    for case in detail["cases"]:
        assert set(case) >= CASE_KEYS
        assert (case["status"], case["attempts"], case["reason"]) == ("done", 1, None)
        assert case["id"] != twin_id and "ideal" not in case["params"]
        assert case["metrics"]["impacts"] >= 1 and case["metrics"]["deviation_peak_slider_accel"]


def test_studies_search_and_tag(archive, tmp_path):
    env = archive["env"]
    other = write_study(tmp_path, "Friction probe", "probe")
    sub = gapsweep(env, "submit", other, "--json")  # embedded, nobody running: stays queued
    assert sub.returncode == 0, sub.stderr
    other_id = as_json(sub)["study_id"]
    first_id = archive["summary"]["study_id"]

    data = as_json(gapsweep(env, "studies", "--json"))
    assert set(data) == {"total", "items"}
    assert data["total"] == len(data["items"]) >= 2
    ids = [item["id"] for item in data["items"]]
    assert ids.index(other_id) < ids.index(first_id)  # newest first
    for item in data["items"]:
        assert set(item) == ITEM_KEYS
    mine = next(item for item in data["items"] if item["id"] == first_id)
    assert mine["tags"] == ["flores", "baseline"]
    assert (mine["cases"], mine["done"], mine["failed"], mine["status"]) == (15, 15, 0, "done")
    queued = next(item for item in data["items"] if item["id"] == other_id)
    assert (queued["cases"], queued["done"], queued["status"]) == (1, 0, "queued")

    def found(*args: str) -> list[int]:
        return [item["id"] for item in as_json(gapsweep(env, "studies", "--json", *args))["items"]]

    assert found("--search", "x stiff") == [first_id]
    assert found("--search", "FRICTION") == [other_id]
    assert found("--search", "nothing like it") == []
    assert found("--tag", "probe") == [other_id]
    assert found("--tag", "baseline") == [first_id]
    assert found("--tag", "base") == []  # a tag matches whole, not as a prefix
    assert found("--limit", "1")[0] == max(ids)


def _expected_columns(detail: dict) -> list[str]:
    params = ["speed_rpm", "clearance_mm", "stiffness_scale"]  # the spec's order: base, axes
    metrics = list(detail["cases"][0]["metrics"])
    return [*params, "status", *metrics, "case_id"]


@pytest.mark.parametrize("fmt", ["csv", "json", "parquet"])
def test_export_round_trips_the_metrics(archive, tmp_path, fmt):
    detail = archive["detail"]
    path = tmp_path / f"cases.{fmt}"
    out = gapsweep(archive["env"], "export", detail["id"], "--format", fmt, "-o", path)
    assert out.returncode == 0, out.stderr
    if fmt == "csv":
        with path.open(newline="") as handle:
            reader = csv.DictReader(handle)
            columns, rows = list(reader.fieldnames), list(reader)
        # its units beside it: cases.units.csv, a row per column in the same order
        with (tmp_path / "cases.units.csv").open(newline="") as handle:
            units = {u["column"]: u["unit"] for u in csv.DictReader(handle)}
        assert list(units) == columns
        assert (units["clearance_mm"], units["max_penetration"]) == ("mm", "m")
    elif fmt == "json":
        rows = json.loads(path.read_text())
        columns = list(rows[0])
    else:
        table = pq.read_table(path)
        columns, rows = table.column_names, table.to_pylist()
    expected_columns = _expected_columns(detail)
    assert columns[:4] == expected_columns[:4]
    assert set(columns) == set(expected_columns) and len(columns) == len(expected_columns)
    assert len(rows) == 15  # the twin is not an export row
    assert columns[-1] == "case_id"
    for row, case in zip(rows, detail["cases"], strict=True):
        assert row["status"] == "done"
        assert int(row["case_id"]) == case["id"]
        for name, value in [*case["params"].items(), *case["metrics"].items()]:
            got = row[name]
            if fmt == "csv":
                got = None if got == "" else type(value)(got) if value is not None else got
            assert got == value and type(got) is type(value), (name, got, value)


# --- unknown ids, delete and purge ---------------------------------------------------------

@pytest.mark.parametrize(
    "args",
    [("show", UNKNOWN), ("export", UNKNOWN, "--format", "csv"), ("cancel", UNKNOWN),
     ("retry", UNKNOWN), ("delete", UNKNOWN), ("wait", UNKNOWN, "--timeout", "1")],
    ids=lambda a: a[0],
)
def test_unknown_id_is_exit_2(archive, args):
    out = gapsweep(archive["env"], *args)
    assert out.returncode == 2, (out.stdout, out.stderr)
    assert f"no study with id {UNKNOWN}" in out.stderr


def test_delete_then_purge(archive, tmp_path):
    env, data = archive["env"], archive["data"]
    doomed = write_study(tmp_path, "Doomed study", "doomed", "[0.05, 0.1]")
    doomed_id = as_json(gapsweep(env, "submit", doomed, "--json"))["study_id"]
    studies_before, cases_before = sqlite_rows(data, "studies"), sqlite_rows(data, "cases")
    out = gapsweep(env, "delete", doomed_id)
    assert out.returncode == 0, out.stderr
    listed = as_json(gapsweep(env, "studies", "--json", "--limit", "1000"))
    assert doomed_id not in [item["id"] for item in listed["items"]]
    assert gapsweep(env, "show", doomed_id).returncode == 2
    assert sqlite_rows(data, "studies") == studies_before  # soft: kept until purge
    out = gapsweep(env, "purge", "--json")
    assert out.returncode == 0, out.stderr
    print("purge:", out.stdout.strip())
    assert sqlite_rows(data, "studies") == studies_before - 1
    assert sqlite_rows(data, "cases") == cases_before - 3  # 2 cases + 1 twin
    # the user's study is untouched
    shown = gapsweep(env, "show", archive["summary"]["study_id"], "--json")
    assert shown.returncode == 0 and len(as_json(shown)["cases"]) == 15


# --- a broker URL: submit, wait, workers ---------------------------------------------------

@pytest.fixture
def redis_url():
    """A Redis database on the machine's server that holds no key (other people share it);
    the keys our test left there are removed afterwards."""
    import redis

    try:
        redis.Redis(host=REDIS_HOST, port=REDIS_PORT, socket_timeout=3).ping()
    except redis.exceptions.ConnectionError as exc:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"Redis at {REDIS_HOST}:{REDIS_PORT} unreachable: {exc}")
        pytest.skip(f"Redis at {REDIS_HOST}:{REDIS_PORT} unreachable: {exc}")
    empty = [n for n in range(1, 16) if redis.Redis(REDIS_HOST, REDIS_PORT, db=n).dbsize() == 0]
    if not empty:
        pytest.fail("no empty Redis database (1-15) to use")
    db = random.choice(empty)
    try:
        yield f"redis://{REDIS_HOST}:{REDIS_PORT}/{db}"
    finally:
        client = redis.Redis(REDIS_HOST, REDIS_PORT, db=db)
        keys = list(client.scan_iter(count=1000))
        if keys:
            client.delete(*keys)


@pytest.fixture
def postgres_url():
    url = create_postgres_database()
    try:
        yield url
    finally:
        drop_postgres_database(url)


def test_wait_times_out_with_exit_3_when_no_worker_runs_it(tmp_path, redis_url):
    env = clean_env(tmp_path / "data", GAPSWEEP_BROKER_URL=redis_url)
    sub = gapsweep(env, "submit", write_study(tmp_path, "Nobody runs me", "t"), "--json")
    assert sub.returncode == 0, sub.stderr
    study_id = as_json(sub)["study_id"]
    t0 = time.perf_counter()
    out = gapsweep(env, "wait", study_id, "--timeout", "1", "--json")
    took = time.perf_counter() - t0
    assert out.returncode == 3, out.stderr
    assert as_json(out) == {
        "study_id": study_id, "status": "queued", "cases": 1, "done": 0, "failed": 0
    }
    assert took < 30


def test_submit_and_wait_on_redis_and_postgresql_with_two_workers(
    tmp_path, redis_url, postgres_url
):
    env = clean_env(
        tmp_path / "data", GAPSWEEP_BROKER_URL=redis_url, GAPSWEEP_DATABASE_URL=postgres_url
    )
    workers: list[subprocess.Popen] = []
    logs = []
    try:
        for k in range(2):
            log = (tmp_path / f"worker{k}.log").open("wb")
            logs.append(log)
            workers.append(subprocess.Popen(
                [sys.executable, "-m", "gapsweep", "worker", "--concurrency", "1",
                 "--name", f"test{k}-{os.getpid()}@%h"],
                env=env, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                start_new_session=True,
            ))
        ready = tmp_path / "data" / "workers"
        deadline = time.monotonic() + 120
        while len(list(ready.glob("*.json"))) < 2:
            assert all(w.poll() is None for w in workers), "a worker exited"
            assert time.monotonic() < deadline, "workers not ready in 120 s"
            time.sleep(0.2)

        sub = gapsweep(env, "submit", EXAMPLE, "--json")
        assert sub.returncode == 0, sub.stderr
        submitted = as_json(sub)
        assert set(submitted) == RUN_KEYS
        # submit reads the study after the commit and the send: a ready worker may have
        # claimed a case already (seen in CI), never finished the study
        assert submitted["status"] in ("queued", "running") and submitted["cases"] == 15
        assert submitted["done"] < 15
        t0 = time.perf_counter()
        out = gapsweep(env, "wait", submitted["study_id"], "--timeout", "120", "--json")
        print(f"wait: {time.perf_counter() - t0:.2f} s")
        assert out.returncode == 0, out.stderr[-3000:]
        assert as_json(out) == {
            "study_id": submitted["study_id"], "status": "done", "cases": 15, "done": 15,
            "failed": 0,
        }
        detail = as_json(gapsweep(env, "show", submitted["study_id"], "--json"))
        assert [(c["status"], c["attempts"]) for c in detail["cases"]] == [("done", 1)] * 15
        assert [t["status"] for t in detail["twins"]] == ["done"]
    finally:
        for w in workers:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(w.pid, signal.SIGTERM)
        for w in workers:
            try:
                w.wait(20)
            except subprocess.TimeoutExpired:
                os.killpg(w.pid, signal.SIGKILL)
                w.wait(5)
        for log in logs:
            log.close()
    for k in range(2):
        text = (tmp_path / f"worker{k}.log").read_text(errors="replace")
        assert "kernels ready" in text, text[-2000:]
