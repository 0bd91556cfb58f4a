"""A large study over HTTP (issue 41, design.md 4.16) through Flask's test client, on a
synthetic archive inserted directly: ``GET /api/studies/<id>`` carries the first 1,000 cases
with ``cases_total`` and ``next``; ``GET /api/studies/<id>/cases`` pages by a keyset cursor,
sorted and filtered, every case once; ``cases.csv`` streamed is the whole export."""

from __future__ import annotations

import csv
import io

from support.big_archive import fill_study  # noqa: E402


def _follow(client, link):
    items, pages = [], 0
    while link:
        r = client.get(link)
        assert r.status_code == 200, r.get_data(as_text=True)
        body = r.get_json()
        items += body["items"]
        link = body["next"]
        pages += 1
    return items, pages


def _ids(archive, study_id, kind="case", status=None):
    from gapsweep.db.models import Case
    from sqlalchemy import select

    with archive.sessions() as s:
        q = select(Case.id).where(Case.study_id == study_id, Case.kind == kind)
        if status:
            q = q.where(Case.status == status)
        return sorted(s.scalars(q))


def test_the_study_carries_its_first_thousand_cases_and_a_next_link(archive):
    with archive.sessions.begin() as s:
        study_id = fill_study(s, n_clearance=210, n_stiffness=5)  # 1,050 cases, 5 twins
    client = archive.client()
    body = client.get(f"/api/studies/{study_id}").get_json()
    assert len(body["cases"]) == 1000 and body["cases_total"] == 1050
    assert body["counts"]["total"] == 1050
    assert [c["id"] for c in body["cases"]] == _ids(archive, study_id)[:1000]
    assert len(body["twins"]) == 5 == body["twins_total"] and body["twins_next"] is None
    assert body["next"].startswith(f"/api/studies/{study_id}/cases?")
    rest, pages = _follow(client, body["next"])
    assert pages == 1 and len(rest) == 50
    every = [c["id"] for c in body["cases"] + rest]
    assert every == _ids(archive, study_id)  # each once, in design order


def test_pages_sorted_and_filtered_cover_each_case_once(archive):
    with archive.sessions.begin() as s:
        study_id = fill_study(s)
    client = archive.client()
    for status in ("done", "failed", None):
        query = f"limit=7&sort=-peak_slider_accel{'&status=' + status if status else ''}"
        first = client.get(f"/api/studies/{study_id}/cases?{query}").get_json()
        assert first["total"] == len(_ids(archive, study_id, status=status))
        items, pages = _follow(client, f"/api/studies/{study_id}/cases?{query}")
        assert sorted(c["id"] for c in items) == _ids(archive, study_id, status=status)
        assert pages == -(-first["total"] // 7)
        peaks = [c["metrics"].get("peak_slider_accel") for c in items]
        known = [p for p in peaks if p is not None]
        assert known == sorted(known, reverse=True)
        assert all(p is None for p in peaks[len(known):])  # the empty ones last
    twins, _ = _follow(client, f"/api/studies/{study_id}/cases?kind=twin&limit=2")
    assert [t["id"] for t in twins] == _ids(archive, study_id, kind="twin")


def test_bad_paging_arguments_are_422_and_an_unknown_study_404(archive):
    with archive.sessions.begin() as s:
        study_id = fill_study(s)
    client = archive.client()
    for query, name in (("cursor=zzz", "cursor"), ("sort=params", "sort"),
                        ("status=lost", "status"), ("kind=study", "kind"),
                        ("limit=1001", "limit"), ("limit=0", "limit")):
        r = client.get(f"/api/studies/{study_id}/cases?{query}")
        assert r.status_code == 422, query
        assert name in r.get_json()["error"]
    assert client.get(f"/api/studies/{study_id + 1}/cases").status_code == 404


def test_the_streamed_csv_is_the_whole_export(archive):
    from gapsweep.db.studies import export_rows

    with archive.sessions.begin() as s:
        study_id = fill_study(s, n_clearance=300, n_stiffness=5)  # 1,500 cases: two pages
    with archive.sessions() as s:
        columns, rows = export_rows(s, study_id)
    r = archive.client().get(f"/api/studies/{study_id}/cases.csv")
    assert r.status_code == 200 and r.is_streamed
    got = list(csv.DictReader(io.StringIO(r.get_data(as_text=True))))
    assert list(got[0]) == columns and len(got) == 1500
    want = io.StringIO()
    writer = csv.DictWriter(want, fieldnames=columns, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    assert r.get_data(as_text=True) == want.getvalue()
