"""Slider-crank mechanisms with a revolute clearance joint (design.md 1.3).

:func:`flores_slider_crank` is the reference mechanism of Flores et al. (crank 0.05 m, rod
0.12 m, masses 0.30 / 0.21 / 0.14 kg, inertias 1.0e-5 / 2.5e-4 / 1.0e-4 kg m^2, clearance
at the piston pin: bearing = the rod's small-end eye, journal = the pin at the slider's
centre). :func:`seed002_slider_crank` is seed 002's variant (slider 0.5 kg, 20 rad/s) and
:func:`crank_rod_clearance` puts the clearance at the crank pin instead (seed 003).

Geometry: the crank turns about the origin, the slider moves on the x axis, crank angle
``theta`` from +x; body frames have x along the link and the centre of mass at mid-length.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..model import (
    GROUND,
    AngleDriver,
    Body,
    ClearanceJoint,
    ContactModel,
    Mechanism,
    Probe,
    Revolute,
    Translational,
)


@dataclass(frozen=True)
class SliderCrankGeometry:
    """Link lengths [m], masses [kg] and centroidal inertias [kg m^2] of a slider-crank."""

    crank_length: float = 0.05
    rod_length: float = 0.12
    crank_mass: float = 0.30
    rod_mass: float = 0.21
    slider_mass: float = 0.14
    crank_inertia: float = 1.0e-5
    rod_inertia: float = 2.5e-4
    slider_inertia: float = 1.0e-4


FLORES = SliderCrankGeometry()
SEED002 = SliderCrankGeometry(slider_mass=0.5)


def slider_position(theta: float, r: float, length: float) -> float:
    """Closed-form slider x [m] of the ideal slider-crank at crank angle ``theta`` [rad]."""
    return r * math.cos(theta) + math.sqrt(length**2 - (r * math.sin(theta)) ** 2)


def _poses(g: SliderCrankGeometry, theta: float) -> tuple[tuple, tuple, tuple]:
    r, length = g.crank_length, g.rod_length
    bx, by = r * math.cos(theta), r * math.sin(theta)
    xc = slider_position(theta, r, length)
    beta = math.atan2(-by, xc - bx)
    crank = (0.5 * bx, 0.5 * by, theta)
    rod = (0.5 * (bx + xc), 0.5 * by, beta)
    return crank, rod, (xc, 0.0, 0.0)


def slider_crank(
    geometry: SliderCrankGeometry,
    *,
    omega: float,
    clearance: float,
    bearing_radius: float,
    contact: ContactModel,
    ideal: bool = False,
    crank_angle: float = 0.0,
    gravity: float = 9.81,
    clearance_at: str = "piston-pin",
    driven: bool = True,
    name: str = "slider-crank",
) -> Mechanism:
    """A slider-crank with one clearance joint, at the ``"piston-pin"`` or ``"crank-pin"``.

    ``omega`` [rad/s] is the constant crank speed (the driver's initial velocity if
    ``driven`` is False), ``clearance`` and ``bearing_radius`` [m], ``crank_angle`` [rad]
    the start, ``gravity`` [m/s^2] acting along -y.
    """
    g = geometry
    crank_pose, rod_pose, slider_pose = _poses(g, crank_angle)
    h1, h2 = 0.5 * g.crank_length, 0.5 * g.rod_length
    bodies = (
        Body("crank", g.crank_mass, g.crank_inertia, crank_pose),
        Body("rod", g.rod_mass, g.rod_inertia, rod_pose),
        Body("slider", g.slider_mass, g.slider_inertia, slider_pose),
    )
    pivot = Revolute(GROUND, "crank", (0.0, 0.0), (-h1, 0.0))
    crank_pin = ("crank", "rod", (h1, 0.0), (-h2, 0.0))
    piston_pin = ("rod", "slider", (h2, 0.0), (0.0, 0.0))
    clear_spec, ideal_spec = (
        (crank_pin, piston_pin) if clearance_at == "crank-pin" else (piston_pin, crank_pin)
    )
    bi, bj, pi, pj = clear_spec
    joint = ClearanceJoint(bi, bj, bearing_radius, clearance, pi, pj, contact, ideal)
    return Mechanism(
        name=name,
        bodies=bodies,
        joints=(pivot, Revolute(*ideal_spec), Translational("slider")),
        drivers=(AngleDriver("crank", omega, crank_angle),) if driven else (),
        clearance_joints=(joint,),
        gravity=(0.0, -gravity),
        probe=Probe("slider", 0),
    )
