"""A mechanism written back as a planar ADAMS/Solver dataset (``gapsweep export ID --format
adm``, design.md 4.13, 4.15) that :func:`~.to_mechanism.import_dataset` reads back to the
same mechanism.

The plane is the global X, Y plane (every joint axis along Z); units N, kg, mm, s; each part's
frame at its centre of mass; the element names in ``adams_view_name`` comments. A clearance
joint is written as its REVOLUTE plus a CONTACT between a pin and a hole (GRAPHICS
cylinders) with the contact law's stiffness and exponent, so that ADAMS sees the impact and
the import suggests the clearance axis again. Each measure's body point becomes a REQUEST
(its x and y come back as ``request_<id>_x`` / ``_y``); a load tabled over the driver angle
has no dataset form and is refused.
"""

from __future__ import annotations

import math
from typing import Any

from gapsweep.core.errors import InputError
from gapsweep.core.mechanism.table import MechanismSpec
from gapsweep.core.model import GROUND

_QUANTITY = {"position": "DISPLACEMENT", "velocity": "VELOCITY",
             "acceleration": "ACCELERATION"}


def _n(v: float) -> str:
    """A number as the dataset writes it: the shortest round-tripping form."""
    v = float(f"{float(v):.15g}") + 0.0  # 60 mm, not 60.000000000000014 off m; no -0
    return repr(v) if v != int(v) or abs(v) >= 1e15 else f"{v:.1f}"


