"""Remote mode: with ``GAPSWEEP_URL`` set, the study commands talk to a server's JSON API
(design.md 4.4, 4.5) instead of opening a database.

    GAPSWEEP_URL=https://gapsweep.example:8050  GAPSWEEP_TOKEN=gsw_...  gapsweep submit FILE

:class:`ApiClient` is the one place HTTP happens (``urllib`` from the standard library, JSON
in and out, ``Authorization: Bearer $GAPSWEEP_TOKEN`` when the token is set, no redirects
followed, so the token never travels to another address). :class:`RemoteArchive` offers the
same operations as the local archive of :mod:`gapsweep.commands.studies`, which picks one of
the two in one place. The server's answers become the errors the local commands raise, so
output and exit codes are the same (design.md 4.5): 404 -> unknown id (exit 2), 422 ->
the spec's errors (exit 2), 401/403 -> refused credentials (exit 2, naming
``GAPSWEEP_TOKEN``), an unreachable server -> exit 1 naming ``GAPSWEEP_URL``.
"""

from __future__ import annotations

import http.client
import json
import os
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from gapsweep.commands.exit_codes import (
    EXIT_BAD_INPUT,
    EXIT_FAILED,
    CommandError,
    UnknownIdError,
)
from gapsweep.commands.output import progress_printer

URL_VARIABLE, TOKEN_VARIABLE = "GAPSWEEP_URL", "GAPSWEEP_TOKEN"
REQUEST_TIMEOUT_S = 30.0
POLL_S = 0.5  # how often `wait` asks the server for the study's progress


class NotFoundError(Exception):
    """The server answered 404 (an unknown id)."""


def configured(env: Mapping[str, str] | None = None) -> bool:
    """Whether ``GAPSWEEP_URL`` is set (to anything but blanks)."""
    env = os.environ if env is None else env
    return bool(env.get(URL_VARIABLE, "").strip())


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, req, fp, code, msg, headers, newurl):  # noqa: ANN001
        return None  # the 3xx reaches the caller as an HTTPError


class ApiClient:
    """JSON requests to ``base_url`` + ``/api/...`` with an optional bearer token."""

    def __init__(self, base_url: str, token: str | None = None,
                 timeout_s: float = REQUEST_TIMEOUT_S) -> None:
        parts = urllib.parse.urlsplit(base_url.strip())
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise CommandError(f"{URL_VARIABLE}: {base_url!r} — allowed an http:// or https:// "
                               "address of a `gapsweep serve` (http://host:8050)")
        self.base_url = base_url.strip().rstrip("/")
        self.token = token or None
        self.timeout_s = timeout_s
        self._opener = urllib.request.build_opener(_NoRedirects)

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> ApiClient:
        env = os.environ if env is None else env
        return cls(env.get(URL_VARIABLE, ""), env.get(TOKEN_VARIABLE, "").strip() or None)

    def get(self, path: str, **query: Any) -> Any:
        query = {k: v for k, v in query.items() if v is not None and v != ""}
        if query:
            path += "?" + urllib.parse.urlencode(query)
        return self.request("GET", path)

    def post(self, path: str, body: Any = None) -> Any:
        return self.request("POST", path, {} if body is None else body)

    def request(self, method: str, path: str, body: Any = None) -> Any:
        """The JSON the server answered with (2xx); any other answer raises the error the
        local command would (see the module docstring)."""
        headers = {"Accept": "application/json"}
        data = None
        if body is not None:
            data = json.dumps(body, allow_nan=False).encode("utf-8")
            headers["Content-Type"] = "application/json"
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        req = urllib.request.Request(self.base_url + path, data=data, method=method,
                                     headers=headers)
        location = None
        try:
            with self._opener.open(req, timeout=self.timeout_s) as response:
                status, raw = response.status, response.read()
        except urllib.error.HTTPError as exc:  # an answer, only not a 2xx one
            status, raw = exc.code, exc.read()
            location = exc.headers.get("Location") if exc.headers else None
        except (urllib.error.URLError, OSError, http.client.HTTPException) as exc:
            reason = getattr(exc, "reason", None) or exc
            raise CommandError(f"cannot reach the server at {URL_VARIABLE}={self.base_url} "
                               f"({reason})", EXIT_FAILED) from None
        return self._answer(method, path, status, raw, location)

    def _answer(self, method: str, path: str, status: int, raw: bytes,
                location: str | None) -> Any:
        try:
            payload = json.loads(raw) if raw else None
        except (ValueError, UnicodeDecodeError):
            payload = None
        where = f"{method} {self.base_url}{path}"
        if 200 <= status < 300:
            if payload is None:
                raise CommandError(f"{where}: {status} without JSON: is {URL_VARIABLE} the "
                                   "address of a `gapsweep serve`?", EXIT_FAILED)
            return payload
        message = payload.get("error") if isinstance(payload, dict) else None
        if 300 <= status < 400:
            raise CommandError(f"{where}: redirected ({status}) to {location}: set "
                               f"{URL_VARIABLE} to the address the server answers on",
                               EXIT_BAD_INPUT)
        if message is None and not (isinstance(payload, dict) and "errors" in payload):
            raise CommandError(f"{where}: HTTP {status} that is not gapsweep's API: is "
                               f"{URL_VARIABLE} the address of a `gapsweep serve`?", EXIT_FAILED)
        if status == 401:
            hint = (f"{TOKEN_VARIABLE} was refused" if self.token else
                    f"set {TOKEN_VARIABLE} to an API token (`gapsweep user token NAME` "
                    "where the server's database is)")
            raise CommandError(f"the server refused the request (401: {message}): {hint}")
        if status == 403:
            hint = (f"{TOKEN_VARIABLE}'s user lacks the role for it" if self.token else
                    f"set {TOKEN_VARIABLE} to a token of a user whose role allows it")
            raise CommandError(f"the server refused the request (403: {message}): {hint}")
        if status == 404:
            raise NotFoundError(message)
        if status == 422 and isinstance(payload, dict) and isinstance(payload.get("errors"), list):
            from gapsweep.study.errors import FieldError, SpecError

            raise SpecError([FieldError(str(e.get("field")), e.get("value"), str(e.get("allowed")))
                             for e in payload["errors"] if isinstance(e, dict)]
                            or [FieldError("file", "?", "(the server gave no detail)")])
        if 400 <= status < 500:
            raise CommandError(f"the server refused the request ({status}: {message})")
        raise CommandError(f"{where}: the server failed ({status}: {message})", EXIT_FAILED)


