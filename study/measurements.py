"""A measured record from a test rig: the CSV of design.md 4.9, read and validated once.

The file has a header row and one row per sample: a time base column, ``time_s`` [s] or
``crank_deg`` [degrees of crank angle, the driver's angle from the start of the run], then one
column per measured series, named as a case's series (``slider_acceleration`` [m/s²] ...,
:func:`series_names`). A bad file is refused with every problem found (:class:`SpecError`,
field ``measurement`` plus the column or row), and nothing is stored: no time column, a time
base that does not strictly increase, a value that is not a finite number (NaN included), a
column that names no series of the model, or a file larger than :data:`MAX_BYTES` /
:data:`MAX_SAMPLES`.
"""

from __future__ import annotations

import csv
import io
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from gapsweep.core.api import DEFAULT_MODEL

from .errors import FieldError, SpecError

TIME_BASES = ("time_s", "crank_deg")
#: a 2 s record at 50 kHz of a few series is ~2 MB of text; ten times the rig's usual record
MAX_BYTES = 5_000_000
MAX_SAMPLES = 200_000
MAX_SERIES = 20


@dataclass(frozen=True)
class Measurement:
    """A validated measured record. ``time_base``: ``"time_s"`` or ``"crank_deg"``;
    ``time``: its values (s or degrees), shape (n,), strictly increasing; ``series``: name
    -> values (the series' SI unit), each shape (n,)."""

    time_base: str
    time: np.ndarray
    series: dict[str, np.ndarray] = field(default_factory=dict)
    name: str = ""

    def to_json(self) -> dict[str, Any]:
        """JSON-ready: ``{"name", "time_base", "time", "series": {name: [...]}}``."""
        return {"name": self.name, "time_base": self.time_base, "time": self.time.tolist(),
                "series": {k: v.tolist() for k, v in self.series.items()}}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Measurement:
        return cls(str(data["time_base"]), np.asarray(data["time"], dtype=float),
                   {k: np.asarray(v, dtype=float) for k, v in data["series"].items()},
                   str(data.get("name", "")))


def series_names(model: str) -> tuple[str, ...]:
    """The series a measurement of a ``model`` case may name (a case's series but time)."""
    from gapsweep.core.solver import SERIES_NAMES

    return tuple(n for n in SERIES_NAMES if n != "t")


def parse_measurement(
    text: str | bytes, *, model: str = DEFAULT_MODEL, name: str = "", where: str = "measurement"
) -> Measurement:
    """Read the CSV ``text`` as a measurement of a ``model`` case; raise :class:`SpecError`
    naming ``where`` (+ ``.<column>`` or ``[row]``) for every problem found."""
    size = len(text)
    if size > MAX_BYTES:
        raise SpecError([FieldError(where, f"{size} bytes", f"at most {MAX_BYTES} bytes")])
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise SpecError([FieldError(where, "not UTF-8", f"a UTF-8 CSV file ({exc})")]) from None
    rows = list(csv.reader(io.StringIO(text.lstrip("\ufeff"))))
    rows = [r for r in rows if any(cell.strip() for cell in r)]
    if not rows:
        raise SpecError([FieldError(where, "empty file", "a header row and data rows")])
    header = [h.strip() for h in rows[0]]
    data = rows[1:]
    errors: list[FieldError] = []
    times = [h for h in header if h in TIME_BASES]
    if len(times) != 1:
        errors.append(FieldError(f"{where}.columns", header,
                                 "exactly one time column: time_s [s] or crank_deg [deg]"))
    allowed = series_names(model)
    measured = [h for h in header if h not in TIME_BASES]
    for h in measured:
        if h not in allowed:
            errors.append(FieldError(f"{where}.columns", h,
                                     "a series of the case: " + ", ".join(allowed)))
    if not measured:
        errors.append(FieldError(f"{where}.columns", header, "at least one measured series"))
    if len(set(header)) != len(header):
        errors.append(FieldError(f"{where}.columns", header, "each column once"))
    if len(header) > MAX_SERIES + 1:
        errors.append(FieldError(f"{where}.columns", len(header), f"at most {MAX_SERIES} series"))
    if len(data) > MAX_SAMPLES:
        errors.append(FieldError(where, f"{len(data)} rows", f"at most {MAX_SAMPLES} samples"))
    if len(data) < 2:
        errors.append(FieldError(where, f"{len(data)} rows", "at least 2 samples"))
    if errors:
        raise SpecError(errors)
    values = np.full((len(data), len(header)), np.nan)
    for i, row in enumerate(data):
        if len(row) != len(header):
            errors.append(FieldError(f"{where}[{i + 1}]", row,
                                     f"{len(header)} values, as the header"))
            continue
        for j, cell in enumerate(row):
            try:
                x = float(cell)
            except ValueError:
                x = math.nan
            if not math.isfinite(x):
                errors.append(FieldError(f"{where}.{header[j]}[{i + 1}]", cell.strip(),
                                         "a finite number"))
            values[i, j] = x
        if len(errors) >= 20:  # enough to see the pattern; a 200,000-row echo helps nobody
            break
    if errors:
        raise SpecError(errors)
    t = values[:, header.index(times[0])]
    steps = np.diff(t)
    if not np.all(steps > 0):
        k = int(np.argmax(steps <= 0)) + 1
        raise SpecError([FieldError(f"{where}.{times[0]}[{k + 1}]", float(t[k]),
                                    f"strictly increasing time (> {t[k - 1]!r})")])
    series = {h: values[:, j].copy() for j, h in enumerate(header) if h not in TIME_BASES}
    return Measurement(times[0], t.copy(), series, name)


def to_csv(measurement: Measurement) -> str:
    """The CSV text of ``measurement`` (:func:`parse_measurement` gives it back)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    names = list(measurement.series)
    writer.writerow([measurement.time_base, *names])
    for i, t in enumerate(measurement.time):
        writer.writerow([repr(float(t)), *(repr(float(measurement.series[n][i])) for n in names)])
    return out.getvalue()
