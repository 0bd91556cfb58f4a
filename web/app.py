"""The Dash app: Dash Pages from ``web/pages``, one Bootstrap theme, a navbar, the
"kernels compiling" banner, and the JSON API blueprint on the same Flask server.

    app = create_app(get_settings())
    app.server.run(host="127.0.0.1", port=8050)

Every database access happens on the server (page layouts and callbacks call ``gapsweep.db``
functions through :mod:`.context`); nothing here imports the solver's compiled kernels
(validating a spec imports the case modules, which import numba without compiling anything).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import dash
import dash_bootstrap_components as dbc
from dash import Input, Output, dcc, html

from . import context, ids
from .api import install_api
from .kernels import workers_ready

PAGES_FOLDER = Path(__file__).parent / "pages"
# The Bootstrap theme (Bootswatch Flatly) is served from web/assets, not a CDN: the app works
# offline and makes no third-party requests (web/assets/README.md says where it comes from).
ASSETS_FOLDER = Path(__file__).parent / "assets"
KERNEL_POLL_MS = 3000
COMPILING_TEXT = (
    "The solver kernels are compiling in the local worker (about 2.5 minutes on a first "
    "start). You can set up a study meanwhile; its cases start as soon as a worker is ready."
)


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
        ],
    )


def shell() -> html.Div:
    """The frame around every page."""
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
                        className="mt-3 mb-0",
                    ),
                    dcc.Interval(id=ids.KERNEL_POLL, interval=KERNEL_POLL_MS),
                    html.Div(dash.page_container, className="py-3"),
                ],
                fluid=True,
            ),
        ]
    )


def create_app(settings: Any = None) -> dash.Dash:
    """The web app over the archive ``settings`` names (``get_settings()`` when None).

    Opens (and upgrades) the database once; the pages and the API share that engine."""
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
    install_api(app.server)
    app.layout = shell()

    @app.callback(
        Output(ids.KERNEL_BANNER, "is_open"),
        Output(ids.KERNEL_POLL, "disabled"),
        Input(ids.KERNEL_POLL, "n_intervals"),
    )
    def _kernel_banner(_n: int | None) -> tuple[bool, bool]:
        ready = workers_ready(context.current().settings)
        return not ready, ready  # once ready, stop asking

    return app
