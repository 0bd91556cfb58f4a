"""The error types of the solver core.

Every bad input raises :class:`InputError`, which names the field, the value and what is
allowed, so a CLI, a worker or a web form can show it as it is. A case that starts well but
blows up raises :class:`SolverError` with the reason and the time it happened.
"""

from __future__ import annotations

import math
from typing import Any


class GapsweepError(Exception):
    """Base class of every error the core raises on purpose."""


class InputError(GapsweepError, ValueError):
    """A parameter is outside what the model allows.

    ``field`` is the parameter's name as the user wrote it (``clearance_mm``), ``value`` what
    they gave, ``allowed`` a human-readable range (``"> 0 and < journal radius 10 mm"``).
    """

    def __init__(self, field: str, value: Any, allowed: str, detail: str = "") -> None:
        self.field = field
        self.value = value
        self.allowed = allowed
        self.detail = detail
        message = f"{field} = {value!r} is not allowed: must be {allowed}"
        if detail:
            message += f" ({detail})"
        super().__init__(message)


class SolverError(GapsweepError):
    """A case could not be integrated: NaN, a penetration beyond its bound, a step too small."""

    def __init__(self, reason: str, t: float = math.nan) -> None:
        self.reason = reason
        self.t = t
        where = f" at t = {t:.6g} s" if math.isfinite(t) else ""
        super().__init__(f"{reason}{where}")


class CompileError(GapsweepError):
    """The compiled kernels could not be built in this environment."""


def require_finite(field: str, value: float) -> float:
    """Return ``float(value)``, or raise :class:`InputError` if it is not a finite number."""
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise InputError(field, value, "a finite number") from None
    if not math.isfinite(x):
        raise InputError(field, value, "a finite number")
    return x


def require_positive(field: str, value: float) -> float:
    """Return ``value`` as a float if it is finite and > 0, else raise :class:`InputError`."""
    x = require_finite(field, value)
    if x <= 0.0:
        raise InputError(field, value, "> 0")
    return x


def require_range(
    field: str,
    value: float,
    low: float,
    high: float,
    *,
    low_open: bool = False,
    high_open: bool = False,
) -> float:
    """Return ``value`` if it lies in the interval, else raise :class:`InputError`.

    The interval is ``[low, high]``; ``low_open`` / ``high_open`` exclude an end.
    """
    x = require_finite(field, value)
    below = x <= low if low_open else x < low
    above = x >= high if high_open else x > high
    if below or above:
        lo = "(" if low_open else "["
        hi = ")" if high_open else "]"
        raise InputError(field, value, f"in {lo}{low:g}, {high:g}{hi}")
    return x
