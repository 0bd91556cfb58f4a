"""Four-bar linkage, optionally with a revolute clearance joint at the coupler-rocker pin.

Geometry (Freudenstein's notation): ground pivots O2 = (0, 0) and O4 = (d, 0) on the x axis,
crank ``a`` turning about O2 at angle ``theta`` from +x, coupler ``b`` from the crank pin A
to the rocker pin B, rocker ``c`` from O4 to B at angle ``theta4``. As in
:mod:`.slider_crank`, each body's frame has x along the link, the centre of mass at
mid-length, and the body angle *is* the link angle, so the probe ``Probe("rocker", 2)``
reports ``theta4`` directly.

The clearance joint (when ``clearance`` is given) mirrors the slider-crank's piston pin:
bearing = the coupler's end eye, journal = the pin on the rocker; ``ideal=True`` turns it
into an ideal revolute (the ideal twin).
"""

from __future__ import annotations

import math

from ..errors import InputError, require_finite, require_positive
from ..model import (
    GROUND,
    AngleDriver,
    Body,
    ClearanceJoint,
    ContactModel,
    Mechanism,
    Probe,
    Revolute,
)

OPEN, CROSSED = -1, 1  # assembly branches of the closed form (see freudenstein_rocker_angle)
LINEAR_DENSITY = 2.0  # [kg/m] default link mass per length: a 16 x 16 mm steel bar


def freudenstein_rocker_angle(
    theta: float, a: float, b: float, c: float, d: float, branch: int = OPEN
) -> float:
    """Rocker angle ``theta4`` [rad, in (-pi, pi]] at crank angle ``theta`` [rad].

    Freudenstein's equation ``K1 cos t4 - K2 cos t + K3 = cos(t - t4)`` with ``K1 = d/a``,
    ``K2 = d/c``, ``K3 = (a^2 - b^2 + c^2 + d^2) / (2 a c)``, solved through the half-angle
    tangent: ``A tan^2(t4/2) + B tan(t4/2) + C = 0``. ``branch`` OPEN (-1) takes the root
    with the minus sign (for a crank-rocker: coupler and rocker on the same side as the
    crank pin, no crossing), CROSSED (+1) the other. Lengths [m], all > 0. Raises
    :class:`InputError` (field ``assembly``) where the links cannot meet at this angle.
    """
    if branch not in (OPEN, CROSSED):
        raise InputError("branch", branch, f"{OPEN} (open) or {CROSSED} (crossed)")
    k1, k2 = d / a, d / c
    k3 = (a * a - b * b + c * c + d * d) / (2.0 * a * c)
    cos_t = math.cos(theta)
    qa = cos_t - k1 - k2 * cos_t + k3
    qb = -2.0 * math.sin(theta)
    qc = k1 - (k2 + 1.0) * cos_t + k3
    disc = qb * qb - 4.0 * qa * qc
    if disc < 0.0:
        raise InputError(
            "assembly",
            f"four-bar a={a:g}, b={b:g}, c={c:g}, d={d:g} m at crank angle {theta:g} rad",
            "lengths whose links can meet at this crank angle",
            "no real root of Freudenstein's equation: the coupler cannot reach the rocker",
        )
    # atan2 keeps the 2A = 0 case (tan(t4/2) infinite, t4 = pi) well defined
    t4 = 2.0 * math.atan2(-qb + branch * math.sqrt(disc), 2.0 * qa)
    return math.atan2(math.sin(t4), math.cos(t4))


def _poses(a, b, c, d, theta, branch):
    """Centre-of-mass poses (x, y, phi) of crank, coupler and rocker at crank angle theta."""
    t4 = freudenstein_rocker_angle(theta, a, b, c, d, branch)
    ax, ay = a * math.cos(theta), a * math.sin(theta)
    bx, by = d + c * math.cos(t4), c * math.sin(t4)
    t3 = math.atan2(by - ay, bx - ax)
    crank = (0.5 * ax, 0.5 * ay, theta)
    coupler = (0.5 * (ax + bx), 0.5 * (ay + by), t3)
    rocker = (0.5 * (d + bx), 0.5 * by, t4)
    return crank, coupler, rocker


def four_bar(
    ground: float,
    crank: float,
    coupler: float,
    rocker: float,
    *,
    omega: float,
    crank_angle: float = 0.0,
    masses: tuple[float, float, float] | None = None,
    inertias: tuple[float, float, float] | None = None,
    branch: int = OPEN,
    clearance: float | None = None,
    bearing_radius: float = 0.01,
    contact: ContactModel | None = None,
    ideal: bool = False,
    gravity: float = 9.81,
    driven: bool = True,
    name: str = "four-bar",
) -> Mechanism:
    """A four-bar linkage with link lengths ``ground`` d, ``crank`` a, ``coupler`` b and
    ``rocker`` c [m], assembled on ``branch`` at ``crank_angle`` [rad].

    ``omega`` [rad/s]: constant crank speed of the driver (with ``driven=False`` there is no
    driver and the linkage has one free degree of freedom). ``masses`` [kg] and ``inertias``
    [kg m^2] of crank, coupler, rocker default to slender bars of :data:`LINEAR_DENSITY`
    (``m = rho L``, ``J = m L^2 / 12``). ``clearance`` [m] (None: ideal pin, no clearance
    joint) and ``bearing_radius`` [m] put a clearance joint at the coupler-rocker pin with
    ``contact`` (default :class:`ContactModel`); ``ideal`` makes it an ideal revolute.
    ``gravity`` [m/s^2] acts along -y. Bad lengths, or links that cannot meet at the start
    angle, raise :class:`InputError`.
    """
    lengths = {"ground": ground, "crank": crank, "coupler": coupler, "rocker": rocker}
    for key, value in lengths.items():
        require_positive(f"{key} length", value)
    require_finite("crank_angle", crank_angle)
    d, a, b, c = ground, crank, coupler, rocker
    if masses is None:
        masses = (LINEAR_DENSITY * a, LINEAR_DENSITY * b, LINEAR_DENSITY * c)
    if inertias is None:
        inertias = tuple(m * s * s / 12.0 for m, s in zip(masses, (a, b, c), strict=True))
    crank_pose, coupler_pose, rocker_pose = _poses(a, b, c, d, crank_angle, branch)
    bodies = (
        Body("crank", masses[0], inertias[0], crank_pose),
        Body("coupler", masses[1], inertias[1], coupler_pose),
        Body("rocker", masses[2], inertias[2], rocker_pose),
    )
    joints = (
        Revolute(GROUND, "crank", (0.0, 0.0), (-0.5 * a, 0.0)),
        Revolute("crank", "coupler", (0.5 * a, 0.0), (-0.5 * b, 0.0)),
        Revolute(GROUND, "rocker", (d, 0.0), (-0.5 * c, 0.0)),
    )
    pin = ("coupler", "rocker", (0.5 * b, 0.0), (0.5 * c, 0.0))
    clearance_joints: tuple[ClearanceJoint, ...] = ()
    if clearance is None:
        joints = (*joints, Revolute(*pin))
    else:
        bi, bj, pi, pj = pin
        model = contact if contact is not None else ContactModel()
        clearance_joints = (
            ClearanceJoint(bi, bj, bearing_radius, clearance, pi, pj, model, ideal),
        )
    return Mechanism(
        name=name,
        bodies=bodies,
        joints=joints,
        drivers=(AngleDriver("crank", omega, crank_angle),) if driven else (),
        clearance_joints=clearance_joints,
        gravity=(0.0, -gravity),
        probe=Probe("rocker", 2),
    )
