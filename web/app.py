"""The Dash app: Dash Pages from ``web/pages``, one Bootstrap theme, a navbar, the
"kernels compiling" banner, and the JSON API blueprint on the same Flask server.

    app = create_app(get_settings())
    waitress.serve(app.server, host="127.0.0.1", port=8050)   # what `gapsweep serve` does

A production WSGI server takes :mod:`gapsweep.web.wsgi`'s ``app`` instead.

Every database access happens on the server (page layouts and callbacks call ``gapsweep.db``
functions through :mod:`.context`); nothing here imports the solver's compiled kernels
(validating a spec imports the case modules, which import numba without compiling anything).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import dash
import dash_bootstrap_components as dbc
import flask
from dash import Input, Output, State, dcc, html
from werkzeug.middleware.proxy_fix import ProxyFix

from . import auth, context, ids
from .api.kernels import workers_ready
from .api.liveness import install_liveness
from .api.routes import install_api
from .components import figure_downloads

PAGES_FOLDER = Path(__file__).parent / "pages"
# The Bootstrap theme (Bootswatch Flatly) is served from web/assets, not a CDN: the app works
# offline and makes no third-party requests (web/assets/README.md says where it comes from).
ASSETS_FOLDER = Path(__file__).parent / "assets"
KERNEL_POLL_MS = 3000
# the measured first start (docs/install.md, "The first start": `gapsweep warmup`, 2 cores)
COMPILING_TEXT = (
    "The solver kernels are compiling in the local worker (about 50 s measured on a 2-core "
    "machine on a first start; longer while other jobs load it). You can set up a study "
    "meanwhile; its cases start as soon as a worker is ready."
)
READY_TEXT = "Workers ready: the solver kernels are loaded and cases run now."


def account_menu() -> list[Any]:
    """The signed-in user and a sign-out button (a form POST carrying the CSRF token)."""
    who = auth.describe(flask.g.get("principal"))
    if not who["signed_in"]:
        return []
    return [
        dbc.NavItem(html.Span(f"{who['name']} ({who['role']})", id=ids.NAV_USER,
                              className="navbar-text text-white-50 ms-3 me-2")),
        dbc.NavItem(html.Form(
            [dcc.Input(type="hidden", name=auth.CSRF_FIELD, value=auth.csrf_token()),
             html.Button("Sign out", id=ids.NAV_SIGN_OUT, type="submit",
                         className="btn btn-outline-light btn-sm mt-1")],
            action="/logout", method="POST",
        )),
    ]


def admin_menu() -> list[Any]:
    """The users page's link, for an admin (the page and its callbacks refuse anyone else)."""
    from gapsweep.accounts.roles import Action, may

    who = flask.g.get("principal")
    if who is None or not may(who, Action.MANAGE_USERS):
        return []
    return [dbc.NavItem(dbc.NavLink("Users", href="/admin/users", id="nav-users"))]


def navbar() -> dbc.Navbar:
    return dbc.NavbarSimple(
        brand="gapsweep",
        brand_href="/",
        color="primary",
        dark=True,
        fluid=True,
        children=[
            dbc.NavItem(dbc.NavLink("Archive", href="/", id="nav-archive")),
            dbc.NavItem(dbc.NavLink("New study", href="/studies/new", id="nav-new")),
            dbc.NavItem(dbc.NavLink("Compare", href="/compare", id="nav-compare")),
            *admin_menu(),
            *account_menu(),
        ],
    )


def shell() -> html.Div:
    """The frame around every page (built per page load: the navbar names the user)."""
    return html.Div(
        [
            navbar(),
            dbc.Container(
                [
                    dbc.Alert(
                        COMPILING_TEXT,
                        id=ids.KERNEL_BANNER,
                        color="warning",
                        is_open=False,
                        dismissable=True,
                        className="mt-3 mb-0",
                    ),
                    dcc.Interval(id=ids.KERNEL_POLL, interval=KERNEL_POLL_MS),
                    html.Div(dash.page_container, className="py-3"),
                ],
                fluid=True,
            ),
        ]
    )


def trust_proxies(server: flask.Flask, hops: int) -> None:
    """Behind ``hops`` reverse proxies (``GAPSWEEP_PROXY_HOPS``; 0: none, the headers are
    ignored), take the client's address, scheme, host and port from the last ``hops``
    ``X-Forwarded-*`` values, so that behind a TLS proxy ``request.is_secure`` holds and the
    session cookie is ``Secure``, the same-origin check compares the public host, and the
    sign-in limiter counts the client's address, not the proxy's. Trusting more hops than
    there are proxies lets a client forge these headers, hence no default."""
    if hops > 0:
        server.wsgi_app = ProxyFix(server.wsgi_app, x_for=hops, x_proto=hops, x_host=hops,
                                   x_port=hops)


def kernel_banner(ready: bool, shown: bool) -> tuple[bool, str, str, bool]:
    """The banner's (is_open, text, colour, stop polling): "compiling" while no local worker
    is ready; once one is, "workers ready" where the person saw the compiling banner (so
    they know their cases now run) and nothing where they never did; then polling stops."""
    if not ready:
        return True, COMPILING_TEXT, "warning", False
    return shown, READY_TEXT, "success", True


def create_app(settings: Any = None, *, require_accounts: bool = False) -> dash.Dash:
    """The web app over the archive ``settings`` names (``get_settings()`` when None).

    Opens (and upgrades) the database once; the pages and the API share that engine. Sign-in
    is required once a user exists, or from the start with ``require_accounts``
    (``serve --auth``): see :mod:`.auth`."""
    from gapsweep.db.engine import open_database

    from gapsweep.settings import get_settings

    settings = settings if settings is not None else get_settings()
    app = dash.Dash(
        __name__,
        use_pages=True,
        pages_folder=str(PAGES_FOLDER),
        assets_folder=str(ASSETS_FOLDER),
        suppress_callback_exceptions=True,  # page components appear only on their page
        title="gapsweep",
        update_title=None,
    )
    context.install(app.server, settings, open_database(settings.database_url))
    auth.install_auth(app.server, require_accounts=require_accounts)
    install_liveness(app.server)
    install_api(app.server)
    figure_downloads.install(app)
    trust_proxies(app.server, settings.proxy_hops)
    app.layout = shell

    @app.callback(
        Output(ids.KERNEL_BANNER, "is_open"),
        Output(ids.KERNEL_BANNER, "children"),
        Output(ids.KERNEL_BANNER, "color"),
        Output(ids.KERNEL_POLL, "disabled"),
        Input(ids.KERNEL_POLL, "n_intervals"),
        State(ids.KERNEL_BANNER, "is_open"),
    )
    def _kernel_banner(_n: int | None, shown: bool | None) -> tuple[bool, str, str, bool]:
        return kernel_banner(workers_ready(context.current().settings), bool(shown))

    return app
