"""A large study's Trends from the columns it draws (issue 41.2): the band drawn from the
x, group and metric columns is the band drawn from the whole detail, on a synthetic
6,500-case study inserted directly; the ratio to the ideal joint too."""

from __future__ import annotations

from support.big_archive import fill_study  # noqa: E402

METRIC = "peak_slider_accel"


def _medians(fig):
    return [(t.name, list(t.x), list(t.y), list(t.text or [])) for t in fig.data]


def test_the_band_from_columns_is_the_band_from_the_whole_detail(archive):
    from gapsweep.web import data
    from gapsweep.web.figures import trend_bands
    from gapsweep.web.views import study_results

    with archive.sessions.begin() as s:
        study_id = fill_study(s, n_clearance=1300, n_stiffness=5)
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
