"""Lease semantics on SQLite and PostgreSQL: claims never overlap, a result is stored only
while its writer holds the lease, exactly one result per case, failures and reconciling."""

from __future__ import annotations

import random
import threading
from datetime import timedelta

import numpy as np
import pytest
from archive_helpers import FakeSpec, fake_result, make_study, preview_series, user_plan
from gapsweep.db.case_reads import case_detail, case_series
from gapsweep.db.leases import (
    claim_cases,
    complete_case,
    complete_cases,
    fail_case,
    mark_enqueued,
    renew_leases,
    requeue_expired,
    stale_queued,
)
from gapsweep.db.lifecycle import cancel_study
from gapsweep.db.models import Case, Result, Series, Study, utcnow
from gapsweep.db.studies import queued_case_ids
from sqlalchemy import func, insert, select
from sqlalchemy.exc import IntegrityError


@pytest.fixture
def study(session_factory):
    """A committed 15-case study with one twin: (study id, its 16 case ids)."""
    with session_factory.begin() as s:
        sid = make_study(s).id
    with session_factory() as s:
        return sid, queued_case_ids(s, study_id=sid)


def _case(session_factory, case_id):
    with session_factory() as s:
        return s.get(Case, case_id)


def test_claim_sets_the_lease_and_skips_held_cases(session_factory, study):
    sid, ids = study
    now = utcnow()
    with session_factory.begin() as s:
        got = claim_cases(s, case_ids=ids[:3], holder="a", lease_s=30, now=now)
    assert [c.id for c in got] == ids[:3]
    assert got[1].model == "slider-crank" and got[1].series_policy == "preview"
    assert got[1].params["clearance_mm"] == 0.02 and got[1].attempts == 1
    c = _case(session_factory, ids[1])
    assert (c.status, c.attempts, c.lease_holder) == ("running", 1, "a")
    assert abs((c.lease_expires - now).total_seconds() - 30) < 1e-3
    with session_factory.begin() as s:
        again = claim_cases(s, case_ids=list(reversed(ids[:5])), holder="b", lease_s=30)
    assert [c.id for c in again] == [ids[4], ids[3]]  # the order asked, held ones left out
    with session_factory() as s:
        assert s.get(Study, sid).status == "running"


