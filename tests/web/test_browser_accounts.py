"""Accounts in a real browser (Debian's chromium through Playwright) against ``gapsweep serve``
on 127.0.0.1 with accounts on: an editor and a viewer are made with ``gapsweep user add``
before the server starts, on a free port and in a data folder of its own.

The root URL sends a stranger to the sign-in page; a wrong password shows the message and
gives no session; the editor signs in and the navbar names her and her role; a study whose
name, description and tags are markup (``<img onerror>``, ``<script>``) shows as text on the
archive and study pages - nothing runs, no such element exists; signing out returns to
/login and the old cookie opens nothing; a viewer pressing Cancel on the editor's study, or
Delete on the archive, is told "Not allowed" / "Not deleted" and the study's cases are as
they were. Screenshots go to ``tests/artifacts/``.

No worker runs: ``GAPSWEEP_BROKER_URL=memory://`` makes serve start none and the cases stay
queued, so "unchanged" is exact (the embedded default's local worker, with the kernels
cached in the tree, would run a study in seconds and then a finished study has no Cancel).

Skipped when chromium is missing, except with ``CI=true`` (then it fails).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from browsers import gapsweep_cli, launch_browser, open_page
from support.api import api_request
from support.serving import server_fixture

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "tests" / "artifacts"
START_S = 20  # serve answers (no worker to start)
UI_MS = 20_000  # one page or element to appear
PASSWORDS = {"eve": "eve's browser password", "vic": "vic's browser password"}
ROLES = {"eve": "editor", "vic": "viewer"}
XSS = '<img src=x onerror="window.__xss=1"><script>window.__xss=2</script>'
XSS_TAGS = ["<script>window.__xss=3</script>", "<b>bold</b>"]

pytestmark = pytest.mark.timeout(300)


def _make_accounts(env: dict) -> dict[str, str]:
    """``gapsweep user add`` for each user (the password on stdin), and an API token each
    (``gapsweep user token``, which prints it alone on stdout)."""
    tokens = {}
    for name, role in ROLES.items():
        gapsweep_cli(env, "user", "add", name, "--role", role, stdin=PASSWORDS[name] + "\n")
        tokens[name] = gapsweep_cli(env, "user", "token", name).strip()
        assert tokens[name].startswith("gsw_"), tokens[name]
    return tokens


def _accounts(data, env) -> dict:
    return {"tokens": _make_accounts(env)}


#: ``gapsweep serve`` with accounts on and no worker (the cases stay queued); its base URL
#: and the users' tokens
server = server_fixture("gapsweep-accounts", seed=_accounts, chromium=True, start_s=START_S,
                        GAPSWEEP_BROKER_URL="memory://")


@pytest.fixture(scope="module")
def browser(server):
    yield from launch_browser(server["chromium"], timeout=UI_MS)


@pytest.fixture
def page(browser):
    """A fresh browser context (no cookies) and its page; its console errors collected."""
    yield from open_page(browser, UI_MS)


@pytest.fixture(scope="module")
def markup_study(server) -> int:
    """The editor's study whose name, description and tags are markup, made through the
    API with her token."""
    spec = {"name": XSS, "description": XSS, "tags": XSS_TAGS, "ideal_twin": False,
            "series": "none", "axes": {"clearance_mm": {"values": [0.05, 0.1]}}}
    status, body = api_request(server["base"] + "/api/studies", token=server["tokens"]["eve"],
                               body=spec)
    assert status == 201, body
    return body["id"]


def shot(page, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def session_cookie(page) -> dict | None:
    return next((c for c in page.context.cookies() if c["name"] == "gapsweep_session"), None)


def sign_in(page, base: str, name: str, password: str | None = None):
    """Fill and send the sign-in form; the response of the POST."""
    page.goto(base + "/login")
    page.fill("#name", name)
    page.fill("#password", password or PASSWORDS[name])
    with page.expect_response(lambda r: r.url.endswith("/login")
                              and r.request.method == "POST") as answer:
        page.click("#sign-in")
    page.wait_for_load_state()
    return answer.value


def api_in_page(page, path: str) -> int:
    """The status of a GET the page's own cookies make (same origin, no token)."""
    return page.evaluate("p => fetch(p, {credentials: 'same-origin'}).then(r => r.status)", path)


