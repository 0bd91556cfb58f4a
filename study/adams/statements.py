"""Dataset statements with their names and keywords resolved (ADAMS's abbreviations).

ADAMS accepts any statement name or argument keyword abbreviated to a prefix that no other
name of its list shares (``MAR`` for MARKER, ``TRANS`` for TRANSLATIONAL, ``C=`` for CM in
a PART). :func:`resolve` turns a :class:`~.tokenizer.RawStatement` into a
:class:`Statement`: its full name, id, and each argument's full keyword with its values as
written (``QP = 1, 0, 0`` -> ``{"QP": ["1", "0", "0"]}``, ``GROUND`` -> ``{"GROUND": []}``).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from .tokenizer import RawStatement

# what the import maps (design.md 4.13), what it skips (output and solver settings: they
# change no physics of the mechanism) and the rest of the language, refused when met
SUPPORTED = ("UNITS", "PART", "MARKER", "JOINT", "MOTION", "SFORCE", "ACCGRAV", "REQUEST")
SKIPPED = ("GRAPHICS", "OUTPUT", "RESULTS", "VARIABLE", "MREQUEST", "LIST", "NOLIST", "DEBUG",
           "INTEGRATOR", "KINEMATICS", "EQUILIBRIUM", "IC", "LSOLVER", "PREFERENCES",
           "STRING", "CONTACT")
OTHERS = ("ARRAY", "BEAM", "BUSHING", "COUPLER", "CURVE", "CVCV", "DIFF", "FEMDATA", "FIELD",
          "FLEX_BODY", "FRICTION", "GCON", "GEAR", "GFORCE", "GSE", "JPRIM", "LSE", "MATRIX",
          "NFORCE", "PINPUT", "POINT_MASS", "POUTPUT", "PTCV", "SENSOR", "SPLINE",
          "SPRINGDAMPER", "TFSISO", "VFORCE", "VTORQUE", "FE_PART", "CLEARANCE", "SURFACE",
          "PSTATE", "MFORCE", "NLE", "EXTERNAL_SYSTEM", "UCON")
STATEMENTS = SUPPORTED + SKIPPED + OTHERS

ARGUMENTS = {
    "UNITS": ("FORCE", "MASS", "LENGTH", "TIME", "SYSTEM", "UCF"),
    "PART": ("GROUND", "MASS", "CM", "IM", "IP", "QG", "REULER", "XG", "ZG", "VX", "VY",
             "VZ", "WX", "WY", "WZ", "VM", "WM", "EXACT", "PLANAR", "MATERIAL"),
    "MARKER": ("PART", "QP", "REULER", "ZP", "XP", "FLOATING", "USEXP", "POINT_MASS",
               "FLEX_BODY", "NODE_ID"),
    "JOINT": ("REVOLUTE", "TRANSLATIONAL", "FIXED", "SPHERICAL", "CYLINDRICAL", "UNIVERSAL",
              "HOOKE", "PLANAR", "RACKPIN", "SCREW", "CONVEL", "I", "J", "IC", "ICTRAN",
              "ICROT", "PD", "PITCH", "DELTA_V", "MAXIMUM_DEFORMATION", "MU_DYN_ROT",
              "MU_STAT_ROT"),
    "MOTION": ("JOINT", "JPRIM", "I", "J", "ROTATION", "TRANSLATION", "DISPLACEMENT",
               "VELOCITY", "ACCELERATION", "FUNCTION", "B1", "B2", "B3", "X", "Y", "Z",
               "ICDISP", "ICVEL", "ROUTINE"),
    "SFORCE": ("I", "J", "TRANSLATION", "ROTATION", "ACTIONONLY", "FUNCTION", "ROUTINE"),
    "ACCGRAV": ("IGRAVITY", "JGRAVITY", "KGRAVITY"),
    "REQUEST": ("DISPLACEMENT", "VELOCITY", "ACCELERATION", "FORCE", "I", "J", "RM",
                "FUNCTION", "F1", "F2", "F3", "F4", "F5", "F6", "F7", "F8", "COMMENT",
                "TITLE", "ROUTINE", "RESULTS_NAME", "VARIABLES", "CNAMES", "CUNITS"),
}
_NUMBER = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([ED][+-]?\d+)?(D)?$", re.IGNORECASE)


class StatementError(ValueError):
    """A statement the import cannot read: ``why`` says what."""


@dataclass
class Statement:
    line: int
    name: str  # full statement name, e.g. "MARKER"
    id: int | None
    args: dict[str, list[str]] = field(default_factory=dict)
    view_name: str | None = None
    head: str = ""  # as written, for messages: "MARKER/12"

    @property
    def label(self) -> str:
        """``NAME/id`` with the full name, for messages."""
        return f"{self.name}/{self.id}" if self.id is not None else self.name

    def has(self, key: str) -> bool:
        return key in self.args

    def numbers(self, key: str, count: int | None = None, *, angles: bool = False
                ) -> list[float]:
        """The values of ``key`` as numbers; ``angles``: radians, or degrees with a D suffix
        (a D suffix is refused elsewhere)."""
        raw = self.args.get(key, [])
        if count is not None and len(raw) != count:
            raise StatementError(f"{key} takes {count} value(s), found {len(raw)}")
        return [number(v, angle=angles, key=key) for v in raw]

    def number(self, key: str, default: float | None = None) -> float:
        if key not in self.args:
            if default is None:
                raise StatementError(f"{key} is required")
            return default
        return self.numbers(key, 1)[0]

    def integer(self, key: str, default: int | None = None) -> int:
        if key not in self.args:
            if default is None:
                raise StatementError(f"{key} is required")
            return default
        raw = self.args[key]
        if len(raw) != 1 or not re.fullmatch(r"\d{1,9}", raw[0].strip()):
            raise StatementError(f"{key} takes one id, found {', '.join(raw) or 'none'}")
        return int(raw[0])

    def word(self, key: str) -> str:
        raw = self.args.get(key, [])
        if len(raw) != 1:
            raise StatementError(f"{key} takes one word")
        return raw[0].strip().upper()


def number(text: str, *, angle: bool = False, key: str = "value") -> float:
    """A dataset number: Fortran ``1.5E3``/``1.5D3`` exponents; a trailing ``D`` is degrees
    (only where an angle is read)."""
    t = text.strip()
    m = _NUMBER.match(t)
    if not m:
        raise StatementError(f"{key} = {t[:40]}: not a number")
    degrees = m.group(3) is not None
    value = float(t[: len(t) - 1] if degrees else t.upper().replace("D", "E"))
    if not math.isfinite(value):
        raise StatementError(f"{key} = {t}: not a finite number")
    if degrees:
        if not angle:
            raise StatementError(f"{key} = {t}: a D (degrees) suffix on a value that is not "
                                 "an angle")
        return math.radians(value)
    return value


def expand(word: str, names: tuple[str, ...], what: str) -> str:
    """The full name ``word`` abbreviates among ``names`` (exact, else a unique prefix)."""
    w = word.strip().upper()
    if w in names:
        return w
    found = [n for n in names if n.startswith(w)] if w else []
    if len(found) == 1:
        return found[0]
    if not found:
        raise StatementError(f"{word.strip()}: no such {what}")
    raise StatementError(f"{word.strip()}: an ambiguous {what} ({', '.join(found)})")


def statement_name(raw: RawStatement) -> tuple[str, int | None]:
    """The full statement name and id of ``raw.head`` (``MAR/3`` -> ``MARKER``, 3)."""
    name, slash, ident = raw.head.partition("/")
    full = expand(name, STATEMENTS, "statement")
    ident = ident.strip()
    if not slash or not ident:
        return full, None
    if not re.fullmatch(r"\d{1,9}", ident):
        raise StatementError(f"{raw.head}: the id must be a whole number")
    return full, int(ident)


def resolve(raw: RawStatement, name: str, ident: int | None) -> Statement:
    """``raw`` with its argument keywords expanded (the statement's name already known)."""
    known = ARGUMENTS.get(name)
    out = Statement(raw.line, name, ident, {}, raw.view_name, raw.head)
    last: str | None = None
    for piece in raw.args:
        key, eq, value = piece.partition("=")
        if eq:
            if known is None:
                full = key.strip().upper()
            else:
                full = expand(key, known, f"argument of {name}")
            if full in out.args:
                raise StatementError(f"{full} given twice")
            out.args[full] = [] if not value.strip() else [value.strip()]
            last = full
        elif last is not None and out.args[last] and _looks_like_value(piece):
            out.args[last].append(piece.strip())  # QP = 1, 2, 3
        else:
            full = piece.strip().upper() if known is None else expand(
                piece, known, f"argument of {name}")
            out.args[full] = []
            last = None
    return out


def _looks_like_value(piece: str) -> bool:
    return bool(_NUMBER.match(piece.strip()))
