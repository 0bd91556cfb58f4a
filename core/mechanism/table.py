"""The ``[mechanism]`` table of a study (design.md 4.7): read, checked and resolved.

:func:`parse_table` turns the table - variables, hardpoints [mm], bodies, joints, one driver,
loads and measures - into a :class:`MechanismSpec` of plain SI numbers, with every
expression evaluated (:mod:`.expressions`). Each refusal is an :class:`InputError` whose
field is the dotted path into the study file (``mechanism.points.B[0]``,
``mechanism.joints.piston_pin.clearance_mm``), with the value and what is allowed.

:func:`sweepable` lists the dotted paths a design may vary (``variables.rod_mm``,
``joints.piston_pin.clearance_mm``, ``bodies.rod.mass_kg``, ``driver.speed_rpm`` ...) with
their units, and :func:`with_overrides` applies values to them.
"""

from __future__ import annotations

import functools
import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..errors import InputError
from ..model import GROUND
from ..parameters import CONTACT, FRICTION, JOINT, find
from ..parameters import names as parameter_names
from .expressions import CONSTANTS, FUNCTIONS, evaluate
from .expressions import MAX_LENGTH as MAX_EXPRESSION

JOINT_TYPES = ("revolute", "translational", "fixed")
LOAD_TYPES = ("force", "torque", "spring")
# a force's frame: the global one (default), or its body's, turning with it (design.md 4.15)
LOAD_FRAMES = ("ground", "body")
QUANTITIES = ("position", "velocity", "acceleration")
COMPONENTS = ("x", "y", "angle", "magnitude")
MAX_ITEMS = 64  # bodies, joints, points, loads, measures, variables: each at most this many
MAX_TABLE = 72  # knots of a periodic load table (assembly.N_TABLE)
NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,39}$")
# a clearance joint's contact and friction parameters: the slider-crank's names and checks
CONTACT_KEYS = tuple(
    n for n in parameter_names("slider-crank", kinds=(JOINT, CONTACT, FRICTION))
    if n not in ("clearance_mm", "ideal")
)
_TOP_KEYS = ("name", "gravity", "variables", "points", "bodies", "joints", "driver", "loads",
             "measures")
_BODY_KEYS = ("mass_kg", "inertia_kgm2", "cm")
_JOINT_KEYS = {
    "revolute": ("type", "bodies", "at", "clearance_mm", *CONTACT_KEYS),
    "translational": ("type", "bodies", "at", "direction"),
    "fixed": ("type", "bodies", "at"),
}
_LOAD_KEYS = {
    "force": ("type", "body", "at", "force_n", "direction", "angle_deg", "scale", "frame"),
    "torque": ("type", "body", "torque_nm", "angle_deg", "scale"),
    "spring": ("type", "bodies", "at", "stiffness_n_per_m", "damping_n_s_per_m",
               "free_length_mm"),
}
_MEASURE_KEYS = ("body", "quantity", "component", "point")
# units of the sweepable names (the rest carry theirs in the suffix or in the registry)
_UNITS = {"mass_kg": "kg", "inertia_kgm2": "kg m²", "speed_rpm": "rpm",
          "stiffness_n_per_m": "N/m", "damping_n_s_per_m": "N s/m", "free_length_mm": "mm",
          "torque_nm": "N m", "scale": ""}


@dataclass(frozen=True)
class BodySpec:
    name: str
    mass: float  # [kg]
    inertia: float  # [kg m^2] about the centre of mass
    cm: tuple[float, float]  # [m], design position


@dataclass(frozen=True)
class JointSpec:
    """``at`` [m]; ``direction`` (translational, unit); ``contact``: the clearance joint's
    parameters in the slider-crank's names (``clearance_mm`` included), None if ideal."""

    name: str
    type: str
    body_i: str
    body_j: str
    at: tuple[float, float]
    direction: tuple[float, float] | None = None
    contact: tuple[tuple[str, Any], ...] | None = None
    variables: tuple[str, ...] = ()  # the design variables its position depends on

    @property
    def clearance(self) -> bool:
        return self.contact is not None


