"""A study's cases as a pandas DataFrame, the table engineers work with in notebooks (as
MLflow's ``search_runs`` and Optuna's ``trials_dataframe`` give theirs)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

CASE_ID = "case_id"


def frame_columns(every: list[str], columns: list[str] | None) -> list[str]:
    """The columns of a table of ``columns`` (all of ``every`` when None), ``case_id`` kept
    for the index; ValueError naming an unknown one."""
    if columns is None:
        return list(every)
    unknown = [c for c in columns if c not in every]
    if unknown:
        raise ValueError(f"columns: {unknown[0]!r} — one of {', '.join(every)}")
    return [c for c in every if c in columns or c == CASE_ID]


def cases_frame(columns: list[str], rows: list[dict[str, Any]], *, numeric: bool = True,
                frames: list[pd.DataFrame] | None = None) -> pd.DataFrame:
    """``gapsweep export``'s ``(columns, rows)`` as a DataFrame indexed by ``case_id``: one
    row per design case in design order; parameters, ``status``, metrics (SI units; a
    missing value NaN, or None in a text column). ``frames``: chunks made with
    ``numeric=False`` (raw, not indexed) to put together first (rows then ignored)."""
    import pandas as pd

    if frames:
        frame = pd.concat(frames, ignore_index=True)
    else:
        frame = pd.DataFrame.from_records(rows, columns=columns)
    if not numeric:
        return frame
    for name in frame.columns:
        # a column of numbers and missing values is numeric, its gaps NaN, whether the rows
        # came from the database (None) or from a server's JSON (null); the same frame
        # either way, a column no case has a value of included
        values = frame[name]
        if values.map(lambda v: v is None or (isinstance(v, (int, float))
                                              and not isinstance(v, bool))).all():
            frame[name] = pd.to_numeric(values)
    return frame.set_index(CASE_ID)
