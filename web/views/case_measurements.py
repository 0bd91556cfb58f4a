"""A case's page shows the measured records of its study (or of the case) over its own
series (design.md 4.9): time and spectrum, aligned by time or crank angle, with the peak
error, RMS error and correlation in the title."""

from __future__ import annotations

from typing import Any

import numpy as np
from dash import dcc, html

from .. import data as archive_data
from .. import ids
from ..figures import search as figures


def overlays(detail: dict[str, Any], series: dict[str, Any]) -> list[Any]:
    """One time and one spectrum overlay per measured series the case also has."""
    from gapsweep.core.api import get_model
    from gapsweep.study.signal_match import align, crank_deg_to_time, match_errors

    if not series:
        return []
    records = archive_data.measured_records(detail["study_id"], detail["id"])
    out: list[Any] = []
    for rec in records:
        data = rec["data"]
        t_meas = np.asarray(data["time"], float)
        if data["time_base"] == "crank_deg":
            speed = get_model(detail["model"]).parse(detail["params"]).speed_rpm
            t_meas = crank_deg_to_time(t_meas, speed)
        for name, y_meas in data["series"].items():
            y_sim = series.get(name)
            t_sim = series.get(f"t:{name}", series.get("t"))
            if y_sim is None or t_sim is None:
                continue
            try:
                aligned = align(t_sim, y_sim, t_meas, y_meas)
            except Exception:  # no overlap with the run: say so rather than fail the page
                out.append(html.P(f"Measurement {rec['id']} ({name}) does not overlap the run.",
                                  className="text-muted"))
                continue
            errors = match_errors(aligned.measured, aligned.simulated)
            out.append(dcc.Graph(id=f"{ids.CASE_MEASURED}-{rec['id']}-{name}",
                                 figure=figures.measurement_overlay(
                                     t_meas, y_meas, t_sim, y_sim, name, errors)))
            out.append(dcc.Graph(id=f"{ids.CASE_MEASURED}-spectrum-{rec['id']}-{name}",
                                 figure=figures.spectrum_overlay(t_meas, y_meas, t_sim, y_sim,
                                                                 name)))
    return out