@dataclass(frozen=True)
class LoadSpec:
    """``points`` [m]; ``vector``: a constant force [N] (x, y) or torque [N m] (one item);
    a table: ``angles`` [rad] over the driver angle with ``values`` [N or N m] along
    ``direction``; a spring: stiffness [N/m], damping [N s/m], free length [m]. ``frame``: a
    force's components (or direction) in the global frame (``ground``) or in its body's frame
    (``body``: turning with the body, the global frame in the design position)."""

    name: str
    type: str
    bodies: tuple[str, ...]
    points: tuple[tuple[float, float], ...]
    vector: tuple[float, ...] = ()
    direction: tuple[float, float] | None = None
    angles: tuple[float, ...] = ()
    values: tuple[float, ...] = ()
    stiffness: float = 0.0
    damping: float = 0.0
    free_length: float = 0.0
    frame: str = "ground"

    @property
    def tabled(self) -> bool:
        return bool(self.angles)


@dataclass(frozen=True)
class MeasureSpec:
    """What a measure follows: the body's centre of mass, or ``point`` [m, in the body's
    frame] moving with it; ``component`` x, y, angle or magnitude (of the 2-vector)."""

    name: str
    body: str
    quantity: str
    component: str
    point: tuple[float, float] = (0.0, 0.0)

    @property
    def coordinate(self) -> int:
        """The body coordinate the compiled loop can follow for it (x for a magnitude)."""
        return {"x": 0, "y": 1, "angle": 2, "magnitude": 0}[self.component]

    @property
    def direct(self) -> bool:
        """Whether the measure is one body coordinate itself (the loop's probe can follow
        it, peaks refined between steps), not a combination read off the output grid."""
        return self.component != "magnitude" and (self.point == (0.0, 0.0)
                                                  or self.component == "angle")


@dataclass(frozen=True)
class MechanismSpec:
    """A resolved ``[mechanism]`` table: SI numbers, names checked against each other."""

    name: str
    gravity: tuple[float, float]
    variables: tuple[tuple[str, float], ...]
    points: tuple[tuple[str, tuple[float, float]], ...]
    bodies: tuple[BodySpec, ...]
    joints: tuple[JointSpec, ...]
    driver_joint: str | None  # None: no driver, the mechanism moves under its loads
    speed_rpm: float  # 0 without a driver
    loads: tuple[LoadSpec, ...]
    measures: tuple[MeasureSpec, ...]

    @property
    def omega(self) -> float:
        """Driver speed [rad/s] (0 without a driver)."""
        return self.speed_rpm * 2.0 * math.pi / 60.0

    @property
    def period(self) -> float:
        """One driver revolution [s]; NaN without a driver."""
        return 2.0 * math.pi / abs(self.omega) if self.omega else math.nan

    def joint(self, name: str) -> JointSpec:
        return next(j for j in self.joints if j.name == name)

    @property
    def clearance_joints(self) -> tuple[JointSpec, ...]:
        return tuple(j for j in self.joints if j.clearance)


# --- reading ------------------------------------------------------------------------------


def _table(field: str, value: Any, keys: tuple[str, ...] | None = None) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise InputError(field, value, "a table of keys and values")
    if keys is not None:
        for k in value:
            if k not in keys:
                raise InputError(f"{field}.{k}", value[k], "no such key; allowed: "
                                 + ", ".join(keys))
    if len(value) > MAX_ITEMS * 4:
        raise InputError(field, f"{len(value)} keys", f"at most {MAX_ITEMS * 4}")
    return value


def _named(field: str, value: Any) -> Mapping[str, Any]:
    table = _table(field, value)
    if len(table) > MAX_ITEMS:
        raise InputError(field, f"{len(table)} entries", f"at most {MAX_ITEMS}")
    for name in table:
        if not NAME.match(str(name)) or name == GROUND:
            raise InputError(f"{field}.{name}", name, "a name of letters, digits and _ "
                             "(up to 40, not starting with a digit, not 'ground')")
    return table


def _pair(field: str, value: Any, variables: Mapping[str, float]) -> tuple[float, float]:
    if not isinstance(value, (list, tuple)) or len(value) != 2:
        raise InputError(field, value, "[x, y]: two numbers or expressions")
    return (evaluate(f"{field}[0]", value[0], variables),
            evaluate(f"{field}[1]", value[1], variables))


def _number(field: str, value: Any, variables: Mapping[str, float], *, low: float | None = None,
            strict: bool = True, unit: str = "") -> float:
    x = evaluate(field, value, variables)
    if low is not None and (x <= low if strict else x < low):
        sign = ">" if strict else ">="
        raise InputError(field, value, f"{sign} {low:g} {unit}".rstrip())
    return x


