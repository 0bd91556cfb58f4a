"""Accounts on the web app and the API (issue 11), through HTTP as a browser or a script
would send it: the role matrix of every state-changing route and Dash callback, CSRF, the
sign-in limiter, sign-out, expiry, and the open routes once accounts are on.

Each request of the matrix is checked for its exact status and for what it changed: a
denied one must leave every table's row count and every case's status as they were, an
allowed one must make exactly its change and its audit record. Every table counts: the list
is the models' metadata, so a table added later is counted without touching this file. The
whole module runs on SQLite and on PostgreSQL (one database for the module, emptied before
each test).
"""

from __future__ import annotations

import dataclasses
import time

import pytest
from account_fixtures import PASSWORD, callback_body
from archive_fixtures import find, make_archive, page, preset
from gapsweep.db.engine import open_database
from gapsweep.db.models import Base
from sqlalchemy import func, inspect, select, table, text
from support.database_fixtures import create_postgres_database, drop_postgres_database  # noqa: E402

# every table of the schema, from the models (results, series, web_sessions, study_tags ...)
TABLES = tuple(t.name for t in Base.metadata.sorted_tables)
# who asks, by how they prove it; "owner" is eve, who owns the study under test
CREDENTIALS = ("none", "expired-session", "revoked-token", "disabled-token",
               "viewer", "other-editor", "owner", "admin")
BY_TOKEN = {"viewer": "vic", "other-editor": "ed", "owner": "eve", "admin": "ada",
            "disabled-token": "dan"}
# the allowed outcome of each change for each credential
MAY_CREATE = {"viewer": 403, "other-editor": 201, "owner": 201, "admin": 201}
MAY_CHANGE_OWN = {"viewer": 403, "other-editor": 403, "owner": 200, "admin": 200}
UNAUTHENTICATED = ("none", "expired-session", "revoked-token", "disabled-token")


@pytest.fixture(scope="module")
def postgres_url():
    """One PostgreSQL database for the module (migrated once, dropped at the end)."""
    url = create_postgres_database()
    try:
        open_database(url).kw["bind"].dispose()  # the schema at head
        yield url
    finally:
        drop_postgres_database(url)


@pytest.fixture(params=["sqlite", "postgresql"])
def archive(request, tmp_path, monkeypatch):
    """The ``archive`` of archive_fixtures over a fresh SQLite file, or over the module's
    PostgreSQL database emptied (every table, ids restarted) - a fresh archive either way."""
    if request.param == "sqlite":
        arch = make_archive(tmp_path, monkeypatch)
    else:
        url = request.getfixturevalue("postgres_url")
        engine = open_database(url).kw["bind"]
        try:
            with engine.begin() as conn:
                names = ", ".join(engine.dialect.identifier_preparer.quote(t) for t in TABLES)
                conn.execute(text(f"TRUNCATE {names} RESTART IDENTITY CASCADE"))
        finally:
            engine.dispose()
        arch = make_archive(tmp_path, monkeypatch, url)
    try:
        yield arch
    finally:
        arch.sessions.kw["bind"].dispose()  # no connection left to block the next TRUNCATE


def snapshot(archive) -> dict:
    """Every table's row count, each case's status and each study's deletion time."""
    with archive.sessions() as s:
        counts = {t: s.scalar(select(func.count()).select_from(table(t))) for t in TABLES}
        statuses = dict(s.execute(text("SELECT id, status FROM cases")).all())
        deleted = dict(s.execute(text("SELECT id, deleted_at FROM studies")).all())
    return {"counts": counts, "statuses": statuses, "deleted": deleted}


def test_the_snapshot_counts_every_table_of_the_database(archive):
    with archive.sessions() as s:
        present = set(inspect(s.get_bind()).get_table_names()) - {"alembic_version"}
    assert set(TABLES) == present
    assert {"studies", "cases", "results", "series", "web_sessions", "study_tags", "users",
            "api_tokens", "audit_events", "login_failures"} <= set(TABLES)
    # a change in any one table shows: a sign-in adds a web session, nothing else
    before = snapshot(archive)
    from account_fixtures import make_accounts

    accounts = make_accounts(archive)
    middle = snapshot(archive)
    accounts.sign_in("eve")
    after = snapshot(archive)
    changed = {t for t in TABLES if after["counts"][t] != middle["counts"][t]}
    assert changed == {"web_sessions"}
    assert middle["counts"]["users"] == before["counts"]["users"] + 5


