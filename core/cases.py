"""The parameters of one case: plain, serialisable, validated once at the edge.

A :class:`SliderCrankCase` is what a study's row, a worker's task and ``gapsweep simulate
--set NAME=VALUE`` all carry. Field names carry their unit when it is not SI
(``clearance_mm``, ``speed_rpm``); :meth:`SliderCrankCase.from_mapping` turns strings or
numbers into a validated case and rejects unknown names, and :meth:`to_dict` gives back a
plain dict that round-trips.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from typing import Any

from .contact_laws import CONTACT_LAWS
from .contact_stiffness import STIFFNESS_MODELS, sphere_only_fields
from .errors import InputError, require_finite
from .friction_laws import FRICTION_LAWS
from .journal_bearing import LUBRICATION
from .solver import ROSENBROCK_CONTACT, SolverOptions, case_options, option_default
from .wear import WearParams

TEMPLATES = ("flores", "seed002", "crank-rod")
INITIAL = ("centred", "wall", "run-up")
# A run of adaptive length (no t_end) ends when the once-per-revolution section repeats within
# SETTLE_TOLERANCE x c (periodic-N, N <= 8), or at max_revolutions. The cap: the issue's
# measurements read a slow sliding drift still going at 80 revolutions from the wall start and
# chaos at c = 0.1 mm, which never settles; 80 revolutions also give the 0-1 test 40 section
# points in the second half (it needs 32, core/motion.py).
MAX_REVOLUTIONS = 80
SETTLE_TOLERANCE = option_default("settle_tolerance")  # of the clearance (core/solver.py)
T_END_ALLOWED = "0 (until settled) or in (0, 100] s"
SAMPLES_PER_REVOLUTION_DIVISOR = 4  # adaptive runs: (n_output - 1) / 4 samples a revolution
# Adaptive runs keep the first revolution and a ring of the last SPECTRUM_REVOLUTIONS whole
# revolutions (fewer if max_revolutions is smaller) on the uniform output grid: the settled
# window's spectra then resolve f1/N for its N revolutions. The bound: (1 + 32) x 600 + 1 =
# 19,801 rows x 19 series x 8 B = 3.0 MB per case while it runs (n_output 2401: 600 samples a
# revolution, the rate the spectra and the orbit need - an impact lasts ~50 us, 2.5 samples
# at 5000 rpm); a preview stores 600 points a series and the spectra.
# A settled window holds at most 3 x 8 = 24 revolutions (the settling test's window), so 32
# cover any of them; an unsettled run's window (the second half: 40 of 80) is cut to its last 32.
SPECTRUM_REVOLUTIONS = 32
DRIVE = ("speed", "free")



def fields_dict(case: Any) -> dict[str, Any]:
    """A case dataclass's fields as a JSON-ready dict: infinite step limits (no limit) as None.
    Every field is a scalar, so the dict is shallow (``asdict``'s deep copy was most of the
    Python time of a 15-case batch)."""
    out = {f.name: getattr(case, f.name) for f in fields(case)}
    for name in ("max_step", "contact_max_step"):
        if math.isinf(out[name]):
            out[name] = None
    return out

@dataclass(frozen=True)
class SliderCrankCase:
    """One case of the slider-crank with a revolute clearance joint.

    Defaults are Flores et al.'s reference case (design.md 1.3) at the classic 0.5 mm.
    Solver fields (``rtol`` ... ``refine_peaks``: ``CASE_OPTIONS``) take their defaults and
    units from :class:`SolverOptions` (core/solver.py), measured; see the README.
    """

    template: str = "flores"  # flores | seed002 | crank-rod (clearance at the crank pin)
    clearance_mm: float = 0.5  # radial clearance c = R_B - R_J [mm]
    bearing_radius_mm: float = 10.0  # R_B [mm]
    stiffness_scale: float = 1.0  # multiplies the computed (or given) contact stiffness
    stiffness: float = 0.0  # K [N/m^1.5]; 0 = from materials and radii (design.md 1.2)
    contact_law: str = "lankarani-nikravesh"
    # elastic law: hertz-sphere | johnson-cylinder | liu-conformal (core/contact_stiffness.py)
    stiffness_model: str = "hertz-sphere"
    # L, the pin's bearing length [mm]: the one length of the joint (design.md 4.15), read by
    # the cylindrical stiffness models and the oil film
    axial_length_mm: float = 10.0
    # the oil film (design.md 4.11): none | short-bearing | long-bearing | finite
    lubrication: str = "none"
    # the oil's dynamic viscosity mu [Pa s], read only when lubricated: by default an engine
    # oil near its running temperature (SAE 30 at 40 C: ~0.1 Pa s)
    viscosity_pa_s: float = 0.1
    restitution: float = 0.9  # coefficient of restitution cr, (0, 1]
    exponent: float = 1.5  # n of K delta^n
    youngs_modulus: float = 207e9  # both bodies [Pa]
    poisson_ratio: float = 0.3
    impact_damping: float = 0.0  # IMPACT law c_max [N s/m]
    impact_depth: float = 1e-6  # IMPACT law damping ramp depth d [m]
    friction_law: str = "coulomb-tanh"
    friction: float = 0.01  # dynamic friction coefficient mu
    static_friction: float = 0.0  # mu_s (adams law)
    friction_velocity: float = 1e-4  # v0 [m/s]
    friction_velocity_full: float = 1e-3  # v1 [m/s] (ambrosio, adams)
    speed_rpm: float = 5000.0  # crank speed
    drive: str = "speed"  # speed: constant-speed driver; free: crank starts at speed, free
    crank_angle_deg: float = 0.0  # start angle
    gravity: float = 9.81  # [m/s^2] along -y
    t_end: float = 0.0  # [s]; 0: until the section settles (or max_revolutions)
    ideal: bool = False  # the clearance joint as an ideal revolute (the twin)
    # centred journal at full speed (Flores), resting on the wall along the reaction at full
    # speed (seed 002), or run-up: at rest on the wall, the driver ramping up from standstill.
    # The default is measured (README, "The settled motion"): from the centred start the
    # reference mechanism's section settles in 10 / 41 / 38 revolutions at c = 0.02 / 0.05 /
    # 0.1 mm; from the wall and run-up starts the journal keeps sliding slowly round the
    # bearing and none of the three settles within 80 revolutions (5-15x the cost). The
    # centred start's artificial impact now only sets peak_slider_accel_startup, not the
    # settled headline; `starts` shows where the other starts settle elsewhere.
    initial: str = "centred"
    run_up_revolutions: float = 2.0  # crank revolutions of the run-up ramp
    max_revolutions: int = MAX_REVOLUTIONS  # the cap of a run of adaptive length
    # revolutions before the settled window; 0: found
    transient_revolutions: int = option_default("transient_revolutions")
    settle_tolerance: float = SETTLE_TOLERANCE  # of the clearance: the section's periodicity
    # other starts to run the case from as well ("wall,run-up", or "all"): the spread of the
    # settled motion between them (start_spread, start_dependent)
    starts: str = ""
    # CASE_OPTIONS, handed to SolverOptions as they are (defaults and units there)
    integrator: str = option_default("integrator")
    rtol: float = option_default("rtol")
    atol: float = option_default("atol")  # positions [m]; velocities get atol / 1e-3 s
    max_step: float = option_default("max_step")  # [s]
    contact_max_step: float = option_default("contact_max_step")  # [s], in contact (seed 002)
    initial_step: float = option_default("initial_step")  # [s]
    event_location: str = option_default("event_location")  # root | bisect (seed 003)
    stabilization: str = option_default("stabilization")  # projection | baumgarte | none
    baumgarte_alpha: float = option_default("baumgarte_alpha")  # [1/s]
    baumgarte_beta: float = option_default("baumgarte_beta")  # [1/s]
    # stored samples on a uniform grid (metrics use every step); a run until settled keeps
    # (n_output - 1) / 4 a revolution over its first and its last 32 revolutions
    n_output: int = option_default("n_output")
    refine_peaks: bool = option_default("refine_peaks")
    # wear over the joint's life (design.md 4.12, core/wear.py): Archard's k_D [m²/N] (0: no
    # wear), the life in crank revolutions (no default: required with k_D), the profile
    # updates over it and the points of the bearing's profile
    wear_coefficient_m2_per_n: float = 0.0
    wear_cycles: float = 0.0
    wear_steps: int = 20
    wear_nodes: int = 360

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any]) -> SliderCrankCase:
        """Build and validate a case from names and values (strings are parsed)."""
        known = {f.name: f for f in fields(cls)}
        kwargs: dict[str, Any] = {}
        for name, raw in values.items():
            if name not in known:
                raise InputError("parameter", name, "one of: " + ", ".join(sorted(known)))
            kwargs[name] = _coerce(name, raw, known[name].type, getattr(cls, name))
        case = cls(**kwargs)
        case.validate()
        return case

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready dict of every field."""
        return fields_dict(self)

    def overrides(self) -> dict[str, Any]:
        """Only the fields that differ from the defaults."""
        base = SliderCrankCase().to_dict()
        return {k: v for k, v in self.to_dict().items() if v != base[k]}

    def replace(self, **changes: Any) -> SliderCrankCase:
        case = dataclasses.replace(self, **changes)
        case.validate()
        return case

    @property
    def omega(self) -> float:
        """Crank speed [rad/s]."""
        return self.speed_rpm * 2.0 * math.pi / 60.0

    @property
    def period(self) -> float:
        """One crank revolution [s]."""
        return 2.0 * math.pi / abs(self.omega)

    def validate(self) -> None:
        """Raise :class:`InputError` naming the first field outside its allowed range."""
        _choice("template", self.template, TEMPLATES)
        _choice("contact_law", self.contact_law, tuple(CONTACT_LAWS))
        _choice("friction_law", self.friction_law, tuple(FRICTION_LAWS))
        _choice("initial", self.initial, INITIAL)
        _choice("drive", self.drive, DRIVE)
        rb = _positive("bearing_radius_mm", self.bearing_radius_mm)
        c = require_finite("clearance_mm", self.clearance_mm)
        if not 0.0 < c < rb:
            raise InputError(
                "clearance_mm", self.clearance_mm, f"> 0 and < bearing radius {rb:g} mm"
            )
        _positive("stiffness_scale", self.stiffness_scale)
        if require_finite("stiffness", self.stiffness) < 0.0:
            raise InputError("stiffness", self.stiffness, "> 0 N/m^1.5, or 0 for computed")
        _choice("stiffness_model", self.stiffness_model, tuple(STIFFNESS_MODELS))
        length = require_finite("axial_length_mm", self.axial_length_mm)
        if length <= 0.0:
            raise InputError("axial_length_mm", self.axial_length_mm, "> 0 mm")
        _choice("lubrication", self.lubrication, tuple(LUBRICATION))
        if not require_finite("viscosity_pa_s", self.viscosity_pa_s) > 0.0:
            raise InputError("viscosity_pa_s", self.viscosity_pa_s, "> 0 Pa s")
        r = require_finite("restitution", self.restitution)
        if not 0.0 < r <= 1.0:
            raise InputError("restitution", self.restitution, "in (0, 1]")
        _positive("exponent", self.exponent)
        sphere_only_fields(self.stiffness_model, self.stiffness, self.exponent)
        _positive("youngs_modulus", self.youngs_modulus)
        nu = require_finite("poisson_ratio", self.poisson_ratio)
        if not -1.0 < nu < 0.5:
            raise InputError("poisson_ratio", self.poisson_ratio, "in (-1, 0.5)")
        for name in ("impact_damping", "friction", "static_friction"):
            if require_finite(name, getattr(self, name)) < 0.0:
                raise InputError(name, getattr(self, name), ">= 0")
        _positive("impact_depth", self.impact_depth)
        v0 = _positive("friction_velocity", self.friction_velocity)
        if _positive("friction_velocity_full", self.friction_velocity_full) <= v0:
            raise InputError(
                "friction_velocity_full",
                self.friction_velocity_full,
                f"> friction_velocity = {v0:g} m/s",
            )
        _positive("speed_rpm", self.speed_rpm)
        runup = require_finite("run_up_revolutions", self.run_up_revolutions)
        if not 0.0 < runup <= 100.0:
            raise InputError("run_up_revolutions", self.run_up_revolutions, "in (0, 100]")
        if not 2 <= self.max_revolutions <= 10_000:
            raise InputError("max_revolutions", self.max_revolutions, "an integer in [2, 10000]")
        if self.initial == "run-up" and self.max_revolutions <= 2 * runup + 8:
            raise InputError(
                "max_revolutions",
                self.max_revolutions,
                f"> 2 x run_up_revolutions + 8 = {2 * runup + 8:g} (the run-up takes "
                "2 x run_up_revolutions periods, the settling test 8 more)",
            )
        if not 0 <= self.transient_revolutions < self.max_revolutions:
            raise InputError(
                "transient_revolutions",
                self.transient_revolutions,
                f"an integer in [0, max_revolutions = {self.max_revolutions}) (0: found)",
            )
        if not 0.0 <= require_finite("t_end", self.t_end) <= 100.0:
            raise InputError("t_end", self.t_end, T_END_ALLOWED)
        if self.adaptive and self.max_revolutions * self.period > 100.0:
            allowed = f"<= {math.floor(100.0 / self.period)} at {self.speed_rpm:g} rpm (100 s)"
            raise InputError("max_revolutions", self.max_revolutions, allowed)
        for start in self.other_starts():
            if start not in INITIAL:
                allowed = "a comma-separated list of " + ", ".join(INITIAL) + ", or all"
                raise InputError("starts", self.starts, allowed)
        tol = require_finite("settle_tolerance", self.settle_tolerance)
        if not 0.0 < tol < 1.0:
            raise InputError("settle_tolerance", self.settle_tolerance, "in (0, 1) of c")
        require_finite("crank_angle_deg", self.crank_angle_deg)
        if require_finite("gravity", self.gravity) < 0.0:
            raise InputError("gravity", self.gravity, ">= 0 (it acts along -y)")
        if not 2 <= self.n_output <= 1_000_000:
            raise InputError("n_output", self.n_output, "an integer in [2, 1000000]")
        if self.adaptive and self.output_rows > 1_000_000:
            # the ring of SPECTRUM_REVOLUTIONS revolutions at (n_output - 1) / 4 a revolution
            most = 4 * (1_000_000 - 1) // (1 + min(SPECTRUM_REVOLUTIONS, self.max_revolutions)) + 1
            raise InputError("n_output", self.n_output, f"in [2, {most}] for a run until settled")
        self.wear.validate()
        self.solver_options().validate()
        if self.integrator == "rosenbrock23" and not self.ideal:
            raise InputError("integrator", self.integrator, ROSENBROCK_CONTACT)

    @property
    def wear(self) -> WearParams:
        """The joint's wear settings."""
        return WearParams(self.wear_coefficient_m2_per_n, self.wear_cycles, self.wear_steps,
                          self.wear_nodes)

    def other_starts(self) -> tuple[str, ...]:
        """The starts of ``starts`` other than ``initial`` (``all``: every start)."""
        text = self.starts.strip()
        names = INITIAL if text == "all" else [s.strip() for s in text.split(",") if s.strip()]
        return tuple(dict.fromkeys(s for s in names if s != self.initial))

    @property
    def ramp_time(self) -> float:
        """Duration of the run-up [s] (0 for the other starts): the speed ramp turns the crank
        ``run_up_revolutions`` times in twice as many periods (:func:`driver_motion`)."""
        return 2.0 * self.run_up_revolutions * self.period if self.initial == "run-up" else 0.0

    @property
    def adaptive(self) -> bool:
        """No ``t_end``: the run lasts until its section settles, up to ``max_revolutions``.
        A free crank (``drive="free"``) has no driver period to take sections at: without
        ``t_end`` it runs two revolutions at its starting speed, as before."""
        return self.t_end == 0.0 and self.drive == "speed"

    def solver_options(self) -> SolverOptions:
        """The integration settings of this case; ``_steady`` is the last crank revolution.

        Adaptive runs store ``(n_output - 1) / 4`` samples a revolution: the first
        revolution, then a ring of the last :data:`SPECTRUM_REVOLUTIONS` (memory bounded
        whatever the length: :meth:`output_rows` rows); the metrics are taken at every step
        regardless.
        """
        if self.adaptive:
            period = self.period
            per_rev = self.samples_per_revolution
            return replace(
                self._options(self.max_revolutions * period, 0.0),
                stop_when_settled=True,
                settle_from=math.ceil(self.ramp_time / period - 1e-9) or 1,
                output_step=period / per_rev,
                n_output=self.output_rows,
                # the ring: the last whole revolutions, both ends
                output_head=per_rev,
            )
        t_end = self.t_end if self.t_end > 0.0 else 2.0 * self.period
        t_steady = t_end - self.period if t_end > self.period else 0.0
        return self._options(t_end, t_steady)

    @property
    def samples_per_revolution(self) -> int:
        """Output samples a crank revolution of an adaptive run: ``(n_output - 1) / 4``."""
        return max((self.n_output - 1) // SAMPLES_PER_REVOLUTION_DIVISOR, 1)

    @property
    def output_rows(self) -> int:
        """Rows of the output grid an adaptive run holds (its memory bound): the first
        revolution and a ring of ``min(SPECTRUM_REVOLUTIONS, max_revolutions)`` whole
        revolutions, both ends; ``n_output`` for a run of fixed length."""
        if not self.adaptive:
            return self.n_output
        ring = min(SPECTRUM_REVOLUTIONS, self.max_revolutions)
        return self.samples_per_revolution * (1 + ring) + 1

    def _options(self, t_end: float, t_steady: float) -> SolverOptions:
        return SolverOptions(
            t_end=t_end,
            t_steady=t_steady,
            period=self.period if self.drive == "speed" else 0.0,  # sections need a driver
            settle_tolerance=self.settle_tolerance,
            section_length=self.clearance_mm * 1e-3,
            transient_revolutions=self.transient_revolutions,
            **case_options(self),
        )


def _positive(name: str, value: float) -> float:
    x = require_finite(name, value)
    if x <= 0.0:
        raise InputError(name, value, "> 0")
    return x


def _choice(name: str, value: str, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        raise InputError(name, value, "one of " + ", ".join(allowed))


def _coerce(name: str, raw: Any, annotation: Any, default: Any) -> Any:
    """Parse ``raw`` to the type of the field's default, naming the field on failure."""
    kind = type(default)
    if kind is bool:
        if isinstance(raw, bool):
            return raw
        text = str(raw).strip().lower()
        if text in ("1", "true", "yes", "on"):
            return True
        if text in ("0", "false", "no", "off"):
            return False
        raise InputError(name, raw, "true or false")
    if kind is int:
        try:
            value = float(raw)
        except (TypeError, ValueError):
            raise InputError(name, raw, "an integer") from None
        if not value.is_integer():
            raise InputError(name, raw, "an integer")
        return int(value)
    if kind is float:
        if isinstance(raw, bool):
            raise InputError(name, raw, "a number")
        try:
            return float(raw)
        except (TypeError, ValueError):
            raise InputError(name, raw, "a number") from None
    return str(raw)