def _choice(field: str, value: Any, allowed: tuple[str, ...]) -> str:
    if value not in allowed:
        raise InputError(field, value, "one of " + ", ".join(allowed))
    return str(value)


def _names_used(value: Any) -> set[str]:
    """Variable names an expression (or a pair of them) reads."""
    out: set[str] = set()
    for v in value if isinstance(value, (list, tuple)) else [value]:
        if isinstance(v, str):
            out |= _names_in(v)
    return out - set(FUNCTIONS) - set(CONSTANTS)


@functools.lru_cache(maxsize=4096)
def _names_in(text: str) -> frozenset[str]:
    import ast

    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError:
        return frozenset()
    return frozenset(n.id for n in ast.walk(tree) if isinstance(n, ast.Name))


def _dependency_order(raw: Mapping[str, Any]) -> list[str]:
    """The variables of ``raw`` (name -> number or expression) ordered so that each comes
    after those its expression names; a cycle is an :class:`InputError` naming the field
    of its first variable and every variable on it (``a -> b -> a``). Names that are not
    variables are left to :func:`evaluate` to refuse."""
    uses = {}
    for name, value in raw.items():
        text = value if isinstance(value, str) and len(value) <= MAX_EXPRESSION else ""
        uses[name] = [n for n in raw if n in _names_in(text.strip())] if text else []
    order: list[str] = []
    state: dict[str, str] = {}
    for start in raw:
        if start in state:
            continue
        # depth-first without recursion: (name, index of the next use to visit)
        stack = [(start, 0)]
        state[start] = "open"
        while stack:
            name, k = stack[-1]
            if k < len(uses[name]):
                stack[-1] = (name, k + 1)
                nxt = uses[name][k]
                if state.get(nxt) == "open":
                    path = [n for n, _ in stack]
                    cycle = [*path[path.index(nxt):], nxt]
                    raise InputError(f"mechanism.variables.{cycle[0]}", raw[cycle[0]],
                                     "an expression of numbers and other variables without a "
                                     "cycle", "the variables refer to each other: "
                                     + " -> ".join(cycle))
                if nxt not in state:
                    state[nxt] = "open"
                    stack.append((nxt, 0))
            else:
                state[name] = "done"
                order.append(name)
                stack.pop()
    return order


