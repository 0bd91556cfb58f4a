"""Cases overlaid for one series (the compare page, design.md 4.4: 2-6 cases)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import plotly.graph_objects as go

from .case_views import TIME_TITLE, line
from .labels import SERIES, level_name, series_label
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


# The series the compare page overlays, in page order.
COMPARE_SERIES = (
    "slider_acceleration",
    "contact_normal_force",
    "penetration",
    "driving_torque",
)


def compare_labels(details: Mapping[int, Mapping[str, Any]]) -> dict[int, str]:
    """A legend name per case id: ``"case 12: c = 0.05 mm, stiffness ×0.7"`` - the
    parameters whose values differ between the cases (all of them, for a single case)."""
    params = {cid: d.get("params") or {} for cid, d in details.items()}
    keys = list(dict.fromkeys(k for p in params.values() for k in p))
    differ = [k for k in keys if len({repr(p.get(k)) for p in params.values()}) > 1]
    shown = differ if len(params) > 1 else keys
    out = {}
    for cid, p in params.items():
        parts = [level_name(k, p[k]) for k in shown if k in p]
        out[cid] = f"case {cid}: {', '.join(parts)}" if parts else f"case {cid}"
    return out


def compare_figures(
    series: Mapping[int, Mapping[str, np.ndarray]],
    details: Mapping[int, Mapping[str, Any]],
    names: Sequence[str] = COMPARE_SERIES,
) -> dict[str, go.Figure]:
    """One :func:`compare_figure` per series name of ``names`` that some case has, keyed by
    the name; ``series``: {case id: series}, ``details``: {case id: case dict} (labels)."""
    ids = [cid for cid in series if series[cid]][:MAX_CASES]
    if not ids:
        return {}
    labels = compare_labels({cid: details.get(cid, {}) for cid in ids})
    return {
        name: compare_figure([series[cid] for cid in ids], [labels[cid] for cid in ids], name)
        for name in names
        if any(name in series[cid] for cid in ids)
    }
