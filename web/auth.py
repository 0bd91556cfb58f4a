"""Who is asking, checked before any page, callback or API route runs.

Every request of the Flask server behind the Dash app passes :func:`_authenticate`:

- ``Authorization: Bearer <token>`` - a personal API token (``gapsweep user token``); a wrong,
  revoked or disabled user's token is a 401, never a fallback to anything else.
- the ``gapsweep_session`` cookie (HttpOnly, SameSite=Lax, Secure over HTTPS) - a sign-in of
  ``/login``; kept server-side (:class:`gapsweep.db.models.WebSession`) so sign-out, disabling
  a user or the expiry (``GAPSWEEP_SESSION_S``) end it at once in every web process.
- neither: with accounts off (no user exists and ``serve`` was not given ``--auth``) the
  request is :data:`~gapsweep.accounts.roles.LOCAL`; with accounts on, pages redirect to
  ``/login`` and everything else (API, Dash's ``/_dash-*`` routes) is a 401. An open page
  whose session ends turns its callbacks' 401 into a visit to ``/login?next=<the page>``
  (``web/assets/session_expiry.js``).
- ``GET /api/health/live`` needs nothing (:mod:`.liveness`: no data in it).

State-changing requests (POST, PUT, PATCH, DELETE) are refused (403) when they come from
another site (an ``Origin`` that is not this host - this protects the no-accounts mode too),
and, when signed in with a cookie, unless they carry the session's CSRF token: Dash's renderer
copies the ``_csrf_token`` cookie into an ``X-CSRFToken`` header on every callback, and the
sign-out form sends it as a field. Token requests need neither: a browser never adds a bearer
token by itself.

What a principal may do is decided in :mod:`.actions` (:func:`gapsweep.accounts.roles.may`),
the one path both the API and the Dash callbacks take to change anything.
"""

from __future__ import annotations

import hmac
from typing import Any
from urllib.parse import urlsplit

import flask
from flask import g, request
from gapsweep.accounts import login_limiter
from gapsweep.accounts.passwords import hash_password, verify_password
from gapsweep.accounts.roles import LOCAL, Principal
from gapsweep.accounts.tokens import digest, new_secret
from gapsweep.db import accounts
from gapsweep.db.models import utcnow

from . import context
from .api.liveness import LIVE_PATH

SESSION_COOKIE = "gapsweep_session"
CSRF_COOKIE = "_csrf_token"  # the cookie name Dash's renderer reads (csrf_token_name)
CSRF_HEADER = "X-CSRFToken"  # ... and the header it sends (csrf_header_name)
CSRF_FIELD = "csrf_token"
UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
#: reachable without signing in: the sign-in page and the stylesheet it uses
PUBLIC_PREFIXES = ("/login", "/logout", "/assets/")
MAX_REQUEST_BYTES = 4 << 20  # Dash callbacks; the upload is capped at 256 KB before that
MAX_NAME = 64

# a real hash to check against when the account does not exist, so that a wrong name costs
# the same time as a wrong password (no probing which names exist)
_DUMMY_HASH = hash_password("not-a-password-of-anyone")


class AuthError(Exception):
    """A request that carries credentials the server will not accept."""


def install_auth(server: flask.Flask, *, require_accounts: bool) -> None:
    """Guard every route of ``server``; add ``/login`` and ``/logout``."""
    server.config["MAX_CONTENT_LENGTH"] = MAX_REQUEST_BYTES
    server.extensions["gapsweep_auth"] = {"required": require_accounts}
    server.before_request(_authenticate)
    server.after_request(_headers)
    server.add_url_rule("/login", "login", login, methods=["GET", "POST"])
    server.add_url_rule("/logout", "logout", logout, methods=["POST"])


def principal() -> Principal:
    """Who is making the current request (set by the guard before any view runs)."""
    who = g.get("principal")
    if who is None:  # only public routes run without one, and they change nothing
        raise AuthError("no principal: the route is not behind the guard")
    return who


def csrf_token() -> str:
    """The CSRF token the current page must send back ('' without a session)."""
    return g.get("csrf", "")


def accounts_on() -> bool:
    """Whether sign-in is required: ``--auth``, or some user exists. Once on, it stays on
    for the life of the process (users are disabled, never deleted)."""
    state = flask.current_app.extensions["gapsweep_auth"]
    if not state["required"]:
        with context.session() as s:
            state["required"] = accounts.accounts_exist(s)
    return state["required"]


