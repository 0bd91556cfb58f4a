"""An open page whose sign-in ends sends the person to sign in again (issue 16), in chromium.

Against the ``gapsweep serve`` of tests/web/test_browser_accounts.py (its fixtures, a server
of this module's own): eve signs in and opens the archive with a query; her session is then
expired server-side (its row's ``expires`` set in the past, as ``GAPSWEEP_SESSION_S`` running
out would). The page's next callback (the search box) gets a 401, and instead of a page that
silently stops updating, the browser is at ``/login?next=<the page>``; signing in there
returns to that page.
"""

from __future__ import annotations

import contextlib
from datetime import timedelta
from urllib.parse import parse_qs, urlsplit

import pytest
from gapsweep.db.models import WebSession, utcnow
from playwright.sync_api import Error as PlaywrightError
from sqlalchemy import create_engine, update
from sqlalchemy.orm import Session
from test_browser_accounts import PASSWORDS, browser, page, server  # noqa: F401 - fixtures

pytestmark = pytest.mark.timeout(300)


def expire_sessions(served: dict) -> int:
    """End every web session in the server's database now; how many there were."""
    engine = create_engine(f"sqlite:///{served['data'] / 'gapsweep.db'}")
    try:
        with Session(engine) as s, s.begin():
            return s.execute(update(WebSession).values(
                expires=utcnow() - timedelta(seconds=1))).rowcount
    finally:
        engine.dispose()


def test_an_expired_session_sends_the_open_page_to_sign_in(server, page):  # noqa: F811
    base = server["base"]
    page.goto(base + "/login?next=/%3Ffrom%3Dexpiry")
    page.fill("#name", "eve")
    page.fill("#password", PASSWORDS["eve"])
    page.click("#sign-in")
    page.wait_for_url(base + "/?from=expiry")
    page.wait_for_selector("#archive-search")
    # signed in, a callback answers: the search runs and the page stays
    with page.expect_response(lambda r: "/_dash-update-component" in r.url) as answer:
        page.fill("#archive-search", "nothing like this")
        page.press("#archive-search", "Enter")
    assert answer.value.status == 200
    assert urlsplit(page.url).path == "/"

    assert expire_sessions(server) >= 1
    # the next callback is refused: ours (a search), or the archive's own poll if it asks
    # first - either way the page leaves for the sign-in, possibly under our typing
    with page.expect_response(lambda r: "/_dash-update-component" in r.url
                              and r.status == 401), contextlib.suppress(PlaywrightError):
        page.fill("#archive-search", "", timeout=5000)
        page.press("#archive-search", "Enter", timeout=5000)
    page.wait_for_url(lambda url: urlsplit(url).path == "/login")
    sent = urlsplit(page.url)
    assert parse_qs(sent.query) == {"next": ["/?from=expiry"]}
    assert page.is_visible("#sign-in")

    # signing in again returns to the page that was open
    page.fill("#name", "eve")
    page.fill("#password", PASSWORDS["eve"])
    page.click("#sign-in")
    page.wait_for_url(base + "/?from=expiry")
    page.wait_for_selector("#archive-search")