class _Writer:
    def __init__(self, spec: MechanismSpec) -> None:
        self.spec = spec
        self.lines: list[str] = []
        self.part_id = {GROUND: 1}
        self.cm = {GROUND: (0.0, 0.0)}
        self.next_marker = 1

    def named(self, name: str) -> None:
        self.lines.append(f"!{' ' * 26}adams_view_name='{name}'")

    def marker(self, body: str, p: tuple[float, float], z: tuple[float, float] | None = None
               ) -> int:
        """A marker on ``body`` at global ``p`` [m] (design position); ``z`` a direction in
        the plane for its z axis (default: along global Z)."""
        ident = self.next_marker
        self.next_marker += 1
        cx, cy = self.cm[body]
        qx, qy = (p[0] - cx) * 1e3, (p[1] - cy) * 1e3
        line = f"MARKER/{ident}, PART = {self.part_id[body]}, QP = {_n(qx)}, {_n(qy)}, 0.0"
        if z is not None:
            # 3-1-3 angles turning z onto (zx, zy, 0) and y onto global Z: exact to the last
            # digit, where ZP/XP points far from the origin would round the direction
            line += f"\n, REULER = {_n(math.atan2(z[0], -z[1]))}, {_n(math.pi / 2)}, 0.0"
        self.lines.append(line)
        return ident

    def write(self) -> str:
        spec, out = self.spec, self.lines
        out += [spec.name.replace("\n", " ")[:200] or "gapsweep mechanism",
                "! written by gapsweep export --format adm: the X, Y plane, N kg mm s",
                "UNITS/FORCE = NEWTON, MASS = KILOGRAM, LENGTH = MILLIMETER, TIME = SECOND",
                "PART/1, GROUND"]
        for k, b in enumerate(spec.bodies, start=2):
            self.part_id[b.name] = k
            self.cm[b.name] = b.cm
        for b in spec.bodies:
            self.named(b.name)
            i = _n(b.inertia * 1e6)  # kg mm^2, the same about every axis: Izz is read
            cm_marker = self.next_marker
            out.append(f"PART/{self.part_id[b.name]}, MASS = {_n(b.mass)}, CM = {cm_marker}, "
                       f"IP = {i}, {i}, {i}\n, QG = {_n(b.cm[0] * 1e3)}, {_n(b.cm[1] * 1e3)}, "
                       "0.0")
            self.marker(b.name, b.cm)
        joint_id: dict[str, int] = {}
        contacts = []
        for k, j in enumerate(spec.joints, start=1):
            joint_id[j.name] = k
            z = j.direction if j.type == "translational" else None
            mi = self.marker(j.body_j, j.at, z)
            mj = self.marker(j.body_i, j.at, z)
            self.named(j.name)
            out.append(f"JOINT/{k}, {j.type.upper()}, I = {mi}, J = {mj}")
            if j.contact is not None:
                contacts.append((j, mi, mj))
        for n, (j, mi, mj) in enumerate(contacts, start=1):
            self.contact(n, j, mi, mj)
        if spec.driver_joint:
            omega = spec.omega
            out.append(f"MOTION/1, JOINT = {joint_id[spec.driver_joint]}, ROTATION, "
                       f"FUNCTION = {_n(omega)} * TIME")
        ground_z = None
        for k, ld in enumerate(spec.loads, start=1):
            if ld.tabled:
                raise InputError(f"mechanism.loads.{ld.name}", "a table over the driver angle",
                                 "a constant load or a spring (a dataset has no such load)")
            # the markers first: the view-name comment names the statement after it
            if ld.type == "spring":
                mi = self.marker(ld.bodies[0], ld.points[0])
                mj = self.marker(ld.bodies[1], ld.points[1])
                text = (f"SFORCE/{k}, TRANSLATION, I = {mi}, J = {mj}\n, FUNCTION = "
                        f"-{_n(ld.stiffness * 1e-3)}*(DM({mi},{mj})-{_n(ld.free_length * 1e3)})"
                        f" - {_n(ld.damping * 1e-3)}*VR({mi},{mj})")
            elif ld.type == "torque":
                if ground_z is None:
                    ground_z = self.marker(GROUND, (0.0, 0.0))
                mi = self.marker(ld.bodies[0], self.cm[ld.bodies[0]])
                text = (f"SFORCE/{k}, ROTATION, ACTIONONLY, I = {mi}, J = {ground_z}\n, "
                        f"FUNCTION = {_n(ld.vector[0] * 1e3)}")
            else:
                fx, fy = ld.vector
                size = math.hypot(fx, fy)
                d = (fx / size, fy / size) if size > 0.0 else (1.0, 0.0)
                mi = self.marker(ld.bodies[0], ld.points[0])
                # a force turning with its body pulls along a marker of that body
                mj = self.marker(ld.bodies[0] if ld.frame == "body" else GROUND, ld.points[0], d)
                text = (f"SFORCE/{k}, TRANSLATION, ACTIONONLY, I = {mi}, J = {mj}\n, "
                        f"FUNCTION = {_n(size)}")
            self.named(ld.name)
            out.append(text)
        gx, gy = spec.gravity
        out.append(f"ACCGRAV/IGRAVITY = {_n(gx * 1e3)}, JGRAVITY = {_n(gy * 1e3)}, "
                   "KGRAVITY = 0.0")
        seen: set[tuple] = set()
        for m in spec.measures:
            if m.component == "angle":
                continue  # a REQUEST reads a point's x and y
            key = (m.body, m.quantity, m.point)
            if key in seen:
                continue
            seen.add(key)
            cx, cy = self.cm[m.body]
            mi = self.marker(m.body, (cx + m.point[0], cy + m.point[1]))
            out.append(f"REQUEST/{len(seen)}, {_QUANTITY[m.quantity]}, I = {mi}, "
                       f"COMMENT = {m.name}")
        out.append("END")
        return "\n".join(out) + "\n"

    def contact(self, n: int, j: Any, mi: int, mj: int) -> None:
        from gapsweep.core.assembly import CP_CMAX, CP_DEPTH, CP_EXP, CP_K, clearance_parameters
        from gapsweep.core.mechanism.build import _clearance_joint

        c = dict(j.contact)
        row = clearance_parameters(_clearance_joint(self.spec, j, False))
        e = float(row[CP_EXP])
        radius = c["bearing_radius_mm"]
        self.lines += [
            f"! {j.name}: a clearance of {_n(c['clearance_mm'])} mm (gapsweep's "
            f"joints.{j.name}.clearance_mm); the hole on the first body, the pin on the second",
            f"GRAPHICS/{2 * n - 1}, CYLINDER, CM = {mj}, RADIUS = {_n(radius)}, LENGTH = "
            f"{_n(c['axial_length_mm'])}",
            f"GRAPHICS/{2 * n}, CYLINDER, CM = {mi}, RADIUS = {_n(radius - c['clearance_mm'])}, "
            f"LENGTH = {_n(c['axial_length_mm'])}",
            f"CONTACT/{n}, IGEOM = {2 * n}, JGEOM = {2 * n - 1}, IMPACT\n, STIFFNESS = "
            f"{_n(row[CP_K] * 1e-3**e)}, EXPONENT = {_n(e)}\n, DAMPING = "
            f"{_n(row[CP_CMAX] * 1e-3)}, DMAX = {_n(row[CP_DEPTH] * 1e3)}",
        ]


def dataset_text(spec: MechanismSpec) -> str:
    """The ``.adm`` text of a resolved mechanism (a :class:`MechanismSpec`)."""
    return _Writer(spec).write()
