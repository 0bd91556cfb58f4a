"""ISO 286 limits and fits: the hole's and the shaft's limits of a fit such as ``H7/g6``.

Source of the tables: ISO 286-1:2010, *Geometrical product specifications (GPS) - ISO code
system for tolerances on linear sizes - Part 1*, Table 1 (standard tolerance grades IT5-IT11
for nominal sizes up to 500 mm) and Table 2 (fundamental deviations of shafts a-j: the upper
deviation ``es`` of c, d, e, f, g, h); the holes H have the lower deviation ``EI = 0``. The
same numbers are ISO 286-2's limit-deviation tables (e.g. 25 f7: -20/-41 µm), which the tests
check a selection of, written from those tables.

Nominal-size steps are "above ... up to and including ...": 30 mm belongs to the 18-30 step,
30.001 to 30-50. Values in micrometres inside the tables; limits are returned in mm.

Pure and light: no numpy, no web, no database (the CLI, the study designs and the form's fit
picker all read it).
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

from .errors import InputError

# Upper limits [mm] of the main nominal-size steps (ISO 286-1 Table 1); the first is "above 0".
STEPS_MM = (3, 6, 10, 18, 30, 50, 80, 120, 180, 250, 315, 400, 500)
MAX_DIAMETER_MM = 500.0

# ISO 286-1:2010 Table 1, standard tolerance values [µm], one per step of STEPS_MM.
IT_UM: dict[int, tuple[int, ...]] = {
    5: (4, 5, 6, 8, 9, 11, 13, 15, 18, 20, 23, 25, 27),
    6: (6, 8, 9, 11, 13, 16, 19, 22, 25, 29, 32, 36, 40),
    7: (10, 12, 15, 18, 21, 25, 30, 35, 40, 46, 52, 57, 63),
    8: (14, 18, 22, 27, 33, 39, 46, 54, 63, 72, 81, 89, 97),
    9: (25, 30, 36, 43, 52, 62, 74, 87, 100, 115, 130, 140, 155),
    10: (40, 48, 58, 70, 84, 100, 120, 140, 160, 185, 210, 230, 250),
    11: (60, 75, 90, 110, 130, 160, 190, 220, 250, 290, 320, 360, 400),
}

# Intermediate steps [mm] of Table 2 (the c deviation changes inside 30-50, 50-80, ...).
SUBSTEPS_MM = (3, 6, 10, 14, 18, 24, 30, 40, 50, 65, 80, 100, 120, 140, 160, 180, 200, 225,
               250, 280, 315, 355, 400, 450, 500)

# ISO 286-1:2010 Table 2, upper deviation es [µm] of the shafts, one per step of SUBSTEPS_MM.
SHAFT_ES_UM: dict[str, tuple[int, ...]] = {
    "c": (-60, -70, -80, -95, -95, -110, -110, -120, -130, -140, -150, -170, -180, -200, -210,
          -230, -240, -260, -280, -300, -330, -360, -400, -440, -480),
    "d": (-20, -30, -40, -50, -50, -65, -65, -80, -80, -100, -100, -120, -120, -145, -145,
          -145, -170, -170, -170, -190, -190, -210, -210, -230, -230),
    "e": (-14, -20, -25, -32, -32, -40, -40, -50, -50, -60, -60, -72, -72, -85, -85, -85,
          -100, -100, -100, -110, -110, -125, -125, -135, -135),
    "f": (-6, -10, -13, -16, -16, -20, -20, -25, -25, -30, -30, -36, -36, -43, -43, -43, -50,
          -50, -50, -56, -56, -62, -62, -68, -68),
    "g": (-2, -4, -5, -6, -6, -7, -7, -9, -9, -10, -10, -12, -12, -14, -14, -14, -15, -15, -15,
          -17, -17, -18, -18, -20, -20),
    "h": (0,) * 25,
}
HOLE_EI_UM: dict[str, tuple[int, ...]] = {"H": (0,) * 25}

GRADES = tuple(IT_UM)
_ZONE = re.compile(r"^\s*([A-Za-z])(\d{1,2})\s*$")
FIT_ALLOWED = (f"a hole-basis fit H<grade>/<shaft><grade>, shafts {' '.join(SHAFT_ES_UM)}, "
               f"grades IT{GRADES[0]}-IT{GRADES[-1]} (e.g. H7/g6)")
DIAMETER_ALLOWED = f"> 0 and <= {MAX_DIAMETER_MM:g} mm (ISO 286 tables held here)"


@dataclass(frozen=True)
class Zone:
    """One tolerance zone: ``letter`` (H for a hole, c-h for a shaft) and IT ``grade``."""

    letter: str
    grade: int

    @property
    def is_hole(self) -> bool:
        return self.letter.isupper()

    def __str__(self) -> str:
        return f"{self.letter}{self.grade}"


@dataclass(frozen=True)
class FitLimits:
    """The limits of a fit at one nominal diameter, all in mm.

    ``hole_mm``/``shaft_mm``: (smallest, largest) size; ``clearance_mm``: the **radial**
    clearance range ``(hole - shaft) / 2`` (smallest: smallest hole on largest shaft).
    """

    fit: str
    diameter_mm: float
    hole_mm: tuple[float, float]
    shaft_mm: tuple[float, float]

    @property
    def clearance_mm(self) -> tuple[float, float]:
        lo = (self.hole_mm[0] - self.shaft_mm[1]) / 2.0
        hi = (self.hole_mm[1] - self.shaft_mm[0]) / 2.0
        return _mm(lo), _mm(hi)

    def to_dict(self) -> dict:
        """``gapsweep fit --json`` (design.md 4.8)."""
        return {"fit": self.fit, "diameter_mm": self.diameter_mm,
                "hole_mm": list(self.hole_mm), "shaft_mm": list(self.shaft_mm),
                "clearance_mm": list(self.clearance_mm)}


def _mm(x: float) -> float:
    # the tables are whole micrometres: round away the binary noise of um -> mm
    return round(x, 7)


def step_index(diameter_mm: float, steps: tuple[float, ...] = STEPS_MM,
               field: str = "diameter_mm") -> int:
    """Index of the step ``(steps[i-1], steps[i]]`` holding ``diameter_mm``."""
    try:
        d = float(diameter_mm)
    except (TypeError, ValueError):
        raise InputError(field, diameter_mm, DIAMETER_ALLOWED) from None
    if not (d > 0.0 and d <= MAX_DIAMETER_MM):  # also refuses NaN
        raise InputError(field, diameter_mm, DIAMETER_ALLOWED)
    return bisect.bisect_left(steps, d)  # d == steps[i] -> i: the step up to and including it


def parse_zone(text: str, *, hole: bool, field: str = "fit") -> Zone:
    """``"H7"`` / ``"g6"`` -> :class:`Zone`; unknown letter or grade -> InputError."""
    m = _ZONE.match(text or "")
    table = HOLE_EI_UM if hole else SHAFT_ES_UM
    if not m or m.group(1) not in table or int(m.group(2)) not in IT_UM:
        raise InputError(field, text, FIT_ALLOWED)
    return Zone(m.group(1), int(m.group(2)))


def parse_fit(fit: str, field: str = "fit") -> tuple[Zone, Zone]:
    """``"H7/g6"`` -> (hole zone, shaft zone)."""
    hole, sep, shaft = str(fit).partition("/")
    try:
        if not sep:
            raise InputError(field, fit, FIT_ALLOWED)
        return (parse_zone(hole, hole=True, field=field),
                parse_zone(shaft, hole=False, field=field))
    except InputError:
        raise InputError(field, fit, FIT_ALLOWED) from None


def zone_deviations_um(zone: Zone, diameter_mm: float) -> tuple[int, int]:
    """(lower, upper) deviation [µm] of ``zone`` at ``diameter_mm``."""
    it = IT_UM[zone.grade][step_index(diameter_mm)]
    fundamental = step_index(diameter_mm, SUBSTEPS_MM)
    if zone.is_hole:
        ei = HOLE_EI_UM[zone.letter][fundamental]
        return ei, ei + it
    es = SHAFT_ES_UM[zone.letter][fundamental]
    return es - it, es


# hole-basis clearance fits of ISO 286-1's preferred list (Figure 14 / Annex), offered first
PREFERRED_FITS = ("H7/g6", "H7/h6", "H7/f7", "H8/f7", "H8/e8", "H8/h7", "H9/d9", "H9/e9",
                  "H11/c11", "H11/h11", "H6/g5", "H6/h5")


def fit_names() -> list[str]:
    """Every fit the tables give (H<grade>/<shaft><grade>), the preferred ones first."""
    every = [f"H{h}/{s}{g}" for h in GRADES for s in SHAFT_ES_UM for g in GRADES]
    return [*PREFERRED_FITS, *(f for f in every if f not in PREFERRED_FITS)]


def fit_limits(fit: str, diameter_mm: float) -> FitLimits:
    """The limits of ``fit`` (``"H7/g6"``) at nominal ``diameter_mm`` [mm]."""
    hole, shaft = parse_fit(fit)
    step_index(diameter_mm)  # a diameter outside the tables is refused first
    d = float(diameter_mm)
    h_lo, h_hi = zone_deviations_um(hole, d)
    s_lo, s_hi = zone_deviations_um(shaft, d)
    return FitLimits(
        fit=f"{hole}/{shaft}", diameter_mm=d,
        hole_mm=(_mm(d + h_lo * 1e-3), _mm(d + h_hi * 1e-3)),
        shaft_mm=(_mm(d + s_lo * 1e-3), _mm(d + s_hi * 1e-3)),
    )
