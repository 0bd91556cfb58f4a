"""The web app as deployed (issue 16): the public liveness route, the trusted proxy hops
(``GAPSWEEP_PROXY_HOPS``) that make the session cookie Secure behind a TLS proxy, and the
WSGI entry (sign-in required, the first admin from ``GAPSWEEP_ADMIN_PASSWORD``)."""

from __future__ import annotations

import re

import pytest
from gapsweep.accounts import login_limiter
from gapsweep.accounts.passwords import hash_password
from gapsweep.db import accounts as repo
from gapsweep.db.models import AuditEvent, LoginFailure, User
from gapsweep.web import context
from gapsweep.web.app import create_app
from gapsweep.web.wsgi import production_server
from sqlalchemy import select

from gapsweep.settings import SettingsError, get_settings

PASSWORD = "correct horse battery"
TLS_PROXY = {"X-Forwarded-Proto": "https", "X-Forwarded-For": "203.0.113.7",
             "X-Forwarded-Host": "gapsweep.example"}


@pytest.fixture
def env(tmp_path, monkeypatch):
    monkeypatch.setenv("GAPSWEEP_DATA", str(tmp_path))
    for var in ("GAPSWEEP_DATABASE_URL", "GAPSWEEP_BROKER_URL", "GAPSWEEP_PROXY_HOPS",
                "GAPSWEEP_ADMIN_PASSWORD", "GAPSWEEP_ADMIN_USER"):
        monkeypatch.delenv(var, raising=False)
    return monkeypatch


def app_with_user(hops: int | None = None):
    """A web app (accounts on: user eve exists) trusting ``hops`` proxies; its Flask server."""
    settings = get_settings()
    if hops is not None:
        settings = get_settings({"GAPSWEEP_DATA": str(settings.data_dir),
                                 "GAPSWEEP_PROXY_HOPS": str(hops)})
    server = create_app(settings).server
    with server.extensions[context.EXTENSION].sessions.begin() as s:
        repo.add_user(s, name="eve", role="editor", password_hash=hash_password(PASSWORD))
    return server


def sign_in(server, headers: dict[str, str], password: str = PASSWORD):
    client = server.test_client()
    form = client.get("/login", headers=headers)
    csrf = re.search(r'name="csrf_token" value="([^"]+)"', form.get_data(as_text=True))[1]
    return client.post("/login", headers=headers, data={
        "name": "eve", "password": password, "csrf_token": csrf, "next": "/"})


def cookie_attributes(response, name: str) -> list[str]:
    header = next(h for h in response.headers.getlist("Set-Cookie") if h.startswith(name + "="))
    return [part.strip().lower() for part in header.split(";")]


def test_liveness_answers_without_credentials_and_says_nothing(env):
    server = app_with_user()
    client = server.test_client()
    live = client.get("/api/health/live")
    assert live.status_code == 200 and live.get_json() == {"status": "live"}
    # a wrong token does not turn it into a 401 (a healthcheck sends none, a probe may)
    wrong = client.get("/api/health/live", headers={"Authorization": "Bearer gsw_wrong"})
    assert wrong.status_code == 200 and wrong.get_json() == {"status": "live"}
    # the detailed health stays behind credentials, and nothing else is opened by the path
    assert client.get("/api/health").status_code == 401
    assert client.post("/api/health/live").status_code in (401, 405)
    assert client.get("/api/health/live/x").status_code == 401


@pytest.mark.parametrize("hops", [1, 0])
def test_behind_a_tls_proxy_the_session_cookie_is_secure(env, hops):
    server = app_with_user(hops)
    answer = sign_in(server, TLS_PROXY)
    assert answer.status_code == 302
    attributes = cookie_attributes(answer, "gapsweep_session")
    assert ("secure" in attributes) == (hops == 1)
    assert "httponly" in attributes and "samesite=lax" in attributes
    # the redirect after signing in is relative: it names no host at all, neither the public
    # one nor the internal one the app sees, so the browser stays on the host it asked,
    # trusted proxy or not
    assert answer.headers["Location"] == "/"


