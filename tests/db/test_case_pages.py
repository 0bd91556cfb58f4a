"""A study's cases a page at a time (issue 41): the keyset cursor covers every case exactly
once in each sort and status filter, the study's head is the whole detail for a small study,
``show --json`` streamed equals the whole text, the chunked table equals the whole read, the
streamed export rows equal the whole export - on a synthetic archive inserted directly."""

from __future__ import annotations

import math

import pytest
from gapsweep.db import case_export, case_pages
from gapsweep.db.studies import export_rows, study_detail, study_head
from pandas.testing import assert_frame_equal
from support.big_archive import fill_study

from gapsweep.archive.actor import cli_principal
from gapsweep.archive.frames import cases_frame
from gapsweep.archive.local import LocalArchive
from gapsweep.commands.output import json_text
from gapsweep.settings import get_settings


@pytest.fixture
def study(session_factory):
    with session_factory.begin() as s:
        study_id = fill_study(s)
    return session_factory, study_id


def _walk(session, study_id, **kw):
    seen, cursor, pages = [], None, 0
    while True:
        entries, cursor = case_pages.case_page(session, study_id=study_id, cursor=cursor, **kw)
        seen += entries
        pages += 1
        if cursor is None:
            return seen, pages


def _key(entry, metric):
    value = entry["metrics"].get(metric)
    return value


@pytest.mark.parametrize("sort", ["index", "-index", "id", "-id", "peak_slider_accel",
                                  "-peak_slider_accel", "impacts", "-impacts"])
@pytest.mark.parametrize("status", [None, "done", "failed", "queued"])
def test_the_cursor_covers_every_case_once_in_order(study, sort, status):
    sessions, study_id = study
    with sessions() as s:
        whole = [c for c in study_detail(s, study_id)["cases"]
                 if status is None or c["status"] == status]
        seen, pages = _walk(s, study_id, limit=7, sort=sort, status=status)
    assert sorted(c["id"] for c in seen) == sorted(c["id"] for c in whole)
    assert len({c["id"] for c in seen}) == len(seen)
    assert pages == max(1, math.ceil(len(whole) / 7))
    key, descending = case_pages.parse_sort(sort)
    index = {c["id"]: i for i, c in enumerate(study_detail_cases(sessions, study_id))}
    if key in ("index", "id"):
        expected = sorted(whole, key=lambda c: index[c["id"]], reverse=descending)
    else:  # empty values last either way, ties in design order
        have = [c for c in whole if _key(c, key) is not None]
        empty = [c for c in whole if _key(c, key) is None]
        have.sort(key=lambda c: (-_key(c, key) if descending else _key(c, key), index[c["id"]]))
        expected = have + sorted(empty, key=lambda c: index[c["id"]])
    assert [c["id"] for c in seen] == [c["id"] for c in expected]
    assert seen == [next(w for w in whole if w["id"] == c["id"]) for c in seen]


def study_detail_cases(sessions, study_id):
    with sessions() as s:
        return study_detail(s, study_id)["cases"]


def test_bad_cursor_sort_status_and_limit_are_refused_by_name(study):
    sessions, study_id = study
    with sessions() as s:
        for kw, name in (({"cursor": "not-a-cursor"}, "cursor"), ({"sort": "params"}, "sort"),
                         ({"status": "lost"}, "status"), ({"limit": 0}, "limit"),
                         ({"limit": case_pages.PAGE + 1}, "limit")):
            with pytest.raises(ValueError, match=name):
                case_pages.case_page(s, study_id=study_id, **kw)


def test_a_small_study_reads_whole_with_its_totals(study):
    sessions, study_id = study
    with sessions() as s:
        whole = study_detail(s, study_id)
        head = study_head(s, study_id)
    assert head["cases_total"] == 60 == len(whole["cases"])
    assert head["twins_total"] == 5
    assert head["cases_cursor"] is None and head["twins_cursor"] is None
    paging = {"cases_total", "twins_total", "cases_cursor", "twins_cursor"}
    assert {k: v for k, v in head.items() if k not in paging} == whole


def test_a_larger_study_carries_its_first_page_and_the_rest_follows(study):
    sessions, study_id = study
    with sessions() as s:
        whole = study_detail(s, study_id)
        head = study_head(s, study_id, page=25)
        rest, _ = _walk(s, study_id, limit=25)
    assert head["cases"] == whole["cases"][:25]
    assert head["cases_total"] == 60
    assert head["cases_cursor"] is not None
    assert rest == whole["cases"]


def _archive(sessions):
    return LocalArchive(sessions, get_settings(), cli_principal())


def test_show_json_streamed_equals_the_whole_text(study, monkeypatch):
    sessions, study_id = study
    with sessions() as s:
        whole = json_text(study_detail(s, study_id))
    assert "".join(_archive(sessions).study_json(study_id)) == whole
    monkeypatch.setattr(case_pages, "PAGE", 7)  # many pages, twins too
    pieces = list(_archive(sessions).study_json(study_id))
    assert "".join(pieces) == whole
    assert max(map(len, pieces)) < len(whole) / 6  # a page (7 of 60 cases), not the study
    # lazily: a page is read when the text reaches it, so memory holds one page
    arch = _archive(sessions)
    reads = []
    original = case_pages.case_page
    monkeypatch.setattr(case_pages, "case_page",
                        lambda *a, **kw: reads.append(1) or original(*a, **kw))
    stream = arch.study_json(study_id)
    reads.clear()  # the head's own first pages
    text = ""
    while '"cases": [{' not in text:
        text += next(stream)
    assert reads == []  # the first case written, no further page read yet
    text += "".join(stream)
    assert text == whole and len(reads) == math.ceil(60 / 7) - 1 + math.ceil(5 / 7) - 1


