"""The archive behind a server's JSON API (design.md 4.4, 4.5): what the study commands use
with ``GAPSWEEP_URL`` set, and ``gapsweep.open("https://host:8050", token=...)``.

    GAPSWEEP_URL=https://gapsweep.example:8050  GAPSWEEP_TOKEN=gsw_...  gapsweep submit FILE

:class:`ApiClient` is the one place HTTP happens (``urllib`` from the standard library, JSON
in and out, ``Authorization: Bearer $GAPSWEEP_TOKEN`` when the token is set, no redirects
followed, so the token never travels to another address). :class:`RemoteArchive` offers the
operations of :class:`~.local.LocalArchive` the API has (measured records included); the
others (delete, purge, export, users, tokens, the audit log) raise
:class:`~.errors.RefusedError` naming ``GAPSWEEP_URL``. The server's answers become the
errors the local archive raises, so the command line's output and exit codes are the same
(design.md 4.5): 404 -> unknown id (exit 2), 422 -> the spec's errors (exit 2), 401/403 ->
refused credentials (exit 2, naming ``GAPSWEEP_TOKEN``), an unreachable server ->
:class:`~.errors.UnavailableError` (exit 1) naming ``GAPSWEEP_URL``.
"""

from __future__ import annotations

import http.client
import json
import os
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .endpoint import TOKEN_VARIABLE, URL_VARIABLE
from .errors import ForbiddenError, RefusedError, UnavailableError, UnknownIdError

if TYPE_CHECKING:
    import pandas as pd

REQUEST_TIMEOUT_S = 30.0
POLL_S = 0.5  # how often `wait` asks the server for the study's progress


class NotFoundError(Exception):
    """The server answered 404 (an unknown id)."""


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, req, fp, code, msg, headers, newurl):  # noqa: ANN001
        return None  # the 3xx reaches the caller as an HTTPError


