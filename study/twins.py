"""Ideal twins: the ideal-joint run a clearance case is compared with (design.md 4.5).

A twin keeps every parameter that changes an ideal-joint run (speed, template, solver
settings ...) and drops the clearance, contact, friction and journal-start fields, which an
ideal revolute joint never reads; so the 15-case clearance x stiffness study has one twin.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

# Parameters an ideal-joint run does not read (rigid and flexible slider-crank alike).
IDEAL_IGNORES = frozenset(
    {
        "clearance_mm",
        "bearing_radius_mm",
        "stiffness_scale",
        "stiffness",
        "contact_law",
        "stiffness_model",
        "axial_length_mm",
        "restitution",
        "exponent",
        "youngs_modulus",
        "poisson_ratio",
        "impact_damping",
        "impact_depth",
        "friction_law",
        "friction",
        "static_friction",
        "friction_velocity",
        "friction_velocity_full",
        "initial",
        "contact_max_step",
        "event_location",  # an ideal run has no contact events to locate
        # the flexible slider-crank's IMPACT-law damping (its contact, not its rod)
        "damping_max",
        "damping_depth",
    }
)

# metric -> deviation metric (relative to the twin: m / m_twin - 1)
DEVIATIONS = {
    "peak_slider_accel": "deviation_peak_slider_accel",
    "rms_slider_accel": "deviation_rms_slider_accel",
    "peak_driving_torque": "deviation_peak_driving_torque",
}


def twin_params(params: Mapping[str, Any]) -> dict[str, Any]:
    """The ideal twin of a case: its parameters minus :data:`IDEAL_IGNORES`, ideal on."""
    out = {k: v for k, v in params.items() if k not in IDEAL_IGNORES and k != "ideal"}
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
