"""The archive page: layout, server-side paging / sorting / filtering, soft delete."""

from __future__ import annotations

import pytest
from archive_fixtures import component_ids, find, page, preset, texts
from gapsweep.web import ids

NEWEST_FIRST = [{"column_id": "created", "direction": "desc"}]


@pytest.fixture
def archive_page(archive):
    with archive.request():
        yield page("archive"), archive


def make_studies(archive, n):
    out = []
    for k in range(n):
        spec = preset()
        spec["name"] = f"run {k:02d} [x](y)" if k == 0 else f"run {k:02d}"
        spec["tags"] = ["odd" if k % 2 else "even"]
        out.append(archive.create(spec))
    return out


def test_layout_has_the_table_and_filters(archive_page):
    module, _ = archive_page
    found = component_ids(module.layout())
    assert {ids.ARCHIVE_SEARCH, ids.ARCHIVE_TAG, ids.ARCHIVE_STATUS, ids.ARCHIVE_MODEL,
            ids.ARCHIVE_TABLE, ids.ARCHIVE_TOTAL, ids.ARCHIVE_DELETE} <= found


def test_pages_of_25_newest_first(archive_page):
    module, archive = archive_page
    study_ids = make_studies(archive, 30)
    rows, page_count, total, _, empty = module.update_table(0, NEWEST_FIRST, None, None, None,
                                                            None, 0, None, [])
    assert empty is False
    assert page_count == 2 and total == "30 studies"
    assert [r["id"] for r in rows] == study_ids[::-1][:25]
    rows, *_ = module.update_table(1, NEWEST_FIRST, None, None, None, None, 0, None, [])
    assert [r["id"] for r in rows] == study_ids[::-1][25:]
    row = rows[-1]
    assert row["progress"] == "0 / 15 done" and row["status"] == "queued"
    # the name is a markdown link whose own brackets stay text
    assert row["link"] == f"[run 00 \\[x\\]\\(y\\)](/studies/{study_ids[0]})"


def test_sort_and_filters_run_in_the_database(archive_page):
    module, archive = archive_page
    study_ids = make_studies(archive, 6)
    archive.run(archive.case_ids(study_ids[2]))
    by_name = [{"column_id": "link", "direction": "asc"}]
    rows, *_ = module.update_table(0, by_name, None, None, None, None, 0, None, [])
    assert [r["id"] for r in rows] == study_ids
    rows, _, total, _, _ = module.update_table(0, NEWEST_FIRST, None, "odd", None, None, 0, None,
                                            [])
    assert total == "3 studies" and {r["id"] for r in rows} == set(study_ids[1::2])
    rows, *_ = module.update_table(0, NEWEST_FIRST, "run 03", None, None, None, 0, None, [])
    assert [r["id"] for r in rows] == [study_ids[3]]
    rows, *_ = module.update_table(0, NEWEST_FIRST, None, None, "done", None, 0, None, [])
    assert [r["id"] for r in rows] == [study_ids[2]] and rows[0]["progress"] == "15 / 15 done"
    rows, *_ = module.update_table(0, NEWEST_FIRST, None, None, None, "cantilever", 0, None, [])
    assert rows == []


def test_soft_delete_of_the_selected_rows(archive_page):
    module, archive = archive_page
    study_ids = make_studies(archive, 3)
    rows, *_ = module.update_table(0, NEWEST_FIRST, None, None, None, None, 0, None, [])
    assert module.confirm_delete(1, [0, 2]) is True
    assert module.confirm_delete(1, []) is False
    message, refresh = module.delete_selected(1, [0, 2], rows, 4)
    assert message == "Deleted 2 studies." and refresh == 5
    rows, _, total, *_ = module.update_table(0, NEWEST_FIRST, None, None, None, None, 5, None, [])
    assert total == "1 study" and [r["id"] for r in rows] == [study_ids[1]]


def test_delete_and_compare_need_a_selection(archive_page):
    module, _ = archive_page
    layout = module.layout()
    assert find(layout, ids.ARCHIVE_DELETE).disabled is True
    assert find(layout, ids.ARCHIVE_COMPARE).disabled is True
    rows = [{"id": 4}, {"id": 9}, {"id": 11}]
    assert module.selection([], rows) == (True, "/compare", True)
    assert module.selection([1], rows) == (False, "/compare", True)  # one: delete only
    assert module.selection([0, 2], rows) == (False, "/compare?studies=4,11", False)
    assert module.selection(list(range(3)) * 3, rows * 3)[2] is True  # 9 > 6 studies
    assert module.selection([7, "x", None], rows) == (True, "/compare", True)  # not rows


