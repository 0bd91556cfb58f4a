"""Remote mode: with ``GAPSWEEP_URL`` the study commands talk to a server's API and print
what they print on the database (design.md 4.5). A real ``gapsweep serve`` (its own data
folder, free port, one local worker) is the server; the same data folder read without
``GAPSWEEP_URL`` gives the local answer to compare with. A second server has accounts on
(users made with ``gapsweep user add`` before it starts): tokens, roles, owners. A stub
HTTP server in the test process answers what a real one rarely does (422, 500, redirects)
and shows what the client sends."""

from __future__ import annotations

import http.server
import json
import math
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from support.serving import free_port, server_fixture

UNKNOWN = 987654
RUN_KEYS = {"study_id", "status", "cases", "done", "failed"}
SHOW_KEYS = {"id", "name", "model", "status", "spec", "provenance", "cases", "owner", "counts"}


def clean_env(data: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GAPSWEEP_")}
    env.update(GAPSWEEP_DATA=str(data), **extra)
    return env


def gapsweep(env: dict[str, str], *args: object, stdin: str | None = None,
             timeout: float = 180) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "gapsweep", *map(str, args)], env=env, input=stdin,
        stdin=None if stdin is not None else subprocess.DEVNULL,
        capture_output=True, text=True, timeout=timeout,
    )


def as_json(out: subprocess.CompletedProcess) -> object:
    assert out.stdout.strip(), f"no stdout (exit {out.returncode}): {out.stderr[-2000:]}"
    return json.loads(out.stdout)


def no_nan(value: object) -> object:
    """NaN as None: the API sends JSON's null where the local command prints NaN."""
    if isinstance(value, dict):
        return {k: no_nan(v) for k, v in value.items()}
    if isinstance(value, list):
        return [no_nan(v) for v in value]
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


def write_study(folder: Path, name: str, values: str = "[0.05, 0.1]") -> Path:
    path = folder / f"{name.replace(' ', '_')}.toml"
    path.write_text(
        f'name = "{name}"\ntags = ["remote"]\nseries = "none"\n'
        f"[base]\nspeed_rpm = 5000\nt_end = 0.05\n[axes.clearance_mm]\nvalues = {values}\n"
    )
    return path


def remote_env(app: dict) -> dict[str, str]:
    """GAPSWEEP_URL of the served ``app``, and a data folder of nothing: a command that opened
    a database instead would not find the server's studies (and would leave a database file
    there)."""
    elsewhere = app["data"].parent / "client"
    REMOTE_DATA.append(elsewhere)
    return {"remote": {**clean_env(elsewhere), "GAPSWEEP_URL": app["base"]}}


#: ``gapsweep serve`` on 127.0.0.1 without accounts, its worker ready; "env" the local
#: environment (its data folder), "remote" the client's
server = server_fixture("open", then=remote_env, workers=True)


REMOTE_DATA: list[Path] = []


@pytest.fixture(autouse=True)
def _no_database_on_the_client_side():
    yield
    for folder in REMOTE_DATA:
        assert not folder.exists(), f"a remote command opened a database in {folder}"


