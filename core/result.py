"""What one case produces: scalar metrics, time series, and its parameters.

A :class:`CaseResult` is the only thing a consumer (CLI, Celery worker, DB writer, web page)
receives from the core. It holds plain Python numbers and numpy arrays and converts itself to
JSON-ready data, so nothing downstream needs the solver's internals.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np


@dataclass
class CaseResult:
    """The outcome of one case.

    ``params``: the case parameters as the user gave them (names carry units, e.g.
    ``clearance_mm``). ``metrics``: scalar results (SI units, see each model's docs).
    ``series``: name -> 1-D array, all sharing the time base ``series["t"]`` [s] unless the
    name says otherwise. ``status`` is ``"ok"`` or ``"failed"`` with ``reason`` set.
    ``rotation_hz``: the crank's frequency [Hz] the run had (0 without a crank), which the
    core knows from the parse: a consumer placing harmonics does not parse the case again.
    """

    model: str
    params: dict[str, Any]
    metrics: dict[str, float | int] = field(default_factory=dict)
    series: dict[str, np.ndarray] = field(default_factory=dict)
    status: str = "ok"
    reason: str = ""
    rotation_hz: float = 0.0

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    def summary(self) -> dict[str, Any]:
        """Parameters, status and metrics as one flat JSON-ready dict (no series)."""
        out: dict[str, Any] = dict(self.params)
        out["model"] = self.model
        out["status"] = self.status
        if self.reason:
            out["reason"] = self.reason
        out.update({k: _plain(v) for k, v in self.metrics.items()})
        return out

    def to_dict(self, with_series: bool = True) -> dict[str, Any]:
        """Everything as JSON-ready data; series become lists."""
        out = {
            "model": self.model,
            "params": dict(self.params),
            "status": self.status,
            "reason": self.reason,
            "metrics": {k: _plain(v) for k, v in self.metrics.items()},
        }
        if with_series:
            out["series"] = {k: np.asarray(v).tolist() for k, v in self.series.items()}
        return out


def _plain(value: Any) -> Any:
    """numpy scalars -> Python scalars; non-finite floats -> None (JSON has no NaN)."""
    if isinstance(value, (np.integer, int)) and not isinstance(value, bool):
        return int(value)
    if isinstance(value, (np.floating, float)):
        x = float(value)
        return x if math.isfinite(x) else None
    return value