def _is_api(path: str) -> bool:
    return path.startswith("/api/") or path.startswith("/_dash-")


def _deny(status: int, message: str) -> flask.Response:
    if _is_api(request.path) or request.method in UNSAFE_METHODS:
        response = flask.jsonify({"error": message})
        response.status_code = status
        if status == 401:
            response.headers["WWW-Authenticate"] = 'Bearer realm="gapsweep"'
        return response
    return flask.redirect(f"/login?next={_safe_next(request.full_path)}")


def _same_origin() -> bool:
    origin = request.headers.get("Origin")
    if origin is None:  # not a browser's cross-site request (curl, the CLI, same-site GET)
        return True
    return urlsplit(origin).netloc == request.host


def _bearer() -> str | None:
    header = request.headers.get("Authorization", "")
    scheme, _, value = header.partition(" ")
    return value.strip() if scheme.lower() == "bearer" else None


def _authenticate() -> flask.Response | None:
    g.principal = None
    if request.path == LIVE_PATH and request.method in ("GET", "HEAD"):
        return None  # public: the liveness answer carries no data (web/api/liveness.py)
    if request.method in UNSAFE_METHODS and not _same_origin():
        return _deny(403, "cross-site request refused")
    return _identify() or _check_body()


def _identify() -> flask.Response | None:
    """Set ``g.principal`` from a token, a session or the accounts-off default; or deny."""
    token = _bearer()
    if token is not None:
        with context.session() as s:
            account = accounts.token_account(s, digest(token[:200]))
        if account is None:
            return _deny(401, "the API token is wrong, revoked or its user disabled")
        g.principal = Principal(account.name, account.role, "token")
        return None
    cookie = request.cookies.get(SESSION_COOKIE)
    if cookie:
        with context.session() as s:
            found = accounts.web_session_account(s, digest(cookie[:200]))
        if found is not None:
            account, g.csrf = found
            g.principal = Principal(account.name, account.role, "session")
            if request.method in UNSAFE_METHODS and not _csrf_ok():
                return _deny(403, "CSRF token missing or wrong: reload the page")
            return None
    if not accounts_on():
        g.principal = LOCAL
        return None
    if request.path.startswith(PUBLIC_PREFIXES):
        return None
    return _deny(401, "sign in first (or send Authorization: Bearer <token>)")


def _check_body() -> flask.Response | None:
    """A callback body Dash can take: an object naming its output (else Dash's own code
    fails on it with a 500); parsed once here, Flask caches it for Dash."""
    if request.path != "/_dash-update-component" or not request.is_json:
        return None
    try:
        body = request.get_json(silent=True)
    except RecursionError:
        return _deny(400, "the request body nests too deeply")
    if not isinstance(body, dict) or not isinstance(body.get("output"), str):
        return _deny(400, "not a callback: a JSON object with an \"output\" string")
    return None


def _csrf_ok() -> bool:
    sent = request.headers.get(CSRF_HEADER) or request.form.get(CSRF_FIELD, "")
    return bool(sent) and hmac.compare_digest(sent.encode(), g.csrf.encode())


def _headers(response: flask.Response) -> flask.Response:
    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    response.headers.setdefault("X-Frame-Options", "DENY")
    response.headers.setdefault("Referrer-Policy", "same-origin")
    return response


def _set_cookie(response: flask.Response, name: str, value: str, *, http_only: bool,
                max_age: float | None) -> None:
    response.set_cookie(
        name, value, max_age=None if max_age is None else int(max_age), path="/",
        httponly=http_only, samesite="Lax", secure=request.is_secure,
    )


def _safe_next(target: str | None) -> str:
    """A path on this site to go to after signing in ("/" for anything else: no open
    redirect to ``//evil.example`` or ``https://...``)."""
    target = (target or "/").rstrip("?")
    if not target.startswith("/") or target.startswith("//") or "\\" in target:
        return "/"
    return target if not target.startswith(("/login", "/logout")) else "/"


# --- /login and /logout --------------------------------------------------------------------

