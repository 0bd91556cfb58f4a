"""An ADAMS/Solver dataset mapped onto a ``[mechanism]`` table (design.md 4.13, 4.15).

The plane is found from the joints: every revolute's axis (its markers' z) and the normal of
every translational joint's plane must be parallel to the first revolute's axis ``n``. The
planar axes: for a global normal the other two global axes in the order X, Y, Z (normal Y:
x = X, y = Z); otherwise x is the projection of the first global axis not parallel to ``n``
and y the in-plane axis normal to it, pointing towards the next global axis (the same rule
for a global normal). A translational joint's plane normal, with no revolute to fix the
plane, is its J marker's y axis; with no joint axis at all the plane is X, Y.

Every refusal is an :class:`Issue` naming the statement's line, the statement and why;
output-only statements are listed as skipped, a CONTACT as skipped and in ``contacts``.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .errors import AdamsError
from .functions import FunctionError, linear_form
from .statements import (
    OTHERS,
    SKIPPED,
    Statement,
    StatementError,
    expand,
    resolve,
    statement_name,
)
from .tokenizer import decode, tokenize

_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,39}$")
PARALLEL = 1e-6  # |sin| of the angle below which two axes are parallel
GAP = 1e-6  # [m] two marker origins a joint holds together may be this far apart

LENGTH = {"METER": 1.0, "MILLIMETER": 1e-3, "CENTIMETER": 1e-2, "KILOMETER": 1e3,
          "INCH": 0.0254, "FOOT": 0.3048, "MILE": 1609.344, "YARD": 0.9144,
          "MICROMETER": 1e-6, "NANOMETER": 1e-9, "ANGSTROM": 1e-10, "MILS": 2.54e-5,
          "MICROINCH": 2.54e-8}
MASS = {"KILOGRAM": 1.0, "GRAM": 1e-3, "MILLIGRAM": 1e-6, "MICROGRAM": 1e-9,
        "NANOGRAM": 1e-12, "TONNE": 1e3, "POUND_MASS": 0.45359237,
        "KPOUND_MASS": 453.59237, "OUNCE_MASS": 0.028349523125, "SLUG": 14.593902937206364,
        "SLINCH": 175.12683524647636, "US_TON": 907.18474}
FORCE = {"NEWTON": 1.0, "KNEWTON": 1e3, "MEGANEWTON": 1e6, "CENTINEWTON": 1e-2,
         "MILLINEWTON": 1e-3, "MICRONEWTON": 1e-6, "NANONEWTON": 1e-9, "DYNE": 1e-5,
         "KILOGRAM_FORCE": 9.80665, "POUND_FORCE": 4.4482216152605,
         "KPOUND_FORCE": 4448.2216152605, "OUNCE_FORCE": 0.27801385095378125,
         "POUNDAL": 0.138254954376}
TIME = {"SECOND": 1.0, "MILLISECOND": 1e-3, "MILLISECONDS": 1e-3, "MICROSECOND": 1e-6,
        "NANOSECOND": 1e-9, "MINUTE": 60.0, "HOUR": 3600.0, "DAY": 86400.0}
SYSTEMS = {"MKS": ("METER", "KILOGRAM", "NEWTON", "SECOND"),
           "CGS": ("CENTIMETER", "GRAM", "DYNE", "SECOND"),
           "FPS": ("FOOT", "POUND_MASS", "POUND_FORCE", "SECOND"),
           "IPS": ("INCH", "POUND_MASS", "POUND_FORCE", "SECOND"),
           "NONE": ("METER", "KILOGRAM", "NEWTON", "SECOND")}  # UCF 1: consistent numbers

_WHY_OTHER = {
    "FE_PART": "a finite-element part", "FLEX_BODY": "a flexible body",
    "POINT_MASS": "a point mass (a 3-D body without inertia)",
    "JPRIM": "a joint primitive", "GFORCE": "a general force (GFORCE)",
    "VFORCE": "a vector force (VFORCE)", "VTORQUE": "a vector torque (VTORQUE)",
    "BUSHING": "a bushing", "BEAM": "a beam", "FIELD": "a field force",
    "SPRINGDAMPER": "a SPRINGDAMPER (write it as an SFORCE)", "GEAR": "a gear",
    "COUPLER": "a coupler", "SENSOR": "a sensor (it changes the run)",
    "FRICTION": "joint friction", "DIFF": "a differential equation",
    "GSE": "a general state equation", "LSE": "a linear state equation",
    "TFSISO": "a transfer function", "CVCV": "a curve-curve contact",
    "PTCV": "a point-curve contact", "GCON": "a general constraint",
    "NFORCE": "a multi-point force (NFORCE)", "UCON": "a user constraint",
}


@dataclass(frozen=True)
class Issue:
    line: int
    statement: str
    why: str = ""

    def as_dict(self, *, why: bool = True) -> dict[str, Any]:
        out: dict[str, Any] = {"line": self.line, "statement": self.statement}
        if why:
            out["why"] = self.why
        return out

    def __str__(self) -> str:
        return f"line {self.line}: {self.statement}" + (f": {self.why}" if self.why else "")


@dataclass(frozen=True)
class Contact:
    """A CONTACT statement: reported, not imported; ``joint`` the revolute between its two
    parts (its clearance is the axis the study suggests), None when there is none."""

    line: int
    statement: str
    joint: str | None
    bodies: tuple[str, ...] = ()


@dataclass
class Import:
    """What :func:`import_dataset` read: the title, the ``[mechanism]`` table (None when
    something was refused) and the statements supported, skipped and refused."""

    title: str
    mechanism: dict[str, Any] | None
    supported: list[Issue] = field(default_factory=list)
    skipped: list[Issue] = field(default_factory=list)
    refused: list[Issue] = field(default_factory=list)
    contacts: list[Contact] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


@dataclass
class _Part:
    st: Statement
    name: str
    ground: bool
    origin: np.ndarray  # [m] global
    axes: np.ndarray  # 3x3, columns the BCS axes in global


@dataclass
class _Marker:
    st: Statement
    part: int
    origin: np.ndarray  # [m] global
    axes: np.ndarray  # 3x3 global


def _rz(a: float) -> np.ndarray:
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def _rx(a: float) -> np.ndarray:
    c, s = math.cos(a), math.sin(a)
    return np.array([[1.0, 0.0, 0.0], [0.0, c, -s], [0.0, s, c]])


def reuler(a: float, b: float, c: float) -> np.ndarray:
    """The 3-1-3 body-fixed rotation (about z, the new x, the new z) as a matrix whose
    columns are the rotated axes."""
    return _rz(a) @ _rx(b) @ _rz(c)


def _unit(v: np.ndarray, what: str) -> np.ndarray:
    n = float(np.linalg.norm(v))
    if not n > 1e-12:
        raise StatementError(f"{what}: a zero-length direction")
    return v / n


def _axes_from_points(z_point: np.ndarray | None, x_point: np.ndarray | None,
                      origin: np.ndarray, what: str) -> np.ndarray:
    """Axes from a point on +z and a point in the +x/z half plane (ZP/XP, ZG/XG)."""
    if z_point is None:
        raise StatementError(f"{what}: XP without ZP (the z axis is needed first)")
    z = _unit(z_point - origin, f"{what} ZP")
    if x_point is None:  # the parent's x, or y when x is along z
        ref = np.eye(3)[0] if abs(z[0]) < 1.0 - 1e-9 else np.eye(3)[1]
    else:
        ref = x_point - origin
    x = ref - (ref @ z) * z
    x = _unit(x, f"{what} XP (on the z axis)")
    return np.column_stack([x, np.cross(z, x), z])


def plane_basis(normal: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The planar x and y axes (global unit vectors) of the plane normal to ``normal``."""
    n = normal / np.linalg.norm(normal)
    eye = np.eye(3)
    a = next(k for k in range(3) if np.linalg.norm(np.cross(eye[k], n)) > PARALLEL)
    ex = eye[a] - (eye[a] @ n) * n
    ex /= np.linalg.norm(ex)
    ey = np.cross(n, ex)
    for b in (k for k in range(3) if k != a):
        if abs(ey @ eye[b]) > 1e-9:
            if ey @ eye[b] < 0.0:
                ey = -ey
            break
    return ex, ey


