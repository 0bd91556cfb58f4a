"""``gapsweep user ...`` and ``gapsweep audit`` as an admin runs them: real subprocesses on a
data folder of their own (SQLite there), the database read back after each step, and the
audit rows compared exactly. The study commands that change the archive on the database
(cancel, retry, delete, purge) are audited too."""

from __future__ import annotations

import getpass
import json
import os
import pty
import select
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from gapsweep.accounts.passwords import verify_password
from gapsweep.accounts.tokens import digest
from gapsweep.db.models import ApiToken, AuditEvent, User
from sqlalchemy import create_engine
from sqlalchemy import select as sql_select
from sqlalchemy.orm import Session

ACTOR = f"cli:{getpass.getuser()}@{socket.gethostname()}"


def clean_env(data: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GAPSWEEP_")}
    env.update(GAPSWEEP_DATA=str(data), **extra)
    return env


def gapsweep(env: dict[str, str], *args: object, stdin: str | None = None,
             timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "gapsweep", *map(str, args)], env=env, input=stdin,
        stdin=None if stdin is not None else subprocess.DEVNULL,
        capture_output=True, text=True, timeout=timeout,
    )


def ok(out: subprocess.CompletedProcess) -> subprocess.CompletedProcess:
    assert out.returncode == 0, (out.stdout, out.stderr)
    return out


class Archive:
    """The data folder's SQLite database, read from the test."""

    def __init__(self, data: Path) -> None:
        self.engine = create_engine(f"sqlite:///{data / 'gapsweep.db'}")

    def users(self) -> dict[str, tuple[str, bool, str]]:
        with Session(self.engine) as s:
            return {u.name: (u.role, u.disabled, u.password_hash) for u in s.scalars(
                sql_select(User))}

    def tokens(self) -> list[tuple[int, str, str, bool]]:
        with Session(self.engine) as s:
            return [(t.id, t.label, t.token_hash, t.revoked_at is not None)
                    for t in s.scalars(sql_select(ApiToken).order_by(ApiToken.id))]

    def audit(self) -> list[tuple[str, str, str, dict]]:
        with Session(self.engine) as s:
            return [(e.actor, e.action, e.target, e.detail)
                    for e in s.scalars(sql_select(AuditEvent).order_by(AuditEvent.id))]


@pytest.fixture
def env(tmp_path):
    return clean_env(tmp_path / "data")


def test_user_commands_change_the_database_and_audit_each_change(env, tmp_path):
    db = Archive(tmp_path / "data")
    out = ok(gapsweep(env, "user", "add", "alice", "--role", "editor", stdin="correct horse 1\n"))
    assert "accounts are on" in out.stderr  # the first user
    role, disabled, pw_hash = db.users()["alice"]
    assert (role, disabled) == ("editor", False)
    assert verify_password("correct horse 1", pw_hash)  # the line, without its newline
    assert not verify_password("correct horse 1\n", pw_hash)
    ok(gapsweep(env, "user", "add", "bob", "--role", "viewer", stdin="bobs-password\r\n"))
    assert verify_password("bobs-password", db.users()["bob"][2])

    ok(gapsweep(env, "user", "set-role", "bob", "admin"))
    assert db.users()["bob"][0] == "admin"
    ok(gapsweep(env, "user", "disable", "alice"))
    assert db.users()["alice"][1] is True
    listed = json.loads(ok(gapsweep(env, "user", "list", "--json")).stdout)["users"]
    assert [(u["name"], u["role"], u["disabled"], u["tokens"]) for u in listed] == [
        ("alice", "editor", True, 0), ("bob", "admin", False, 0)]
    ok(gapsweep(env, "user", "enable", "alice"))
    assert db.users()["alice"][1] is False
    ok(gapsweep(env, "user", "password", "alice", stdin="a new password\n"))
    assert verify_password("a new password", db.users()["alice"][2])

    out = ok(gapsweep(env, "user", "token", "alice", "--label", "ci job"))
    token = out.stdout.strip()
    assert out.stdout == token + "\n" and token.startswith("gsw_")  # stdout: the token alone
    assert token not in out.stderr
    [(token_id, label, stored, revoked)] = db.tokens()
    assert (label, stored, revoked) == ("ci job", digest(token), False)
    assert token not in json.dumps(db.audit())  # only its digest is kept anywhere
    tokens = json.loads(ok(gapsweep(env, "user", "tokens", "alice", "--json")).stdout)["tokens"]
    assert [(t["id"], t["label"], t["revoked"]) for t in tokens] == [(token_id, "ci job", False)]
    ok(gapsweep(env, "user", "revoke", "alice", token_id))
    assert db.tokens()[0][3] is True

    expected = [
        (ACTOR, "user.add", "user:alice", {"role": "editor"}),
        (ACTOR, "user.add", "user:bob", {"role": "viewer"}),
        (ACTOR, "user.role", "user:bob", {"old": "viewer", "new": "admin"}),
        (ACTOR, "user.disable", "user:alice", {}),
        (ACTOR, "user.enable", "user:alice", {}),
        (ACTOR, "user.password", "user:alice", {}),
        (ACTOR, "token.create", "user:alice", {"token_id": token_id, "label": "ci job"}),
        (ACTOR, "token.revoke", "user:alice", {"token_id": token_id}),
    ]
    assert db.audit() == expected
    shown = json.loads(ok(gapsweep(env, "audit", "--json", "--limit", "3")).stdout)["items"]
    assert [(e["actor"], e["action"], e["target"], e["detail"]) for e in shown] == (
        expected[::-1][:3])  # newest first
    text = ok(gapsweep(env, "audit")).stdout
    assert text.index("token.revoke") < text.index("user.add")