class ApiClient:
    """JSON requests to ``base_url`` + ``/api/...`` with an optional bearer token."""

    def __init__(self, base_url: str, token: str | None = None,
                 timeout_s: float = REQUEST_TIMEOUT_S) -> None:
        parts = urllib.parse.urlsplit(base_url.strip())
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise RefusedError(f"{URL_VARIABLE}: {base_url!r} — allowed an http:// or https:// "
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

    def request(self, method: str, path: str, body: Any = None, raw: bool = False) -> Any:
        """The JSON the server answered with (2xx; its bytes with ``raw``); any other answer
        raises the error the local archive would (see the module docstring)."""
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
                status, body_bytes = response.status, response.read()
        except urllib.error.HTTPError as exc:  # an answer, only not a 2xx one
            status, body_bytes = exc.code, exc.read()
            location = exc.headers.get("Location") if exc.headers else None
        except (urllib.error.URLError, OSError, http.client.HTTPException) as exc:
            reason = getattr(exc, "reason", None) or exc
            raise UnavailableError(f"cannot reach the server at {URL_VARIABLE}="
                                   f"{self.base_url} ({reason})") from None
        if raw and 200 <= status < 300:
            return body_bytes
        return self._answer(method, path, status, body_bytes, location)

    def _answer(self, method: str, path: str, status: int, raw: bytes,
                location: str | None) -> Any:
        try:
            payload = json.loads(raw) if raw else None
        except (ValueError, UnicodeDecodeError):
            payload = None
        where = f"{method} {self.base_url}{path}"
        if 200 <= status < 300:
            if payload is None:
                raise UnavailableError(f"{where}: {status} without JSON: is {URL_VARIABLE} "
                                       "the address of a `gapsweep serve`?")
            return payload
        message = payload.get("error") if isinstance(payload, dict) else None
        if 300 <= status < 400:
            raise RefusedError(f"{where}: redirected ({status}) to {location}: set "
                               f"{URL_VARIABLE} to the address the server answers on")
        if message is None and not (isinstance(payload, dict) and "errors" in payload):
            raise UnavailableError(f"{where}: HTTP {status} that is not gapsweep's API: is "
                                   f"{URL_VARIABLE} the address of a `gapsweep serve`?")
        if status == 401:
            hint = (f"{TOKEN_VARIABLE} was refused" if self.token else
                    f"set {TOKEN_VARIABLE} to an API token (`gapsweep user token NAME` "
                    "where the server's database is)")
            raise RefusedError(f"the server refused the request (401: {message}): {hint}")
        if status == 403:
            hint = (f"{TOKEN_VARIABLE}'s user lacks the role for it" if self.token else
                    f"set {TOKEN_VARIABLE} to a token of a user whose role allows it")
            raise ForbiddenError(f"the server refused the request (403: {message}): {hint}")
        if status == 404:
            raise NotFoundError(message)
        if status == 422 and isinstance(payload, dict) and isinstance(payload.get("errors"), list):
            from gapsweep.study.errors import FieldError, SpecError

            raise SpecError([FieldError(str(e.get("field")), e.get("value"), str(e.get("allowed")))
                             for e in payload["errors"] if isinstance(e, dict)]
                            or [FieldError("file", "?", "(the server gave no detail)")])
        if 400 <= status < 500:
            raise RefusedError(f"the server refused the request ({status}: {message})")
        raise UnavailableError(f"{where}: the server failed ({status}: {message})")


def spec_mapping(path: str | Path) -> dict[str, Any]:
    """The study file checked locally (its errors exit 2, as without ``GAPSWEEP_URL``) and
    its data as written: the mapping the file holds, not the spec with its defaults - with a
    calibration's ``measurement.file`` embedded (design.md 4.9: the server cannot read a
    file beside the study file on this machine)."""
    from gapsweep.study.measurement_files import embed_measurement
    from gapsweep.study.spec import load_spec_file, tomllib

    load_spec_file(path)  # raises SpecError with every problem, before anything is sent
    text = Path(path).read_text(encoding="utf-8")
    data = tomllib.loads(text) if Path(path).suffix.lower() == ".toml" else json.loads(text)
    return embed_measurement(data, Path(path).parent)


class RemoteArchive:
    """The archive behind a server's API: the operations of
    :class:`~.local.LocalArchive` the API offers, with the same answers; the server checks
    the token's role."""

    def __init__(self, client: ApiClient) -> None:
        self.client = client

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> RemoteArchive:
        return cls(ApiClient.from_env(env))

    def _with_id(self, study_id: int, method: str, path: str, **kw: Any) -> Any:
        try:
            return self.client.request(method, path, {} if method == "POST" else None, **kw)
        except NotFoundError:
            raise UnknownIdError(study_id) from None

    def database_only(self, operation: str) -> RefusedError:
        """The refusal of an operation the API does not offer (raise it)."""
        return RefusedError(
            f"`gapsweep {operation}` works on a database, and {URL_VARIABLE} is set "
            f"({self.client.base_url}): the server's API has no such call. Run it where the "
            f"server's database is, without {URL_VARIABLE}")

    # --- reading ---------------------------------------------------------------------------

    def exists(self, study_id: int) -> bool:
        try:
            self.progress(study_id)
        except UnknownIdError:
            return False
        return True

    def listing(self, *, search: str | None = None, tag: str | None = None,
                limit: int = 50) -> dict[str, Any]:
        return self.client.get("/api/studies", search=search, tag=tag, limit=limit)

    def studies(self, *, search: str | None = None, tag: str | None = None,
                limit: int = 50) -> list[dict[str, Any]]:
        return self.listing(search=search, tag=tag, limit=limit)["items"]

    def study(self, study_id: int) -> dict[str, Any]:
        """The whole study: the API's first page and every page after it (design.md 4.16)."""
        head = self._with_id(study_id, "GET", f"/api/studies/{study_id}")
        for key, link in (("cases", "next"), ("twins", "twins_next")):
            for page in self._pages(study_id, head.get(link)):
                head[key].extend(page)
        from .streaming import PAGING_KEYS

        return {k: v for k, v in head.items() if k not in PAGING_KEYS}

    def _pages(self, study_id: int, link: str | None) -> Iterator[list[dict[str, Any]]]:
        while link:
            page = self._with_id(study_id, "GET", link)
            link = page.get("next")
            yield page["items"]

    def study_json(self, study_id: int) -> Iterator[str]:
        """``gapsweep show --json``'s text in pieces, a page of cases at a time."""
        from .streaming import study_json_chunks

        head = self._with_id(study_id, "GET", f"/api/studies/{study_id}")
        return study_json_chunks(head, {
            "cases": lambda: self._pages(study_id, head.get("next")),
            "twins": lambda: self._pages(study_id, head.get("twins_next"))})

    def progress(self, study_id: int) -> dict[str, int]:
        # the progress route: a few bytes whatever the study's size, where the detail
        # carries every case's parameters and metrics
        return self.progress_report(study_id)["counts"]

    def progress_report(self, study_id: int) -> dict[str, Any]:
        """The progress route's answer (``status``, ``counts``; ``generation`` and
        ``generations`` for an adaptive study)."""
        return self._with_id(study_id, "GET", f"/api/studies/{study_id}/progress")

    def cases(self, study_id: int, columns: list[str] | None = None, *,
              parquet: str | Path | None = None, chunk: int | None = None) -> pd.DataFrame:
        """The server's ``cases.csv`` (the columns of ``gapsweep export``, or only
        ``columns`` of them) as a DataFrame indexed by ``case_id``, parsed ``chunk`` rows at
        a time; ``parquet``: also written there."""
        import io

        import pandas as pd

        from .frames import CASE_ID

        raw = self._with_id(study_id, "GET", f"/api/studies/{study_id}/cases.csv", raw=True)
        wanted = None if columns is None else [*columns, CASE_ID]
        try:
            reader = pd.read_csv(io.BytesIO(raw), usecols=wanted, chunksize=chunk or 1000)
            frame = pd.concat(list(reader), ignore_index=True)
        except ValueError as exc:
            raise ValueError(f"columns: {columns!r} — {exc}") from None
        frame = frame.set_index(CASE_ID)
        if parquet is not None:
            frame.to_parquet(parquet)
        return frame

    def export_rows(self, study_id: int) -> tuple[list[str], list[dict[str, Any]]]:
        raise self.database_only("export")

    def export_pages(self, study_id: int) -> tuple[list[str], Iterator[list[dict[str, Any]]]]:
        raise self.database_only("export")

    # --- creating and following ------------------------------------------------------------

    def submit(self, spec: Any, *, plan: Any = None) -> int:
        """Send the study; its id. A file is checked here first (its errors before anything
        is sent) and its own data posted; a mapping or a spec goes as it is."""
        from gapsweep.study.spec import StudySpec

        if isinstance(spec, (str, Path)):
            data = spec_mapping(spec)
        elif isinstance(spec, StudySpec):
            data = spec.to_dict()
        else:
            data = dict(spec)
        return int(self.client.post("/api/studies", data)["id"])

    def wait(self, study_id: int, timeout_s: float | None = None,
             progress: Callable[[dict[str, int]], None] | None = None) -> bool:
        """Follow the study's progress until it has ended (True; an adaptive study when its
        search has, :func:`~.following.has_ended`); False on timeout. The server's workers
        (and its reconciler) do the work."""
        from .following import follow_study

        return follow_study(lambda: self.progress_report(study_id), poll_s=POLL_S,
                            timeout_s=timeout_s, progress=progress)

    # --- changing --------------------------------------------------------------------------

    def cancel(self, study_id: int) -> dict[str, Any]:
        """``{"id", "cancelled"}``: the queued cases cancelled."""
        return self._with_id(study_id, "POST", f"/api/studies/{study_id}/cancel")

    def retry(self, study_id: int) -> dict[str, Any]:
        """``{"id", "retried", "case_ids"}``: the failed cases queued again (the server
        sends them)."""
        return self._with_id(study_id, "POST", f"/api/studies/{study_id}/retry")

    def delete(self, study_id: int) -> None:
        raise self.database_only("delete")

    @property
    def starts_workers(self) -> bool:
        return False  # the server's workers run its studies

    def run(self, spec: Any, *, concurrency: int | None = None,
            progress: Callable[[dict[str, int]], None] | None = None,
            announce: Callable[[str], None] | None = None) -> int:
        """Submit the study and follow it while the server's workers run it; its id."""
        say = announce or (lambda _text: None)
        if concurrency is not None:
            say(f"--concurrency ignored: the workers of {self.client.base_url} run the study")
        study_id = self.submit(spec)
        say(f"study {study_id} submitted to {self.client.base_url}")
        self.wait(study_id, None, progress)
        return study_id

    # --- what the API does not offer: notes, users, tokens, the audit log -------------------

    def set_notes(self, study_id: int, *, description: str, tags: list[str]
                  ) -> dict[str, Any]:
        raise self.database_only("notes")

    def users(self) -> list[dict[str, Any]]:
        raise self.database_only("user list")

    def add_user(self, name: str, role: str, password: str) -> None:
        raise self.database_only("user add")

    def set_role(self, name: str, role: str) -> str:
        raise self.database_only("user role")

    def set_disabled(self, name: str, disabled: bool) -> None:
        raise self.database_only("user disable")

    def set_password(self, name: str, password: str) -> None:
        raise self.database_only("user password")

    def tokens(self, name: str) -> list[dict[str, Any]]:
        raise self.database_only("token list")

    def create_token(self, name: str, label: str = "") -> tuple[int, str]:
        raise self.database_only("token create")

    def revoke_token(self, name: str, token_id: int) -> None:
        raise self.database_only("token revoke")

    def audit_log(self, limit: int = 100) -> list[dict[str, Any]]:
        raise self.database_only("audit")

    def purge(self) -> dict[str, int]:
        raise self.database_only("purge")

    # --- measured records (design.md 4.9) --------------------------------------------------

    def add_measurement(self, study_id: int, csv: str | bytes, *, name: str = "",
                        case_id: int | None = None, where: str = "file") -> dict[str, Any]:
        """Post the record; the server parses it (its errors name the body's ``csv``, not
        ``where``) and checks the role."""
        if isinstance(csv, bytes):
            try:
                csv = csv.decode("utf-8-sig")
            except UnicodeDecodeError as exc:
                from gapsweep.study.errors import FieldError, SpecError

                raise SpecError([FieldError(where, "not UTF-8",
                                            f"a UTF-8 CSV file ({exc})")]) from None
        body = {"csv": csv, "name": name, "case_id": case_id}
        try:
            return self.client.post(f"/api/studies/{study_id}/measurements", body)
        except NotFoundError:
            raise UnknownIdError(study_id) from None

    def measurements(self, study_id: int) -> list[dict[str, Any]]:
        return self._with_id(study_id, "GET", f"/api/studies/{study_id}/measurements")["items"]

    def measurement(self, measurement_id: int) -> dict[str, Any]:
        try:
            return self.client.get(f"/api/measurements/{measurement_id}")
        except NotFoundError:
            raise UnknownIdError(measurement_id, "measurement") from None