def owned_study(archive, owner: str, *, failed: bool = True) -> int:
    """A study of ``owner`` with its first case failed (so retry has work), the rest queued."""
    from gapsweep.study.spec import parse_spec
    from gapsweep.workers.submit import create_study_rows

    study_id = create_study_rows(parse_spec(preset()), sessions=archive.sessions, owner=owner)
    if failed:
        archive.run(archive.case_ids(study_id, "case")[:1], fail=set(
            archive.case_ids(study_id, "case")[:1]))
    return study_id


def client_for(accounts, who: str):
    """A test client with ``who``'s credentials and the headers to send them."""
    archive = accounts.archive
    if who == "none":
        return archive.client(), {}
    if who == "expired-session":
        client, csrf = accounts.sign_in("eve")
        accounts.expire_sessions()
        return client, {"X-CSRFToken": csrf}
    if who == "revoked-token":
        return archive.client(), {"Authorization": f"Bearer {accounts.revoked}"}
    return archive.client(), accounts.bearer(BY_TOKEN[who])


def audit_rows(archive) -> list[tuple]:
    from gapsweep.db.models import AuditEvent

    with archive.sessions() as s:
        return [tuple(r) for r in s.execute(
            select(AuditEvent.actor, AuditEvent.action, AuditEvent.target)
            .order_by(AuditEvent.id))]


# --- the JSON API -------------------------------------------------------------------------

@pytest.mark.parametrize("who", CREDENTIALS)
def test_create_study_role_matrix(archive, accounts, who):
    client, headers = client_for(accounts, who)
    before = snapshot(archive)
    r = client.post("/api/studies", json=preset(), headers=headers)
    expected = 401 if who in UNAUTHENTICATED else MAY_CREATE[who]
    assert r.status_code == expected, r.get_data(as_text=True)
    after = snapshot(archive)
    if expected == 201:
        assert after["counts"]["studies"] == before["counts"]["studies"] + 1
        assert after["counts"]["cases"] == before["counts"]["cases"] + 16
        detail = client.get(f"/api/studies/{r.get_json()['id']}", headers=headers).get_json()
        assert detail["owner"] == BY_TOKEN[who]
    else:
        assert after == before
        assert archive.sent == []


@pytest.mark.parametrize("who", CREDENTIALS)
def test_attach_a_measurement_role_matrix(archive, accounts, who):
    """Attaching a rig's record edits the study: its owner or an admin, audited."""
    study_id = owned_study(archive, "eve", failed=False)
    client, headers = client_for(accounts, who)
    before, audit_before = snapshot(archive), audit_rows(archive)
    r = client.post(f"/api/studies/{study_id}/measurements?name=rig.csv", headers=headers,
                    data="time_s,slider_acceleration\n0,1.5\n0.001,-2\n", content_type="text/csv")
    expected = 401 if who in UNAUTHENTICATED else {**MAY_CHANGE_OWN, "owner": 201,
                                                   "admin": 201}[who]
    assert r.status_code == expected, r.get_data(as_text=True)
    after = snapshot(archive)
    if expected != 201:
        assert after == before
        return
    assert after["counts"]["measurements"] == before["counts"]["measurements"] + 1
    assert audit_rows(archive) == [*audit_before,
                                   (BY_TOKEN[who], "study.measure", f"study:{study_id}")]


@pytest.mark.parametrize("verb", ["cancel", "retry"])
@pytest.mark.parametrize("who", CREDENTIALS)
def test_cancel_and_retry_role_matrix(archive, accounts, who, verb):
    study_id = owned_study(archive, "eve")
    client, headers = client_for(accounts, who)
    before, audit_before = snapshot(archive), audit_rows(archive)
    r = client.post(f"/api/studies/{study_id}/{verb}", headers=headers)
    expected = 401 if who in UNAUTHENTICATED else MAY_CHANGE_OWN[who]
    assert r.status_code == expected, r.get_data(as_text=True)
    after = snapshot(archive)
    if expected != 200:
        assert after == before
        return
    cases = archive.case_ids(study_id)
    if verb == "cancel":  # 15 cases + 1 twin, one of them failed: 15 queued ones cancelled
        assert r.get_json()["cancelled"] == 15
        assert sorted(after["statuses"][c] for c in cases) == ["cancelled"] * 15 + ["failed"]
    else:
        assert r.get_json()["retried"] == 1
        assert sorted(after["statuses"][c] for c in cases) == ["queued"] * 16
    actor = BY_TOKEN[who]
    assert audit_rows(archive) == [*audit_before, (actor, f"study.{verb}", f"study:{study_id}")]


