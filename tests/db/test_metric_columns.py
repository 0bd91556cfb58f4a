"""The results table's metric columns are the metric registry's columned entries: same names,
same order, a count an INTEGER and the rest FLOAT; a registered metric without a column (a
text, a settled statistic) goes to ``Result.extra`` and comes back unchanged."""

from __future__ import annotations

from gapsweep.core import metrics as registry
from gapsweep.db.metrics import split_metrics
from gapsweep.db.models import INT_METRICS, METRIC_COLUMNS, Result
from sqlalchemy import Float, Integer

BOOKKEEPING = ("id", "case_id", "extra")


def test_the_results_table_has_one_column_per_columned_metric():
    table = [c for c in Result.__table__.columns if c.name not in BOOKKEEPING]
    assert [c.name for c in table] == [m.name for m in registry.columns()] == list(METRIC_COLUMNS)
    for column in table:
        entry = registry.lookup(column.name)
        assert isinstance(column.type, Integer if entry.integer else Float), column.name
    assert {"impacts", "impacts_steady"} == INT_METRICS


def test_metrics_without_a_column_go_to_extra():
    kwargs = split_metrics({"max_penetration": 1.5e-5, "impacts": 3.0, "motion": "periodic-2",
                            "peak_slider_accel_settled": 2.1e4})
    assert kwargs["max_penetration"] == 1.5e-5
    assert kwargs["impacts"] == 3 and isinstance(kwargs["impacts"], int)
    assert kwargs["extra"] == {"motion": "periodic-2", "peak_slider_accel_settled": 2.1e4}
