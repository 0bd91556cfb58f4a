"""Cases overlaid for one series (the compare page, design.md 4.4: 2-6 cases)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go

from .case_views import TIME_TITLE, line
from .labels import SERIES, series_label
from .style import new_figure

MAX_CASES = 6  # more lines than this are no longer told apart


def compare_figure(
    series_by_case: Sequence[Mapping[str, np.ndarray]],
    labels: Sequence[str],
    name: str = "slider_acceleration",
) -> go.Figure:
    """Series ``name`` of 1 to :data:`MAX_CASES` cases against time [s], one trace per case
    named ``labels[i]``; the y axis in the series' unit. A case without the series is left
    out (its label is then missing from the legend).

    Raises ValueError for no case, more than :data:`MAX_CASES`, or unequal lengths.
    """
    if len(series_by_case) != len(labels):
        raise ValueError(f"{len(series_by_case)} cases for {len(labels)} labels")
    if not 1 <= len(series_by_case) <= MAX_CASES:
        raise ValueError(f"{len(series_by_case)} cases: compare takes 1 to {MAX_CASES}")
    title = SERIES.get(name, (name.replace("_", " ").capitalize(),))[0]
    fig = new_figure(f"{title}: {len(labels)} cases", TIME_TITLE, series_label(name))
    for i, (series, label) in enumerate(zip(series_by_case, labels, strict=True)):
        if name in series:
            fig.add_trace(line(series, name, label=label, index=i))
    return fig