def test_two_claimers_never_get_the_same_case(session_factory, study):
    """Four threads, each claiming random overlapping chunks of the same ids until none is
    left: every case is claimed exactly once."""
    _, ids = study
    got: dict[str, list[int]] = {}
    barrier = threading.Barrier(4)
    errors = []

    def claimer(name: str, seed: int) -> None:
        rng = random.Random(seed)
        mine: list[int] = []
        try:
            barrier.wait()
            for _ in range(200):
                chunk = rng.sample(ids, 4)
                with session_factory.begin() as s:
                    mine += [c.id for c in claim_cases(s, case_ids=chunk, holder=name, lease_s=60)]
                with session_factory() as s:
                    if not queued_case_ids(s, study_id=study[0]):
                        break
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)
        got[name] = mine

    threads = [threading.Thread(target=claimer, args=(f"w{i}", i)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not errors
    claimed = [cid for mine in got.values() for cid in mine]
    assert sorted(claimed) == sorted(ids)  # every case once: no duplicates, none missing
    with session_factory() as s:
        rows = s.execute(select(Case.id, Case.lease_holder, Case.attempts)).all()
    holders = {cid: name for name, mine in got.items() for cid in mine}
    assert {r.id: r.lease_holder for r in rows} == holders
    assert {r.attempts for r in rows} == {1}


def test_concurrent_sessions_claiming_overlapping_sets(session_factory, study):
    """Two open transactions: the second claim sees the first's rows as taken (PostgreSQL:
    skipped while locked; SQLite: waits for the write lock, then finds them running)."""
    _, ids = study
    results = {}

    def claim(name, subset, started):
        with session_factory.begin() as s:
            results[name] = [c.id for c in claim_cases(s, case_ids=subset, holder=name, lease_s=60)]
            started.set()

    s1 = session_factory()
    s1.begin()
    first = [c.id for c in claim_cases(s1, case_ids=ids[:10], holder="one", lease_s=60)]
    t = threading.Thread(target=claim, args=("two", ids[5:], threading.Event()))
    t.start()
    t.join(0.5)  # on SQLite the second waits for our write lock
    s1.commit()
    s1.close()
    t.join(30)
    assert first == ids[:10]
    assert set(results["two"]) == set(ids[10:])


def test_result_after_expired_lease_and_reclaim_is_rejected(session_factory, study):
    _, ids = study
    cid = ids[3]
    t0 = utcnow()
    with session_factory.begin() as s:
        assert claim_cases(s, case_ids=[cid], holder="slow", lease_s=5, now=t0)
    later = t0 + timedelta(seconds=10)
    # expired, not yet reclaimed: refused too, and not revived by a renewal either
    with session_factory.begin() as s:
        assert not complete_case(s, case_id=cid, holder="slow", result=fake_result({}), now=later)
        assert renew_leases(s, case_ids=[cid], holder="slow", lease_s=60, now=later) == 0
    with session_factory.begin() as s:
        assert requeue_expired(s, now=later, max_attempts=3) == [cid]
    with session_factory.begin() as s:
        got = claim_cases(s, case_ids=[cid], holder="fast", lease_s=60, now=later)
        assert got[0].attempts == 2
    with session_factory.begin() as s:
        assert not complete_case(s, case_id=cid, holder="slow", result=fake_result({}, 1))
        assert not renew_leases(s, case_ids=[cid], holder="slow", lease_s=60)
    with session_factory.begin() as s:
        assert complete_case(s, case_id=cid, holder="fast", result=fake_result({}, 2))
    with session_factory() as s:
        results = s.scalars(select(Result).where(Result.case_id == cid)).all()
        assert len(results) == 1 and results[0].peak_slider_accel == 1002.0
        c = s.get(Case, cid)
        assert (c.status, c.attempts, c.lease_holder, c.lease_expires) == (
            "done", 2, "fast", None
        )
        assert c.wall_time_s == 0.06


def test_exactly_one_result_per_case(session_factory, study):
    _, ids = study
    cid = ids[1]
    with session_factory.begin() as s:
        claim_cases(s, case_ids=[cid], holder="w", lease_s=60)
    with session_factory.begin() as s:
        assert complete_case(s, case_id=cid, holder="w", result=fake_result({}, 1))
    with session_factory.begin() as s:
        assert not complete_case(s, case_id=cid, holder="w", result=fake_result({}, 2))
    with session_factory() as s:
        assert s.scalar(select(func.count()).select_from(Result)) == 1
        assert s.scalar(select(Result.peak_slider_accel)) == 1001.0
    # the unique constraint holds even for a writer that bypasses complete_case
    with pytest.raises(IntegrityError), session_factory.begin() as s:
        s.execute(insert(Result).values(case_id=cid, extra={}))
    with session_factory() as s:
        assert s.scalar(select(func.count()).select_from(Result)) == 1


def test_series_stored_per_policy_and_decoded(session_factory):
    with session_factory.begin() as s:
        preview = make_study(s).id
        none = make_study(s, spec=FakeSpec(series="none")).id
    with session_factory.begin() as s:
        a = queued_case_ids(s, study_id=preview)[1]
        b = queued_case_ids(s, study_id=none)[1]
        claim_cases(s, case_ids=[a, b], holder="w", lease_s=60)
        series = preview_series()
        for cid in (a, b):
            assert complete_case(
                s, case_id=cid, holder="w", result=fake_result({}), series=series
            )
    with session_factory() as s:
        got = case_series(s, a)
        assert set(got) == {"t", "slider_acceleration", "state"}
        assert got["t"].dtype == np.float32 and got["state"].dtype == series["state"].dtype
        np.testing.assert_allclose(got["slider_acceleration"], series["slider_acceleration"],
                                   rtol=1e-6, atol=1e-3)
        np.testing.assert_array_equal(got["state"], series["state"])
        assert list(case_series(s, a, ["t"])) == ["t"]
        with pytest.raises(KeyError, match="nope"):
            case_series(s, a, ["nope"])
        assert case_series(s, b) == {}
        assert s.scalar(select(func.count()).select_from(Series)) == 1
        detail = case_detail(s, a)
        assert detail["series"] == ["t", "slider_acceleration", "state"]
        assert detail["metrics"]["peak_slider_accel"] == 1000.0
        assert "deviation_peak_slider_accel" in detail["metrics"]
        assert detail["status"] == "done" and detail["kind"] == "case"


def test_fail_case_final_retry_and_exhausted(session_factory, study):
    _, ids = study
    a, b = ids[1], ids[2]
    with session_factory.begin() as s:
        claim_cases(s, case_ids=[a, b], holder="w", lease_s=60)
        assert fail_case(s, case_id=a, holder="w", reason="diverged at t=0.01 s", final=True)
        assert fail_case(s, case_id=b, holder="w", reason="worker crashed", final=False,
                         max_attempts=2)
        assert not fail_case(s, case_id=b, holder="other", reason="x", final=True)
    ca, cb = _case(session_factory, a), _case(session_factory, b)
    assert (ca.status, ca.reason, ca.attempts) == ("failed", "diverged at t=0.01 s", 1)
    assert (cb.status, cb.reason, cb.attempts, cb.lease_holder) == (
        "queued", "worker crashed", 1, None
    )
    with session_factory.begin() as s:
        claim_cases(s, case_ids=[b], holder="w2", lease_s=60)
        assert fail_case(s, case_id=b, holder="w2", reason="worker crashed again", final=False,
                         max_attempts=2)
    cb = _case(session_factory, b)
    assert (cb.status, cb.reason, cb.attempts) == ("failed", "worker crashed again", 2)


def test_failed_core_result_is_a_final_failure(session_factory, study):
    _, ids = study
    with session_factory.begin() as s:
        claim_cases(s, case_ids=[ids[1]], holder="w", lease_s=60)
        r = fake_result({})
        r.status, r.reason = "failed", "clearance_mm: -1 - > 0"
        assert complete_case(s, case_id=ids[1], holder="w", result=r)
    c = _case(session_factory, ids[1])
    assert (c.status, c.reason) == ("failed", "clearance_mm: -1 - > 0")
    with session_factory() as s:
        assert s.scalar(select(func.count()).select_from(Result)) == 0


def test_requeue_expired_retries_then_fails_and_cancels(session_factory, study):
    sid, ids = study
    t0 = utcnow()
    with session_factory.begin() as s:
        claim_cases(s, case_ids=ids[:3], holder="dead", lease_s=1, now=t0)
        claim_cases(s, case_ids=[ids[3]], holder="alive", lease_s=600, now=t0)
    t = t0
    for attempt in (1, 2):
        t += timedelta(seconds=5)
        with session_factory.begin() as s:
            assert requeue_expired(s, now=t, max_attempts=3) == ids[:3]
            assert claim_cases(s, case_ids=ids[:3], holder="dead", lease_s=1, now=t)
        assert _case(session_factory, ids[0]).attempts == attempt + 1
    t += timedelta(seconds=5)
    with session_factory.begin() as s:
        assert requeue_expired(s, now=t, max_attempts=3) == []
    for cid in ids[:3]:
        c = _case(session_factory, cid)
        assert (c.status, c.reason) == ("failed", "lease expired 3 times (worker lost)")
    assert _case(session_factory, ids[3]).status == "running"  # its lease still runs
    # a cancelled study's expired case is cancelled, not requeued
    with session_factory.begin() as s:
        cancel_study(s, study_id=sid)
    t += timedelta(seconds=1000)
    with session_factory.begin() as s:
        assert requeue_expired(s, now=t, max_attempts=3) == []
    assert _case(session_factory, ids[3]).status == "cancelled"
    with session_factory() as s:
        study_row = s.get(Study, sid)
        assert study_row.status == "cancelled" and study_row.finished is not None


def test_renew_keeps_a_lease_alive(session_factory, study):
    _, ids = study
    t0 = utcnow()
    with session_factory.begin() as s:
        claim_cases(s, case_ids=ids[:2], holder="w", lease_s=10, now=t0)
    with session_factory.begin() as s:
        assert renew_leases(s, case_ids=ids[:2], holder="w", lease_s=10,
                            now=t0 + timedelta(seconds=8)) == 2
    with session_factory.begin() as s:
        assert requeue_expired(s, now=t0 + timedelta(seconds=15)) == []
        assert complete_case(s, case_id=ids[0], holder="w", result=fake_result({}),
                             now=t0 + timedelta(seconds=16))


def test_stale_queued_and_mark_enqueued(session_factory, study):
    _, ids = study
    t0 = utcnow()
    with session_factory() as s:
        assert stale_queued(s, older_than_s=60, now=t0) == []
        assert stale_queued(s, older_than_s=60, now=t0 + timedelta(seconds=61)) == ids
    with session_factory.begin() as s:
        assert mark_enqueued(s, case_ids=ids[:4], now=t0 + timedelta(seconds=100)) == 4
        claim_cases(s, case_ids=[ids[5]], holder="w", lease_s=1, now=t0)
    with session_factory() as s:
        stale = stale_queued(s, older_than_s=60, now=t0 + timedelta(seconds=130))
        assert stale == [i for i in ids if i not in ids[:4] and i != ids[5]]
    with session_factory.begin() as s:
        # what one reconciler pass re-sends: ids[5]'s lease expired too
        now = t0 + timedelta(seconds=130)
        both = set(requeue_expired(s, now=now)) | set(stale_queued(s, older_than_s=60, now=now))
        assert sorted(both) == [i for i in ids if i not in ids[:4]]


def test_claims_skip_cancelled_studies_and_statuses_follow(session_factory):
    with session_factory.begin() as s:
        keep = make_study(s, plan=user_plan(twins=False)).id
        drop = make_study(s).id
    with session_factory.begin() as s:
        cancel_study(s, study_id=drop)
        ids = queued_case_ids(s, study_id=keep)
        assert queued_case_ids(s, study_id=drop) == []
        assert claim_cases(s, case_ids=list(range(1, 100)), holder="w", lease_s=60)
    with session_factory() as s:
        assert s.get(Study, drop).status == "cancelled"
        assert s.get(Study, keep).status == "running" and s.get(Study, keep).started
    with session_factory.begin() as s:
        for cid in ids:
            complete_case(s, case_id=cid, holder="w", result=fake_result({}))
    with session_factory() as s:
        assert s.get(Study, keep).status == "done" and s.get(Study, keep).finished


def test_complete_cases_stores_a_chunk_and_rejects_per_case(session_factory, study):
    sid, ids = study
    twin, a, b, c, d = ids[:5]
    t0 = utcnow()
    with session_factory.begin() as s:
        claim_cases(s, case_ids=[twin, a, b, c], holder="w", lease_s=60, now=t0)
        claim_cases(s, case_ids=[d], holder="other", lease_s=60, now=t0)
    failed = fake_result({})
    failed.status, failed.reason = "failed", "diverged"
    outcomes = [
        (a, fake_result({}, 1), preview_series()),
        (d, fake_result({}, 4), None),  # held by another worker: refused
        (b, failed, None),  # the solver's verdict: final failure
        (twin, fake_result({}, 50), preview_series(50)),
        (ids[6], fake_result({}, 6), None),  # never claimed: refused
    ]
    with session_factory.begin() as s:
        got = complete_cases(s, holder="w", outcomes=outcomes, now=t0 + timedelta(seconds=1))
    assert got == [True, False, True, True, False]
    with session_factory() as s:
        status = dict(s.execute(select(Case.id, Case.status).where(Case.study_id == sid)).all())
        assert [status[i] for i in (twin, a, b, c, d, ids[6])] == [
            "done", "done", "failed", "running", "running", "queued"
        ]
        stored = dict(s.execute(select(Result.case_id, Result.peak_slider_accel)).all())
        assert stored == {a: 1001.0, twin: 1050.0}
        assert s.scalar(select(func.count()).select_from(Series)) == 2
        assert case_series(s, twin)["t"].shape == (50,)
    with session_factory.begin() as s, pytest.raises(ValueError, match="twice"):
        complete_cases(s, holder="w", outcomes=[(c, fake_result({}), None)] * 2)