def test_the_chunked_table_equals_the_whole_read(study, tmp_path):
    sessions, study_id = study
    with sessions() as s:
        whole = cases_frame(*export_rows(s, study_id))
    arch = _archive(sessions)
    assert_frame_equal(arch.cases(study_id, chunk=7), whole)
    picked = arch.cases(study_id, ["clearance_mm", "peak_slider_accel"], chunk=9,
                        parquet=tmp_path / "cases.parquet")
    assert_frame_equal(picked, whole[["clearance_mm", "peak_slider_accel"]])
    import pandas as pd

    assert_frame_equal(pd.read_parquet(tmp_path / "cases.parquet"), picked)
    with pytest.raises(ValueError, match="nonsense"):
        arch.cases(study_id, ["nonsense"])


def test_streamed_export_rows_equal_the_whole_export(study):
    sessions, study_id = study
    with sessions() as s:
        columns, rows = export_rows(s, study_id)
        assert case_export.export_columns(s, study_id) == columns
    pages = list(case_export.iter_export_rows(sessions, study_id, columns, page=8))
    assert len(pages) == 8
    assert [r for p in pages for r in p] == rows


def test_the_table_by_columns_equals_the_whole_detail_where_it_reads(study):
    sessions, study_id = study
    extras = ["contact_time_fraction", "energy_balance_error", "deviation_peak_slider_accel",
              "deviation_rms_slider_accel", "deviation_peak_driving_torque",
              "deviation_peak_slider_accel_settled"]
    with sessions() as s:
        whole = study_detail(s, study_id)
        table = case_pages.study_table(s, study_id, metrics=extras)
        bare = case_pages.study_table(s, study_id)
    keep = ("id", "params", "status", "metrics", "twin_id")
    assert table["cases"] == [{k: c[k] for k in keep} for c in whole["cases"]]
    assert [t["metrics"] for t in table["twins"]] == [t["metrics"] for t in whole["twins"]]
    assert table["counts"] == whole["counts"] and table["spec"] == whole["spec"]
    # without asking, the other metrics' JSON is not read, no deviation computed: the columns
    assert all(set(c["metrics"]).isdisjoint(extras) for c in bare["cases"])
    assert [c["metrics"].get("peak_slider_accel") for c in bare["cases"]] == \
        [c["metrics"].get("peak_slider_accel") for c in whole["cases"]]


def test_trend_columns_are_the_whole_details_done_cases_and_ids_false_drops_only_the_ids(
        study):
    # the columns a large study's Trends and Sensitivity read (issue 41): each done case's
    # axes and metric in design order, as the whole detail holds them; ids=False the same
    # columns without id and twin_id, a column metric and an extra one, cases and twins
    sessions, study_id = study
    axes = ["clearance_mm", "stiffness_scale"]
    with sessions() as s:
        whole = study_detail(s, study_id)
        for metric in ("peak_slider_accel", "contact_time_fraction"):
            cols = case_pages.trend_columns(s, study_id=study_id, axes=axes, metric=metric)
            done = [c for c in whole["cases"] if c["status"] == "done"]
            assert cols["id"] == [c["id"] for c in done]
            assert cols["twin_id"] == [c["twin_id"] for c in done]
            for a in axes:
                assert cols[a] == [c["params"][a] for c in done]
            assert cols[metric] == [c["metrics"].get(metric) for c in done]
            bare = case_pages.trend_columns(s, study_id=study_id, axes=axes, metric=metric,
                                            ids=False)
            assert bare == {k: v for k, v in cols.items() if k not in ("id", "twin_id")}
            twins = case_pages.trend_columns(s, study_id=study_id, axes=[], metric=metric,
                                             kind="twin", ids=False)
            assert twins == {metric: [t["metrics"].get(metric) for t in whole["twins"]]}


def test_the_export_command_writes_pages_as_the_whole_rows(study, tmp_path):
    from gapsweep.commands.export import write_pages, write_rows

    sessions, study_id = study
    with sessions() as s:
        columns, rows = export_rows(s, study_id)
    for fmt in ("csv", "json"):
        write_rows(columns, rows, fmt, str(tmp_path / f"whole.{fmt}"))
        pages = case_export.iter_export_rows(sessions, study_id, columns, page=9)
        write_pages(columns, pages, fmt, str(tmp_path / f"paged.{fmt}"))
        assert (tmp_path / f"paged.{fmt}").read_text() == (tmp_path / f"whole.{fmt}").read_text()


def test_a_page_with_nan_or_numpy_values_streams_as_json_text_writes_it():
    import numpy as np

    from gapsweep.archive.streaming import study_json_chunks

    head = {"id": 1, "cases": [{"x": float("nan"), "y": 1.0}], "cases_cursor": "c",
            "n": np.float64(1.5), "twins": []}
    pages = {"cases": lambda: iter([[{"y": np.int64(2)}], [{"z": float("inf")}]]),
             "twins": lambda: iter([])}
    text = "".join(study_json_chunks(head, pages))
    assert text == json_text({"id": 1, "cases": [{"x": None, "y": 1.0}, {"y": 2}, {"z": None}],
                              "n": 1.5, "twins": []})