LOGIN_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Sign in - gapsweep</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="/assets/bootstrap-flatly-5.3.3.min.css"></head>
<body class="bg-light"><main class="container" style="max-width: 24rem; margin-top: 10vh">
<h1 class="h3 mb-3">gapsweep</h1>
{% if message %}
<div class="alert alert-{{ kind }}" id="login-message">{{ message }}</div>
{% endif %}
<form method="post" action="/login">
<input type="hidden" name="csrf_token" value="{{ csrf }}">
<input type="hidden" name="next" value="{{ next }}">
<div class="mb-3"><label class="form-label" for="name">Name</label>
<input class="form-control" id="name" name="name" value="{{ name }}" maxlength="64"
 autocomplete="username" required autofocus></div>
<div class="mb-3"><label class="form-label" for="password">Password</label>
<input class="form-control" id="password" name="password" type="password" maxlength="1024"
 autocomplete="current-password" required></div>
<button class="btn btn-primary w-100" id="sign-in" type="submit">Sign in</button>
</form></main></body></html>"""


def _login_page(status: int = 200, *, message: str = "", kind: str = "danger",
                name: str = "", retry_after: float = 0) -> flask.Response:
    # the pre-sign-in CSRF token: the form field must match the cookie (double submit)
    csrf = request.cookies.get(CSRF_COOKIE) or new_secret()
    body = flask.render_template_string(  # autoescaped: the name is shown as text
        LOGIN_PAGE, message=message, kind=kind, csrf=csrf, name=name[:MAX_NAME],
        next=_safe_next(request.values.get("next")),
    )
    response = flask.make_response(body, status)
    _set_cookie(response, CSRF_COOKIE, csrf, http_only=False, max_age=None)
    if retry_after:
        response.headers["Retry-After"] = str(int(retry_after) + 1)
    return response


def login() -> flask.Response:
    if request.method == "GET":
        if g.principal is not None and g.principal.via == "session":
            return flask.redirect(_safe_next(request.args.get("next")))
        return _login_page()
    sent, cookie = request.form.get(CSRF_FIELD, ""), request.cookies.get(CSRF_COOKIE, "")
    if not sent or not hmac.compare_digest(sent.encode(), cookie.encode()):
        return _login_page(403, message="The sign-in form expired: please try again.")
    name = request.form.get("name", "")[:MAX_NAME]
    password = request.form.get("password", "")
    settings = context.current().settings
    keys = [login_limiter.account_key(name), login_limiter.address_key(request.remote_addr or "")]
    limits = [login_limiter.ACCOUNT_LIMIT, login_limiter.ADDRESS_LIMIT]
    with context.session() as s:
        wait = max(
            login_limiter.locked_for(
                accounts.login_failures(s, key=key, window_s=settings.login_window_s),
                limit=limit, window_s=settings.login_window_s, now=utcnow(),
            )
            for key, limit in zip(keys, limits, strict=True)
        )
    if wait > 0:  # the password is not even checked while locked
        return _login_page(429, message=f"Too many failed sign-ins: try again in "
                           f"{int(wait) + 1} s.", name=name, retry_after=wait)
    with context.session() as s:
        found = accounts.credentials(s, name)
    stored = found[1] if found else _DUMMY_HASH
    if not verify_password(password, stored) or found is None:
        with context.session() as s:
            accounts.add_login_failure(s, keys=keys)
        return _login_page(401, message="Wrong name or password (or the account is disabled).",
                           name=name)
    account = found[0]
    secret, csrf = new_secret(), new_secret()
    with context.session() as s:
        accounts.clear_login_failures(s, key=keys[0])
        accounts.add_web_session(s, user_id=account.id, id_hash=digest(secret), csrf_token=csrf,
                                 lifetime_s=settings.session_s)
    response = flask.redirect(_safe_next(request.form.get("next")))
    _set_cookie(response, SESSION_COOKIE, secret, http_only=True, max_age=settings.session_s)
    _set_cookie(response, CSRF_COOKIE, csrf, http_only=False, max_age=settings.session_s)
    return response


def logout() -> flask.Response:
    cookie = request.cookies.get(SESSION_COOKIE)
    if cookie:
        with context.session() as s:
            accounts.end_web_session(s, digest(cookie[:200]))
    response = flask.redirect("/login")
    response.delete_cookie(SESSION_COOKIE, path="/")
    response.delete_cookie(CSRF_COOKIE, path="/")
    return response


def describe(who: Principal | None) -> dict[str, Any]:
    """The signed-in user for the navbar: name, role, whether a sign-out applies."""
    if who is None:
        return {"name": None, "role": None, "signed_in": False}
    return {"name": who.name, "role": who.role, "signed_in": who.via == "session"}
