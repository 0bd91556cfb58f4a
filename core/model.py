"""The vocabulary of a planar mechanism: bodies, joints, drivers, loads and clearance joints.

A :class:`Mechanism` is plain, frozen data: bodies in absolute coordinates ``q_i = [x, y,
phi]`` (centre of mass [m], angle [rad]), and the elements that act on them. Points on a
body are given in its local frame, from the centre of mass [m]. The body named ``"ground"``
is the fixed frame and is never listed. Nothing here computes; :mod:`assembly` turns a
mechanism into the arrays the compiled kernels use.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

from .contact_stiffness import STIFFNESS_MODELS, sphere_only_fields
from .errors import InputError, require_finite, require_positive
from .journal_bearing import lubrication_kind

GROUND = "ground"
Vec2 = tuple[float, float]


@dataclass(frozen=True)
class Body:
    """A rigid body: mass [kg], polar inertia about its centre of mass [kg m^2], and a guess
    of its pose ``(x, y, phi)`` [m, m, rad] that assembly starts Newton-Raphson from."""

    name: str
    mass: float
    inertia: float
    pose: tuple[float, float, float] = (0.0, 0.0, 0.0)


@dataclass(frozen=True)
class Revolute:
    """Ideal pin: point ``point_i`` of ``body_i`` coincides with ``point_j`` of ``body_j``."""

    body_i: str
    body_j: str
    point_i: Vec2 = (0.0, 0.0)
    point_j: Vec2 = (0.0, 0.0)


@dataclass(frozen=True)
class Translational:
    """``body`` slides along a line of ``guide`` (the ground by default) without turning
    relative to it.

    ``point`` (local, on the body) stays on the line through ``origin`` [m] along the unit
    direction ``direction``, both in ``guide``'s frame (global for the ground); the body's
    angle minus the guide's stays at ``angle`` [rad].
    """

    body: str
    point: Vec2 = (0.0, 0.0)
    origin: Vec2 = (0.0, 0.0)
    direction: Vec2 = (1.0, 0.0)
    angle: float = 0.0
    guide: str = GROUND


@dataclass(frozen=True)
class Fixed:
    """``body`` welded to the ground at pose ``(x, y, phi)``."""

    body: str
    pose: tuple[float, float, float] = (0.0, 0.0, 0.0)


@dataclass(frozen=True)
class AngleDriver:
    """Driving constraint ``phi_body - phi0 - omega t = 0`` (constant speed ``omega`` [rad/s]),
    or with ``ramp > 0`` [s] a run-up from rest to ``omega`` over the first ``ramp`` seconds
    (:func:`constraints.driver_motion`).

    Its Lagrange multiplier is the driving torque; its power enters the energy balance.
    """

    body: str
    omega: float
    phi0: float = 0.0
    ramp: float = 0.0


@dataclass(frozen=True)
class Torque:
    """A constant torque [N m] applied to ``body``."""

    body: str
    torque: float


@dataclass(frozen=True)
class PointForce:
    """A constant force ``force`` [N] applied at local ``point`` of ``body``: in the global
    frame, or with ``body_frame`` in the body's own frame (turning with it; the global frame
    where the body's angle is 0, a described mechanism's design position)."""

    body: str
    force: Vec2
    point: Vec2 = (0.0, 0.0)
    body_frame: bool = False


@dataclass(frozen=True)
class Spring:
    """Linear spring-damper between ``point_i`` of ``body_i`` and ``point_j`` of ``body_j``.

    Stiffness [N/m], damping [N s/m], free length [m]; the spring is conservative when
    damping is 0 and its energy is part of the potential energy.
    """

    body_i: str
    body_j: str
    stiffness: float
    free_length: float
    damping: float = 0.0
    point_i: Vec2 = (0.0, 0.0)
    point_j: Vec2 = (0.0, 0.0)


@dataclass(frozen=True)
class TableLoad:
    """A force or torque on ``body`` given as a periodic table over the driver angle (a gas
    force on a piston over the crank angle).

    ``angles`` [rad]: knots in [0, 2 pi), strictly increasing; ``values``: the force [N]
    along the unit ``direction`` (global frame, or the body's own with ``body_frame``, as
    :class:`PointForce`) at local ``point``, or with ``direction`` None the torque [N m].
    Between knots the load is linear, and it wraps from the last knot to the first plus one
    revolution. The driver angle is ``phi - phi0`` of
    ``driver_body`` (the body of an :class:`AngleDriver`), counted in its sense of rotation.
    Its work enters the energy balance with the driver's.
    """

    body: str
    driver_body: str
    angles: tuple[float, ...]
    values: tuple[float, ...]
    direction: Vec2 | None = None
    point: Vec2 = (0.0, 0.0)
    body_frame: bool = False


@dataclass(frozen=True)
class ContactModel:
    """The clearance joint's contact and friction parameters (design.md 1.2).

    ``stiffness`` [N/m^exponent]: None means computed from the materials and radii
    (:func:`contact_laws.conformal_stiffness`), then multiplied by ``stiffness_scale``.
    ``damping_max`` [N s/m] and ``damping_depth`` [m] are the IMPACT law's c_max and d.
    ``friction_velocity`` v0 and ``friction_velocity_full`` v1 [m/s] feed the friction laws;
    ``static_friction`` is mu_s of the ADAMS law. ``stiffness_model`` picks the elastic
    force-penetration law (:mod:`contact_stiffness`); ``stiffness`` and ``exponent`` serve
    hertz-sphere only, ``axial_length`` [m] (the pin's bearing length) the cylindrical laws
    and the oil film. ``lubrication`` (``none``, ``short-bearing``, ``long-bearing``,
    ``finite``: :mod:`journal_bearing`) adds the film of oil of ``viscosity`` [Pa s].
    """

    law: str = "lankarani-nikravesh"
    stiffness_model: str = "hertz-sphere"
    axial_length: float = 0.01
    restitution: float = 0.9
    exponent: float = 1.5
    stiffness: float | None = None
    stiffness_scale: float = 1.0
    youngs_bearing: float = 207e9
    poisson_bearing: float = 0.3
    youngs_journal: float = 207e9
    poisson_journal: float = 0.3
    damping_max: float = 0.0
    damping_depth: float = 1e-6
    friction_law: str = "coulomb-tanh"
    friction: float = 0.01
    static_friction: float = 0.0
    friction_velocity: float = 1e-4
    friction_velocity_full: float = 1e-3
    lubrication: str = "none"
    viscosity: float = 0.1


@dataclass(frozen=True)
class ClearanceJoint:
    """Revolute joint with radial clearance: bearing (hole) on ``bearing_body`` at its local
    ``bearing_point``, journal (pin) on ``journal_body`` at ``journal_point``.

    ``bearing_radius`` R_B [m], ``clearance`` c = R_B - R_J [m]. ``ideal=True`` turns it into
    an ideal revolute joint: the case's ideal twin, every clearance result's reference.
    ``name``: a described mechanism's joint name; its per-joint series and metrics carry it
    (:func:`metrics.per_joint`). A built-in model's single joint has none. ``wear_profile``:
    the hole's radius is R_B + h(theta) (:mod:`wear`).
    """

    bearing_body: str
    journal_body: str
    bearing_radius: float
    clearance: float
    bearing_point: Vec2 = (0.0, 0.0)
    journal_point: Vec2 = (0.0, 0.0)
    contact: ContactModel = field(default_factory=ContactModel)
    ideal: bool = False
    name: str = ""
    # the worn bearing (design.md 4.12): depths h_i [m] at angles 2 pi i / N in the bearing
    # body's frame from its x axis, counter-clockwise; () is the circular hole
    wear_profile: tuple[float, ...] = ()

    def as_revolute(self) -> Revolute:
        """The ideal revolute joint this clearance joint becomes when ``ideal``."""
        return Revolute(
            self.bearing_body, self.journal_body, self.bearing_point, self.journal_point
        )


Joint = Revolute | Translational | Fixed
Load = Torque | PointForce | Spring | TableLoad


@dataclass(frozen=True)
class Probe:
    """The coordinate a mechanism reports as its output (for the slider-crank: the slider's x).

    ``coordinate`` is 0, 1, 2 for x, y, phi of ``body``.
    """

    body: str
    coordinate: int = 0


@dataclass(frozen=True)
class Mechanism:
    """A planar mechanism: bodies and everything acting on them.

    ``gravity`` [m/s^2] as a 2-vector. ``period`` [s] is one cycle of the driver (one crank
    revolution) when there is one; metrics with the suffix ``_steady`` cover the last period.
    """

    name: str
    bodies: tuple[Body, ...]
    joints: tuple[Joint, ...] = ()
    drivers: tuple[AngleDriver, ...] = ()
    loads: tuple[Load, ...] = ()
    clearance_joints: tuple[ClearanceJoint, ...] = ()
    gravity: Vec2 = (0.0, -9.81)
    probe: Probe | None = None

    @property
    def period(self) -> float:
        """One revolution of the first driver [s]; NaN without a driver."""
        if not self.drivers or self.drivers[0].omega == 0.0:
            return math.nan
        return 2.0 * math.pi / abs(self.drivers[0].omega)

    def body_index(self, name: str) -> int:
        """Index of body ``name`` in :attr:`bodies`; -1 for the ground."""
        if name == GROUND:
            return -1
        for k, body in enumerate(self.bodies):
            if body.name == name:
                return k
        raise InputError("body", name, "one of " + ", ".join([GROUND, *self.body_names]))

    @property
    def body_names(self) -> list[str]:
        return [b.name for b in self.bodies]

    def with_ideal_joints(self) -> Mechanism:
        """The same mechanism with every clearance joint made an ideal revolute."""
        ideal = tuple(replace(cj, ideal=True) for cj in self.clearance_joints)
        return replace(self, clearance_joints=ideal)

    def validate(self) -> None:
        """Raise :class:`InputError` for a non-physical or inconsistent description."""
        names = self.body_names
        if len(set(names)) != len(names) or GROUND in names:
            raise InputError("bodies", names, "unique names, none called 'ground'")
        for b in self.bodies:
            require_positive(f"{b.name}.mass", b.mass)
            require_positive(f"{b.name}.inertia", b.inertia)
            for value in b.pose:
                require_finite(f"{b.name}.pose", value)
        for element in (*self.joints, *self.drivers, *self.loads):
            for attr in ("body", "body_i", "body_j", "guide"):
                if hasattr(element, attr):
                    self.body_index(getattr(element, attr))
        for d in self.drivers:
            require_finite("omega", d.omega)
        for s in (x for x in self.loads if isinstance(x, Spring)):
            require_positive("spring.stiffness", s.stiffness)
            for name in ("damping", "free_length"):
                if require_finite(f"spring.{name}", getattr(s, name)) < 0.0:
                    raise InputError(f"spring.{name}", getattr(s, name), ">= 0")
        for t in (x for x in self.loads if isinstance(x, TableLoad)):
            _validate_table(t)
        for j in (x for x in self.joints if isinstance(x, Translational)):
            if not math.hypot(*j.direction) > 0.0:
                raise InputError("translational.direction", j.direction, "a non-zero vector")
            if j.guide == j.body:
                raise InputError("translational.guide", j.guide, f"a body other than {j.body}")
        for cj in self.clearance_joints:
            self.body_index(cj.bearing_body)
            self.body_index(cj.journal_body)
            _validate_clearance(cj)
        if self.probe is not None:
            self.body_index(self.probe.body)
            if self.probe.coordinate not in (0, 1, 2):
                allowed = "0 (x), 1 (y) or 2 (phi)"
                raise InputError("probe.coordinate", self.probe.coordinate, allowed)


def _validate_table(t: TableLoad) -> None:
    if len(t.angles) != len(t.values) or not t.angles:
        raise InputError("table.values", len(t.values), f"{len(t.angles)} values, one per angle")
    for a in t.angles:
        if not 0.0 <= require_finite("table.angles", a) < 2.0 * math.pi:
            raise InputError("table.angles", a, "in [0, 2 pi) rad")
    if any(b <= a for a, b in zip(t.angles, t.angles[1:], strict=False)):
        raise InputError("table.angles", t.angles, "strictly increasing")
    for v in t.values:
        require_finite("table.values", v)
    if t.direction is not None and not math.hypot(*t.direction) > 0.0:
        raise InputError("table.direction", t.direction, "a non-zero vector")


def _validate_clearance(cj: ClearanceJoint) -> None:
    require_positive("bearing_radius", cj.bearing_radius)
    c = require_finite("clearance", cj.clearance)
    if not 0.0 < c < cj.bearing_radius:
        raise InputError(
            "clearance",
            cj.clearance,
            f"> 0 and < bearing radius {cj.bearing_radius:g} m",
        )
    m = cj.contact
    if m.stiffness is not None:
        require_positive("stiffness", m.stiffness)
    require_positive("stiffness_scale", m.stiffness_scale)
    if m.stiffness_model not in STIFFNESS_MODELS:
        allowed = "one of " + ", ".join(STIFFNESS_MODELS)
        raise InputError("stiffness_model", m.stiffness_model, allowed)
    require_positive("axial_length", m.axial_length)
    lubrication_kind(m.lubrication)
    require_positive("viscosity", m.viscosity)
    sphere_only_fields(m.stiffness_model, m.stiffness or 0.0, m.exponent)
    require_positive("exponent", m.exponent)
    for name in ("youngs_bearing", "youngs_journal", "friction_velocity"):
        require_positive(name, getattr(m, name))
    for name in ("poisson_bearing", "poisson_journal"):
        v = require_finite(name, getattr(m, name))
        if not -1.0 < v < 0.5:
            raise InputError(name, v, "in (-1, 0.5)")
    r = require_finite("restitution", m.restitution)
    if not 0.0 < r <= 1.0:
        raise InputError("restitution", m.restitution, "in (0, 1]")
    mu = require_finite("friction", m.friction)
    if mu < 0.0:
        raise InputError("friction", m.friction, ">= 0")
    if require_finite("damping_max", m.damping_max) < 0.0:
        raise InputError("damping_max", m.damping_max, ">= 0")
    require_positive("damping_depth", m.damping_depth)
    if m.friction_velocity_full <= m.friction_velocity:
        raise InputError(
            "friction_velocity_full",
            m.friction_velocity_full,
            f"> friction_velocity {m.friction_velocity:g} m/s",
        )