def test_admin_may_change_a_study_nobody_owns_and_an_editor_may_not(archive, accounts):
    study_id = owned_study(archive, None, failed=False)  # made on the command line
    client = archive.client()
    assert client.post(f"/api/studies/{study_id}/cancel",
                       headers=accounts.bearer("eve")).status_code == 403
    r = client.post(f"/api/studies/{study_id}/cancel", headers=accounts.bearer("ada"))
    assert r.status_code == 200 and r.get_json()["cancelled"] == 16


def test_every_read_route_needs_credentials_once_accounts_exist(archive, accounts):
    study_id = owned_study(archive, "eve")
    case_id = archive.case_ids(study_id)[0]
    client = archive.client()
    routes = ["/api/health", "/api/studies", f"/api/studies/{study_id}",
              f"/api/studies/{study_id}/cases.csv", f"/api/cases/{case_id}",
              f"/api/studies/{study_id}/progress", f"/api/cases/{case_id}/series", "/api/me",
              "/api/audit", "/_dash-layout",
              "/_dash-dependencies"]
    for path in routes:
        r = client.get(path)
        assert r.status_code == 401, path
        assert "error" in r.get_json(), path
    for path in ["/", "/studies/new", f"/studies/{study_id}", f"/cases/{case_id}", "/compare"]:
        r = client.get(path)
        assert r.status_code == 302, path
        assert r.headers["Location"] == f"/login?next={path}", path
    # a viewer reads everything except the audit log
    for path in routes:
        r = client.get(path, headers=accounts.bearer("vic"))
        assert r.status_code == (403 if path == "/api/audit" else 200), path


def test_audit_log_records_who_did_what(archive, accounts):
    study_id = owned_study(archive, "eve")
    client = archive.client()
    client.post(f"/api/studies/{study_id}/cancel", headers=accounts.bearer("ada"))
    items = client.get("/api/audit", headers=accounts.bearer("ada")).get_json()["items"]
    assert [(i["actor"], i["action"], i["target"]) for i in items] == [
        ("ada", "study.cancel", f"study:{study_id}")]
    assert items[0]["detail"] == {"cancelled": 15, "via": "token"}


# --- the Dash callbacks, over HTTP as the renderer posts them -----------------------------

def callback_call(accounts, who: str, output_part: str, values: dict):
    """A function that POSTs one callback as Dash's renderer would for ``who`` (a signed-in
    browser: session cookie and X-CSRFToken; the matrix's unauthenticated credentials as
    they come). The sign-ins happen here, so a snapshot taken between this and the call
    sees only what the call changed (web_sessions included)."""
    # the dependency list itself is behind the guard: read it as an admin
    reader, _ = accounts.sign_in("ada")
    payload = callback_body(reader, output_part, values)
    if who in ("viewer", "other-editor", "owner", "admin"):
        client, csrf = accounts.sign_in(BY_TOKEN[who])
        headers = {"X-CSRFToken": csrf}
    else:
        client, headers = client_for(accounts, who)
    return lambda: client.post("/_dash-update-component", json=payload, headers=headers)


def _callback_outcome(r) -> str:
    """'denied' (the guard), 'refused' (the callback's role check) or 'done'."""
    if r.status_code in (401, 403):
        return "denied"
    assert r.status_code == 200, r.get_data(as_text=True)
    body = r.get_data(as_text=True)
    return "refused" if "Not allowed" in body else "done"


@pytest.mark.parametrize("who", CREDENTIALS)
def test_study_page_cancel_callback_role_matrix(archive, accounts, who):
    study_id = owned_study(archive, "eve")
    call = callback_call(accounts, who, "study-action-message.children",
                         {("study-cancel-confirm", "submit_n_clicks"): 1,
                          ("study-id", "data"): study_id})
    before = snapshot(archive)
    r = call()
    outcome = _callback_outcome(r)
    allowed = {"owner": "done", "admin": "done"}
    assert outcome == ("denied" if who in UNAUTHENTICATED else allowed.get(who, "refused"))
    after = snapshot(archive)
    if outcome == "done":
        assert sum(s == "cancelled" for s in after["statuses"].values()) == 15
    else:
        assert after == before