@pytest.fixture(scope="module")
def one_user(tmp_path_factory):
    """A data folder with the user ``alice`` (editor) and one live token of hers."""
    data = tmp_path_factory.mktemp("data")
    env = clean_env(data)
    ok(gapsweep(env, "user", "add", "alice", "--role", "editor", stdin="alice-password\n"))
    ok(gapsweep(env, "user", "token", "alice"))
    return env, Archive(data)


@pytest.mark.parametrize(
    ("args", "stdin", "message"),
    [
        (("user", "add", "alice", "--role", "viewer"), "whatever-1\n",
         "name: 'alice' — a user of that name exists"),
        (("user", "add", "carol", "--role", "boss"), "whatever-1\n",
         "role: 'boss' — allowed viewer, editor, admin"),
        (("user", "add", "carol", "--role", "viewer"), "short\n",
         "password: 5 characters — allowed 8 to 1024"),
        (("user", "add", "carol", "--role", "viewer"), "",
         "password: 0 characters — allowed 8 to 1024"),
        (("user", "add", "bad name", "--role", "viewer"), "whatever-1\n",
         "name: 'bad name' — allowed 1 to 64 letters, digits"),
        (("user", "add", ".hidden", "--role", "viewer"), "whatever-1\n",
         "name: '.hidden' — allowed"),
        (("user", "set-role", "alice", "root"), None, "role: 'root' — allowed viewer"),
        (("user", "set-role", "nobody", "admin"), None, "name: 'nobody' — no user"),
        (("user", "disable", "nobody"), None, "name: 'nobody' — no user"),
        (("user", "password", "nobody"), "whatever-1\n", "name: 'nobody' — no user"),
        (("user", "token", "nobody"), None, "name: 'nobody' — no user"),
        (("user", "token", "alice", "--label", "x" * 101), None,
         "label: 101 characters — allowed up to 100"),
        (("user", "revoke", "alice", "999"), None, "token: 999 — not a live token of 'alice'"),
        (("audit", "--limit", "0"), None, "limit: 0 — allowed 1 to 10000"),
    ],
    ids=["duplicate", "role", "short-password", "no-password", "name", "dot-name",
         "set-role-role", "set-role-user", "disable-user", "password-user", "token-user",
         "label", "revoke", "audit-limit"],
)
def test_bad_input_is_exit_2_with_the_field_and_nothing_changes(one_user, args, stdin, message):
    env, db = one_user
    before = (db.users(), db.tokens(), db.audit())
    out = gapsweep(env, *args, stdin=stdin)
    assert out.returncode == 2, (out.stdout, out.stderr)
    assert out.stderr.count("\n") == 1 and message in out.stderr, out.stderr
    assert (db.users(), db.tokens(), db.audit()) == before


