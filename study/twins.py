"""Ideal twins: the ideal-joint run a clearance case is compared with (design.md 4.5).

A twin keeps every parameter that changes an ideal-joint run (speed, template, solver
settings ...) and drops the clearance, contact, friction and journal-start fields, which an
ideal revolute joint never reads; so the 15-case clearance x stiffness study has one twin.
Which fields those are is the core's parameter registry's to say, per model.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

from gapsweep.core import metrics as registry
from gapsweep.core.api import NAMED_JOINTS, can
from gapsweep.core.mechanism.table import ideal_ignores
from gapsweep.core.parameters import ideal_ignored

# Parameters an ideal-joint run of some model does not read: the registry's entries that say
# so (joint, contact, friction, journal start, contact-only steps); twin_params with a model
# drops only that model's.
IDEAL_IGNORES = ideal_ignored()

# metric -> deviation metric (relative to the twin: m / m_twin - 1): the metric registry's
# entries that have one
DEVIATIONS = {m: registry.deviation_name(m) for m in registry.with_deviation()}


def twin_params(params: Mapping[str, Any], model: str | None = None) -> dict[str, Any]:
    """The ideal twin of a case of ``model``: its parameters minus those an ideal run of that
    model does not read (without a model: minus :data:`IDEAL_IGNORES`), ideal on."""
    ignored = IDEAL_IGNORES if model is None else ideal_ignored(model)
    out = {k: v for k, v in params.items() if k not in ignored and k != "ideal"}
    if can(model, NAMED_JOINTS):  # a described mechanism's clearance joints: dotted names
        out = {k: v for k, v in out.items() if not ideal_ignores(k)}
    out["ideal"] = True
    return out


def twin_key(params: Mapping[str, Any]) -> str:
    """A hashable identity of a parameter set (order-free)."""
    return json.dumps(dict(params), sort_keys=True)


def deviations(
    metrics: Mapping[str, Any] | None, twin_metrics: Mapping[str, Any] | None
) -> dict[str, float | None]:
    """``deviation_*`` of a case from its twin: ``m / m_twin - 1`` (dimensionless), None
    where either is missing or not finite or the twin's value is 0."""
    out: dict[str, float | None] = {}
    for metric, name in DEVIATIONS.items():
        m = (metrics or {}).get(metric)
        t = (twin_metrics or {}).get(metric)
        ok = all(isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)
                 for x in (m, t))
        out[name] = float(m) / float(t) - 1.0 if ok and t != 0 else None
    return out


def ratio(
    metrics: Mapping[str, Any] | None, metric: str, twin_metrics: Mapping[str, Any] | None = None
) -> float | None:
    """``m / m_twin`` of ``metric`` (dimensionless): ``1 + deviation`` where the case stores
    a deviation of it (computed once, when stored); for a metric without one (a window's
    ``_steady`` or ``_settled`` statistic no deviation is kept of) from ``twin_metrics``, as
    :func:`deviations` computes it. None where either is missing, not finite or the twin's
    value is 0."""
    metrics = metrics or {}
    if metric in DEVIATIONS:
        stored = metrics.get(DEVIATIONS[metric])
        return None if stored is None else 1.0 + float(stored)
    m, t = metrics.get(metric), (twin_metrics or {}).get(metric)
    ok = all(isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)
             for x in (m, t))
    return float(m) / float(t) if ok and t != 0 else None
