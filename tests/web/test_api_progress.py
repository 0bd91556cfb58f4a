"""``GET /api/studies/<id>/progress``: a study's status and case counts without its cases
(issue 16, part 4) - what remote ``wait`` polls. Counts are checked against the case rows
counted here, status and times against the full detail."""

from __future__ import annotations

from collections import Counter

from gapsweep.db.models import Case
from sqlalchemy import select, update

STATUSES = ("queued", "running", "done", "failed", "cancelled")


def counted(archive, study_id: int) -> dict[str, int]:
    """Design cases per status, counted from the rows (twins left out, design.md 4.5)."""
    with archive.sessions() as s:
        rows = s.scalars(select(Case.status).where(Case.study_id == study_id,
                                                   Case.kind == "case")).all()
    tally = Counter(rows)
    return {**{k: tally.get(k, 0) for k in STATUSES}, "total": len(rows)}


def test_progress_follows_the_study_from_queued_to_cancelled(archive):
    client = archive.client()
    study_id = archive.create()
    r = client.get(f"/api/studies/{study_id}/progress")
    assert r.status_code == 200
    assert r.get_json() == {"id": study_id, "status": "queued", "started": None,
                            "finished": None, "counts": {**dict.fromkeys(STATUSES, 0),
                                                         "queued": 15, "total": 15},
                            "running": []}
    cases = archive.case_ids(study_id, "case")
    archive.run(cases[:4], fail={cases[1]})
    archive.run(archive.case_ids(study_id, "twin"))
    mid = client.get(f"/api/studies/{study_id}/progress").get_json()
    assert mid["counts"] == counted(archive, study_id) == {
        "queued": 11, "running": 0, "done": 3, "failed": 1, "cancelled": 0, "total": 15}
    detail = client.get(f"/api/studies/{study_id}").get_json()
    assert mid["status"] == detail["status"] == "running"
    assert mid["started"] == detail["started"] is not None and mid["finished"] is None
    assert mid["counts"] == detail["counts"]

    assert client.post(f"/api/studies/{study_id}/cancel").status_code == 200
    end = client.get(f"/api/studies/{study_id}/progress").get_json()
    detail = client.get(f"/api/studies/{study_id}").get_json()
    assert end["counts"] == counted(archive, study_id) == {
        "queued": 0, "running": 0, "done": 3, "failed": 1, "cancelled": 11, "total": 15}
    assert (end["status"], end["started"], end["finished"]) == (
        "cancelled", detail["started"], detail["finished"])
    assert end["finished"] is not None
    assert set(end) == {"id", "status", "counts", "started", "finished", "running"}


def test_a_running_case_s_steps_are_in_the_progress_until_it_ends(archive):
    """A long case (a wear life) says how far it has come: the step its holder reported is
    in ``running`` while it runs, a stale holder writes nothing, a new claim starts over,
    and a stored case leaves the list."""
    from archive_fixtures import HOLDER
    from gapsweep.db import leases

    client = archive.client()
    study_id = archive.create()
    first, second = archive.case_ids(study_id, "case")[:2]
    with archive.sessions.begin() as s:
        leases.claim_cases(s, case_ids=[first, second], holder=HOLDER, lease_s=60)
    path = f"/api/studies/{study_id}/progress"
    assert client.get(path).get_json()["running"] == []
    with archive.sessions.begin() as s:
        assert leases.report_progress(s, case_id=second, holder=HOLDER, step=3, steps=21)
        assert not leases.report_progress(s, case_id=first, holder="another", step=9, steps=9)
    report = client.get(path).get_json()
    assert report["running"] == [{"id": second, "step": 3, "steps": 21}]
    assert report["counts"]["running"] == 2
    with archive.sessions.begin() as s:  # the lease lost and the case claimed again
        s.execute(update(Case).where(Case.id == second).values(status="queued"))
        leases.claim_cases(s, case_ids=[second], holder=HOLDER, lease_s=60)
    assert client.get(path).get_json()["running"] == []
    with archive.sessions.begin() as s:
        leases.report_progress(s, case_id=second, holder=HOLDER, step=1, steps=21)
    archive.run([second])
    assert client.get(path).get_json()["running"] == []


def test_progress_of_an_unknown_or_deleted_study_is_a_404(archive):
    client = archive.client()
    study_id = archive.create()
    r = client.get("/api/studies/987654/progress")
    assert r.status_code == 404 and r.get_json() == {"error": "no study with id 987654"}
    assert client.get(f"/api/studies/{study_id}/progress").status_code == 200
    from gapsweep.db.lifecycle import soft_delete

    with archive.sessions.begin() as s:
        soft_delete(s, study_id=study_id)
    r = client.get(f"/api/studies/{study_id}/progress")
    assert r.status_code == 404 and "error" in r.get_json()


def test_progress_needs_the_credentials_every_read_route_needs(archive, accounts):
    study_id = archive.create()
    path = f"/api/studies/{study_id}/progress"
    assert archive.client().get(path).status_code == 401
    r = archive.client().get(path, headers=accounts.bearer("vic"))  # a viewer reads
    assert r.status_code == 200 and r.get_json()["counts"]["queued"] == 15
    client, _ = accounts.sign_in("eve")
    assert client.get(path).status_code == 200