def test_user_commands_refuse_with_gapsweep_url_set(one_user):
    env, db = one_user
    before = db.users()
    out = gapsweep({**env, "GAPSWEEP_URL": "http://127.0.0.1:9"}, "user", "add", "dave",
                   "--role", "viewer", stdin="dave-password\n")
    assert out.returncode == 2 and "GAPSWEEP_URL is set" in out.stderr, out.stderr
    assert db.users() == before


def _pty_run(argv: list[str], env: dict[str, str], answers: list[str],
             timeout: float = 120) -> tuple[int, str]:
    """Run ``argv`` on a new terminal (its controlling tty), typing one answer per prompt
    ending in ': '; its exit status and everything it wrote."""
    pid, fd = pty.fork()
    if pid == 0:  # the child: exec at once
        os.execve(argv[0], argv, env)
    seen, pending = b"", list(answers)
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([fd], [], [], 0.5)
            if ready:
                try:
                    chunk = os.read(fd, 4096)
                except OSError:  # the child closed the terminal
                    break
                if not chunk:
                    break
                seen += chunk
                if pending and seen.rstrip().endswith(b":"):
                    # a person is slower than this loop: typed at once, the answer can reach
                    # the terminal before getpass has turned its echo off
                    time.sleep(0.3)
                    os.write(fd, pending.pop(0).encode() + b"\n")
                    seen += b"\n"
        else:
            os.kill(pid, signal.SIGKILL)
            raise AssertionError(f"no exit within {timeout} s; it wrote {seen!r}")
        _, status = os.waitpid(pid, 0)
    finally:
        os.close(fd)
    return os.waitstatus_to_exitcode(status), seen.decode(errors="replace")


def test_on_a_terminal_the_password_is_asked_twice_and_must_match(tmp_path):
    env = clean_env(tmp_path / "data")
    db = Archive(tmp_path / "data")
    argv = [sys.executable, "-m", "gapsweep", "user", "add", "erin", "--role", "viewer"]
    code, shown = _pty_run(argv, env, ["erin-password", "erin-passw0rd"])
    assert code == 2, shown
    assert "new password for erin:" in shown and "the two entries differ" in shown
    assert "erin-password" not in shown  # not echoed
    assert not (tmp_path / "data" / "gapsweep.db").exists() or "erin" not in db.users()
    code, shown = _pty_run(argv, env, ["erin-password", "erin-password"])
    assert code == 0, shown
    assert verify_password("erin-password", db.users()["erin"][2])


def test_database_changes_of_the_study_commands_are_audited(env, tmp_path):
    db = Archive(tmp_path / "data")
    study = tmp_path / "audited.toml"
    study.write_text('name = "Audited"\nseries = "none"\n[base]\nspeed_rpm = 5000\n'
                     "[axes.clearance_mm]\nvalues = [0.05]\n")
    # embedded, nobody runs it: its one case (and its ideal twin) stay queued
    study_id = json.loads(ok(gapsweep(env, "submit", study, "--json")).stdout)["study_id"]
    assert "queued case" in ok(gapsweep(env, "cancel", study_id)).stdout
    ok(gapsweep(env, "retry", study_id))
    ok(gapsweep(env, "delete", study_id))
    purged = json.loads(ok(gapsweep(env, "purge", "--json")).stdout)
    assert purged == {"studies": 1, "cases": 2, "results": 0, "series": 0}
    assert db.audit() == [
        (ACTOR, "study.cancel", f"study:{study_id}", {"cancelled": 2}),  # case + twin
        (ACTOR, "study.retry", f"study:{study_id}", {"retried": 0}),
        (ACTOR, "study.delete", f"study:{study_id}", {}),
        (ACTOR, "study.purge", "deleted studies", purged),
    ]
    # an unknown id changes nothing and records nothing
    assert gapsweep(env, "cancel", 987654).returncode == 2
    assert len(db.audit()) == 4
