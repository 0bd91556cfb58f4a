"""The parameter registry: every case parameter of every model, once.

Each :class:`Parameter` says what a name is: its ``kind`` (what part of the case it
describes), the unit the value is given in (``clearance_mm`` in mm) and the factor to SI,
whether an ideal-joint run reads it, and the human label a page or a table shows
("Clearance"). The lists other layers need are derived from it - the fields that cannot
change a slider-crank's initial state, the fields an ideal twin drops, the solver settings
provenance records, the form's rows and the figure labels - so adding a parameter to a model
is its dataclass field plus one :class:`Parameter` line in :data:`REGISTRY`.

Allowed ranges and choices are *not* copied here: :func:`allowed` asks the model's own
``parse()`` (the checks that refuse a bad case) and returns what it says is allowed, so the
registry can never disagree with the solver. Defaults likewise come from the case dataclass
(:func:`describe`).

This module imports nothing heavy: the web's labels read it without loading a solver.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from .errors import InputError
from .solver import CASE_OPTIONS

# kinds: what part of a case a parameter describes
MODEL = "model"  # the mechanism and its loads: geometry, masses, speed, gravity
JOINT = "joint"  # the clearance joint itself: clearance, bearing radius, the ideal switch
CONTACT = "contact"  # the normal contact law and its constants
FRICTION = "friction"  # the tangential law and its constants
SOLVER = "solver"  # how the motion is integrated: span, tolerances, steps, mesh
OUTPUT = "output"  # what is stored and how the metrics are read off
INITIAL = "initial"  # where the motion starts
KINDS = (MODEL, JOINT, CONTACT, FRICTION, SOLVER, OUTPUT, INITIAL)

# kinds an ideal revolute never reads (each Parameter may say otherwise)
_JOINT_KINDS = (JOINT, CONTACT, FRICTION)


@dataclass(frozen=True)
class Parameter:
    """One case parameter.

    ``unit``: the unit the value is given in ("" for ratios, counts, choices and switches);
    ``to_si``: SI value = given value x ``to_si`` (``clearance_mm``: 1e-3, to m), with
    ``si_unit`` the SI unit after that factor; ``symbol``: the short word a legend uses
    (``c = 0.05 mm``); ``ideal_reads``: whether an ideal-joint run reads it (None: from the
    kind - joint, contact and friction fields are not read).
    """

    name: str
    kind: str
    label: str
    unit: str = ""
    symbol: str = ""
    to_si: float = 1.0
    si_unit: str = ""
    ideal_reads: bool | None = None

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"{self.name}: kind {self.kind!r} is not one of {KINDS}")
        if self.ideal_reads is None:
            object.__setattr__(self, "ideal_reads", self.kind not in _JOINT_KINDS)

    @property
    def title(self) -> str:
        """The label with its unit, ``"Clearance [mm]"`` (``[–]`` without a unit)."""
        return f"{self.label} [{self.unit or DIMENSIONLESS}]"

    def si(self, value: float) -> float:
        """``value`` (in :attr:`unit`) in SI (:attr:`si_unit`)."""
        return value * self.to_si


DIMENSIONLESS = "–"
_MM = {"unit": "mm", "to_si": 1e-3, "si_unit": "m"}
_RPM = {"unit": "rpm", "to_si": 2.0 * math.pi / 60.0, "si_unit": "rad/s"}
_DEG = {"unit": "deg", "to_si": math.pi / 180.0, "si_unit": "rad"}


def _si(unit: str) -> dict[str, Any]:
    return {"unit": unit, "si_unit": unit}


# --- shared entries (same meaning in every model that has them) ---------------------------
CLEARANCE = Parameter("clearance_mm", JOINT, "Clearance", symbol="c", **_MM)
IDEAL = Parameter("ideal", JOINT, "Ideal joint", symbol="ideal", ideal_reads=True)
STIFFNESS_SCALE = Parameter("stiffness_scale", CONTACT, "Stiffness scale", symbol="stiffness")
CONTACT_LAW = Parameter("contact_law", CONTACT, "Contact law", symbol="contact law")
RESTITUTION = Parameter("restitution", CONTACT, "Restitution coefficient", symbol="cr")
FRICTION_LAW = Parameter("friction_law", FRICTION, "Friction law", symbol="friction law")
FRICTION_COEFF = Parameter("friction", FRICTION, "Friction coefficient", symbol="μ")
STATIC_FRICTION = Parameter("static_friction", FRICTION, "Static friction coefficient",
                            symbol="μs")
FRICTION_VELOCITY = Parameter("friction_velocity", FRICTION, "Friction velocity v0",
                              symbol="v0", **_si("m/s"))
FRICTION_VELOCITY_FULL = Parameter("friction_velocity_full", FRICTION,
                                   "Full friction velocity v1", symbol="v1", **_si("m/s"))
SPEED = Parameter("speed_rpm", MODEL, "Crank speed", symbol="speed", **_RPM)
GRAVITY = Parameter("gravity", MODEL, "Gravity", symbol="g", **_si("m/s²"))
T_END = Parameter("t_end", SOLVER, "End time", symbol="t_end", **_si("s"))
DT = Parameter("dt", SOLVER, "Time step", symbol="dt", **_si("s"))
ELEMENTS = Parameter("elements", SOLVER, "Finite elements", symbol="elements")
GAUSS_POINTS = Parameter("gauss_points", SOLVER, "Gauss points per element",
                         symbol="Gauss points")
OUTPUT_INTERVAL = Parameter("output_interval", OUTPUT, "Output interval", symbol="Δt_out",
                            **_si("s"))
DAMPING_TIME = Parameter("damping_time", MODEL, "Kelvin-Voigt damping time", symbol="η",
                         **_si("s"))

# wear over the joint's life (design.md 4.12): the clearance joint's, sweepable
WEAR = (
    Parameter("wear_coefficient_m2_per_n", JOINT, "Wear coefficient k_D", symbol="k_D",
              **_si("m²/N")),
    Parameter("wear_cycles", JOINT, "Wear life (revolutions)", symbol="cycles"),
    Parameter("wear_steps", JOINT, "Wear profile updates", symbol="wear steps"),
    Parameter("wear_nodes", JOINT, "Wear profile points", symbol="wear nodes"),
)

# The solver options every case type carries (core/solver.py CASE_OPTIONS, the names and
# order; their defaults are SolverOptions'): the label, kind and unit of each. A name of
# CASE_OPTIONS without an entry here fails at import.
_OPTION_ENTRIES = {p.name: p for p in (
    Parameter("integrator", SOLVER, "Integrator", symbol="integrator"),
    Parameter("rtol", SOLVER, "Relative tolerance", symbol="rtol"),
    Parameter("atol", SOLVER, "Absolute tolerance", symbol="atol", **_si("m")),
    Parameter("max_step", SOLVER, "Max step", symbol="max step", **_si("s")),
    # only while a clearance joint is in contact, and an ideal run has no contact
    Parameter("contact_max_step", SOLVER, "Max step in contact", symbol="contact step",
              ideal_reads=False, **_si("s")),
    Parameter("initial_step", SOLVER, "Initial step", symbol="h0", **_si("s")),
    # an ideal run has no contact events to locate
    Parameter("event_location", SOLVER, "Contact event location", symbol="event location",
              ideal_reads=False),
    Parameter("stabilization", SOLVER, "Constraint stabilization", symbol="stabilization"),
    Parameter("baumgarte_alpha", SOLVER, "Baumgarte alpha", symbol="α", **_si("1/s")),
    Parameter("baumgarte_beta", SOLVER, "Baumgarte beta", symbol="β", **_si("1/s")),
    Parameter("n_output", OUTPUT, "Stored samples", symbol="samples"),
    Parameter("refine_peaks", OUTPUT, "Refine peaks between steps", symbol="refine"),
)}
CASE_SOLVER_OPTIONS = tuple(_OPTION_ENTRIES[name] for name in CASE_OPTIONS)

#: model name -> its parameters (the order a listing shows; the case dataclass gives defaults)
REGISTRY: dict[str, tuple[Parameter, ...]] = {
    "slider-crank": (
        Parameter("template", MODEL, "Mechanism template", symbol="template"),
        CLEARANCE,
        Parameter("bearing_radius_mm", JOINT, "Bearing radius", symbol="R", **_MM),
        STIFFNESS_SCALE,
        Parameter("stiffness", CONTACT, "Contact stiffness", symbol="K", **_si("N/m^1.5")),
        CONTACT_LAW,
        Parameter("stiffness_model", CONTACT, "Stiffness model", symbol="stiffness model"),
        # the joint's one length: the line-contact stiffness models and the oil film read it
        Parameter("axial_length_mm", CONTACT, "Axial length", symbol="L", **_MM),
        Parameter("lubrication", CONTACT, "Lubrication", symbol="lubrication"),
        Parameter("viscosity_pa_s", CONTACT, "Oil viscosity", symbol="μ_oil", **_si("Pa s")),
        RESTITUTION,
        Parameter("exponent", CONTACT, "Contact force exponent", symbol="n"),
        Parameter("youngs_modulus", CONTACT, "Young's modulus", symbol="E", **_si("Pa")),
        Parameter("poisson_ratio", CONTACT, "Poisson's ratio", symbol="ν"),
        Parameter("impact_damping", CONTACT, "IMPACT damping", symbol="c_max",
                  **_si("N s/m")),
        Parameter("impact_depth", CONTACT, "IMPACT damping depth", symbol="d", **_si("m")),
        FRICTION_LAW,
        FRICTION_COEFF,
        STATIC_FRICTION,
        FRICTION_VELOCITY,
        FRICTION_VELOCITY_FULL,
        SPEED,
        Parameter("drive", MODEL, "Crank drive", symbol="drive"),
        Parameter("crank_angle_deg", INITIAL, "Initial crank angle", symbol="θ0", **_DEG),
        GRAVITY,
        T_END,
        IDEAL,
        # the journal's start in the bearing: an ideal joint has no journal to place
        Parameter("initial", INITIAL, "Journal start", symbol="start", ideal_reads=False),
        # the run-up ramps the driver: an ideal run reads it too (design.md 4.10)
        Parameter("run_up_revolutions", INITIAL, "Run-up revolutions", symbol="run-up",
                  ideal_reads=True),
        # the other starts of the same case: an ideal run has no journal to place
        Parameter("starts", INITIAL, "Also run from starts", symbol="starts",
                  ideal_reads=False),
        Parameter("max_revolutions", SOLVER, "Max revolutions (no t_end)", symbol="max revs"),
        Parameter("transient_revolutions", OUTPUT, "Transient revolutions (0: found)",
                  symbol="transient"),
        Parameter("settle_tolerance", OUTPUT, "Settling tolerance (of c)",
                  symbol="settle tol"),
        *CASE_SOLVER_OPTIONS,
        *WEAR,
    ),
    "cantilever": (
        Parameter("length", MODEL, "Beam length", symbol="L", **_si("m")),
        Parameter("width", MODEL, "Beam width", symbol="b", **_si("m")),
        Parameter("height", MODEL, "Beam height", symbol="h", **_si("m")),
        Parameter("youngs_modulus", MODEL, "Young's modulus", symbol="E", **_si("Pa")),
        Parameter("density", MODEL, "Density", symbol="ρ", **_si("kg/m³")),
        GRAVITY,
        Parameter("tip_load", MODEL, "Tip load", symbol="P", **_si("N")),
        ELEMENTS,
        DT,
        T_END,
        GAUSS_POINTS,
        Parameter("mass", SOLVER, "Mass matrix", symbol="mass"),
        DAMPING_TIME,
        Parameter("boundary", MODEL, "Boundary conditions", symbol="boundary"),
        OUTPUT_INTERVAL,
        Parameter("shape_times", OUTPUT, "Shape times", symbol="shapes at", **_si("s")),
    ),
    "flexible-slider-crank": (
        CLEARANCE,
        STIFFNESS_SCALE,
        RESTITUTION,
        FRICTION_COEFF,
        FRICTION_VELOCITY,
        FRICTION_VELOCITY_FULL,
        STATIC_FRICTION,
        SPEED,
        T_END,
        ELEMENTS,
        # the ANCF rod's modulus (the contact's K is steel on steel): an ideal run reads it
        Parameter("youngs_modulus", MODEL, "Young's modulus", symbol="E", **_si("Pa")),
        DAMPING_TIME,
        IDEAL,
        CONTACT_LAW,
        FRICTION_LAW,
        Parameter("damping_max", CONTACT, "IMPACT damping", symbol="c_max", **_si("N s/m")),
        Parameter("damping_depth", CONTACT, "IMPACT damping depth", symbol="d", **_si("m")),
        GAUSS_POINTS,
        DT,
        OUTPUT_INTERVAL,
    ),
}


# the described mechanism (design.md 4.7): its table, then the slider-crank's solver, output
# and start names; its own numbers are dotted paths into the table (core/mechanism/table.py)
_SLIDER_CRANK = {p.name: p for p in REGISTRY["slider-crank"]}
REGISTRY["mechanism"] = (
    Parameter("mechanism", MODEL, "Mechanism", symbol="mechanism"),
    *(_SLIDER_CRANK[n] for n in (
        "t_end", "ideal", "initial", "run_up_revolutions", "max_revolutions",
        "transient_revolutions", "settle_tolerance", "starts", *CASE_OPTIONS)),
)


def model_parameters(model: str) -> tuple[Parameter, ...]:
    """The registry entries of ``model``, or :class:`InputError` listing the models."""
    try:
        return REGISTRY[model]
    except KeyError:
        raise InputError("model", model, "one of " + ", ".join(REGISTRY)) from None


def _all() -> Iterable[Parameter]:
    for entries in REGISTRY.values():
        yield from entries


@functools.cache
def _by_name() -> dict[str, Parameter]:
    # the first entry of each name; label and unit agree across models (a tested invariant)
    out: dict[str, Parameter] = {}
    for p in _all():
        out.setdefault(p.name, p)
    return out


def find(name: str, model: str | None = None) -> Parameter | None:
    """The entry of ``name`` (in ``model`` if given), None if no model has it."""
    if model is None:
        return _by_name().get(name)
    return next((p for p in model_parameters(model) if p.name == name), None)


def names(model: str | None = None, *, kinds: Iterable[str] | None = None) -> tuple[str, ...]:
    """Parameter names of ``model`` (every model: in registry order, each name once),
    optionally only of the given ``kinds``."""
    wanted = set(KINDS if kinds is None else kinds)
    entries = _all() if model is None else model_parameters(model)
    return tuple(dict.fromkeys(p.name for p in entries if p.kind in wanted))


@functools.cache  # per case of a study's plan
def ideal_ignored(model: str | None = None) -> frozenset[str]:
    """Names an ideal-joint run of ``model`` does not read (the ideal twin drops them).

    Without a model: every name some model's ideal run ignores - including the flexible
    slider-crank's rod ``youngs_modulus``, because the rigid model's ``youngs_modulus`` (the
    contact's) is ignored; so a caller that knows the model should pass it.
    """
    entries = _all() if model is None else model_parameters(model)
    return frozenset(p.name for p in entries if not p.ideal_reads)


# the naming convention of inputs not in SI (design.md 1.2), for a name not registered yet
_SUFFIX_UNITS = (("_mm", "mm"), ("_rpm", "rpm"), ("_deg", "deg"), ("_s", "s"))


def unit(name: str) -> str:
    """The unit parameter ``name`` is given in ("" without one); a name no model registers
    is read by its suffix (``_mm`` -> mm)."""
    p = find(name)
    if p is not None:
        return p.unit
    return next((u for suffix, u in _SUFFIX_UNITS if name.endswith(suffix)), "")


# --- what parse() allows, asked of parse() itself -----------------------------------------

_FLOAT_PROBES = (-1e300, 1e300, "nan")
FINITE = "a finite number"  # what every numeric check says of NaN


def _probes(default: Any) -> tuple[Any, ...]:
    """Values that find a parameter's limits: outside any range a check could draw."""
    if isinstance(default, bool):
        return ("not-a-bool",)
    if isinstance(default, int):
        return (-(10**9), 10**9)
    if isinstance(default, str):
        return ("\u2205",)
    if isinstance(default, (tuple, list)):
        return ("-1e300",)
    return _FLOAT_PROBES


@functools.cache
def allowed(model: str, name: str) -> str:
    """What the model's ``parse()`` allows for ``name`` alone (other fields at their
    defaults): the ``allowed`` of the errors it raises for out-of-range probes, joined with
    "; " ("a finite number" only where no range was found: a range implies it); "any
    value" if it refuses none of them."""
    from .api import get_model  # the case modules load only when asked

    entry = get_model(model)
    default = entry.defaults()[name]
    texts: list[str] = []
    for probe in _probes(default):
        try:
            entry.parse({name: probe})
        except InputError as exc:
            if exc.field == name and exc.allowed not in texts:
                texts.append(exc.allowed)
    if len(texts) > 1 and FINITE in texts:
        texts.remove(FINITE)
    return "; ".join(texts) or "any value"


def describe(model: str) -> list[dict[str, Any]]:
    """One row per parameter of ``model`` in the case's field order: ``name``, ``kind``,
    ``label``, ``unit``, ``default`` and ``allowed`` (from :func:`allowed`)."""
    from .api import get_model

    defaults = get_model(model).defaults()
    rows = []
    for name, default in defaults.items():
        # a field still without an entry (tests/core/test_parameters.py fails on it) is listed
        # with what the core knows: its default and range
        p = find(name, model)
        rows.append({"name": name, "kind": p.kind if p else "",
                     "label": p.label if p else name.replace("_", " ").capitalize(),
                     "unit": p.unit if p else unit(name),
                     "default": default, "allowed": allowed(model, name)})
    return rows
