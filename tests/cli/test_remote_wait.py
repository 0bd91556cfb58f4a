"""Remote ``wait`` polls the progress route, not the study's whole detail (issue 16, part 4):
a stub server in this process answers ``/api/studies/<id>/progress`` with the study moving
from queued to done, and records every request the client makes."""

from __future__ import annotations

import http.server
import json
import threading

import pytest

from gapsweep.archive.remote import ApiClient, RemoteArchive

STUDY = 41


def counts(queued: int, running: int, done: int) -> dict[str, int]:
    return {"queued": queued, "running": running, "done": done, "failed": 0, "cancelled": 0,
            "total": queued + running + done}


class Server(http.server.ThreadingHTTPServer):
    """Answers the progress route from a script of answers (the last one repeats);
    any other path is a 404 in the API's shape."""

    def __init__(self, script: list[dict]) -> None:
        super().__init__(("127.0.0.1", 0), Handler)
        self.script, self.paths = script, []
        threading.Thread(target=self.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        server: Server = self.server  # type: ignore[assignment]
        server.paths.append(self.path)
        if self.path == f"/api/studies/{STUDY}/progress":
            n = sum(p == self.path for p in server.paths)
            status, body = 200, server.script[min(n, len(server.script)) - 1]
        else:
            status, body = 404, {"error": f"no route {self.path}"}
        raw = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def serve():
    servers: list[Server] = []

    def make(script: list[dict]) -> Server:
        servers.append(Server(script))
        return servers[-1]

    yield make
    for s in servers:
        s.shutdown()
        s.server_close()


def report(status: str, c: dict[str, int]) -> dict:
    return {"id": STUDY, "status": status, "counts": c, "started": None, "finished": None}


def test_wait_polls_only_the_progress_route_until_nothing_is_left(serve, monkeypatch):
    import gapsweep.archive.remote as remote

    monkeypatch.setattr(remote, "POLL_S", 0.01)
    server = serve([report("queued", counts(4, 0, 0)), report("running", counts(2, 2, 0)),
                    report("running", counts(0, 1, 3)), report("done", counts(0, 0, 4))])
    assert RemoteArchive(ApiClient(server.url)).wait(STUDY, 10.0) is True
    assert server.paths == [f"/api/studies/{STUDY}/progress"] * 4  # never the detail


def test_wait_times_out_on_the_progress_route(serve, monkeypatch):
    import gapsweep.archive.remote as remote

    monkeypatch.setattr(remote, "POLL_S", 0.01)
    server = serve([report("running", counts(1, 1, 0))])
    assert RemoteArchive(ApiClient(server.url)).wait(STUDY, 0.1) is False
    assert len(server.paths) >= 2
    assert set(server.paths) == {f"/api/studies/{STUDY}/progress"}


def test_wait_on_an_unknown_id_is_the_unknown_id_error(serve):
    from gapsweep.archive.errors import UnknownIdError

    server = serve([report("done", counts(0, 0, 1))])
    with pytest.raises(UnknownIdError):
        RemoteArchive(ApiClient(server.url)).wait(STUDY + 1, 1.0)
    assert server.paths == [f"/api/studies/{STUDY + 1}/progress"]


def test_the_progress_line_says_the_running_lives_steps(serve, monkeypatch):
    """Wear-life cases report their settled runs (``running`` of the progress route): the
    progress line of ``wait`` sums them over the running cases; without, the line is as
    before."""
    import io

    import gapsweep.archive.remote as remote
    from gapsweep.commands.output import progress_printer

    monkeypatch.setattr(remote, "POLL_S", 0.01)
    steps = [{"id": 7, "step": 3, "steps": 21}, {"id": 8, "step": 20, "steps": 21}]
    server = serve([report("running", counts(1, 2, 0)),
                    {**report("running", counts(1, 2, 0)), "running": steps},
                    report("done", counts(0, 0, 3))])
    out = io.StringIO()
    assert RemoteArchive(ApiClient(server.url)).wait(STUDY, 10.0, progress_printer(out, False))
    lines = out.getvalue().splitlines()
    assert lines[0] == "[0/3] done 0, failed 0, running 2, queued 1"
    assert lines[1] == "[0/3] done 0, failed 0, running 2 (life steps 23/42), queued 1"
    assert lines[2] == "[3/3] done 3, failed 0, running 0, queued 0"