def markup_elements(page) -> dict:
    """What the markup would have made, had it been HTML: the flag its handlers set, img
    elements with src "x" or an onerror, script and b elements that carry it."""
    return page.evaluate("""() => ({
        flag: typeof window.__xss,
        img: Array.from(document.querySelectorAll('img')).filter(
            e => e.getAttribute('src') === 'x' || e.hasAttribute('onerror')).length,
        script: Array.from(document.querySelectorAll('script')).filter(
            e => (e.textContent || '').includes('__xss')).length,
        bold: Array.from(document.querySelectorAll('b')).filter(
            e => e.textContent === 'bold').length,
    })""")


NOTHING_RAN = {"flag": "undefined", "img": 0, "script": 0, "bold": 0}


def cases(server, study_id: int) -> list[tuple[int, str]]:
    status, detail = api_request(f"{server['base']}/api/studies/{study_id}",
                                 token=server["tokens"]["eve"])
    assert status == 200, detail
    return [(c["id"], c["status"]) for c in detail["cases"] + detail.get("twins", [])]


# --- signing in ---------------------------------------------------------------------------

def test_the_root_sends_a_stranger_to_sign_in_and_a_wrong_password_opens_nothing(server, page):
    page.goto(server["base"] + "/")
    assert page.url == server["base"] + "/login?next=/"
    assert page.is_visible("#sign-in")
    assert session_cookie(page) is None
    answer = sign_in(page, server["base"], "eve", password="not eve's password")
    assert answer.status == 401
    assert page.inner_text("#login-message") == (
        "Wrong name or password (or the account is disabled).")
    assert page.input_value("#name") == "eve"  # kept; the password is not
    assert page.input_value("#password") == ""
    assert session_cookie(page) is None
    assert api_in_page(page, "/api/studies") == 401
    page.goto(server["base"] + "/studies/new")
    assert page.url == server["base"] + "/login?next=/studies/new"
    shot(page, "accounts-wrong-password")


def test_the_editor_signs_in_and_the_navbar_names_her(server, page):
    answer = sign_in(page, server["base"], "eve")
    assert answer.status == 302
    assert page.url == server["base"] + "/"
    page.wait_for_selector("#nav-user")
    assert page.inner_text("#nav-user") == "eve (editor)"
    cookie = session_cookie(page)
    assert cookie is not None and cookie["httpOnly"] and cookie["sameSite"] == "Lax"
    assert api_in_page(page, "/api/me") == 200
    me = page.evaluate("() => fetch('/api/me').then(r => r.json())")
    assert me == {"name": "eve", "role": "editor", "via": "session"}
    assert page.errors == []


# --- markup is text -----------------------------------------------------------------------

def test_markup_in_a_study_is_text_on_the_archive_page(server, page, markup_study):
    sign_in(page, server["base"], "eve")
    link = page.locator(f"#archive-table a[href='/studies/{markup_study}']")
    link.wait_for()
    assert link.inner_text() == XSS
    row = page.locator("#archive-table tr",
                       has=page.locator(f"a[href='/studies/{markup_study}']"))
    assert row.locator("td[data-dash-column='tags']").inner_text() == ", ".join(XSS_TAGS)
    page.wait_for_timeout(1000)  # an onerror would have fired by now
    assert markup_elements(page) == NOTHING_RAN
    shot(page, "accounts-archive-markup")
    assert page.errors == []


def test_markup_in_a_study_is_text_on_the_study_page(server, page, markup_study):
    sign_in(page, server["base"], "eve")
    page.goto(f"{server['base']}/studies/{markup_study}")
    heading = page.locator("h3", has_text=f"Study {markup_study}:")
    heading.wait_for()
    assert heading.inner_text() == f"Study {markup_study}: {XSS}"
    assert page.locator("p.text-muted", has_text="onerror").first.inner_text() == XSS
    badges = page.locator(".badge").all_inner_texts()
    assert [b for b in badges if b in XSS_TAGS] == XSS_TAGS
    assert page.inner_text("#study-owner") == "Owner: eve"
    assert XSS in page.inner_text("body")
    page.wait_for_timeout(1000)
    assert markup_elements(page) == NOTHING_RAN
    shot(page, "accounts-study-markup")
    assert page.errors == []
    # the check sees markup that is HTML: the same text inserted as HTML runs its onerror
    page.evaluate("html => document.body.insertAdjacentHTML('beforeend', html)", XSS)
    page.wait_for_function("() => window.__xss === 1")
    assert markup_elements(page) == {"flag": "number", "img": 1, "script": 1, "bold": 0}


