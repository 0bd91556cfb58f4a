"""docker-compose.yml's own commands, run here (Docker cannot run on these machines).

The file is parsed (pyyaml); migrate, worker and web each run their service's ``command``
with its service's ``environment``, the compose host names mapped to this machine: the
``postgres`` URL (user/password gapsweep:gapsweep) becomes a fresh test database on the
local server (user postgres), ``redis`` a private redis-server on a free port, ``/data`` a
temporary folder, and web's published port 8050 a free one. Proven: migrate exits 0 and
creates the schema, the worker runs a submitted study to done; web (gunicorn on the WSGI
entry, 0.0.0.0, sign-in required) creates its first admin from the ``GAPSWEEP_ADMIN_PASSWORD``
the file requires, answers ``GET /api/health`` 401 without credentials and 200 with the
admin's token, and its healthcheck's ``GET /api/health/live`` 200 without any.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import yaml
from gapsweep.db.engine import open_database
from sqlalchemy import create_engine, inspect, text
from sqlalchemy.engine import make_url
from support.backends import require_redis_server
from support.database_fixtures import create_postgres_database, drop_postgres_database
from support.processes import (
    Procs,
    RedisServer,
    free_port,
    progress,
    result_counts,
    wait_finished,
    wait_for,
    write_study,
)

COMPOSE = Path(__file__).resolve().parents[2] / "docker-compose.yml"


def _compose() -> dict:
    return yaml.safe_load(COMPOSE.read_text())


def test_compose_shape():
    c = _compose()["services"]
    assert set(c) == {"redis", "postgres", "migrate", "web", "worker"}
    redis = c["redis"]["command"]
    assert redis[0] == "redis-server"
    assert redis[redis.index("--appendonly") + 1] == "yes"
    assert redis[redis.index("--maxmemory-policy") + 1] == "noeviction"
    assert c["redis"]["healthcheck"]["test"]
    assert c["postgres"]["healthcheck"]["test"]
    assert c["migrate"]["depends_on"]["postgres"] == {"condition": "service_healthy"}
    for name in ("web", "worker"):
        deps = c[name]["depends_on"]
        assert deps["migrate"] == {"condition": "service_completed_successfully"}
        assert deps["redis"] == {"condition": "service_healthy"}
    # the worker service is scalable: no fixed container name, no published port
    assert "container_name" not in c["worker"] and "ports" not in c["worker"]
    # the long-running services come back after they end; the one-shot migration does not
    assert {n for n, s in c.items() if s.get("restart") == "unless-stopped"} == {
        "redis", "postgres", "web", "worker"}


def _expand(value: str, given: dict[str, str]) -> str:
    """Compose's interpolation with only ``given`` set: ``${VAR:-default}`` is the given
    value or the default; ``${VAR:?message}`` (required) must be given."""
    def one(m: re.Match) -> str:
        name, op, rest = m.group(1), m.group(2), m.group(3)
        if given.get(name):
            return given[name]
        assert op == ":-", f"{name} is required by docker-compose.yml ({rest}) and not given"
        return rest

    return re.sub(r"\$\{([A-Z_]+)(:-|:\?)([^}]*)\}", one, value)


def test_compose_web_requires_the_admin_password():
    web = _compose()["services"]["web"]["environment"]
    assert "GAPSWEEP_ADMIN_PASSWORD" not in _compose()["services"]["worker"]["environment"]
    try:
        _expand(str(web["GAPSWEEP_ADMIN_PASSWORD"]), {})
    except AssertionError as exc:
        assert "GAPSWEEP_ADMIN_PASSWORD is required" in str(exc)
    else:
        raise AssertionError("web starts without GAPSWEEP_ADMIN_PASSWORD (a known default?)")
    assert _expand(str(web["GAPSWEEP_ADMIN_USER"]), {}) == "admin"


def _local_env(service: dict, *, database_url: str, redis_url: str, data: Path,
               given: dict[str, str]) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GAPSWEEP_")}
    for key, raw in service["environment"].items():
        value = _expand(str(raw), given)
        if key == "GAPSWEEP_DATABASE_URL":
            url = make_url(value)
            assert (url.host, url.port, url.username, url.password, url.database) == (
                "postgres", 5432, "gapsweep", "gapsweep", "gapsweep")
            value = database_url
        elif key == "GAPSWEEP_BROKER_URL":
            assert value.startswith("redis://redis:6379/")
            value = redis_url
        elif key == "GAPSWEEP_DATA":
            assert value == "/data"
            value = str(data)
        env[key] = value
    return env


def _argv(command: list[str], given: dict[str, str] | None = None) -> list[str]:
    # the image's `gapsweep` and `gunicorn` are installed console scripts: this venv's
    assert command[0] in ("gapsweep", "gunicorn")
    return [str(Path(sys.executable).with_name(command[0])),
            *(_expand(str(word), given or {}) for word in command[1:])]


def test_compose_commands_run_against_local_services(tmp_path, procs: Procs):
    require_redis_server()
    t0 = time.monotonic()
    services = _compose()["services"]
    database_url = create_postgres_database()
    try:
        redis = RedisServer(procs, tmp_path / "redis", appendonly=True).start()
        data = tmp_path / "data"
        data.mkdir()

        # what the operator puts in .env: web's first admin (the file requires it)
        admin_password = secrets.token_urlsafe(12)
        given = {"GAPSWEEP_ADMIN_PASSWORD": admin_password}

        def env(name: str) -> dict:
            return _local_env(services[name], database_url=database_url,
                              redis_url=redis.url, data=data, given=given)

        # migrate: one shot, exit 0, the schema exists
        migrate = subprocess.run(_argv(services["migrate"]["command"]), env=env("migrate"),
                                 capture_output=True, text=True, timeout=120,
                                 start_new_session=True)
        assert migrate.returncode == 0, migrate.stderr
        engine = create_engine(database_url)
        try:
            tables = set(inspect(engine).get_table_names())
        finally:
            engine.dispose()
        assert {"studies", "cases", "results", "series", "alembic_version"} <= tables

        # worker: the service's command, readiness mark written, then a study runs to done
        worker = procs.start("compose-worker", _argv(services["worker"]["command"]),
                             env("worker"))
        marks = data / "workers"

        def ready() -> bool:
            assert worker.alive(), worker.tail()
            return any(json.loads(m.read_text())["pid"] == worker.pid
                       for m in (marks.glob("*.json") if marks.is_dir() else []))

        wait_for("the compose worker ready", ready, 90.0)
        study = write_study(tmp_path, "compose", clearances=[0.05, 0.1, 0.2],
                            scales=[0.8, 1.0, 1.2], t_end=0.1)
        out = subprocess.run(_argv(["gapsweep", "submit", str(study), "--json"]),
                             env=env("worker"), capture_output=True, text=True, timeout=60,
                             start_new_session=True)
        assert out.returncode == 0, out.stderr
        study_id = json.loads(out.stdout)["study_id"]
        sessions = open_database(database_url)
        try:
            final = wait_finished(sessions, study_id, 60.0)
            results = result_counts(sessions, study_id)
            assert progress(sessions, study_id)["done"] == 9
        finally:
            sessions.kw["bind"].dispose()

        # web: gunicorn on the WSGI entry, its bind's published port swapped for a free one
        command = list(services["web"]["command"])
        assert command[:2] == ["gunicorn", "gapsweep.web.wsgi:app"]
        assert command[command.index("--bind") + 1] == "0.0.0.0:8050"
        port = free_port()
        command[command.index("--bind") + 1] = f"0.0.0.0:{port}"
        argv = _argv(command, given)
        assert argv[argv.index("--workers") + 1] == "2"  # the file's defaults, expanded
        assert argv[argv.index("--threads") + 1] == "8"
        web = procs.start("compose-web", argv, env("web"))

        def health(token: str | None = None, path: str = "/api/health"):
            assert web.alive(), web.tail()
            request = urllib.request.Request(f"http://127.0.0.1:{port}{path}")
            if token:
                request.add_header("Authorization", f"Bearer {token}")
            try:
                # the detailed health probes the database and the broker: seconds under load
                with urllib.request.urlopen(request, timeout=20) as r:
                    return r.status, json.loads(r.read())
            except urllib.error.HTTPError as exc:
                return exc.code, json.loads(exc.read())
            except OSError:
                return None

        # 0.0.0.0 is served only with accounts: web created its admin from the password
        anonymous, _ = wait_for("GET /api/health", health, 60.0, 0.2)
        # the compose healthcheck's URL answers without credentials, and says nothing more
        live = health(path="/api/health/live")
        healthcheck = services["web"]["healthcheck"]["test"]
        assert any("/api/health/live" in str(word) for word in healthcheck)
        engine = create_engine(database_url)
        try:
            with engine.connect() as c:
                users = c.execute(text("SELECT name, role, disabled FROM users")).all()
                added = c.execute(text("SELECT action, target FROM audit_events")).all()
        finally:
            engine.dispose()
        assert [tuple(u) for u in users] == [("admin", "admin", False)]
        assert [tuple(a) for a in added] == [("user.add", "user:admin")]
        # ... whose token (made where the database is, as `docker compose exec web` would)
        # opens the API
        token = subprocess.run(_argv(["gapsweep", "user", "token", "admin"]), env=env("web"),
                               capture_output=True, text=True, timeout=60)
        assert token.returncode == 0, token.stderr
        status, body = health(token.stdout.strip())
        print(f"\n[compose] migrate exit 0, tables {sorted(tables)}; worker ran study "
              f"{study_id}: {final}, results {results}; web /api/health {anonymous} without "
              f"a token, {status} {body} with the admin's; "
              f"total {time.monotonic() - t0:.1f} s")
        assert final["done"] == 9 and results == (9, 9)
        assert anonymous == 401
        assert live == (200, {"status": "live"})
        assert status == 200 and body["database"] == "ok"
        # gunicorn booted the file's two worker processes; one of them made the admin (above)
        assert web.tail(400).count("Booting worker") == 2, web.tail()
        # (health lists the ready marks in its own data folder: here web and worker share
        # one; the compose file gives each container its own /data, so there it is empty)
    finally:
        procs.close()
        drop_postgres_database(database_url)