def test_remote_commands_print_what_the_local_ones_print(server, tmp_path):
    local, remote = server["env"], server["remote"]
    study = write_study(tmp_path, "Remote twins")
    submitted = gapsweep(remote, "submit", study, "--json")
    assert submitted.returncode == 0, submitted.stderr
    summary = as_json(submitted)
    assert set(summary) == RUN_KEYS and (summary["status"], summary["cases"]) == ("queued", 2)
    study_id = summary["study_id"]

    waited = gapsweep(remote, "wait", study_id, "--json", "--timeout", "150")
    assert waited.returncode == 0, waited.stderr
    assert as_json(waited) == {"study_id": study_id, "status": "done", "cases": 2, "done": 2,
                               "failed": 0}
    assert as_json(gapsweep(local, "wait", study_id, "--json")) == as_json(waited)

    for args in (("show", study_id, "--json"), ("studies", "--json", "--tag", "remote"),
                 ("studies", "--json", "--search", "twins", "--limit", "5")):
        there, here = gapsweep(remote, *args), gapsweep(local, *args)
        assert there.returncode == here.returncode == 0, (there.stderr, here.stderr)
        assert as_json(there) == no_nan(as_json(here)), args
    shown = as_json(gapsweep(remote, "show", study_id, "--json"))
    assert set(shown) >= SHOW_KEYS and shown["owner"] is None  # accounts off: nobody's
    assert [c["status"] for c in shown["cases"]] == ["done", "done"]
    listed = as_json(gapsweep(remote, "studies", "--json", "--tag", "remote"))
    assert [i["id"] for i in listed["items"]] == [study_id] and listed["total"] == 1
    # the tables and lines too
    for args in (("show", study_id), ("studies", "--tag", "remote"), ("wait", study_id)):
        there, here = gapsweep(remote, *args), gapsweep(local, *args)
        assert (there.returncode, there.stdout) == (here.returncode, here.stdout), args


def test_run_cancel_and_retry_go_to_the_server(server, tmp_path):
    local, remote = server["env"], server["remote"]
    ran = gapsweep(remote, "run", write_study(tmp_path, "Remote run", "[0.08]"), "--json")
    assert ran.returncode == 0, ran.stderr
    summary = as_json(ran)
    assert summary == {"study_id": summary["study_id"], "status": "done", "cases": 1,
                       "done": 1, "failed": 0}
    assert "submitted to http://127.0.0.1:" in ran.stderr
    study_id = summary["study_id"]
    retried = gapsweep(remote, "retry", study_id)
    assert retried.returncode == 0 and "0 failed case(s) queued again" in retried.stdout
    cancelled = gapsweep(remote, "cancel", study_id)
    assert cancelled.returncode == 0 and "cancelled (0 queued case(s)" in cancelled.stdout
    # the server did them: its audit rows (the web's actor for accounts off)
    from sqlalchemy import create_engine, text

    engine = create_engine(f"sqlite:///{local['GAPSWEEP_DATA']}/gapsweep.db")
    try:
        with engine.connect() as c:
            actions = c.execute(text("SELECT action, target FROM audit_events ORDER BY id")
                                ).all()
    finally:
        engine.dispose()
    assert [tuple(a) for a in actions][-2:] == [("study.retry", f"study:{study_id}"),
                                                ("study.cancel", f"study:{study_id}")]


def test_unknown_ids_refused_files_and_database_only_commands(server, tmp_path):
    local, remote = server["env"], server["remote"]
    before = as_json(gapsweep(local, "studies", "--json"))["total"]
    for args in (("show", UNKNOWN), ("wait", UNKNOWN, "--timeout", "1"), ("cancel", UNKNOWN),
                 ("retry", UNKNOWN)):
        out = gapsweep(remote, *args)
        assert out.returncode == 2, (args, out.stderr)
        assert f"no study with id {UNKNOWN}" in out.stderr
    there, here = (gapsweep(e, "show", UNKNOWN, "--json") for e in (remote, local))
    assert (there.returncode, as_json(there)) == (here.returncode, as_json(here))

    bad = tmp_path / "bad.toml"
    bad.write_text('name = "Bad"\n[axes.clearance_mm]\nvalues = [0.05, -1]\n')
    there, here = (gapsweep(e, "submit", bad, "--json") for e in (remote, local))
    assert there.returncode == here.returncode == 2
    assert as_json(there) == as_json(here) and there.stderr == here.stderr
    assert "axes.clearance_mm.values[1]" in there.stderr

    for args in (("delete", 1), ("purge",), ("export", 1)):
        out = gapsweep(remote, *args)
        assert out.returncode == 2 and "GAPSWEEP_URL is set" in out.stderr, (args, out.stderr)
    assert as_json(gapsweep(local, "studies", "--json"))["total"] == before