# --- signing out --------------------------------------------------------------------------

def test_sign_out_returns_to_sign_in_and_the_old_cookie_opens_nothing(server, page):
    sign_in(page, server["base"], "eve")
    page.wait_for_selector("#nav-sign-out")
    old = session_cookie(page)
    assert old is not None
    cookie = f"gapsweep_session={old['value']}"
    assert api_request(server["base"] + "/api/studies", cookie=cookie)[0] == 200
    page.click("#nav-sign-out")
    page.wait_for_url(server["base"] + "/login")
    assert page.is_visible("#sign-in")
    assert session_cookie(page) is None
    status, body = api_request(server["base"] + "/api/studies", cookie=cookie)
    assert status == 401
    assert body == {"error": "sign in first (or send Authorization: Bearer <token>)"}
    page.goto(server["base"] + "/")
    assert page.url == server["base"] + "/login?next=/"
    assert page.errors == []


# --- a viewer may not change a study ------------------------------------------------------

@pytest.fixture
def editor_study(server) -> int:
    spec = {"name": "Editor's sweep", "ideal_twin": True, "series": "none",
            "axes": {"clearance_mm": {"values": [0.02, 0.05, 0.1]}}}
    status, body = api_request(server["base"] + "/api/studies", token=server["tokens"]["eve"],
                               body=spec)
    assert status == 201, body
    return body["id"]


def test_a_viewer_pressing_cancel_is_not_allowed_and_nothing_changes(server, page,
                                                                     editor_study):
    before = cases(server, editor_study)
    assert [s for _, s in before] == ["queued"] * 4  # 3 cases + 1 ideal twin
    sign_in(page, server["base"], "vic")
    page.wait_for_selector("#nav-user")
    assert page.inner_text("#nav-user") == "vic (viewer)"
    page.goto(f"{server['base']}/studies/{editor_study}")
    page.wait_for_selector("#study-status")
    assert page.is_enabled("#study-cancel")  # the server decides, not the button
    page.once("dialog", lambda d: d.accept())
    page.click("#study-cancel")
    message = page.locator("#study-action-message")
    message.locator("text=Not allowed").wait_for()
    assert message.inner_text().strip() == (
        f"Not allowed: viewer 'vic' may not cancel study {editor_study} (owned by eve).")
    shot(page, "accounts-viewer-cancel")
    page.wait_for_timeout(2000)  # a poll or two: nothing moves
    assert page.inner_text("#study-status").strip() == "queued"
    assert cases(server, editor_study) == before
    assert page.errors == []


def test_a_viewer_pressing_delete_on_the_archive_deletes_nothing(server, page, editor_study):
    before = cases(server, editor_study)
    sign_in(page, server["base"], "vic")
    row = page.locator("#archive-table tr",
                       has=page.locator(f"a[href='/studies/{editor_study}']"))
    row.wait_for()
    row.locator("input[type='checkbox']").check()
    page.once("dialog", lambda dialog: dialog.accept())  # the "Delete the selected?" confirm
    page.click("#archive-delete")
    message = page.locator("#archive-message")
    message.locator("text=Not deleted").wait_for()
    assert message.inner_text() == (f"Deleted 0 studies. Not deleted: viewer 'vic' may not "
                                    f"delete study {editor_study} (owned by eve).")
    shot(page, "accounts-viewer-delete")
    status, detail = api_request(f"{server['base']}/api/studies/{editor_study}",
                                 token=server["tokens"]["vic"])
    assert status == 200 and detail["id"] == editor_study  # still there, for a viewer too
    assert cases(server, editor_study) == before
    assert page.errors == []