@pytest.mark.parametrize("hops", [1, 0])
def test_the_sign_in_limiter_counts_the_forwarded_client_only_behind_trusted_proxies(env, hops):
    server = app_with_user(hops)
    assert sign_in(server, TLS_PROXY, password="wrong").status_code == 401
    with server.extensions[context.EXTENSION].sessions() as s:
        keys = set(s.scalars(select(LoginFailure.key)))
    client = "203.0.113.7" if hops == 1 else "127.0.0.1"
    assert keys == {login_limiter.account_key("eve"), login_limiter.address_key(client)}


def test_a_cross_site_post_is_judged_by_the_forwarded_host(env):
    server = app_with_user(1)
    client = server.test_client()
    same = client.post("/api/studies", json={}, headers={
        **TLS_PROXY, "Origin": "https://gapsweep.example"})
    other = client.post("/api/studies", json={}, headers={
        **TLS_PROXY, "Origin": "https://evil.example"})
    assert same.status_code == 401  # not refused as cross-site: it lacks credentials only
    assert other.status_code == 403


def test_proxy_hops_must_be_a_count():
    with pytest.raises(SettingsError) as err:
        get_settings({"GAPSWEEP_PROXY_HOPS": "-1"})
    assert "GAPSWEEP_PROXY_HOPS" in str(err.value) and "'-1'" in str(err.value)
    assert get_settings({}).proxy_hops == 0


def test_the_wsgi_entry_requires_sign_in_even_before_any_user(env):
    server = production_server()
    client = server.test_client()
    assert client.get("/api/studies").status_code == 401
    page = client.get("/")
    assert page.status_code == 302 and page.headers["Location"].startswith("/login")
    with server.extensions[context.EXTENSION].sessions() as s:
        assert list(s.scalars(select(User.name))) == []


def test_a_worker_racing_for_the_first_admin_finds_it_and_boots(env):
    """Two gunicorn workers boot together: both see no user yet, one commits the admin first.
    Under read committed the loser's own insert then sees the winner's row (its name check
    answers, before any unique violation): it boots, it does not fail."""
    env.setenv("GAPSWEEP_ADMIN_PASSWORD", PASSWORD)
    first = production_server()
    from gapsweep.archive.local import LocalArchive
    env.setattr(LocalArchive, "accounts_exist", lambda self: False)
    env.setattr(repo, "accounts_exist", lambda session: False)
    second = production_server()  # raised AccountError before: the worker failed to boot
    assert second is not None
    with first.extensions[context.EXTENSION].sessions() as s:
        assert [u.name for u in s.scalars(select(User))] == ["admin"]
        assert len(list(s.scalars(select(AuditEvent)))) == 1


def test_the_wsgi_entry_creates_the_first_admin_once(env):
    env.setenv("GAPSWEEP_ADMIN_PASSWORD", PASSWORD)
    env.setenv("GAPSWEEP_ADMIN_USER", "root")
    first = production_server()
    production_server()  # a second gunicorn worker process: finds the admin, adds nothing
    with first.extensions[context.EXTENSION].sessions() as s:
        users = [(u.name, u.role) for u in s.scalars(select(User))]
        actions = [(e.action, e.target) for e in s.scalars(select(AuditEvent))]
    assert users == [("root", "admin")]
    assert actions == [("user.add", "user:root")]
    client = first.test_client()
    form = client.get("/login")
    csrf = re.search(r'name="csrf_token" value="([^"]+)"', form.get_data(as_text=True))[1]
    answer = client.post("/login", data={"name": "root", "password": PASSWORD,
                                         "csrf_token": csrf, "next": "/"})
    assert answer.status_code == 302
    assert client.get("/api/studies").status_code == 200
