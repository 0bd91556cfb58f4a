"""The import boundary of the command line (issue 16): a command loads what it uses.

Each test runs ``gapsweep.cli.main`` in a fresh interpreter and reads which modules it left
in ``sys.modules``: ``--help`` loads none of SQLAlchemy, Alembic, numba, scipy, Dash, Celery;
the archive commands on an up-to-date database load SQLAlchemy but not Alembic (the schema is
checked with one query), numba, scipy, Celery or Dash; remote mode (``GAPSWEEP_URL``) loads no
SQLAlchemy. A fresh database does load Alembic (it is upgraded), which shows the check sees
the difference.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "clearance_x_stiffness.toml"
HEAVY = ("sqlalchemy", "alembic", "numba", "scipy", "dash", "celery")
SOLVER_AND_SERVICES = ("numba", "scipy", "dash", "celery", "kombu", "flask", "SALib")

CHILD = """
import json, sys
out, argv = sys.argv[1], sys.argv[2:]
from gapsweep.cli import main
try:
    code = main(argv)
except SystemExit as exc:
    code = exc.code
with open(out, "w") as f:
    json.dump({"code": code, "modules": sorted({m.split(".")[0] for m in sys.modules})}, f)
"""


def loaded(tmp_path: Path, env: dict[str, str], *argv: str) -> tuple[int, set[str]]:
    """(exit code, top-level modules imported) of ``gapsweep ARGV`` in a new interpreter."""
    out = tmp_path / f"modules-{len(list(tmp_path.glob('modules-*')))}.json"
    proc = subprocess.run([sys.executable, "-c", CHILD, str(out), *argv], env=env,
                          capture_output=True, text=True, timeout=120)
    assert out.exists(), proc.stderr[-3000:]
    report = json.loads(out.read_text())
    return report["code"], set(report["modules"])


@pytest.fixture
def env(tmp_path) -> dict[str, str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("GAPSWEEP_")}
    return {**clean, "GAPSWEEP_DATA": str(tmp_path / "data")}


def test_help_imports_nothing_heavy(tmp_path, env):
    code, modules = loaded(tmp_path, env, "--help")
    assert code == 0
    assert modules.isdisjoint(HEAVY), sorted(modules & set(HEAVY))
    code, modules = loaded(tmp_path, env, "submit", "--help")
    assert code == 0 and modules.isdisjoint(HEAVY), sorted(modules & set(HEAVY))


def test_models_lists_the_registry_without_the_solver(tmp_path, env):
    code, modules = loaded(tmp_path, env, "models")
    assert code == 0 and modules.isdisjoint(HEAVY), sorted(modules & set(HEAVY))


def test_archive_commands_skip_alembic_and_the_solver_once_migrated(tmp_path, env):
    code, first = loaded(tmp_path, env, "studies")  # a new archive: upgraded to head
    assert code == 0 and "alembic" in first
    for argv in (["studies"], ["studies", "--json"], ["show", "987654"]):
        code, modules = loaded(tmp_path, env, *argv)
        assert code == (2 if argv[0] == "show" else 0), argv
        assert "sqlalchemy" in modules
        unexpected = modules & {"alembic", *SOLVER_AND_SERVICES}
        assert not unexpected, f"{argv}: {sorted(unexpected)}"


class _FakeApi(BaseHTTPRequestHandler):
    """An empty archive: GET /api/studies lists nothing, any study id is unknown."""

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        if self.path.startswith("/api/studies?") or self.path == "/api/studies":
            status, body = 200, {"total": 0, "items": []}
        else:
            status, body = 404, {"error": "no such study"}
        raw = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)

    def log_message(self, *args) -> None:
        pass


def test_remote_mode_imports_no_sqlalchemy(tmp_path, env):
    server = ThreadingHTTPServer(("127.0.0.1", 0), _FakeApi)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        remote = {**env, "GAPSWEEP_URL": f"http://127.0.0.1:{server.server_address[1]}"}
        for argv, expected in ((["studies", "--json"], 0), (["show", "5"], 2),
                               (["wait", "5", "--timeout", "1"], 2)):
            code, modules = loaded(tmp_path, remote, *argv)
            assert code == expected, argv
            unexpected = modules & {"sqlalchemy", "alembic", *SOLVER_AND_SERVICES}
            assert not unexpected, f"{argv}: {sorted(unexpected)}"
        # submit checks the file locally first (the solver's parameter ranges), then sends it:
        # the database layer stays out all the same
        code, modules = loaded(tmp_path, remote, "submit", str(EXAMPLE))
        assert "sqlalchemy" not in modules and "alembic" not in modules
    finally:
        server.shutdown()
        server.server_close()
        thread.join(10)
    assert not (tmp_path / "data").exists()  # remote mode opened no local archive