def _clean_name(view: str | None, fallback: str, taken: set[str]) -> str:
    if view:
        candidate = re.sub(r"[^A-Za-z0-9_]", "_", view.split(".")[-1])[:40]
        if _NAME.match(candidate) and candidate.lower() != "ground" and candidate not in taken:
            return candidate
    return fallback


def _clean(v: float) -> float:
    """A converted number rounded to 15 digits: 10 kg mm^2 is 1e-05 kg m^2, not
    9.999999999999999e-06 (the rounding is far below any tolerance of the solver)."""
    return float(f"{float(v):.15g}")


def _mm(v: float) -> float:
    return _clean(float(v) * 1e3)


class _Importer:
    def __init__(self, title: str, statements: list[Statement], out: Import) -> None:
        self.title = title
        self.statements = statements
        self.out = out
        self.length = self.mass = self.force = self.time = 1.0
        self.parts: dict[int, _Part] = {}
        self.markers: dict[int, _Marker] = {}
        self.names: set[str] = set()
        self.listed: set[int] = set()  # lines already in supported or skipped

    # --- helpers --------------------------------------------------------------------------

    def refuse(self, st: Statement, why: str) -> None:
        self.out.refused.append(Issue(st.line, st.label, why))

    def marker(self, st: Statement, key: str) -> _Marker:
        ident = st.integer(key)
        m = self.markers.get(ident)
        if m is None:
            raise StatementError(f"{key}={ident}: no such MARKER")
        return m

    def body_of(self, m: _Marker) -> str:
        p = self.parts[m.part]
        return "ground" if p.ground else p.name

    def planar(self, p: np.ndarray) -> list[float]:
        """A global point [m] as planar [x, y] in mm."""
        return [_mm(p @ self.ex), _mm(p @ self.ey)]

    def in_plane(self, v: np.ndarray) -> np.ndarray:
        return np.array([v @ self.ex, v @ self.ey])

    # --- the passes -----------------------------------------------------------------------

    def run(self) -> dict[str, Any]:
        by: dict[str, list[Statement]] = {}
        for st in self.statements:
            by.setdefault(st.name, []).append(st)
        for st in by.get("UNITS", []):
            self.guard(st, self.units)
        for st in by.get("PART", []):
            self.guard(st, self.part)
        for st in by.get("MARKER", []):
            self.guard(st, self.marker_statement)
        self.find_plane(by.get("JOINT", []))
        self.bodies: dict[str, Any] = {}
        for p in self.parts.values():
            if not p.ground:
                self.guard(p.st, lambda st, p=p: self.body(p))
        self.joints: dict[str, Any] = {}
        self.joint_info: dict[int, tuple[str, str, bool, float]] = {}
        for st in by.get("JOINT", []):
            self.guard(st, self.joint)
        self.driver: dict[str, Any] | None = None
        for st in by.get("MOTION", []):
            self.guard(st, self.motion)
        self.loads: dict[str, Any] = {}
        for st in by.get("SFORCE", []):
            self.guard(st, self.sforce)
        self.gravity = [0.0, 0.0]
        for st in by.get("ACCGRAV", []):
            self.guard(st, self.accgrav)
        self.measures: dict[str, Any] = {}
        for st in by.get("REQUEST", []):
            self.guard(st, self.request)
        if not self.bodies and not self.out.refused:
            self.out.refused.append(Issue(0, "(file)", "no PART other than the ground"))
        table: dict[str, Any] = {"name": (self.title or "ADAMS dataset")[:200],
                                 "gravity": self.gravity, "bodies": self.bodies,
                                 "joints": self.joints}
        if self.driver:
            table["driver"] = self.driver
        if self.loads:
            table["loads"] = self.loads
        if self.measures:
            table["measures"] = self.measures
        return table

    def guard(self, st: Statement, step) -> None:
        try:
            step(st)
        except (StatementError, FunctionError) as exc:
            self.refuse(st, str(exc))
            if st.line in self.listed:  # a PART read, then its body refused
                self.out.supported = [s for s in self.out.supported if s.line != st.line]
            return
        if st.line not in self.listed:  # a set: 100,000 statements stay linear
            self.listed.add(st.line)
            self.out.supported.append(Issue(st.line, st.label))

    def units(self, st: Statement) -> None:
        if st.has("UCF"):
            raise StatementError("UCF: a units consistency factor is not read; give FORCE, "
                                 "MASS, LENGTH and TIME or SYSTEM")
        if st.has("SYSTEM"):
            names = SYSTEMS[expand(st.word("SYSTEM"), tuple(SYSTEMS), "units system")]
        else:
            names = ("METER", "KILOGRAM", "NEWTON", "SECOND")
        length, mass, force, time = names
        if st.has("LENGTH"):
            length = expand(st.word("LENGTH"), tuple(LENGTH), "length unit")
        if st.has("MASS"):
            mass = expand(st.word("MASS"), tuple(MASS), "mass unit")
        if st.has("FORCE"):
            force = expand(st.word("FORCE"), tuple(FORCE), "force unit")
        if st.has("TIME"):
            time = expand(st.word("TIME"), tuple(TIME), "time unit")
        self.length, self.mass, self.force, self.time = (
            LENGTH[length], MASS[mass], FORCE[force], TIME[time])
        self.out.notes.append(f"units: {length}, {mass}, {force}, {time} (converted to SI "
                              "and mm)")

    def _orientation(self, st: Statement, origin_key: str, z_key: str, x_key: str,
                     origin: np.ndarray) -> np.ndarray:
        if st.has("REULER") and (st.has(z_key) or st.has(x_key)):
            raise StatementError(f"REULER and {z_key}/{x_key} both given")
        if st.has("REULER"):
            return reuler(*st.numbers("REULER", 3, angles=True))
        if st.has(z_key) or st.has(x_key):
            z = np.array(st.numbers(z_key, 3)) * self.length if st.has(z_key) else None
            x = np.array(st.numbers(x_key, 3)) * self.length if st.has(x_key) else None
            return _axes_from_points(z, x, origin, st.label)
        return np.eye(3)

    def part(self, st: Statement) -> None:
        if st.id is None:
            raise StatementError("a PART needs an id")
        if st.id in self.parts:
            raise StatementError(f"PART/{st.id} given twice")
        for key in ("VX", "VY", "VZ", "WX", "WY", "WZ"):
            if st.has(key) and st.number(key) != 0.0:
                raise StatementError(f"{key}: initial velocities are not imported (the "
                                     "mechanism starts from rest or at its driver's speed)")
        for key in ("IM", "VM", "WM", "PLANAR", "MATERIAL"):
            if st.has(key):
                raise StatementError(f"{key} is not imported")
        origin = np.array(st.numbers("QG", 3)) * self.length if st.has("QG") else np.zeros(3)
        axes = self._orientation(st, "QG", "ZG", "XG", origin)
        ground = st.has("GROUND")
        name = "ground" if ground else _clean_name(st.view_name, f"part_{st.id}", self.names)
        self.names.add(name)
        self.parts[st.id] = _Part(st, name, ground, origin, axes)

    def marker_statement(self, st: Statement) -> None:
        if st.id is None:
            raise StatementError("a MARKER needs an id")
        if st.id in self.markers:
            raise StatementError(f"MARKER/{st.id} given twice")
        if st.has("FLOATING"):
            raise StatementError("a FLOATING marker (its position is not fixed on a part)")
        for key in ("POINT_MASS", "FLEX_BODY", "NODE_ID"):
            if st.has(key):
                raise StatementError(f"{key}: a marker on a body that is not a rigid part")
        part = st.integer("PART")
        if part not in self.parts:
            raise StatementError(f"PART={part}: no such PART")
        p = self.parts[part]
        qp = np.array(st.numbers("QP", 3)) * self.length if st.has("QP") else np.zeros(3)
        local = self._orientation(st, "QP", "ZP", "XP", qp)
        self.markers[st.id] = _Marker(st, part, p.origin + p.axes @ qp, p.axes @ local)

    def find_plane(self, joints: list[Statement]) -> None:
        normal, first = None, None
        for st in joints:
            try:
                if st.has("REVOLUTE"):
                    normal, first = self.marker(st, "J").axes[:, 2], st
                    break
            except StatementError:
                continue
        if normal is None:
            for st in joints:
                try:
                    if st.has("TRANSLATIONAL"):
                        normal, first = self.marker(st, "J").axes[:, 1], st
                        break
                except StatementError:
                    continue
        if normal is None:
            normal = np.array([0.0, 0.0, 1.0])
            self.out.notes.append("no joint axis: the plane is the global X, Y plane")
        normal = np.where(np.abs(normal) < 1e-12, 0.0, normal)  # 90D's cos: 6e-17, not 0
        self.normal = normal / np.linalg.norm(normal)
        self.first = first
        self.ex, self.ey = plane_basis(self.normal)
        self.e3 = np.cross(self.ex, self.ey)
        which = "XYZ"
        self.out.notes.append(
            "plane normal " + ", ".join(f"{v + 0.0:.6g}" for v in self.normal)
            + (f" (first set by {first.label})" if first else "")
            + "; planar x = " + ", ".join(f"{v + 0.0:.6g}" for v in self.ex)
            + ", y = " + ", ".join(f"{v + 0.0:.6g}" for v in self.ey)
            + ("" if not any(np.allclose(np.abs(self.normal), np.eye(3)[k]) for k in range(3))
               else f" (global {which[int(np.argmax(np.abs(self.normal)))]} normal)"))

    def parallel(self, v: np.ndarray) -> bool:
        return float(np.linalg.norm(np.cross(v, self.normal))) <= PARALLEL

    def body(self, p: _Part) -> None:
        st = p.st
        mass = _clean(st.number("MASS", 0.0) * self.mass)
        if not mass > 0.0:
            raise StatementError("a massless part (MASS missing or 0): every body needs a mass")
        if st.has("CM"):
            cm = self.markers.get(st.integer("CM"))
            if cm is None or cm.part != st.id:
                raise StatementError(f"CM={st.integer('CM')}: no MARKER of this part")
            origin, axes = cm.origin, cm.axes
        else:
            origin, axes = p.origin, p.axes
        ip = st.numbers("IP") if st.has("IP") else []
        if len(ip) not in (3, 6):
            raise StatementError("IP takes 3 or 6 values (xx, yy, zz[, xy, xz, yz])")
        n_local = axes.T @ self.normal  # the plane's normal in the CM marker's axes
        k = int(np.argmax(np.abs(n_local)))
        along_axis = abs(abs(n_local[k]) - 1.0) < 1e-9
        if len(ip) == 6 and any(ip[3:]) and not along_axis:
            raise StatementError("products of inertia with the plane's normal not along a CM "
                                 "marker axis (give IP in axes with one normal to the plane)")
        inertia = (ip[k] if along_axis else float(n_local @ np.diag(ip[:3]) @ n_local))
        inertia = _clean(inertia * self.mass * self.length**2)
        if not inertia > 0.0:
            raise StatementError("no inertia about the plane's normal (IP)")
        self.bodies[p.name] = {"mass_kg": mass, "inertia_kgm2": inertia,
                               "cm": self.planar(origin)}

    def joint(self, st: Statement) -> None:
        kinds = [k for k in ("REVOLUTE", "TRANSLATIONAL", "FIXED") if st.has(k)]
        three_d = [k for k in ("SPHERICAL", "CYLINDRICAL", "UNIVERSAL", "HOOKE", "CONVEL")
                   if st.has(k)]
        if three_d:
            raise StatementError(f"{three_d[0]}: a 3-D joint")
        for k, why in (("PLANAR", "a planar joint (three freedoms in the plane)"),
                       ("RACKPIN", "a coupled joint (RACKPIN)"), ("SCREW", "a coupled joint "
                       "(SCREW)")):
            if st.has(k):
                raise StatementError(f"{k}: {why}")
        if len(kinds) != 1:
            raise StatementError("one joint type (REVOLUTE, TRANSLATIONAL or FIXED) is needed")
        for key in ("IC", "ICTRAN", "ICROT", "DELTA_V", "MAXIMUM_DEFORMATION", "MU_DYN_ROT",
                    "MU_STAT_ROT", "PD", "PITCH"):
            if st.has(key):
                raise StatementError(f"{key} is not imported")
        if st.id is None:
            raise StatementError("a JOINT needs an id")
        mi, mj = self.marker(st, "I"), self.marker(st, "J")
        if mi.part == mj.part:
            raise StatementError("I and J are on the same part")
        bi, bj = self.body_of(mi), self.body_of(mj)
        kind = kinds[0].lower()
        name = _clean_name(st.view_name, f"joint_{st.id}", self.names)
        gap = mi.origin - mj.origin
        planar_gap = float(np.linalg.norm(self.in_plane(gap)))
        first = self.first.label if self.first else "the plane"
        swapped = bj != "ground" and bi == "ground"
        bodies = [bi, bj] if swapped else [bj, bi]
        entry: dict[str, Any] = {"type": kind, "bodies": bodies, "at": self.planar(mi.origin)}
        if kind == "revolute":
            for m in (mi, mj):
                if not self.parallel(m.axes[:, 2]):
                    raise StatementError(f"{st.label}'s axis is not parallel to {first}'s")
            if planar_gap > GAP:
                raise StatementError(f"I and J are {planar_gap * 1e3:.6g} mm apart in the "
                                     "plane (the dataset is not assembled)")
        elif kind == "translational":
            z = mj.axes[:, 2]
            if abs(z @ self.normal) > PARALLEL or np.linalg.norm(
                    np.cross(mi.axes[:, 2], z)) > PARALLEL:
                raise StatementError(f"{st.label}'s sliding axis is not in the plane normal to "
                                     f"{first}'s axis")
            d = self.in_plane(z)
            d /= np.linalg.norm(d)
            off = abs(float(self.in_plane(gap) @ np.array([-d[1], d[0]])))
            if off > GAP:
                raise StatementError(f"I is {off * 1e3:.6g} mm off J's sliding axis (the "
                                     "dataset is not assembled)")
            entry["direction"] = [_clean(d[0]), _clean(d[1])]
        else:
            if "ground" not in (bi, bj):
                raise StatementError("a FIXED joint between two moving parts (merge them into "
                                     "one PART)")
            entry["bodies"] = ["ground", bi if bj == "ground" else bj]
        self.names.add(name)
        self.joints[name] = entry
        sense = float(mj.axes[:, 2] @ self.e3) * (-1.0 if swapped else 1.0)
        self.joint_info[st.id] = (name, kind, entry["bodies"][0] == "ground", sense)

    def motion(self, st: Statement) -> None:
        if self.driver is not None:
            raise StatementError("a second MOTION (a mechanism has one driver)")
        if not st.has("JOINT"):
            raise StatementError("a MOTION on markers or a JPRIM (JOINT= is read)")
        if st.has("ROUTINE"):
            raise StatementError("ROUTINE: a user subroutine")
        for key in ("ICDISP", "ICVEL", "B1", "B2", "X", "Y", "Z"):
            if st.has(key):
                raise StatementError(f"{key} is not imported")
        ident = st.integer("JOINT")
        info = self.joint_info.get(ident)
        if info is None:
            raise StatementError(f"JOINT={ident}: no imported JOINT")
        name, kind, grounded, sense = info
        if st.has("TRANSLATION") or kind == "translational":
            raise StatementError("a translational MOTION (the driver is a revolute's speed, "
                                 "design.md 4.15)")
        if kind != "revolute":
            raise StatementError(f"JOINT={ident} is {kind}, not a revolute")
        if not grounded:
            raise StatementError(f"JOINT={ident} joins two moving parts (the driver is the "
                                 "speed of a revolute to the ground)")
        if st.has("ACCELERATION"):
            raise StatementError("ACCELERATION: the driver is a constant speed")
        if "FUNCTION" not in st.args or not st.args["FUNCTION"]:
            raise StatementError("FUNCTION is required")
        text = st.args["FUNCTION"][0]
        form = linear_form(text)
        if st.has("VELOCITY"):
            if set(form) - {"1"}:
                raise FunctionError(f"FUNCTION = {text}: a velocity MOTION is read as a "
                                    "constant rate")
            rate = form.get("1", 0.0)
        else:
            if set(form) - {"TIME"}:
                raise FunctionError(f"FUNCTION = {text}: a displacement MOTION is read as "
                                    "rate*TIME (no offset, no other term)")
            rate = form.get("TIME", 0.0)
        omega = rate / self.time * sense
        if omega == 0.0:
            raise StatementError("a MOTION of zero speed")
        self.driver = {"joint": name, "speed_rpm": _clean(omega * 60.0 / (2.0 * math.pi))}

    def sforce(self, st: Statement) -> None:
        if st.has("ROUTINE"):
            raise StatementError("ROUTINE: a user subroutine")
        if "FUNCTION" not in st.args or not st.args["FUNCTION"]:
            raise StatementError("FUNCTION is required")
        text = st.args["FUNCTION"][0]
        form = linear_form(text)
        mi, mj = self.marker(st, "I"), self.marker(st, "J")
        bi, bj = self.body_of(mi), self.body_of(mj)
        name = _clean_name(st.view_name, f"sforce_{st.id}", self.names)
        pair = {st.integer("I"), st.integer("J")}
        for sym in form:
            if sym != "1" and set(sym[1:]) != pair:
                raise FunctionError(f"{sym[0]}({sym[1]},{sym[2]}) is not between this "
                                    f"SFORCE's markers I and J")
        if set(form) & {"TIME"}:
            raise FunctionError(f"FUNCTION = {text}: a force varying with TIME")
        if st.has("ROTATION"):
            if set(form) - {"1"}:
                raise FunctionError(f"FUNCTION = {text}: a rotational SFORCE is read as a "
                                    "constant torque")
            if not self.parallel(mj.axes[:, 2]):
                raise StatementError("the torque's axis (J's z) is not normal to the plane")
            torque = _clean(form.get("1", 0.0) * self.force * self.length * float(
                mj.axes[:, 2] @ self.e3))
            targets = [(bi, torque)] + ([] if st.has("ACTIONONLY") else [(bj, -torque)])
            for k, (body, value) in enumerate(t for t in targets if t[0] != "ground"):
                self.loads[name if k == 0 else f"{name}_reaction"] = {
                    "type": "torque", "body": body, "torque_nm": value}
            return
        dm = next((v for s, v in form.items() if s != "1" and s[0] == "DM"), 0.0)
        vr = next((v for s, v in form.items() if s != "1" and s[0] == "VR"), 0.0)
        c0 = form.get("1", 0.0)
        if dm == 0.0 and vr == 0.0:
            if not st.has("ACTIONONLY") or bj != "ground":
                raise StatementError("a constant force along the line between I and J (only "
                                     "an ACTIONONLY force along a ground marker's z, or a "
                                     "spring -k*(DM(i,j)-L0) - c*VR(i,j), is imported)")
            z = mj.axes[:, 2]
            if abs(z @ self.normal) > PARALLEL:
                raise StatementError("the force's direction (J's z) is not in the plane")
            if bi == "ground":
                raise StatementError("a force on the ground")
            f = self.in_plane(z) * c0 * self.force
            self.loads[name] = {"type": "force", "body": bi, "at": self.planar(mi.origin),
                                "force_n": [_clean(f[0]), _clean(f[1])]}
            return
        if st.has("ACTIONONLY"):
            raise StatementError("an ACTIONONLY spring")
        if not dm < 0.0:
            raise FunctionError(f"FUNCTION = {text}: a spring -k*(DM(i,j)-L0) needs k > 0")
        if vr > 0.0:
            raise FunctionError(f"FUNCTION = {text}: a damper -c*VR(i,j) needs c >= 0")
        k = -dm
        free = c0 / k
        if free < 0.0:
            raise FunctionError(f"FUNCTION = {text}: a negative free length")
        if "ground" == bi == bj:
            raise StatementError("a spring between two ground markers")
        if abs((mi.origin - mj.origin) @ self.normal) > GAP:
            raise StatementError("I and J are apart along the plane's normal (the spring's "
                                 "length would not be the planar one)")
        if np.linalg.norm(mi.origin - mj.origin) <= 1e-9:
            raise StatementError("I and J coincide (a spring needs a direction)")
        self.loads[name] = {
            "type": "spring", "bodies": [bi, bj],
            "at": [self.planar(mi.origin), self.planar(mj.origin)],
            "stiffness_n_per_m": _clean(k * self.force / self.length),
            "damping_n_s_per_m": _clean(-vr * self.force * self.time / self.length),
            "free_length_mm": _mm(free * self.length),
        }
        self.names.add(name)

    def accgrav(self, st: Statement) -> None:
        g = np.array([st.number(k, 0.0) for k in ("IGRAVITY", "JGRAVITY", "KGRAVITY")])
        g *= self.length / self.time**2
        planar = self.in_plane(g)
        off = float(g @ self.normal)
        if abs(off) > 1e-12:
            self.out.notes.append(f"gravity's component {off:.6g} m/s² along the plane's "
                                  "normal is dropped")
        self.gravity = [_clean(planar[0]), _clean(planar[1])]

    def request(self, st: Statement) -> None:
        kinds = [k for k in ("DISPLACEMENT", "VELOCITY", "ACCELERATION") if st.has(k)]
        if not kinds:  # FORCE, a FUNCTION, F1..F8: output only
            self.out.skipped.append(Issue(st.line, st.label))
            self.listed.add(st.line)
            return
        if st.has("RM") and st.integer("RM") != 0:
            raise StatementError("RM: components in a marker's axes are not imported")
        mi = self.marker(st, "I")
        body = self.body_of(mi)
        if st.has("J") and st.integer("J") != 0:
            mj = self.marker(st, "J")
            if self.body_of(mj) != "ground":
                raise StatementError("J on a moving part: a relative measure is not imported")
            if kinds[0] == "DISPLACEMENT" and np.linalg.norm(self.in_plane(mj.origin)) > GAP:
                raise StatementError("a displacement from a J marker away from the origin")
        if body == "ground":
            self.out.skipped.append(Issue(st.line, st.label))
            self.listed.add(st.line)
            return
        quantity = {"DISPLACEMENT": "position", "VELOCITY": "velocity",
                    "ACCELERATION": "acceleration"}[kinds[0]]
        point = self.planar(mi.origin)
        for comp in ("x", "y"):
            entry = {"body": body, "quantity": quantity, "component": comp}
            if np.hypot(*(np.array(point) - np.array(self.bodies[body]["cm"]))) > 1e-9:
                entry["point"] = point
            self.measures[f"request_{st.id}_{comp}"] = entry


