"""The web app (design.md 4.4): :func:`gapsweep.web.app.create_app` builds a Dash app with
Dash Pages (``web/pages``: archive, new study, study, case, compare), the JSON API blueprint
(:mod:`.api`) on the same Flask server, and Plotly figures as pure functions
(``web/figures``). Every database access is server side, through ``gapsweep.db``."""
