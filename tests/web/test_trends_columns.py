"""A large study's Trends and Sensitivity from the columns they draw (issue 41.2): the band
drawn from the x, group and metric columns is the band drawn from the whole detail, on a
synthetic 6,500-case study inserted directly, on SQLite and PostgreSQL; the ratio to the
ideal joint too; and the grid's ANOVA from the columns is the one from the whole detail,
also when some done cases lack the metric."""

from __future__ import annotations

import pytest
from support.big_archive import big_app, fill_study

METRIC = "peak_slider_accel"


@pytest.fixture(params=["sqlite", "postgresql"])
def big(request, tmp_path, monkeypatch):
    """An app over a database holding one 6,500-case study: (archive, study id)."""

    def fill(sessions) -> int:
        with sessions.begin() as s:
            return fill_study(s, n_clearance=1300, n_stiffness=5)

    with big_app(request.param, tmp_path, monkeypatch, fill) as out:
        yield out


def _medians(fig):
    return [(t.name, list(t.x), list(t.y), list(t.text or [])) for t in fig.data]


def test_the_band_from_columns_is_the_band_from_the_whole_detail(big):
    from gapsweep.web import data
    from gapsweep.web.figures import trend_bands
    from gapsweep.web.views import study_results

    archive, study_id = big
    with archive.request(path="/"):
        detail = data.study_detail(study_id)
        summary = data.study_summary(study_id)
        assert len(detail["cases"]) > trend_bands.POINT_LIMIT
        for metric in (METRIC, "ratio_to_ideal_" + METRIC):
            kw = {"metric": metric, "x_axis": "clearance_mm",
                  "group_axis": "stiffness_scale", "window": "whole"}
            whole = study_results.trends(detail, **kw)
            by_columns = study_results.large_trends(summary, **kw)
            assert any("median" in (t.name or "") for t in by_columns.data)
            assert _medians(by_columns) == _medians(whole)
        # the grid's ANOVA from the axes and the metric's columns: the same main effects
        whole = study_results.sensitivity(detail, METRIC)
        by_columns = study_results.large_sensitivity(summary, METRIC)
        assert by_columns.figure == whole.figure


def test_the_anova_from_columns_skips_the_done_cases_without_the_metric(big):
    # a done case whose result lacks the metric (a model that did not report it) is left
    # out by both reads: the columns' path that picks the cases with a number, and the
    # whole detail's
    from gapsweep.db.models import Case, Result
    from gapsweep.web import data
    from gapsweep.web.views import study_results
    from sqlalchemy import select, update

    archive, study_id = big
    with archive.sessions.begin() as s:
        done = s.scalars(select(Case.id).where(Case.study_id == study_id, Case.kind == "case",
                                               Case.status == "done").order_by(Case.index))
        blank = list(done)[::13]
        s.execute(update(Result).where(Result.case_id.in_(blank))
                  .values(peak_slider_accel=None))
    with archive.request(path="/"):
        detail = data.study_detail(study_id)
        summary = data.study_summary(study_id)
        whole = study_results.sensitivity(detail, METRIC)
        by_columns = study_results.large_sensitivity(summary, METRIC)
        assert by_columns.figure == whole.figure
        with_number = sum(1 for c in detail["cases"] if c["status"] == "done"
                          and c["metrics"].get(METRIC) is not None)
        assert with_number == sum(1 for c in detail["cases"] if c["status"] == "done") \
            - len(blank)
