"""The HTTP API of a served app as the tests call it: one request (:func:`api_request`), a
GET or POST that must succeed (:func:`get_json`, :func:`post_json`) and a study followed
until a condition holds (:func:`wait_done`). Standard library only, so a test talks to the
server as any client does."""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from collections.abc import Callable

import pytest

#: a first-start kernel compile (~2.5 min on a loaded 2-core machine) and a small study
STUDY_S = 420.0


def api_request(url: str, *, token: str | None = None, cookie: str | None = None,
                body: dict | None = None, timeout: float = 10.0) -> tuple[int, dict]:
    """GET ``url`` (POST ``body`` as JSON if given), with a bearer ``token`` or a ``cookie``;
    the status and the JSON answer (an error's too: ``{}`` when it has no body)."""
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    if cookie:
        headers["Cookie"] = cookie
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, headers=headers,
                                 method="GET" if body is None else "POST")
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as exc:
        with exc:  # its response, closed (else a ResourceWarning when collected)
            return exc.code, json.loads(exc.read() or b"{}")


def get_json(url: str, *, token: str | None = None, timeout: float = 20.0) -> dict:
    """The JSON of a GET that must answer 200 (else the test fails with the answer)."""
    status, answer = api_request(url, token=token, timeout=timeout)
    assert status == 200, f"GET {url}: {status} {str(answer)[:2000]}"
    return answer


def post_json(url: str, body: dict, *, token: str | None = None,
              timeout: float = 30.0) -> dict:
    """The JSON of a POST of ``body`` that must succeed (2xx)."""
    status, answer = api_request(url, token=token, body=body, timeout=timeout)
    assert 200 <= status < 300, f"POST {url}: {status} {str(answer)[:2000]}"
    return answer


def ended(detail: dict) -> bool:
    """The study runs no more (done, cancelled or failed)."""
    return detail.get("status") in ("done", "cancelled", "failed")


def wait_done(base: str, study_id: int, *, until: Callable[[dict], bool] = ended,
              token: str | None = None, timeout_s: float = STUDY_S,
              poll_s: float = 0.5) -> dict:
    """``GET /api/studies/<id>`` of the server at ``base`` (with ``token``) every ``poll_s``
    until ``until(detail)`` holds: that detail. The test fails after ``timeout_s`` with the
    study's status and counts as last seen."""
    deadline = time.monotonic() + timeout_s
    while True:
        detail = api_request(f"{base}/api/studies/{study_id}", token=token)[1]
        if until(detail):
            return detail
        if time.monotonic() > deadline:
            pytest.fail(f"study {study_id} not done after {timeout_s} s: "
                        f"{ {k: detail.get(k) for k in ('status', 'counts')} }")
        time.sleep(poll_s)