class _Reader:
    def __init__(self, table: Mapping[str, Any]) -> None:
        self.raw = _table("mechanism", table, _TOP_KEYS)
        self.variables: dict[str, float] = {}
        self.points: dict[str, tuple[float, float]] = {}
        self.point_vars: dict[str, set[str]] = {}
        self.bodies: dict[str, BodySpec] = {}

    def read(self) -> MechanismSpec:
        raw = self.raw
        name = raw.get("name", "mechanism")
        if not isinstance(name, str) or not 1 <= len(name) <= 200:
            raise InputError("mechanism.name", name, "1-200 characters")
        gravity = _pair("mechanism.gravity", raw.get("gravity", [0.0, -9.81]), {})
        self.read_variables()
        self.read_points()
        self.read_bodies()
        joints = self.read_joints()
        driver_joint, speed = self.read_driver(joints)
        loads = self.read_loads()
        if driver_joint is None:
            tabled = next((ld for ld in loads if ld.tabled), None)
            if tabled is not None:
                raise InputError(f"mechanism.loads.{tabled.name}.angle_deg", "a table",
                                 "a constant load: a table over the driver angle needs "
                                 "[mechanism.driver]")
        measures = self.read_measures()
        return MechanismSpec(
            name=name, gravity=gravity, variables=tuple(self.variables.items()),
            points=tuple(self.points.items()), bodies=tuple(self.bodies.values()),
            joints=tuple(joints), driver_joint=driver_joint, speed_rpm=speed,
            loads=tuple(loads), measures=tuple(measures),
        )

    def read_variables(self) -> None:
        raw = _named("mechanism.variables", self.raw.get("variables", {}))
        for name in raw:
            if name in FUNCTIONS or name in CONSTANTS:
                raise InputError(f"mechanism.variables.{name}", name,
                                 "a name other than " + ", ".join([*FUNCTIONS, *CONSTANTS]))
        # a variable may use any other (``bore_mm = "2 * radius_mm"``, ``angle = "pi / 6"``):
        # evaluated in dependency order whatever the table's order (a form or a TOML writer
        # may sort them), a cycle refused naming its variables
        values: dict[str, float] = {}
        for name in _dependency_order(raw):
            try:
                values[name] = evaluate(f"mechanism.variables.{name}", raw[name], values)
            except InputError as exc:
                if exc.detail and exc.detail.endswith("is not defined"):  # list them all
                    known = ", ".join(n for n in [*raw, *CONSTANTS] if n != name)
                    raise InputError(exc.field, exc.value, f"names among: {known}",
                                     exc.detail) from None
                raise
        self.variables = {name: values[name] for name in raw}  # shown in the table's order

    def read_points(self) -> None:
        for name, value in _named("mechanism.points", self.raw.get("points", {})).items():
            field = f"mechanism.points.{name}"
            x, y = _pair(field, value, self.variables)
            self.points[name] = (x * 1e-3, y * 1e-3)
            self.point_vars[name] = _names_used(value)

    def point(self, field: str, value: Any) -> tuple[float, float]:
        """A point name, or ``[x, y]`` [mm] of numbers or expressions; in m."""
        if isinstance(value, str):
            if value not in self.points:
                allowed = "one of the points " + ", ".join(self.points) if self.points else \
                    "a point of [mechanism.points]"
                raise InputError(field, value, allowed + ", or [x, y] in mm")
            return self.points[value]
        x, y = _pair(field, value, self.variables)
        return (x * 1e-3, y * 1e-3)

    def body(self, field: str, value: Any, *, ground: bool = True) -> str:
        allowed = [GROUND, *self.bodies] if ground else list(self.bodies)
        if value not in allowed:
            raise InputError(field, value, "one of " + ", ".join(allowed))
        return str(value)

    def read_bodies(self) -> None:
        bodies = _named("mechanism.bodies", self.raw.get("bodies", {}))
        if not bodies:
            raise InputError("mechanism.bodies", {}, "at least one body: [mechanism.bodies.NAME]")
        for name, raw in bodies.items():
            field = f"mechanism.bodies.{name}"
            t = _table(field, raw, _BODY_KEYS)
            for key in _BODY_KEYS:
                if key not in t:
                    raise InputError(f"{field}.{key}", None, "required")
            mass = _number(f"{field}.mass_kg", t["mass_kg"], self.variables, low=0.0, unit="kg")
            inertia = _number(f"{field}.inertia_kgm2", t["inertia_kgm2"], self.variables,
                              low=0.0, unit="kg m²")
            self.bodies[name] = BodySpec(name, mass, inertia, self.point(f"{field}.cm", t["cm"]))

    def two_bodies(self, field: str, value: Any) -> tuple[str, str]:
        if not isinstance(value, (list, tuple)) or len(value) != 2:
            raise InputError(field, value, "[first, second]: two body names")
        a = self.body(f"{field}[0]", value[0])
        b = self.body(f"{field}[1]", value[1])
        if a == b:
            raise InputError(f"{field}[1]", b, f"a body other than {a}")
        return a, b

    def read_joints(self) -> list[JointSpec]:
        joints = _named("mechanism.joints", self.raw.get("joints", {}))
        out = []
        for name, raw in joints.items():
            field = f"mechanism.joints.{name}"
            t = _table(field, raw)
            kind = _choice(f"{field}.type", t.get("type"), JOINT_TYPES)
            _table(field, t, _JOINT_KEYS[kind])
            for key in ("bodies", "at"):
                if key not in t:
                    raise InputError(f"{field}.{key}", None, "required")
            a, b = self.two_bodies(f"{field}.bodies", t["bodies"])
            at = self.point(f"{field}.at", t["at"])
            at_vars = (self.point_vars.get(t["at"], set()) if isinstance(t["at"], str)
                       else _names_used(t["at"]))
            direction = None
            contact = None
            if kind == "fixed" and a != GROUND:
                raise InputError(f"{field}.bodies[0]", a, f"ground (a {kind} joint holds its "
                                 "second body to the ground)")
            if kind == "translational":
                if "direction" not in t:
                    raise InputError(f"{field}.direction", None, "required: [dx, dy]")
                # in the first body's frame at assembly (its frame is at angle 0 there)
                direction = _pair(f"{field}.direction", t["direction"], self.variables)
                norm = math.hypot(*direction)
                if not norm > 1e-12:
                    raise InputError(f"{field}.direction", t["direction"], "a non-zero vector")
                direction = (direction[0] / norm, direction[1] / norm)
            if kind == "revolute":
                contact = self.read_contact(field, t)
            out.append(JointSpec(name, kind, a, b, at, direction, contact,
                                 tuple(sorted(at_vars))))
        if not out:
            raise InputError("mechanism.joints", {}, "at least one joint")
        return out

    def read_contact(self, field: str, t: Mapping[str, Any]) -> tuple | None:
        given = {k: t[k] for k in CONTACT_KEYS if k in t}
        if "clearance_mm" not in t:
            if given:
                key = next(iter(given))
                raise InputError(f"{field}.{key}", given[key], "only with clearance_mm (a "
                                 "clearance joint)")
            return None
        values = {"clearance_mm": t["clearance_mm"], **given}
        numbers = {}
        for k, v in values.items():
            if isinstance(v, str) and find(k, "slider-crank") is not None and k in (
                    "contact_law", "friction_law", "stiffness_model", "lubrication"):
                numbers[k] = v
            else:
                numbers[k] = evaluate(f"{field}.{k}", v, self.variables)
        from ..cases import SliderCrankCase  # its checks are the clearance joint's

        try:
            case = SliderCrankCase.from_mapping(numbers)
        except InputError as exc:
            raise InputError(f"{field}.{exc.field}", exc.value, exc.allowed, exc.detail) from None
        return tuple((k, getattr(case, k)) for k in ("clearance_mm", *CONTACT_KEYS))

    def read_driver(self, joints: list[JointSpec]) -> tuple[str | None, float]:
        field = "mechanism.driver"
        if "driver" not in self.raw:
            # optional (design.md 4.13): the mechanism moves under its loads and gravity from
            # rest, for the case's t_end
            return None, 0.0
        t = _table(field, self.raw.get("driver"), ("joint", "speed_rpm"))
        names = [j.name for j in joints]
        if t.get("joint") not in names:
            raise InputError(f"{field}.joint", t.get("joint"),
                             "one of the joints " + ", ".join(names))
        joint = next(j for j in joints if j.name == t["joint"])
        if joint.type != "revolute" or joint.body_i != GROUND:
            raise InputError(f"{field}.joint", joint.name, "a revolute joint whose first body "
                             f"is ground (this one is a {joint.type} between {joint.body_i} and "
                             f"{joint.body_j})")
        if "speed_rpm" not in t:
            raise InputError(f"{field}.speed_rpm", None, "required")
        speed = _number(f"{field}.speed_rpm", t["speed_rpm"], self.variables)
        if not 0.0 < abs(speed) <= 1e6:
            raise InputError(f"{field}.speed_rpm", t["speed_rpm"], "non-zero, within ±1e6 rpm")
        return joint.name, speed

    def read_loads(self) -> list[LoadSpec]:
        out = []
        for name, raw in _named("mechanism.loads", self.raw.get("loads", {})).items():
            field = f"mechanism.loads.{name}"
            t = _table(field, raw)
            kind = _choice(f"{field}.type", t.get("type"), LOAD_TYPES)
            _table(field, t, _LOAD_KEYS[kind])
            out.append(getattr(self, f"load_{kind}")(name, field, t))
        return out

    def _table_values(self, field, t, key) -> tuple[tuple[float, ...], tuple[float, ...]]:
        angles, values = t["angle_deg"], t.get(key)
        for k, v in ((f"{field}.angle_deg", angles), (f"{field}.{key}", values)):
            if not isinstance(v, (list, tuple)) or not 1 <= len(v) <= MAX_TABLE:
                raise InputError(k, v, f"a list of 1 to {MAX_TABLE} numbers")
        if len(values) != len(angles):
            raise InputError(f"{field}.{key}", f"{len(values)} values",
                             f"{len(angles)} values, one per angle_deg")
        degs = [evaluate(f"{field}.angle_deg[{i}]", a, self.variables)
                for i, a in enumerate(angles)]
        for i, d in enumerate(degs):
            if not 0.0 <= d < 360.0 or (i and d <= degs[i - 1]):
                raise InputError(f"{field}.angle_deg[{i}]", angles[i],
                                 "in [0, 360) degrees, increasing")
        scale = evaluate(f"{field}.scale", t.get("scale", 1.0), self.variables)
        vals = [scale * evaluate(f"{field}.{key}[{i}]", v, self.variables)
                for i, v in enumerate(values)]
        return tuple(math.radians(d) for d in degs), tuple(vals)

    def load_force(self, name, field, t) -> LoadSpec:
        body = self.body(f"{field}.body", t.get("body"), ground=False)
        at = self.point(f"{field}.at", t["at"]) if "at" in t else self.bodies[body].cm
        frame = _choice(f"{field}.frame", t.get("frame", "ground"), LOAD_FRAMES)
        if "angle_deg" in t:
            if "direction" not in t:
                raise InputError(f"{field}.direction", None, "required with angle_deg: [dx, dy]")
            d = _pair(f"{field}.direction", t["direction"], self.variables)
            if not math.hypot(*d) > 1e-12:
                raise InputError(f"{field}.direction", t["direction"], "a non-zero vector")
            angles, values = self._table_values(field, t, "force_n")
            return LoadSpec(name, "force", (body,), (at,), direction=d, angles=angles,
                            values=values, frame=frame)
        if "direction" in t or "scale" in t:
            key = "direction" if "direction" in t else "scale"
            raise InputError(f"{field}.{key}", t[key], "only with a table (angle_deg)")
        if "force_n" not in t:
            raise InputError(f"{field}.force_n", None, "required: [fx, fy] in N, or a table")
        return LoadSpec(name, "force", (body,), (at,),
                        vector=_pair(f"{field}.force_n", t["force_n"], self.variables),
                        frame=frame)

    def load_torque(self, name, field, t) -> LoadSpec:
        body = self.body(f"{field}.body", t.get("body"), ground=False)
        if "torque_nm" not in t:
            raise InputError(f"{field}.torque_nm", None, "required")
        if "angle_deg" in t:
            angles, values = self._table_values(field, t, "torque_nm")
            return LoadSpec(name, "torque", (body,), (), angles=angles, values=values)
        return LoadSpec(name, "torque", (body,), (),
                        vector=(evaluate(f"{field}.torque_nm", t["torque_nm"], self.variables),))

    def load_spring(self, name, field, t) -> LoadSpec:
        for key in ("bodies", "at", "stiffness_n_per_m"):
            if key not in t:
                raise InputError(f"{field}.{key}", None, "required")
        a, b = self.two_bodies(f"{field}.bodies", t["bodies"])
        at = t["at"]
        if not isinstance(at, (list, tuple)) or len(at) != 2:
            raise InputError(f"{field}.at", at, "[point on the first body, point on the second]")
        pa, pb = self.point(f"{field}.at[0]", at[0]), self.point(f"{field}.at[1]", at[1])
        k = _number(f"{field}.stiffness_n_per_m", t["stiffness_n_per_m"], self.variables,
                    low=0.0, unit="N/m")
        c = _number(f"{field}.damping_n_s_per_m", t.get("damping_n_s_per_m", 0.0),
                    self.variables, low=0.0, strict=False, unit="N s/m")
        design = math.dist(pa, pb)
        free = design
        if "free_length_mm" in t:
            free = 1e-3 * _number(f"{field}.free_length_mm", t["free_length_mm"],
                                  self.variables, low=0.0, strict=False, unit="mm")
        if design < 1e-9:
            raise InputError(f"{field}.at", at, "two points apart (a spring has a direction)")
        return LoadSpec(name, "spring", (a, b), (pa, pb), stiffness=k, damping=c,
                        free_length=free)

    def read_measures(self) -> list[MeasureSpec]:
        out = []
        for name, raw in _named("mechanism.measures", self.raw.get("measures", {})).items():
            field = f"mechanism.measures.{name}"
            t = _table(field, raw, _MEASURE_KEYS)
            body = self.body(f"{field}.body", t.get("body"), ground=False)
            quantity = _choice(f"{field}.quantity", t.get("quantity", "acceleration"),
                               QUANTITIES)
            component = _choice(f"{field}.component", t.get("component", "x"), COMPONENTS)
            point = (0.0, 0.0)
            if "point" in t:
                px, py = self.point(f"{field}.point", t["point"])
                cm = self.bodies[body].cm
                point = (px - cm[0], py - cm[1])  # the body's frame at the design position
            out.append(MeasureSpec(name, body, quantity, component, point))
        return out


