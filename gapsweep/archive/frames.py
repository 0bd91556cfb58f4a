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
    return frame.set_index(CASE_ID)
