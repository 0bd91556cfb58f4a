"""A study's life on SQLite and PostgreSQL: cancel, retry, soft delete, purge, analysis."""

from __future__ import annotations

import pytest
from archive_helpers import fake_result, make_study, preview_series, row_counts
from gapsweep.db.leases import claim_cases, complete_case, fail_case
from gapsweep.db.lifecycle import (
    StudyNotFoundError,
    cancel_study,
    lock_study,
    purge_deleted,
    refresh_study_status,
    retry_failed,
    set_analysis,
    soft_delete,
)
from gapsweep.db.models import Case, Study
from gapsweep.db.studies import list_studies, queued_case_ids, study_detail, study_progress
from sqlalchemy import select, update


@pytest.fixture
def study(session_factory):
    with session_factory.begin() as s:
        sid = make_study(s).id
    with session_factory() as s:
        return sid, queued_case_ids(s, study_id=sid)


def test_cancel_stops_queued_cases_and_lets_running_ones_finish(session_factory, study):
    sid, ids = study
    with session_factory.begin() as s:
        claim_cases(s, case_ids=ids[:3], holder="w", lease_s=60)
        assert cancel_study(s, study_id=sid) == 13
    with session_factory() as s:
        assert study_progress(s, sid) == {
            "queued": 0, "running": 2, "done": 0, "failed": 0, "cancelled": 13, "total": 15
        }
        assert s.get(Study, sid).status == "cancelled" and s.get(Study, sid).finished is None
    with session_factory.begin() as s:
        assert claim_cases(s, case_ids=ids, holder="w2", lease_s=60) == []
        for cid in ids[:3]:
            assert complete_case(s, case_id=cid, holder="w", result=fake_result({}))
    with session_factory() as s:
        st = s.get(Study, sid)
        assert st.status == "cancelled" and st.finished is not None
        assert study_progress(s, sid)["done"] == 2


def test_retry_failed_requeues_with_attempts_kept(session_factory, study):
    sid, ids = study
    with session_factory.begin() as s:
        claim_cases(s, case_ids=ids, holder="w", lease_s=60)
        for cid in ids:
            if cid in (ids[2], ids[5]):
                fail_case(s, case_id=cid, holder="w", reason="diverged", final=True)
            else:
                complete_case(s, case_id=cid, holder="w", result=fake_result({}))
    with session_factory() as s:
        assert s.get(Study, sid).status == "done"
    with session_factory.begin() as s:
        assert retry_failed(s, study_id=sid) == [ids[2], ids[5]]
    with session_factory() as s:
        c = s.get(Case, ids[2])
        assert (c.status, c.attempts, c.reason, c.lease_holder) == ("queued", 1, None, None)
        st = s.get(Study, sid)
        assert (st.status, st.finished) == ("running", None)
    with session_factory.begin() as s:
        again = claim_cases(s, case_ids=[ids[2], ids[5]], holder="w", lease_s=60)
        assert [c.attempts for c in again] == [2, 2]
        for c in again:
            complete_case(s, case_id=c.id, holder="w", result=fake_result({}))
        assert retry_failed(s, study_id=sid) == []
    with session_factory() as s:
        assert s.get(Study, sid).status == "done"
        assert study_progress(s, sid)["done"] == 15


def test_soft_delete_hides_and_purge_removes_everything(session_factory, study):
    sid, ids = study
    with session_factory.begin() as s:
        keep = make_study(s).id
        claim_cases(s, case_ids=ids[:4], holder="w", lease_s=60)
        for cid in ids[:4]:
            complete_case(s, case_id=cid, holder="w", result=fake_result({}),
                          series=preview_series())
    with session_factory() as s:
        before = row_counts(s)
    assert (before["results"], before["series"], before["cases"]) == (4, 4, 32)
    with session_factory.begin() as s:
        soft_delete(s, study_id=sid)
    with session_factory() as s:
        assert [it["id"] for it in list_studies(s)[1]] == [keep]
        assert study_detail(s, sid) is None
        assert s.get(Study, sid).deleted_at is not None
        assert study_progress(s, sid)["cancelled"] == 12  # its queued cases were cancelled
        with pytest.raises(StudyNotFoundError):
            cancel_study(s, study_id=sid)
        assert row_counts(s) == before  # soft: nothing removed yet
    with session_factory.begin() as s:
        assert purge_deleted(s, older_than_s=3600) == {
            "studies": 0, "cases": 0, "results": 0, "series": 0
        }
        assert purge_deleted(s) == {"studies": 1, "cases": 16, "results": 4, "series": 4}
    with session_factory() as s:
        assert row_counts(s) == {
            "studies": 1, "study_tags": 2, "cases": 16, "results": 0, "series": 0
        }
        assert s.scalars(select(Case.study_id).distinct()).all() == [keep]