@pytest.mark.parametrize("who", CREDENTIALS)
def test_archive_delete_callback_role_matrix(archive, accounts, who):
    study_id = owned_study(archive, "eve", failed=False)
    rows = [{"id": study_id, "name": "x"}]
    call = callback_call(accounts, who, "archive-message.children", {
        ("archive-delete-confirm", "submit_n_clicks"): 1,
        ("archive-table", "selected_rows"): [0], ("archive-table", "data"): rows,
        ("archive-refresh", "data"): 0})
    before = snapshot(archive)
    r = call()
    if who in UNAUTHENTICATED:
        assert r.status_code in (401, 403)
        assert snapshot(archive) == before
        return
    assert r.status_code == 200, r.get_data(as_text=True)
    body = r.get_data(as_text=True)
    after = snapshot(archive)
    if who in ("owner", "admin"):
        assert "Deleted 1 study." in body
        assert after["deleted"][study_id] is not None
        assert audit_rows(archive)[-1] == (BY_TOKEN[who], "study.delete", f"study:{study_id}")
    else:
        assert "Deleted 0 studies. Not deleted:" in body and "may not delete" in body
        assert after == before


@pytest.mark.parametrize("who", CREDENTIALS)
def test_new_study_submit_callback_role_matrix(archive, accounts, who):
    with archive.app.server.test_request_context():
        module = page("new_study")
        layout = module.layout()
    values = {(cid, prop): getattr(find(layout, cid), prop) for _, cid, prop in module.FIELDS}
    values[("new-submit", "n_clicks")] = 1
    call = callback_call(accounts, who, "new-redirect.pathname", values)
    before = snapshot(archive)
    r = call()
    if who in UNAUTHENTICATED:
        assert r.status_code in (401, 403)
        assert snapshot(archive) == before
        return
    assert r.status_code == 200, r.get_data(as_text=True)
    after = snapshot(archive)
    if who == "viewer":
        assert "Not allowed" in r.get_data(as_text=True)
        assert after == before
    else:
        assert after["counts"]["studies"] == before["counts"]["studies"] + 1


# --- CSRF, cross-site requests, sign-in and sign-out ------------------------------------

def test_state_changing_requests_without_the_csrf_token_are_refused(archive, accounts):
    study_id = owned_study(archive, "eve")
    client, csrf = accounts.sign_in("eve")
    before = snapshot(archive)
    for headers in ({}, {"X-CSRFToken": "wrong"}, {"X-CSRFToken": ""}):
        r = client.post(f"/api/studies/{study_id}/cancel", headers=headers)
        assert r.status_code == 403, headers
        assert "CSRF" in r.get_json()["error"]
        r = client.post("/api/studies", json=preset(), headers=headers)
        assert r.status_code == 403
    payload = {"output": "x.children", "outputs": {"id": "x", "property": "children"},
               "inputs": [], "changedPropIds": []}
    assert client.post("/_dash-update-component", json=payload).status_code == 403
    assert snapshot(archive) == before
    # the same request with the token goes through
    r = client.post(f"/api/studies/{study_id}/cancel", headers={"X-CSRFToken": csrf})
    assert r.status_code == 200


def test_cross_site_posts_are_refused_even_without_accounts(archive):
    study_id = archive.create()
    before = snapshot(archive)
    r = archive.client().post(f"/api/studies/{study_id}/cancel",
                              headers={"Origin": "https://evil.example"})
    assert r.status_code == 403
    assert snapshot(archive) == before
    r = archive.client().post(f"/api/studies/{study_id}/cancel",
                              headers={"Origin": "http://localhost"})
    assert r.status_code == 200  # the test client's own host


def test_login_form_without_its_csrf_token_is_refused(archive, accounts):
    client = archive.client()
    client.get("/login")
    r = client.post("/login", data={"name": "eve", "password": PASSWORD})
    assert r.status_code == 403
    assert client.get_cookie("gapsweep_session") is None


def test_session_cookie_flags_and_sign_out(archive, accounts):
    client = archive.client()
    form = client.get("/login").get_data(as_text=True)
    csrf = form.split('name="csrf_token" value="')[1].split('"')[0]
    r = client.post("/login", data={"name": "eve", "password": PASSWORD, "csrf_token": csrf,
                                    "next": "//evil.example/x"})
    assert r.headers["Location"] == "/"  # no open redirect
    cookie = next(h for h in r.headers.getlist("Set-Cookie") if h.startswith("gapsweep_session="))
    assert "HttpOnly" in cookie and "SameSite=Lax" in cookie and "Secure" not in cookie
    csrf_cookie = next(h for h in r.headers.getlist("Set-Cookie") if h.startswith("_csrf_token="))
    assert "HttpOnly" not in csrf_cookie  # Dash's renderer must read it
    assert client.get("/api/me").status_code == 200
    session_value = client.get_cookie("gapsweep_session").value
    r = client.post("/logout", data={"csrf_token": client.get_cookie("_csrf_token").value})
    assert r.status_code == 302 and r.headers["Location"] == "/login"
    # the old cookie, replayed, opens nothing: the session is gone server-side
    replay = archive.client()
    replay.set_cookie("gapsweep_session", session_value)
    assert replay.get("/api/me").status_code == 401


