"""A study over the text axis ``lubrication`` on the trends tab, in a real browser (issue 36:
"a study over viscosity_pa_s or lubrication draws the trends against the dry and ideal runs").

The shipped lubricated example (lubrication none / short-bearing x clearance x viscosity) is
written to the server's archive with the synthetic results of archive_fixtures (no solver
run), then ``gapsweep serve`` shows it in chromium. Read back from what Plotly drew: by default
x is the clearance (a number axis) and each lubrication x viscosity setting is a line; with x
= lubrication the axis is categorical, its categories exactly the axis' values, every line
is drawn over them and the ideal joint's line spans them.

Skipped when chromium is missing, except with ``CI=true`` (then it fails).
"""

from __future__ import annotations

from pathlib import Path

import pytest
import tomllib
from archive_fixtures import make_archive
from browsers import launch_browser, open_page, plotly_figure
from gapsweep.web.figures.labels import parameter_label
from support.api import get_json
from support.serving import server_fixture

ROOT = Path(__file__).resolve().parents[2]
START_S = 90
UI_MS = 30_000
pytestmark = pytest.mark.timeout(900)


def _spec() -> dict:
    with open(ROOT / "examples" / "lubricated_slider_crank.toml", "rb") as f:
        return tomllib.load(f)


def _stored_study(data, env) -> dict:
    """The study's rows with synthetic results, written to the archive before serving."""
    with pytest.MonkeyPatch.context() as mp:
        archive = make_archive(data, mp)
        study_id = archive.create(_spec())
        archive.run(archive.case_ids(study_id))
    return {"study": study_id}


server = server_fixture("gapsweep-lubrication", seed=_stored_study, chromium=True, start_s=START_S)


@pytest.fixture(scope="module")
def browser(server):
    yield from launch_browser(server["chromium"])


@pytest.fixture
def page(browser):
    yield from open_page(browser, UI_MS)


def _lines(fig: dict) -> list[dict]:
    return [t for t in fig["data"] if t["name"] != "ideal joint"]


def test_the_lubrication_axis_draws_a_categorical_trend(server, page):
    base, sid = server["base"], server["study"]
    axes = _spec()["axes"]
    lubrication = axes["lubrication"]["values"]
    n_settings = len(lubrication) * len(axes["viscosity_pa_s"]["values"])
    page.goto(f"{base}/studies/{sid}")
    page.get_by_role("tab", name="Trends").click()
    # by default: x the clearance, a line per lubrication x viscosity setting
    fig = plotly_figure(page, "#trends-graph", f"fig.data.length >= {n_settings}")
    assert fig["layout"]["axes"]["xaxis"]["type"] == "linear"
    assert len(_lines(fig)) == n_settings
    # x = lubrication, picked in the dropdown as a person does
    page.locator("#trends-x").click()
    page.get_by_role("option", name=parameter_label("lubrication")).click()
    fig = plotly_figure(page, "#trends-graph", "fig.layout.axes.xaxis.type === 'category'")
    assert fig["layout"]["axes"]["xaxis"]["title"] == parameter_label("lubrication")
    lines = _lines(fig)
    assert lines and all(sorted(t["x"]) == sorted(lubrication) for t in lines)
    twin = [t for t in fig["data"] if t["name"] == "ideal joint"]
    assert len(twin) == 1 and set(twin[0]["x"]) <= set(lubrication)
    # every done case is a point of one line
    detail = get_json(f"{base}/api/studies/{sid}")
    done = [c for c in detail["cases"] if c["status"] == "done"]
    assert sum(len(t["x"]) for t in lines) == len(done)
