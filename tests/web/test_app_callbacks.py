"""Every app a process creates carries every callback (web/page_callbacks.py): a section
module's import-time ``@dash.callback`` reached only the first app of a process, so a second
app (a test's, a server after a check) lacked the study page's progress, tabs and trends and
the form's editor, axes and upload."""

from __future__ import annotations

from gapsweep.web.app import create_app

from gapsweep.settings import get_settings


def test_every_app_of_a_process_has_the_same_callbacks(tmp_path, monkeypatch):
    monkeypatch.setenv("GAPSWEEP_DATA", str(tmp_path))
    maps = []
    for _ in range(3):
        app = create_app(get_settings())
        app.server.test_client().get("/")  # Dash sets its callbacks up on the first request
        maps.append(set(app.callback_map))
    assert maps[1] == maps[0] and maps[2] == maps[0]
    # the sections wired by their pages are among them
    outputs = " ".join(sorted(maps[0]))
    for output in ("new-mechanism.data", "new-mechanism-editor-points.data"):
        assert output in outputs
