"""The measured records of the local archive (design.md 4.9): a rig's CSV attached to a
study (or one of its cases), listed, read back with its samples. One place for the CLI's
``gapsweep measured``, the API's ``/api/studies/<id>/measurements`` and the study page's
upload: attaching a record edits the study, so it takes the role of editing its notes and
tags (``Action.TAG``: the owner or an admin) and is audited.

A bad record raises :class:`~gapsweep.study.errors.SpecError` naming ``where`` (the file,
its column or row) and nothing is stored; a case that is not the study's is refused as field
``case_id``; an unknown study or measurement :class:`~.errors.UnknownIdError`.
"""

from __future__ import annotations

from typing import Any

from gapsweep.accounts.roles import Action

from .errors import UnknownIdError


class MeasurementOperations:
    """Mixed into :class:`~.local.LocalArchive` (its sessions, principal, role checks and
    audit)."""

    def add_measurement(self, study_id: int, csv: str | bytes, *, name: str = "",
                        case_id: int | None = None, where: str = "file") -> dict[str, Any]:
        """Parse ``csv`` (a rig record: ``time_s`` or ``crank_deg``, then series columns) as
        a measurement of the study's model and store it; its entry (``id``, ``study_id``,
        ``case_id``, ``name``, ``time_base``, ``n_samples``, ``series``, ``created``)."""
        from gapsweep.db import measurements
        from gapsweep.study.errors import FieldError, SpecError
        from gapsweep.study.measurements import parse_measurement

        with self.sessions() as session:
            model = self._owned_study(session, Action.TAG, study_id).model
        record = parse_measurement(csv, model=model, name=str(name)[:200], where=where)
        with self.sessions.begin() as session:
            self._owned_study(session, Action.TAG, study_id)
            try:
                mid = measurements.add_measurement(session, study_id=study_id,
                                                   measurement=record, case_id=case_id)
            except measurements.CaseNotInStudyError as exc:
                raise SpecError([FieldError("case_id", case_id, str(exc))]) from None
            self._audit(session, "study.measure", f"study:{study_id}", measurement=mid,
                        case_id=case_id, name=record.name)
            entry = measurements.get_measurement(session, mid)
        entry.pop("data")
        return entry

    def measurements(self, study_id: int) -> list[dict[str, Any]]:
        """The study's measured records, oldest first, without their samples."""
        from gapsweep.db import measurements

        with self.sessions() as session:
            self._live(session, study_id)
            return measurements.study_measurements(session, study_id)

    def measurement(self, measurement_id: int) -> dict[str, Any]:
        """One record with its samples (``"data"``: ``time``, ``time_base``, ``series``)."""
        from gapsweep.db import measurements

        with self.sessions() as session:
            try:
                return measurements.get_measurement(session, measurement_id)
            except measurements.MeasurementNotFoundError:
                raise UnknownIdError(measurement_id, "measurement") from None