def parse_table(table: Mapping[str, Any]) -> MechanismSpec:
    """Read and check a ``[mechanism]`` table; :class:`InputError` names the field."""
    return _Reader(table).read()


# --- sweepable paths ----------------------------------------------------------------------


def sweepable(table: Mapping[str, Any]) -> dict[str, str]:
    """Dotted path -> unit of every number a design may vary (the table must parse)."""
    return dict(_sweepable(json.dumps(table, sort_keys=True)))


@functools.lru_cache(maxsize=256)  # a study's cases share their table: read it once
def _sweepable(text: str) -> tuple[tuple[str, str], ...]:
    table = json.loads(text)
    spec = parse_table(table)
    out: dict[str, str] = {}
    for name, _ in spec.variables:
        out[f"variables.{name}"] = _unit_of(name)
    for b in spec.bodies:
        out[f"bodies.{b.name}.mass_kg"] = "kg"
        out[f"bodies.{b.name}.inertia_kgm2"] = "kg m²"
    for j in spec.clearance_joints:
        for key in ("clearance_mm", *CONTACT_KEYS):
            p = find(key, "slider-crank")
            out[f"joints.{j.name}.{key}"] = p.unit if p else _unit_of(key)
    if spec.driver_joint:
        out["driver.speed_rpm"] = "rpm"
    raw_loads = table.get("loads", {})
    for ld in spec.loads:
        raw = raw_loads[ld.name]
        keys = {"spring": ("stiffness_n_per_m", "damping_n_s_per_m", "free_length_mm"),
                "force": ("scale",) if ld.tabled else (),
                "torque": ("scale",) if ld.tabled else ("torque_nm",)}[ld.type]
        for key in keys:
            if key in raw or key in ("scale", "damping_n_s_per_m", "free_length_mm"):
                out[f"loads.{ld.name}.{key}"] = _UNITS.get(key, _unit_of(key))
    return tuple(out.items())


