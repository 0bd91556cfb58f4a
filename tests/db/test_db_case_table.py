"""The case grid's page query (db/case_table.py) on SQLite and PostgreSQL: every sort, filter
and page equals the same operation done in Python on the rows as written; unknown columns and
operators are refused naming them."""

from __future__ import annotations

import pytest
from archive_helpers import make_study
from gapsweep.db.case_table import case_page
from gapsweep.db.models import Case, Result
from sqlalchemy import select

AXES = {"clearance_mm": "number", "stiffness_scale": "number"}
# two of the grid's headline columns (the settled metrics, issue 23): a float and a count
PEAK, COUNT = "peak_slider_accel_settled", "impacts_settled"


def peak(params: dict) -> float:
    # not monotone in the design order, so a sort has work to do
    return 1000.0 * params["stiffness_scale"] + 7.0 / params["clearance_mm"]


@pytest.fixture
def study(session_factory):
    """The 15-case grid: 12 done (metrics from :func:`peak`), one failed, two queued."""
    with session_factory.begin() as s:
        study_id = make_study(s).id
        cases = list(s.scalars(select(Case).where(Case.study_id == study_id,
                                                  Case.kind == "case").order_by(Case.index)))
        expected = []
        for i, case in enumerate(cases):
            row = {"id": case.id, "index": i, **case.params, PEAK: None,
                   "status": "queued", "reason": ""}
            if i < 12:
                case.status = "done"
                row[PEAK] = peak(case.params)
                # the grid's headline columns are the settled metrics (issue 23), which
                # the results keep in their extra JSON, not in columns of their own
                s.add(Result(case_id=case.id, extra={
                    PEAK: row[PEAK],
                    COUNT: i % 4}))
                row[COUNT] = i % 4
            elif i == 12:
                case.status, case.reason = "failed", "diverged at t = 3 ms"
                row.update(status="failed", reason="diverged at t = 3 ms")
            row["status"] = case.status
            expected.append(row)
    return session_factory, study_id, expected


def page(study, **kwargs):
    sessions, study_id, _ = study
    with sessions() as s:
        rows, total = case_page(s, study_id=study_id, axes=AXES, **kwargs)
    return [r["id"] for r in rows], total, rows


def test_default_order_is_the_design_order_and_pages_are_slices(study):
    _, _, expected = study
    ids, total, rows = page(study, start=0, end=100)
    assert ids == [r["id"] for r in expected] and total == 15
    assert [r["clearance_mm"] for r in rows] == [r["clearance_mm"] for r in expected]
    assert rows[12]["reason"] == "diverged at t = 3 ms" and rows[13][PEAK] is None
    assert page(study, start=5, end=10)[0] == [r["id"] for r in expected[5:10]]
    assert page(study, start=14, end=100)[0] == [expected[14]["id"]]


@pytest.mark.parametrize("direction", ["asc", "desc"])
def test_sort_by_a_metric_puts_the_cases_without_one_last(study, direction):
    _, _, expected = study
    with_value = sorted((r for r in expected if r[PEAK] is not None),
                        key=lambda r: r[PEAK], reverse=direction == "desc")
    without = [r for r in expected if r[PEAK] is None]  # design order
    ids, total, rows = page(study, sort_model=[{"colId": PEAK,
                                                "sort": direction}])
    assert ids == [r["id"] for r in with_value + without] and total == 15
    assert rows[0][PEAK] == pytest.approx(with_value[0][PEAK])


def test_sort_by_two_axes_from_the_params_json(study):
    _, _, expected = study
    want = sorted(expected, key=lambda r: (-r["stiffness_scale"], r["clearance_mm"]))
    ids, _, _ = page(study, sort_model=[{"colId": "stiffness_scale", "sort": "desc"},
                                        {"colId": "clearance_mm", "sort": "asc"}])
    assert ids == [r["id"] for r in want]


def test_filters_number_range_text_and_combined_conditions(study):
    _, _, expected = study
    ids, total, _ = page(study, filter_model={
        "clearance_mm": {"filterType": "number", "type": "inRange", "filter": 0.03,
                         "filterTo": 0.08},
        "status": {"filterType": "text", "type": "equals", "filter": "done"}})
    want = [r["id"] for r in expected
            if 0.03 <= r["clearance_mm"] <= 0.08 and r["status"] == "done"]
    assert ids == want and total == len(want) == 9
    ids, total, _ = page(study, filter_model={
        "reason": {"filterType": "text", "type": "contains", "filter": "DIVERGED"}})
    assert ids == [expected[12]["id"]] and total == 1
    ids, _, _ = page(study, filter_model={PEAK: {
        "filterType": "number", "operator": "OR", "conditions": [
            {"type": "lessThan", "filter": 900.0}, {"type": "blank"}]}})
    assert ids == [r["id"] for r in expected
                   if r[PEAK] is None or r[PEAK] < 900.0]
    # the wildcard of LIKE is plain text here
    assert page(study, filter_model={"status": {"type": "contains", "filter": "%"}})[1] == 0
    # filter + sort + page: the count is of the filtered rows, the page a slice of them
    ids, total, _ = page(study, start=1, end=3, sort_model=[{"colId": COUNT,
                                                              "sort": "desc"}],
                         filter_model={COUNT: {"type": "greaterThanOrEqual", "filter": 2}})
    ranked = sorted((r for r in expected if r.get(COUNT) is not None
                     and r[COUNT] >= 2), key=lambda r: (-r[COUNT], r["index"]))
    assert total == len(ranked) and ids == [r["id"] for r in ranked[1:3]]


@pytest.mark.parametrize("kwargs, message", [
    ({"sort_model": [{"colId": "params", "sort": "asc"}]}, "sortModel[0].colId: 'params'"),
    ({"sort_model": [{"colId": "status", "sort": "sideways"}]}, "sortModel[0].sort"),
    ({"filter_model": {"secret": {"type": "equals", "filter": 1}}},
     "filterModel.secret: not a column"),
    ({"filter_model": {COUNT: {"type": "regex", "filter": 1}}},
     "filterModel.impacts_settled.type: 'regex' — one of equals"),
    ({"filter_model": {COUNT: {"type": "equals", "filter": "nan"}}},
     "filterModel.impacts_settled.filter: 'nan' — a finite number"),
    ({"start": 0, "end": 5000}, "at most 1000 rows"),
])
def test_unknown_columns_and_operators_are_refused_naming_them(study, kwargs, message):
    with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("]", r"\]")):
        page(study, **kwargs)