def test_secure_cookie_over_https(archive, accounts):
    client = archive.client()
    form = client.get("/login", base_url="https://localhost").get_data(as_text=True)
    csrf = form.split('name="csrf_token" value="')[1].split('"')[0]
    r = client.post("/login", base_url="https://localhost",
                    data={"name": "eve", "password": PASSWORD, "csrf_token": csrf})
    cookie = next(h for h in r.headers.getlist("Set-Cookie") if h.startswith("gapsweep_session="))
    assert "Secure" in cookie


def test_disabling_a_user_ends_their_session_at_once(archive, accounts):
    from gapsweep.db import accounts as repo

    client, _ = accounts.sign_in("ed")
    assert client.get("/api/me").status_code == 200
    with archive.sessions.begin() as s:
        repo.set_disabled(s, name="ed", disabled=True)
    assert client.get("/api/me").status_code == 401
    assert archive.client().get("/api/me", headers=accounts.bearer("ed")).status_code == 401


def _attempt(client, name: str, password: str):
    form = client.get("/login").get_data(as_text=True)
    csrf = form.split('name="csrf_token" value="')[1].split('"')[0]
    return client.post("/login", data={"name": name, "password": password,
                                       "csrf_token": csrf})


def test_the_limiter_locks_an_account_after_five_failures_and_reopens_after_the_window(
        archive, accounts):
    from gapsweep.accounts.login_limiter import ACCOUNT_LIMIT

    window = 3.0  # GAPSWEEP_LOGIN_WINDOW_S, as a test shortens it
    server = archive.app.server
    ctx = server.extensions["gapsweep"]
    server.extensions["gapsweep"] = dataclasses.replace(
        ctx, settings=dataclasses.replace(ctx.settings, login_window_s=window))
    client = archive.client()
    for i in range(ACCOUNT_LIMIT):
        r = _attempt(client, "eve", f"wrong-{i}")
        # the first failure is recorded before its answer: the lock ends at most a window
        # after this (timing from before the attempt failed on a loaded machine)
        if i == 0:
            first_answered = time.monotonic()
        assert r.status_code == 401, i
        assert "Wrong name or password" in r.get_data(as_text=True)
    # locked: even the right password is refused, and not checked
    r = _attempt(client, "eve", PASSWORD)
    assert r.status_code == 429
    assert int(r.headers["Retry-After"]) >= 1
    assert client.get_cookie("gapsweep_session") is None
    # another account from the same address is not locked (5 < the address limit of 20)
    assert _attempt(archive.client(), "ed", PASSWORD).status_code == 302
    time.sleep(max(0.0, window - (time.monotonic() - first_answered)) + 0.2)
    r = _attempt(client, "eve", PASSWORD)
    assert r.status_code == 302
    assert client.get("/api/me").get_json()["name"] == "eve"


def test_the_limiter_locks_an_address_that_guesses_many_accounts(archive, accounts):
    from gapsweep.accounts.login_limiter import ADDRESS_LIMIT

    client = archive.client()
    for i in range(ADDRESS_LIMIT):
        assert _attempt(client, f"nobody{i}", "guess-guess").status_code == 401
    # the 21st guess, even of a real account with its right password, waits for the window
    assert _attempt(client, "vic", PASSWORD).status_code == 429
    other = archive.client()
    other.environ_base["REMOTE_ADDR"] = "10.0.0.9"
    assert _attempt(other, "vic", PASSWORD).status_code == 302


def test_wrong_and_unknown_names_answer_alike(archive, accounts):
    a = _attempt(archive.client(), "eve", "wrong-password")
    b = _attempt(archive.client(), "no-such-user", "wrong-password")
    c = _attempt(archive.client(), "dan", PASSWORD)  # disabled
    assert a.status_code == b.status_code == c.status_code == 401
    assert all("Wrong name or password" in r.get_data(as_text=True) for r in (a, b, c))


def test_the_new_study_page_tells_a_viewer_they_cannot_submit(archive, accounts):
    from archive_fixtures import component_ids

    for name, shown in (("vic", True), ("eve", False), ("ada", False)):
        with archive.request(headers=accounts.bearer(name)):
            layout = page("new_study").layout()
        assert ("new-role-notice" in component_ids(layout)) is shown, name