def test_an_unreachable_or_malformed_url(tmp_path):
    env = clean_env(tmp_path / "data")
    nobody = f"http://127.0.0.1:{free_port()}"
    for args in (("studies",), ("show", 1, "--json"),
                 ("submit", write_study(tmp_path, "Lost"))):
        out = gapsweep({**env, "GAPSWEEP_URL": nobody}, *args)
        assert out.returncode == 1, (args, out.stderr)
        assert f"cannot reach the server at GAPSWEEP_URL={nobody}" in out.stderr
    out = gapsweep({**env, "GAPSWEEP_URL": "ftp://example.org"}, "studies")
    assert out.returncode == 2 and "GAPSWEEP_URL: 'ftp://example.org'" in out.stderr
    assert not (tmp_path / "data").exists()  # no database was opened on the way


# --- accounts on ----------------------------------------------------------------------------

def _users(data: Path, local: dict[str, str]) -> dict:
    """A viewer and an editor in the database, and their tokens made with ``gapsweep user
    token``."""
    tokens = {}
    for name, role in (("vic", "viewer"), ("eddie", "editor")):
        added = gapsweep(local, "user", "add", name, "--role", role, stdin=f"{name}-password\n")
        assert added.returncode == 0, added.stderr
        made = gapsweep(local, "user", "token", name, "--label", "remote test")
        assert made.returncode == 0, made.stderr
        tokens[name] = made.stdout.strip()
    return {"tokens": tokens}


#: A server whose database has a viewer and an editor: "env" (local), "remote" (without a
#: token) and "tokens"
guarded = server_fixture("guarded", seed=_users, then=remote_env, name="guarded")


def test_without_a_token_or_with_a_wrong_one_exit_2_names_gapsweep_token(guarded, tmp_path):
    local, remote = guarded["env"], guarded["remote"]
    for env in (remote, {**remote, "GAPSWEEP_TOKEN": "gsw_not-a-token"}):
        for args in (("studies",), ("submit", write_study(tmp_path, "Anonymous")),
                     ("show", 1)):
            out = gapsweep(env, *args)
            assert out.returncode == 2, (args, out.stdout, out.stderr)
            assert "401" in out.stderr and "GAPSWEEP_TOKEN" in out.stderr, out.stderr
    assert as_json(gapsweep(local, "studies", "--json"))["total"] == 0


def test_a_viewer_reads_but_may_not_submit(guarded, tmp_path):
    local, remote, tokens = guarded["env"], guarded["remote"], guarded["tokens"]
    viewer = {**remote, "GAPSWEEP_TOKEN": tokens["vic"]}
    out = gapsweep(viewer, "studies", "--json")
    assert out.returncode == 0, out.stderr
    out = gapsweep(viewer, "submit", write_study(tmp_path, "Viewer's"), "--json")
    assert out.returncode == 2, (out.stdout, out.stderr)
    assert "403" in out.stderr and "GAPSWEEP_TOKEN" in out.stderr and "viewer" in out.stderr
    assert not any(i["name"] == "Viewer's"
                   for i in as_json(gapsweep(local, "studies", "--json"))["items"])


def test_an_editor_submits_and_owns_the_study(guarded, tmp_path):
    local, remote, tokens = guarded["env"], guarded["remote"], guarded["tokens"]
    editor = {**remote, "GAPSWEEP_TOKEN": tokens["eddie"]}
    out = gapsweep(editor, "submit", write_study(tmp_path, "Eddie's", "[0.05]"), "--json")
    assert out.returncode == 0, out.stderr
    study_id = as_json(out)["study_id"]
    assert as_json(gapsweep(local, "show", study_id, "--json"))["owner"] == "eddie"
    assert as_json(gapsweep(editor, "show", study_id, "--json"))["owner"] == "eddie"
    # the viewer may not cancel it; its owner may
    out = gapsweep({**remote, "GAPSWEEP_TOKEN": tokens["vic"]}, "cancel", study_id)
    assert out.returncode == 2 and "403" in out.stderr
    assert gapsweep(editor, "cancel", study_id).returncode == 0