def spec_mapping(path: str | Path) -> dict[str, Any]:
    """The study file checked locally (its errors exit 2, as without ``GAPSWEEP_URL``) and
    its data as written: the mapping the file holds, not the spec with its defaults."""
    from gapsweep.study.spec import load_spec_file, tomllib

    load_spec_file(path)  # raises SpecError with every problem, before anything is sent
    text = Path(path).read_text(encoding="utf-8")
    if Path(path).suffix.lower() == ".toml":
        return tomllib.loads(text)
    return json.loads(text)


class RemoteArchive:
    """The archive behind a server's API: the operations of the local archive."""

    def __init__(self, client: ApiClient) -> None:
        self.client = client

    @classmethod
    def from_env(cls) -> RemoteArchive:
        return cls(ApiClient.from_env())

    def _with_id(self, study_id: int, method: str, path: str) -> Any:
        try:
            return self.client.request(method, path, {} if method == "POST" else None)
        except NotFoundError:
            raise UnknownIdError(study_id) from None

    def submit(self, path: str) -> int:
        return int(self.client.post("/api/studies", spec_mapping(path))["id"])

    def listing(self, *, search: str | None, tag: str | None, limit: int) -> dict[str, Any]:
        return self.client.get("/api/studies", search=search, tag=tag, limit=limit)

    def detail(self, study_id: int) -> dict[str, Any]:
        return self._with_id(study_id, "GET", f"/api/studies/{study_id}")

    def wait(self, study_id: int, timeout_s: float | None, quiet: bool) -> bool:
        """Follow the study's progress until nothing is queued or running; False on
        timeout. The server's workers (and its reconciler) do the work."""
        show = progress_printer(sys.stderr, quiet)
        deadline = None if timeout_s is None else time.monotonic() + timeout_s
        while True:
            # the progress route: a few bytes whatever the study's size, where the detail
            # carries every case's parameters and metrics
            counts = self._with_id(study_id, "GET", f"/api/studies/{study_id}/progress")[
                "counts"]
            show(counts)
            if counts["queued"] == 0 and counts["running"] == 0:
                return True
            if deadline is not None and time.monotonic() > deadline:
                return False
            time.sleep(POLL_S)

    def run(self, path: str, *, concurrency: int | None, quiet: bool) -> int:
        """``submit`` + ``wait``: the server's workers run it."""
        if concurrency is not None:
            print(f"--concurrency ignored: the workers of {self.client.base_url} run the study",
                  file=sys.stderr)
        study_id = self.submit(path)
        print(f"study {study_id} submitted to {self.client.base_url}", file=sys.stderr)
        self.wait(study_id, None, quiet)
        return study_id

    def cancel(self, study_id: int) -> int:
        """The number of queued cases cancelled."""
        return int(self._with_id(study_id, "POST", f"/api/studies/{study_id}/cancel")
                   .get("cancelled", 0))

    def retry(self, study_id: int) -> tuple[int, str | None]:
        """The number of failed cases queued again (the server sends them), no note."""
        answer = self._with_id(study_id, "POST", f"/api/studies/{study_id}/retry")
        return int(answer.get("retried", 0)), None

    def local_only(self, command: str) -> None:
        raise CommandError(
            f"`gapsweep {command}` works on a database, and {URL_VARIABLE} is set "
            f"({self.client.base_url}): the server's API has no such call. Run it where the "
            f"server's database is, without {URL_VARIABLE}")
