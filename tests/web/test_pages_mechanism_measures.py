"""A described mechanism's own measures on every page (issue 35.2, design.md 4.7): the four-bar
crank-rocker of the examples, its rocker-pin clearance swept, run for real and stored through
the workers' own path. Its pages must offer and open on the rocker's measure (never the
slider's), tell the cases apart by their dotted parameters, label the rocker's angular
acceleration in rad/s², and draw the convergence certificates and the response surface.

The expected names and units are derived here from the example's ``[mechanism.measures]``
table and design.md 4.7's rule (a measure ``m``: ``peak_m``, ``peak_m_settled``; an angle's
acceleration in rad/s²), not read back from the code under test."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import tomllib
from archive_fixtures import find, page, run_as_worker, texts
from gapsweep.db.studies import study_detail
from gapsweep.study.spec import parse_spec
from gapsweep.web import ids
from gapsweep.workers.submit import create_study_rows

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "mechanism_four_bar_crank_rocker.toml"
AXIS = "joints.rocker_pin.clearance_mm"
CLEARANCES = (0.05, 0.1, 0.15)


def _example() -> dict:
    with open(EXAMPLE, "rb") as f:
        spec = tomllib.load(f)
    spec["axes"] = {AXIS: {"values": list(CLEARANCES)}}
    return spec


SPEC = _example()
MEASURES = SPEC["mechanism"]["measures"]
FIRST = next(iter(MEASURES))  # rocker_alpha: the rocker's angular acceleration
assert MEASURES[FIRST] == {"body": "rocker", "quantity": "acceleration", "component": "angle"}


@pytest.fixture(scope="module")
def stored(tmp_path_factory):
    """The study created, every case and twin run and stored; (archive, study id)."""
    import pytest as _pytest
    from archive_fixtures import make_archive

    mp = _pytest.MonkeyPatch()
    archive = make_archive(tmp_path_factory.mktemp("mech"), mp)
    study_id = create_study_rows(parse_spec(SPEC), sessions=archive.sessions)
    run_as_worker(archive, study_id, archive.case_ids(study_id))
    # the convergence certificates (as the worker queues them when the study is done),
    # run for real: the Convergence tab reads them
    from gapsweep.workers.certificates import start_certificates

    certs = start_certificates(archive.sessions, study_id, settings=archive.settings,
                               dispatcher=None)
    assert certs
    run_as_worker(archive, study_id, certs)
    yield archive, study_id
    mp.undo()


def _detail(archive, study_id):
    with archive.sessions() as s:
        return study_detail(s, study_id)


def test_trends_offer_and_open_on_the_measure(stored):
    archive, study_id = stored
    with archive.request():
        summary = page("study").load_summary(study_id)
        tab = page("study").trends_tab(summary)
        metric = find(tab, ids.TRENDS_METRIC)
        offered = [o["value"] for o in metric.options]
        assert metric.value == f"peak_{FIRST}"
        assert {f"peak_{m}" for m in MEASURES} <= set(offered)
        assert not any("slider" in m for m in offered)  # a four-bar has no slider
        # the x axis opens on the clearance, a dotted name
        assert find(tab, ids.TRENDS_X).value == AXIS

        from gapsweep.web.views import study_results

        detail = _detail(archive, study_id)
        fig = study_results.trends(detail, metric=metric.value, x_axis=AXIS, group_axis=None)
    done = [c for c in detail["cases"] if c["status"] == "done"]
    assert len(done) == len(CLEARANCES)
    drawn = [t for t in fig.data if t.customdata is not None and len(t.customdata)]
    assert sum(len(t.x) for t in drawn) == len(CLEARANCES)  # none skipped
    assert "skipped" not in (fig.layout.title.text or "")
    assert "rad/s²" in fig.layout.yaxis.title.text and "slider" not in \
        fig.layout.yaxis.title.text.lower()
    # the settled window reads the measure's settled peak where the cases store it
    key = f"peak_{FIRST}_settled"
    if all(key in c["metrics"] for c in done):
        ys = sorted(float(y) for t in drawn for y in t.y)
        assert ys == pytest.approx(sorted(c["metrics"][key] for c in done))


def test_case_table_shows_the_dotted_parameters_and_the_measure(stored):
    archive, study_id = stored
    from gapsweep.web.components import case_grid

    with archive.request():
        summary = page("study").load_summary(study_id)
        grid = case_grid.grid(summary)
        columns = {c["field"]: c for c in grid.columnDefs}
        # a dotted name is one field, not a path into the row
        assert grid.dashGridOptions.get("suppressFieldDotNotation") is True
        assert AXIS in columns and "clearance" in columns[AXIS]["headerName"].lower()
        assert "[mm]" in columns[AXIS]["headerName"]
        settled = f"peak_{FIRST}_settled"
        assert settled in columns and "rad/s²" in columns[settled]["headerName"]
        assert not any("slider" in f for f in columns)
        shown = case_grid.shown_metrics(summary)
        kinds = case_grid.axis_kinds(summary)
        rows = case_grid.rows_response(study_id, {"startRow": 0, "endRow": 100}, kinds,
                                       shown)["rowData"]
    assert sorted(r[AXIS] for r in rows) == list(CLEARANCES)  # the cases told apart
    detail = _detail(archive, study_id)
    by_id = {c["id"]: c for c in detail["cases"]}
    for r in rows:
        stored_value = by_id[r["id"]]["metrics"].get(settled)
        if stored_value is not None:
            assert r[settled] == pytest.approx(stored_value, rel=1e-5)


def test_case_page_labels_come_from_the_measure(stored):
    archive, study_id = stored
    detail = _detail(archive, study_id)
    case_id = detail["cases"][0]["id"]
    with archive.request():
        layout = page("case").layout(case_id=str(case_id))
    # the rocker's angular acceleration: rad/s², in its own figure and in the probe's
    measure = find(layout, f"case-graph-measure_{FIRST}").figure
    assert measure.layout.yaxis.title.text.endswith("[rad/s²]")
    probe = find(layout, "case-graph-acceleration").figure
    assert "slider" not in probe.layout.title.text.lower()
    assert probe.layout.yaxis.title.text.endswith("[rad/s²]")
    # the drawn series is the stored one
    r = archive.client().get(f"/api/cases/{case_id}/series?names={FIRST}")
    assert r.status_code == 200
    api = np.asarray(r.get_json()[FIRST], dtype=float)
    # a run until settled stores its first revolution and its last ones: the line breaks
    # once across the stretch it does not store (a gap, not a point)
    drawn = np.asarray(measure.data[0].y, dtype=float)
    assert np.count_nonzero(np.isnan(drawn)) <= 1
    assert np.allclose(drawn[~np.isnan(drawn)], api)
    assert "Slider acceleration" not in texts(layout)


def test_convergence_and_response_surface_render_for_a_mechanism(stored):
    archive, study_id = stored
    from gapsweep.web.views import study_results, tolerance_views

    detail = _detail(archive, study_id)
    assert detail["certificates"] and all(c["status"] == "done" for c in detail["certificates"])
    with archive.request():
        content = study_results.convergence(detail)
        words = texts(content)
        assert "could not" not in words and "Error" not in words
        # the certificates' figure and table, read on the rocker's measure (whole run: the
        # first impact sets it), each refined run's value the stored one
        (fig,) = [g.figure for g in content._traverse() if type(g).__name__ == "Graph"]
        assert fig.layout.yaxis.title.text == f"Peak {FIRST.replace('_', ' ')} [rad/s²]"
        by_id = {c["id"]: c for c in detail["certificates"]}
        for trace in fig.data:
            refined = [row[0] for row in trace.customdata][1:]
            assert list(trace.y)[1:] == [by_id[k]["metrics"][f"peak_{FIRST}"] for k in refined]
        table = find(content, ids.CERTIFICATE_TABLE)
        assert f"Peak {FIRST.replace('_', ' ')} [rad/s²]" in texts(table.children[0])
        summary = page("study").load_summary(study_id)
        surface_tab = tolerance_views.surface_tab(summary)
        metric = find(surface_tab, ids.SURFACE_METRIC)
        assert metric.value == f"peak_{FIRST}_settled" or metric.value.startswith(
            f"peak_{FIRST}")
        done = [c for c in detail["cases"] if c["status"] == "done"]
        usable = next(m for m in (metric.value, f"peak_{FIRST}")
                      if all(m in c["metrics"] for c in done))
        surface = tolerance_views.surface_content(detail, usable, 1, AXIS, None)
    graphs = [c for c in surface._traverse() if type(c).__name__ == "Graph"]
    assert graphs, texts(surface)
    actual = graphs[0].figure
    # actual against predicted: one point per done case, the measure's unit on the axis
    xs = np.concatenate([np.asarray(t.x, dtype=float) for t in actual.data if t.x is not None])
    assert xs.size >= len(CLEARANCES)
    assert "rad/s²" in (actual.layout.xaxis.title.text + actual.layout.yaxis.title.text)
