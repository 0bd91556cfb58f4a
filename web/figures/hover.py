"""Hover text of a study figure's point: each value with its unit (SI-prefixed for SI
units) and the case id, e.g. ``"c = 0.1 mm, peak slider acceleration 30.4 km/s², case 123"``.

Formatted here rather than with Plotly's d3 ``~s`` format, which glues the prefix to the
number with no unit ("30.37405k")."""

from __future__ import annotations

import math
from typing import Any

from .labels import DIMENSIONLESS

# units that take an SI prefix ("count", "rpm", "mm", "–" do not)
PREFIXABLE = frozenset({"m", "s", "N", "N m", "J", "m/s²", "m/s", "Hz", "W"})
_PREFIXES = ((1e9, "G"), (1e6, "M"), (1e3, "k"), (1.0, ""), (1e-3, "m"), (1e-6, "µ"),
             (1e-9, "n"))


def quantity(value: Any, unit: str, digits: int = 3) -> str:
    """``30374.05, "m/s²"`` -> ``"30.4 km/s²"``; ``1.5e-5, "m"`` -> ``"15 µm"``; a unit
    without prefixes keeps the number as is (``"5000 rpm"``); ``[–]`` shows no unit; text
    values (``"hertz-sphere"``) are shown as they are."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return str(value)
    if not math.isfinite(value):
        return str(value)
    if unit not in PREFIXABLE or value == 0:
        text = f"{value:.{digits + 1}g}" if isinstance(value, float) else str(value)
        return text if unit in ("", DIMENSIONLESS) else f"{text} {unit}"
    scale, prefix = next(((s, p) for s, p in _PREFIXES if abs(value) >= s * 0.9995),
                         _PREFIXES[-1])
    return f"{value / scale:.{digits}g} {prefix}{unit}"