# --- what the client sends, and the answers a real server seldom gives -------------------

class Stub(http.server.ThreadingHTTPServer):
    """Answers ``routes[(method, path)] = (status, body, headers)``; records requests."""

    def __init__(self, routes: dict) -> None:
        self.routes, self.seen = routes, []
        super().__init__(("127.0.0.1", 0), _StubHandler)
        self.thread = threading.Thread(target=self.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    def close(self) -> None:
        self.shutdown()
        self.server_close()


class _StubHandler(http.server.BaseHTTPRequestHandler):
    def _answer(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        self.server.seen.append((self.command, self.path, dict(self.headers), body))
        status, payload, headers = self.server.routes.get(
            (self.command, self.path.split("?")[0]), (404, {"error": "no route"}, {}))
        raw = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        self.send_response(status)
        for k, v in {"Content-Type": "application/json", **headers}.items():
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)

    def do_GET(self) -> None:  # noqa: N802 (http.server's names)
        self._answer()

    def do_POST(self) -> None:  # noqa: N802
        self._answer()

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def stub():
    servers: list[Stub] = []

    def make(routes: dict) -> Stub:
        servers.append(Stub(routes))
        return servers[-1]

    yield make
    for s in servers:
        s.close()


def test_submit_posts_the_file_as_written_with_the_token_and_prints_a_422(stub, tmp_path):
    errors = [{"field": "axes.clearance_mm.values[0]", "value": 0.05,
               "allowed": "refused by this server"}]
    server = stub({("POST", "/api/studies"): (422, {"errors": errors}, {})})
    study = write_study(tmp_path, "Posted", "[0.05]")
    env = {**clean_env(tmp_path / "data"), "GAPSWEEP_URL": server.url + "/",
           "GAPSWEEP_TOKEN": "gsw_secret"}
    out = gapsweep(env, "submit", study, "--json")
    assert out.returncode == 2, out.stderr
    assert as_json(out) == {"errors": errors}
    assert out.stderr == "axes.clearance_mm.values[0]: 0.05 — refused by this server\n"
    out = gapsweep(env, "submit", study)
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr == "axes.clearance_mm.values[0]: 0.05 — refused by this server\n"
    method, path, headers, body = server.seen[0]
    assert (method, path) == ("POST", "/api/studies")
    assert headers["Authorization"] == "Bearer gsw_secret"
    assert headers["Content-Type"] == "application/json"
    # the file's own mapping: no defaults filled in (design, ideal_twin, model ...)
    assert json.loads(body) == {"name": "Posted", "tags": ["remote"], "series": "none",
                                "base": {"speed_rpm": 5000, "t_end": 0.05},
                                "axes": {"clearance_mm": {"values": [0.05]}}}


def test_redirects_are_not_followed_and_server_errors_exit_1(stub, tmp_path):
    elsewhere = stub({})
    server = stub({
        ("GET", "/api/studies"): (302, b"", {"Location": elsewhere.url + "/api/studies"}),
        ("GET", "/api/studies/5"): (500, {"error": "internal error (see the server log)"}, {}),
        ("GET", "/api/studies/6"): (200, b"<html>not the API</html>", {}),
    })
    env = {**clean_env(tmp_path / "data"), "GAPSWEEP_URL": server.url,
           "GAPSWEEP_TOKEN": "gsw_secret"}
    out = gapsweep(env, "studies")
    assert out.returncode == 2 and "redirected (302)" in out.stderr, out.stderr
    assert elsewhere.seen == []  # the token went nowhere else
    out = gapsweep(env, "show", 5)
    assert out.returncode == 1 and "the server failed (500" in out.stderr, out.stderr
    out = gapsweep(env, "show", 6)
    assert out.returncode == 1 and "without JSON" in out.stderr, out.stderr