def test_compare_two_studies_shows_both(archive_page):
    _, archive = archive_page
    a, b = make_studies(archive, 2)
    archive.run(archive.case_ids(a))
    compare = page("compare")
    layout = compare.layout(studies=f"{a},{b}")
    table = find(layout, ids.COMPARE_STUDIES)
    assert [r["study"] for r in table.data] == [f"[{a}](/studies/{a})", f"[{b}](/studies/{b})"]
    assert [r["done"] for r in table.data] == ["15 / 15", "0 / 15"]
    fig = find(layout, ids.COMPARE_STUDIES_GRAPH).figure
    cases = [t for t in fig.data if t.name.startswith("study ")]
    assert [len(t.x) for t in cases] == [15, 0]
    assert sorted(set(cases[0].x)) == [0.02, 0.035, 0.05, 0.08, 0.1]  # the shared first axis
    assert {c[0] for c in cases[0].customdata} == set(archive.case_ids(a, "case"))
    assert [t.name for t in fig.data if t.name.startswith("ideal")] == [f"ideal joint (study {a})"]
    clicked = {"points": [{"customdata": [cases[0].customdata[3][0]]}]}
    assert compare.open_case(clicked) == f"/cases/{cases[0].customdata[3][0]}"
    assert compare.open_case({"points": [{"x": 1}]}) is compare.dash.no_update
    assert "2 to 6 study ids" in texts(compare.layout(studies=str(a)))
    assert "no study with id 999999" in texts(compare.layout(studies=f"{a},999999"))
    # another metric: the same cases, that metric's values
    from archive_fixtures import fake_metrics

    redrawn = compare.studies_metric("impacts", [a, b])
    (line,) = [t for t in redrawn.data if t.name.startswith(f"study {a}")]
    by_id = {c["id"]: c for c in archive_cases(archive, a)}
    assert [y for y in line.y] == [fake_metrics(by_id[c[0]]["params"])["impacts"]
                                   for c in line.customdata]
    assert redrawn.layout.yaxis.title.text == "Impacts [count]"
    assert compare.studies_metric("no_such_metric", [a, b]) is compare.dash.no_update


def archive_cases(archive, study_id):
    from gapsweep.db.models import Case
    from sqlalchemy import select

    with archive.sessions() as s:
        return [{"id": c.id, "params": dict(c.params)} for c in s.scalars(
            select(Case).where(Case.study_id == study_id, Case.kind == "case"))]


def test_compare_studies_lists_what_differs_first(archive_page):
    """A clone with friction 0.1 against its source: the table of what differs has that
    row (and not the parameters set alike), above the studies' table."""
    from archive_fixtures import preset

    _, archive = archive_page
    source = archive.create(preset())
    clone = preset()
    clone["base"]["friction"] = 0.1
    clone["axes"]["stiffness_scale"] = {"values": [1.0]}
    other = archive.create(clone)
    layout = page("compare").layout(studies=f"{source},{other}")
    differ = find(layout, ids.COMPARE_STUDIES_DIFFER)
    assert [c["name"] for c in differ.columns] == ["Parameter", f"Study {source}",
                                                   f"Study {other}"]
    assert differ.data == [
        {"parameter": "stiffness_scale", "0": "varied: 1 ± 30 % (3 levels)", "1": "varied: 1"},
        {"parameter": "friction", "0": "default", "1": "0.1"}]


def test_an_empty_archive_offers_the_example_study_as_its_first_step(archive_page):
    """No study at all: the first step is shown, and its button submits the README's
    example study (15 cases and one ideal twin, enqueued) and opens its page. A filter that
    finds nothing is not an empty archive."""
    module, archive = archive_page
    assert ids.ARCHIVE_RUN_EXAMPLE in component_ids(module.layout())
    *_, empty = module.update_table(0, NEWEST_FIRST, None, None, None, None, 0, None, [])
    assert empty is True
    path, message = module.run_example(1)
    study_id = int(path.rsplit("/", 1)[1])
    assert path == f"/studies/{study_id}" and message is None
    assert len(archive.case_ids(study_id, "case")) == 15
    assert len(archive.case_ids(study_id, "twin")) == 1
    assert archive.sent == [archive.case_ids(study_id)]  # every case enqueued
    *_, empty = module.update_table(0, NEWEST_FIRST, None, None, None, None, 0, None, [])
    assert empty is False
    *_, empty = module.update_table(0, NEWEST_FIRST, "no such study", None, None, None, 0,
                                    None, [])
    assert empty is False


def test_the_archive_says_workers_ready_once_a_local_worker_is(archive_page):
    import os

    from gapsweep.web.app import READY_TEXT
    from gapsweep.workers.readiness import mark_ready

    module, archive = archive_page
    assert ids.ARCHIVE_WORKERS in component_ids(module.layout())
    # no worker yet: nothing (the banner says the kernels compile)
    assert module.show_workers(0) == ""
    # a live local worker's ready mark (this process stands in for it): "Workers ready"
    mark = mark_ready(archive.settings, f"test:{os.getpid()}")
    assert module.show_workers(1) == READY_TEXT
    # its worker gone (the mark left behind): nothing again
    mark.unlink()
    assert module.show_workers(2) == ""