def import_dataset(data: bytes, filename: str = "") -> Import:
    """Read a dataset's bytes; raises :class:`AdamsError` for a file it cannot read at all
    (too large, not UTF-8, a .cmd), else returns an :class:`Import` whose ``refused`` lists
    what cannot be mapped (``mechanism`` None then)."""
    dataset = tokenize(decode(data, filename))
    out = Import(dataset.title, None)
    statements: list[Statement] = []
    contacts: list[Statement] = []
    graphics: dict[int, Statement] = {}
    for raw in dataset.statements:
        try:
            name, ident = statement_name(raw)
        except StatementError as exc:
            out.refused.append(Issue(raw.line, raw.head, str(exc)))
            continue
        label = f"{name}/{ident}" if ident is not None else name
        if name in OTHERS:
            why = _WHY_OTHER.get(name, f"{name} is not imported (design.md 4.13 reads UNITS, "
                                 "PART, MARKER, JOINT, MOTION, SFORCE, ACCGRAV and REQUEST)")
            out.refused.append(Issue(raw.line, label, why))
            continue
        if name in SKIPPED:
            out.skipped.append(Issue(raw.line, label))
            if name in ("CONTACT", "GRAPHICS"):
                st = resolve(raw, name, ident)
                (contacts.append(st) if name == "CONTACT"
                 else graphics.__setitem__(ident or 0, st))
            continue
        try:
            statements.append(resolve(raw, name, ident))
        except StatementError as exc:
            out.refused.append(Issue(raw.line, label, str(exc)))
    if out.refused:
        return out
    importer = _Importer(dataset.title, statements, out)
    table = importer.run()
    for st in contacts:
        out.contacts.append(_contact(st, graphics, importer))
    out.supported.sort(key=lambda i: i.line)
    out.skipped.sort(key=lambda i: i.line)
    out.refused.sort(key=lambda i: i.line)
    if not out.refused:
        out.mechanism = table
    return out


def _contact(st: Statement, graphics: dict[int, Statement], imp: _Importer) -> Contact:
    """The two parts a CONTACT's geometries sit on, and the revolute joint between them."""
    parts = []
    for key in ("I_GEOMETRY", "J_GEOMETRY", "IGEOM", "JGEOM"):
        for arg, values in st.args.items():
            if key.startswith(arg) and len(arg) >= 3 and values:
                try:
                    g = graphics.get(int(values[0]))
                except ValueError:
                    g = None
                marker = None
                for gk in ("CM", "CENTER", "CORNER", "RM"):
                    if g is not None and g.args.get(gk):
                        marker = imp.markers.get(int(float(g.args[gk][0])))
                        break
                if marker is not None:
                    parts.append(imp.body_of(marker))
    joint = None
    if len(parts) >= 2:
        for name, j in imp.joints.items():
            if j["type"] == "revolute" and set(j["bodies"]) == set(parts[:2]):
                joint = name
                break
    return Contact(st.line, st.label, joint, tuple(parts[:2]))


__all__ = ["AdamsError", "Contact", "Import", "Issue", "import_dataset", "plane_basis",
           "reuler"]
