"""A study's cases as a pandas DataFrame, the table engineers work with in notebooks (as
MLflow's ``search_runs`` and Optuna's ``trials_dataframe`` give theirs)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

CASE_ID = "case_id"


def cases_frame(columns: list[str], rows: list[dict[str, Any]]) -> pd.DataFrame:
    """``gapsweep export``'s ``(columns, rows)`` as a DataFrame indexed by ``case_id``: one
    row per design case in design order; parameters, ``status``, metrics (SI units; a
    missing value NaN, or None in a text column)."""
    import pandas as pd

    frame = pd.DataFrame.from_records(rows, columns=columns)
    for name in frame.columns:
        # a column of numbers and missing values is numeric, its gaps NaN, whether the rows
        # came from the database (None) or from a server's JSON (null); the same frame
        # either way, a column no case has a value of included
        values = frame[name]
        if values.map(lambda v: v is None or (isinstance(v, (int, float))
                                              and not isinstance(v, bool))).all():
            frame[name] = pd.to_numeric(values)
    return frame.set_index(CASE_ID)
