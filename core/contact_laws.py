r"""Normal contact force laws for the revolute clearance joint (design.md 1.2).

All laws share one shape: an elastic part :math:`K\,\delta^n` plus a dissipative part, and
the force never pulls (clamped at 0). ``delta`` is the penetration [m] (``|e| - c``),
``delta_dot`` its rate [m/s] (> 0 while approaching), ``delta_dot0`` the normal approach
velocity captured at the onset of *this* impact [m/s].

Two kernel shapes cover the family:

* **hysteresis** - :math:`F = K\delta^n\,(1 + \chi\,\dot\delta/\dot\delta_0)`, where each
  published law is a different hysteresis factor :math:`\chi(c_r)`:

  =====================  =================================  ==========================
  law                    :math:`\chi(c_r)`                  meant for
  =====================  =================================  ==========================
  Hertz                  0                                  elastic (:math:`c_r = 1`)
  Hunt-Crossley 1975     :math:`3(1-c_r)/2`                 :math:`c_r` near 1
  Lankarani-Nikravesh    :math:`3(1-c_r^2)/4`               :math:`c_r` near 1
  Flores et al. 2011     :math:`8(1-c_r)/(5c_r)`            any :math:`c_r`
  Gonthier et al. 2004   :math:`(1-c_r^2)/c_r`              any :math:`c_r`
  =====================  =================================  ==========================

* **impact** (ADAMS IMPACT with this brief's penetration): :math:`F = K\delta^e +
  \mathrm{STEP}(\delta, 0, 0, d, c_{max})\,\dot\delta` - damping ramps in over the first ``d``
  of penetration so the force is continuous at onset.

The registry :data:`CONTACT_LAWS` maps the user's name to a :class:`ContactLaw`; the
compiled kernels receive only the numbers (``shape``, ``chi``) it produces, so adding a law
of either shape is one registry entry.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from .errors import InputError
from .jit import kernel

SHAPE_HYSTERESIS = 0
SHAPE_IMPACT = 1

# A near-zero approach velocity (a grazing re-contact, a journal resting on the wall) would
# make chi * delta_dot / delta_dot0 unbounded; below this floor [m/s] the damping saturates.
MIN_APPROACH_VELOCITY = 1e-3


@dataclass(frozen=True)
class ContactLaw:
    """One entry of the contact-law registry."""

    name: str
    shape: int
    hysteresis_factor: Callable[[float], float]
    reference: str
    restitution_range: str = "(0, 1]"

    def chi(self, restitution: float) -> float:
        """Hysteresis factor for restitution coefficient ``restitution`` (dimensionless)."""
        return self.hysteresis_factor(restitution)


CONTACT_LAWS: dict[str, ContactLaw] = {
    law.name: law
    for law in (
        ContactLaw("hertz", SHAPE_HYSTERESIS, lambda cr: 0.0, "Hertz 1882; elastic, cr = 1"),
        ContactLaw(
            "hunt-crossley",
            SHAPE_HYSTERESIS,
            lambda cr: 1.5 * (1.0 - cr),
            "Hunt & Crossley 1975, J. Appl. Mech. 42:440",
        ),
        ContactLaw(
            "lankarani-nikravesh",
            SHAPE_HYSTERESIS,
            lambda cr: 0.75 * (1.0 - cr * cr),
            "Lankarani & Nikravesh 1990, J. Mech. Des. 112:369 (cr near 1)",
        ),
        ContactLaw(
            "flores",
            SHAPE_HYSTERESIS,
            lambda cr: 8.0 * (1.0 - cr) / (5.0 * cr),
            "Flores, Machado, Silva, Martins 2011, Multibody Syst. Dyn. 25:357",
        ),
        ContactLaw(
            "gonthier",
            SHAPE_HYSTERESIS,
            lambda cr: (1.0 - cr * cr) / cr,
            "Gonthier, McPhee, Lange, Piedboeuf 2004, Multibody Syst. Dyn. 11:209",
        ),
        ContactLaw(
            "impact",
            SHAPE_IMPACT,
            lambda cr: 0.0,
            "MSC ADAMS IMPACT function: K delta^e + STEP(delta, 0, 0, d, c_max) delta_dot",
        ),
    )
}


def get_contact_law(name: str) -> ContactLaw:
    """Look up a contact law by name, or raise :class:`InputError` listing the known ones."""
    try:
        return CONTACT_LAWS[name]
    except KeyError:
        raise InputError("contact_law", name, "one of " + ", ".join(CONTACT_LAWS)) from None


def conformal_stiffness(
    bearing_radius: float,
    clearance: float,
    youngs_bearing: float,
    poisson_bearing: float,
    youngs_journal: float,
    poisson_journal: float,
) -> float:
    """Hertz stiffness ``K = 4/3 E* sqrt(R*)`` [N/m^1.5] of a journal inside a bearing.

    Radii and clearance in m, moduli in Pa. ``R* = R_J R_B / (R_B - R_J)`` (internal
    contact, ``R_J = R_B - c``) and ``1/E* = (1-nu_B^2)/E_B + (1-nu_J^2)/E_J``. It is the
    sphere-type K of design.md 1.2, known to overestimate conformal cylinders at small c.
    """
    journal_radius = bearing_radius - clearance
    r_eff = journal_radius * bearing_radius / clearance
    e_eff = 1.0 / (
        (1.0 - poisson_bearing**2) / youngs_bearing + (1.0 - poisson_journal**2) / youngs_journal
    )
    return 4.0 / 3.0 * e_eff * math.sqrt(r_eff)


@kernel(runtime=False)  # a call LLVM inlines: numba's own inlining was slow
def step_function(x: float, x0: float, h0: float, x1: float, h1: float) -> float:
    """ADAMS STEP: cubic from ``h0`` at ``x0`` to ``h1`` at ``x1``, flat outside."""
    if x <= x0:
        return h0
    if x >= x1:
        return h1
    d = (x - x0) / (x1 - x0)
    return h0 + (h1 - h0) * d * d * (3.0 - 2.0 * d)


@kernel(inline="always")
def normal_force(
    shape: int,
    stiffness: float,
    exponent: float,
    chi: float,
    damping_max: float,
    damping_depth: float,
    delta: float,
    delta_dot: float,
    delta_dot0: float,
) -> tuple[float, float]:
    """Normal contact force [N] and its elastic part [N] at penetration ``delta`` [m].

    ``stiffness`` K [N/m^n], ``exponent`` n, ``chi`` the hysteresis factor (shape 0),
    ``damping_max`` c_max [N s/m] and ``damping_depth`` d [m] (shape 1). Returns (0, 0) for
    ``delta <= 0``. The total is clamped at 0: a contact never pulls.
    """
    if delta <= 0.0:
        return 0.0, 0.0
    # the Hertz exponent 1.5 as a square root: pow() would cost as much as the rest of the law
    elastic = stiffness * (delta * math.sqrt(delta) if exponent == 1.5 else delta**exponent)
    return dissipative_force(
        shape, chi, damping_max, damping_depth, elastic, delta, delta_dot, delta_dot0
    ), elastic


@kernel(inline="always")
def dissipative_force(
    shape: int,
    chi: float,
    damping_max: float,
    damping_depth: float,
    elastic: float,
    delta: float,
    delta_dot: float,
    delta_dot0: float,
) -> float:
    """Total normal force [N] from its elastic part ``elastic`` [N] (any stiffness model,
    :mod:`contact_stiffness`): ``elastic (1 + chi delta_dot / delta_dot0)`` (shape 0) or
    ``elastic + STEP(delta, 0, 0, d, c_max) delta_dot`` (shape 1), clamped at 0.

    The hysteresis factors chi(cr) were derived for ``K delta^1.5``; with another elastic law
    they keep their form but the restitution they give departs from cr.
    """
    if shape == SHAPE_HYSTERESIS:
        v0 = max(abs(delta_dot0), MIN_APPROACH_VELOCITY)
        total = elastic * (1.0 + chi * delta_dot / v0)
    else:
        total = elastic + step_function(delta, 0.0, 0.0, damping_depth, damping_max) * delta_dot
    return max(total, 0.0)


@kernel(runtime=False)
def elastic_energy(stiffness: float, exponent: float, delta: float) -> float:
    """Potential energy [J] stored in the elastic part ``K delta^n``: ``K delta^(n+1)/(n+1)``."""
    if delta <= 0.0:
        return 0.0
    if exponent == 1.5:  # as in normal_force: the stepping loop takes this at every step
        return stiffness * delta * delta * math.sqrt(delta) / 2.5
    return stiffness * delta ** (exponent + 1.0) / (exponent + 1.0)
