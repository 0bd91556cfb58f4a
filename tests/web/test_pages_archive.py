"""The archive page: layout, server-side paging / sorting / filtering, soft delete."""

from __future__ import annotations

import pytest
from archive_fixtures import component_ids, page, preset
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
    rows, page_count, total, _ = module.update_table(0, NEWEST_FIRST, None, None, None, None,
                                                     0, None, [])
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
    rows, _, total, _ = module.update_table(0, NEWEST_FIRST, None, "odd", None, None, 0, None,
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
    rows, _, total, _ = module.update_table(0, NEWEST_FIRST, None, None, None, None, 5, None, [])
    assert total == "1 studies" and [r["id"] for r in rows] == [study_ids[1]]
