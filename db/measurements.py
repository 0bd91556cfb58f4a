"""Measured records of a study (design.md 4.9): store, list, read.

The record arrives validated (:class:`gapsweep.study.measurements.Measurement`); here it
only becomes a row. No function commits (the caller does, see :mod:`.lifecycle`).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from .lifecycle import live_study
from .models import Case, Measurement


class MeasurementNotFoundError(LookupError):
    """No measurement with this id (or its study was deleted)."""

    def __init__(self, measurement_id: int) -> None:
        self.measurement_id = measurement_id
        super().__init__(f"no measurement with id {measurement_id}")


class CaseNotInStudyError(LookupError):
    """The case to attach a measurement to is not one of the study's."""

    def __init__(self, case_id: int, study_id: int) -> None:
        super().__init__(f"case {case_id} is not a case of study {study_id}")


def add_measurement(
    session: Session, *, study_id: int, measurement: Any, case_id: int | None = None
) -> int:
    """Attach ``measurement`` (a validated ``Measurement``) to the study (and its case
    ``case_id``); returns the new row's id."""
    live_study(session, study_id)
    if case_id is not None:
        case = session.get(Case, case_id)
        if case is None or case.study_id != study_id:
            raise CaseNotInStudyError(case_id, study_id)
    data = measurement.to_json()
    row = Measurement(study_id=study_id, case_id=case_id, name=measurement.name[:200],
                      time_base=measurement.time_base, n_samples=len(data["time"]), data=data)
    session.add(row)
    session.flush()
    return int(row.id)


def _entry(row: Measurement, with_data: bool) -> dict[str, Any]:
    out = {"id": row.id, "study_id": row.study_id, "case_id": row.case_id, "name": row.name,
           "time_base": row.time_base, "n_samples": row.n_samples,
           "series": sorted((row.data or {}).get("series", {})),
           "created": row.created.isoformat()}
    if with_data:
        out["data"] = row.data
    return out


def study_measurements(session: Session, study_id: int) -> list[dict[str, Any]]:
    """The study's measurements, oldest first, without their samples."""
    live_study(session, study_id)
    rows = session.scalars(
        select(Measurement).where(Measurement.study_id == study_id).order_by(Measurement.id)
    )
    return [_entry(r, False) for r in rows]


def get_measurement(session: Session, measurement_id: int) -> dict[str, Any]:
    """One measurement with its samples (``"data"``: ``Measurement.to_json()``)."""
    row = session.get(Measurement, measurement_id)
    if row is None:
        raise MeasurementNotFoundError(measurement_id)
    try:
        live_study(session, row.study_id)
    except LookupError:
        raise MeasurementNotFoundError(measurement_id) from None
    return _entry(row, True)