def unit_of(name: str) -> str:
    """The unit of a mechanism table's number ``name`` (``mass_kg``: kg, ``rod_mm``: mm) from
    its key or its suffix; "" for none."""
    return _unit_of(name)


def _unit_of(name: str) -> str:
    for key, unit in _UNITS.items():
        if name.endswith(key):
            return unit
    for suffix, unit in (("_mm", "mm"), ("_deg", "deg"), ("_rpm", "rpm"), ("_kg", "kg"),
                         ("_s", "s"), ("_m", "m"), ("_n", "N")):
        if name.endswith(suffix):
            return unit
    return ""


def with_overrides(table: Mapping[str, Any], overrides: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of ``table`` with each dotted path of :func:`sweepable` set to its value.

    A path that is not sweepable is refused (field: the path) listing what is."""
    if not overrides:
        return dict(table)
    paths = sweepable(table)
    out = dict(table)  # the tables on each path are copied below: the rest is shared
    for path, value in overrides.items():
        if path not in paths:
            shown = ", ".join(list(paths)[:12]) + (" ..." if len(paths) > 12 else "")
            raise InputError(path, value, f"a sweepable path of this mechanism ({shown}) or a "
                             "solver name; `gapsweep params --study FILE` lists them")
        key = path.split(".")
        if isinstance(value, bool) or (not isinstance(value, (int, float, str))):
            raise InputError(path, value, "a number")
        if isinstance(value, str) and key[-1] not in ("contact_law", "friction_law",
                                                       "stiffness_model", "lubrication"):
            try:
                value = float(value)
            except ValueError:
                raise InputError(path, value, "a number") from None
        if isinstance(value, float) and not math.isfinite(value):
            raise InputError(path, value, "a finite number")
        node = out
        for k in key[:-1]:
            node[k] = dict(node.get(k, {}))
            node = node[k]
        node[key[-1]] = value
    return out


# a clearance joint's own parameters: an ideal run reads none of them (its ideal twin drops them)
_JOINT_CONTACT = re.compile(r"^joints\.[^.]+\.(clearance_mm|" + "|".join(CONTACT_KEYS) + r")$")


def ideal_ignores(name: str) -> bool:
    """Whether an ideal run of a mechanism ignores parameter ``name`` (a clearance joint's)."""
    return bool(_JOINT_CONTACT.match(name))
