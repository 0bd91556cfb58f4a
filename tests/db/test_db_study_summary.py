"""The study page's frame (db/study_summary.py) is the full detail without the cases, on
SQLite and PostgreSQL."""

from __future__ import annotations

from archive_helpers import make_study
from gapsweep.db.lifecycle import soft_delete
from gapsweep.db.studies import study_detail
from gapsweep.db.study_summary import study_summary


def test_summary_is_the_detail_without_cases_twins_certificates_and_analysis(session_factory):
    with session_factory.begin() as s:
        study_id = make_study(s).id
    with session_factory() as s:
        detail, summary = study_detail(s, study_id), study_summary(s, study_id)
    for key in ("cases", "twins", "analysis", "certificates"):
        detail.pop(key)
    assert summary.pop("retryable") == 0  # nothing failed yet: Retry off
    assert summary == detail
    assert summary["counts"]["total"] == 15 and summary["counts"]["queued"] == 15
    with session_factory.begin() as s:
        soft_delete(s, study_id=study_id)
    with session_factory() as s:
        assert study_summary(s, study_id) is None and study_summary(s, 10**9) is None