def test_set_analysis_and_unknown_ids(session_factory, study):
    sid, _ = study
    with session_factory.begin() as s:
        set_analysis(s, study_id=sid, analysis={"indices": {"peak_slider_accel": {"K": 0.5}}})
    with session_factory() as s:
        assert study_detail(s, sid)["analysis"] == {"indices": {"peak_slider_accel": {"K": 0.5}}}
        for call in (cancel_study, retry_failed, soft_delete):
            with pytest.raises(StudyNotFoundError, match="no study with id 999999"):
                call(s, study_id=999999)
        with pytest.raises(StudyNotFoundError):
            refresh_study_status(s, 999999)


def test_a_cancel_between_a_refreshs_read_and_its_update_stays_cancelled(tmp_path):
    """SQLite (pysqlite) runs the refresh's SELECT of the status outside the write
    transaction, so a cancel can commit between that read ("running") and the refresh's
    UPDATE to "done". The UPDATE must not replace the cancel (seen in CI: a study cancelled
    from the browser read "done" a minute later)."""
    from gapsweep.db.engine import open_database
    from sqlalchemy import event

    sessions = open_database(f"sqlite:///{tmp_path / 'race.db'}")
    engine = sessions.kw["bind"]
    with sessions.begin() as s:
        sid = make_study(s).id
    with sessions() as s:
        ids = queued_case_ids(s, study_id=sid)
    with sessions.begin() as s:  # all but the last case done: the study is running
        claim_cases(s, case_ids=ids[:-1], holder="w", lease_s=60)
        for cid in ids[:-1]:
            assert complete_case(s, case_id=cid, holder="w", result=fake_result({}))
    cancelled = []

    @event.listens_for(engine, "before_cursor_execute")
    def cancel_first(conn, cursor, statement, parameters, context, executemany):
        if not cancelled and statement.lstrip().upper().startswith("UPDATE STUDIES") \
                and "done" in (parameters if isinstance(parameters, tuple) else ()):
            with sessions.begin() as other:  # the user's cancel, committed in between
                cancelled.append(cancel_study(other, study_id=sid))

    try:
        with sessions.begin() as s:
            refresh_study_status(s, sid)
    finally:
        event.remove(engine, "before_cursor_execute", cancel_first)
        engine.dispose()
    assert cancelled == [1]  # the race happened: the last queued case was cancelled
    with sessions() as s:
        assert s.get(Study, sid).status == "cancelled"


def test_a_locked_study_holds_a_second_lock_until_the_first_commits(session_factory, study):
    """``lock_study`` serialises search steps and cancels on both databases. On SQLite a
    ``FOR UPDATE`` is dropped and pysqlite runs a SELECT outside any transaction, so a lock
    that only read held nothing (CI: a search step's stale summary written over a finished
    one). The second locker waits, and then reads what the first committed."""
    import threading

    sid, _ = study
    acquired, seen = threading.Event(), []

    def second() -> None:
        with session_factory.begin() as s:
            lock_study(s, sid)
            acquired.set()
            seen.append(s.scalar(select(Study.name).where(Study.id == sid)))

    with session_factory.begin() as s:
        assert lock_study(s, sid) == "queued"
        other = threading.Thread(target=second)
        other.start()
        assert not acquired.wait(0.5)  # held while this transaction is open
        s.execute(update(Study).where(Study.id == sid).values(name="renamed under the lock"))
    other.join(timeout=30)
    assert acquired.is_set() and seen == ["renamed under the lock"]
