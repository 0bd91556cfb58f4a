r"""Tangential friction laws for the clearance joint (design.md 1.2).

Each law gives the friction force along the contact tangent ``t`` [N] from the normal force
``F_n`` [N] (>= 0) and the tangential slip velocity ``v_t`` [m/s] (journal contact point
relative to the bearing contact point, including the bodies' rotation). It always opposes
``v_t`` and is smooth enough for an explicit integrator.

=================  =========================================================================
law                force
=================  =========================================================================
none               0
coulomb-tanh       :math:`-\mu F_n \tanh(v_t/v_0)`  (seed 000)
ambrosio           :math:`-\mu c_d F_n\,\mathrm{sign}(v_t)`, :math:`c_d` 0 at :math:`|v_t| \le v_0`,
                   rising linearly to 1 at :math:`v_1` (Ambrosio 2002)
adams              static/dynamic: :math:`\mu(v)` = STEP(|v|, v_s, mu_s, v_d, mu_d) above the
                   stiction velocity :math:`v_s`, STEP(v, -v_s, -mu_s, v_s, mu_s) below
=================  =========================================================================

The kernels receive ``kind`` (an int from :data:`FRICTION_LAWS`) and four numbers:
``mu`` (dynamic coefficient), ``v0`` (transition / stiction velocity), ``v1`` (Ambrosio's full
friction velocity, ADAMS' friction transition velocity) and ``mu_static`` (ADAMS only).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .contact_laws import step_function
from .errors import InputError
from .jit import kernel

KIND_NONE = 0
KIND_COULOMB_TANH = 1
KIND_AMBROSIO = 2
KIND_ADAMS = 3


@dataclass(frozen=True)
class FrictionLaw:
    """One entry of the friction-law registry."""

    name: str
    kind: int
    reference: str


FRICTION_LAWS: dict[str, FrictionLaw] = {
    law.name: law
    for law in (
        FrictionLaw("none", KIND_NONE, "frictionless"),
        FrictionLaw("coulomb-tanh", KIND_COULOMB_TANH, "Coulomb smoothed with tanh (seed 000)"),
        FrictionLaw("ambrosio", KIND_AMBROSIO, "Ambrosio 2002, modified Coulomb"),
        FrictionLaw("adams", KIND_ADAMS, "MSC ADAMS static/dynamic friction with STEP"),
    )
}


def get_friction_law(name: str) -> FrictionLaw:
    """Look up a friction law by name, or raise :class:`InputError` listing the known ones."""
    try:
        return FRICTION_LAWS[name]
    except KeyError:
        raise InputError("friction_law", name, "one of " + ", ".join(FRICTION_LAWS)) from None


@kernel(inline="always")
def friction_force(
    kind: int, mu: float, v0: float, v1: float, mu_static: float, fn: float, vt: float
) -> float:
    """Friction force along the tangent [N] for normal force ``fn`` [N] and slip ``vt`` [m/s]."""
    if kind == KIND_NONE or fn <= 0.0:
        return 0.0
    if kind == KIND_COULOMB_TANH:
        return -mu * fn * math.tanh(vt / v0)
    speed = abs(vt)
    sign = 1.0 if vt > 0.0 else -1.0
    if kind == KIND_AMBROSIO:
        if speed <= v0:
            cd = 0.0
        elif speed >= v1:
            cd = 1.0
        else:
            cd = (speed - v0) / (v1 - v0)
        return -mu * cd * fn * sign
    # ADAMS: a smooth stiction branch through zero, then static -> dynamic above v0
    if speed < v0:
        coefficient = step_function(vt, -v0, -mu_static, v0, mu_static)
        return -coefficient * fn
    return -step_function(speed, v0, mu_static, v1, mu) * fn * sign
