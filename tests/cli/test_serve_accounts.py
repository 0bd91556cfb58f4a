"""``gapsweep serve`` and accounts: a host other than loopback is refused until accounts are
set up (nothing started, nothing bound); ``GAPSWEEP_ADMIN_PASSWORD`` creates the first
admin; 127.0.0.1 without accounts says they are off. Real ``serve`` processes, each on its
own data folder and free port, stopped by pid with SIGTERM and checked gone."""

from __future__ import annotations

import getpass
import json
import os
import socket
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from gapsweep.accounts.passwords import verify_password
from gapsweep.db.models import AuditEvent, User
from sqlalchemy import create_engine, select
from sqlalchemy.orm import Session
from support.serving import Serve, free_port, port_open

ACTOR = f"cli:{getpass.getuser()}@{socket.gethostname()}"
HOW = "`gapsweep user add NAME --role admin`"


def clean_env(data: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GAPSWEEP_")}
    env.update(GAPSWEEP_DATA=str(data), **extra)
    return env


def rows(data: Path) -> tuple[list[tuple], list[tuple]]:
    """(users as (name, role, disabled, hash), audit events as (actor, action, target,
    detail)) of the data folder's database ([] when it has none)."""
    path = data / "gapsweep.db"
    if not path.exists():
        return [], []
    engine = create_engine(f"sqlite:///{path}")
    try:
        with Session(engine) as s:
            users = [(u.name, u.role, u.disabled, u.password_hash) for u in s.scalars(
                select(User))]
            events = [(e.actor, e.action, e.target, e.detail) for e in s.scalars(
                select(AuditEvent).order_by(AuditEvent.id))]
    finally:
        engine.dispose()
    return users, events


def http_status(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=10) as r:
            return r.status
    except urllib.error.HTTPError as exc:
        return exc.code


@pytest.mark.parametrize(
    ("host", "extra"),
    [("0.0.0.0", ()), ("::", ()), (socket.gethostname(), ()), ("0.0.0.0", ("--auth",))],
    ids=["0.0.0.0", "::", "hostname", "0.0.0.0-auth"],
)
def test_other_hosts_are_refused_without_accounts(tmp_path, host, extra):
    data = tmp_path / "data"
    port = free_port()
    out = subprocess.run(
        [sys.executable, "-m", "gapsweep", "serve", "--host", host, "--port", str(port),
         "--workers", "1", *extra],
        env=clean_env(data), capture_output=True, text=True, timeout=120,
        start_new_session=True,
    )
    assert out.returncode == 2, (out.stdout, out.stderr)
    assert out.stderr.count("\n") == 1, out.stderr
    assert f"serve --host {host}: not a loopback address, and no account exists" in out.stderr
    assert HOW in out.stderr and "GAPSWEEP_ADMIN_PASSWORD" in out.stderr
    assert "open http" not in out.stdout
    # nothing started: no worker, no log of one, nothing on the port
    assert not (data / "workers").exists() and not (data / "logs").exists()
    assert not port_open(port)
    assert rows(data) == ([], [])


def test_a_bad_admin_password_is_refused_before_anything_starts(tmp_path):
    data = tmp_path / "data"
    out = subprocess.run(
        [sys.executable, "-m", "gapsweep", "serve", "--host", "0.0.0.0", "--port",
         str(free_port())],
        env=clean_env(data, GAPSWEEP_ADMIN_PASSWORD="short"), capture_output=True, text=True,
        timeout=120, start_new_session=True,
    )
    assert out.returncode == 2, (out.stdout, out.stderr)
    assert "GAPSWEEP_ADMIN_PASSWORD: 5 characters — allowed 8 to 1024" in out.stderr
    assert "short" not in out.stderr.replace("GAPSWEEP_ADMIN_PASSWORD", "")
    assert not (data / "workers").exists() and rows(data) == ([], [])


def test_admin_password_creates_the_first_admin_and_serves_other_hosts(tmp_path):
    data = tmp_path / "data"
    env = clean_env(data, GAPSWEEP_ADMIN_PASSWORD="first admin pw", GAPSWEEP_ADMIN_USER="root")
    serve = Serve(env, data, "--host", "0.0.0.0")
    try:
        serve.start()
        said = serve.output()
        assert "created the first admin 'root' from GAPSWEEP_ADMIN_PASSWORD" in said
        assert "accounts on" in said and "accounts are off" not in said
        users, events = rows(data)
        assert [(n, r, d) for n, r, d, _ in users] == [("root", "admin", False)]
        assert verify_password("first admin pw", users[0][3])
        assert events == [(ACTOR, "user.add", "user:root",
                           {"role": "admin", "source": "GAPSWEEP_ADMIN_PASSWORD"})]
        assert "first admin pw" not in said
        # accounts on: the API wants credentials
        assert http_status(f"{serve.url}/api/studies") == 401
        assert serve.stop() == 128 + 15
    finally:
        serve.kill()


def test_loopback_without_accounts_says_they_are_off(tmp_path):
    data = tmp_path / "data"
    serve = Serve(clean_env(data), data)  # the default host, 127.0.0.1
    try:
        serve.start()
        said = serve.output()
        line = next(x for x in said.splitlines() if "accounts are off" in x)
        assert f"anyone who can reach 127.0.0.1:{serve.port} has full rights" in line
        assert "`gapsweep user add NAME --role admin` turns them on" in line
        assert said.index("accounts are off") < said.index("open http://")
        with urllib.request.urlopen(f"{serve.url}/api/studies", timeout=10) as r:
            assert r.status == 200 and json.loads(r.read())["total"] == 0
        assert rows(data) == ([], [])
        assert serve.stop() == 128 + 15
    finally:
        serve.kill()


@pytest.mark.parametrize(
    ("host", "loopback"),
    [("127.0.0.1", True), ("127.8.9.10", True), ("::1", True), ("[::1]", True),
     ("localhost", True), ("LocalHost", True), ("0.0.0.0", False), ("::", False),
     ("192.168.1.10", False), ("fe80::1", False), ("example.org", False),
     ("localhost.example.org", False), ("", False)],
)
def test_what_counts_as_loopback(host, loopback):
    from gapsweep.commands.services import is_loopback

    assert is_loopback(host) is loopback
