r"""The Flores slider-crank (design.md 1.3) with an ANCF connecting rod.

Crank rigid, driven at constant speed: the crank pin ``r_A(t) = r_c (cos wt, sin wt)`` is a
known function of time, so the rod's first node position is prescribed (eliminated, its known
acceleration enters as ``-M_fp a_A``) and its slope is free (ideal pin). The rod's last node
position is the centre of the small-end bearing (``R_B`` = 10 mm). The slider is a body with
``x`` free and ``y = 0``; its pin is the journal (``R_J = R_B - c``). With ``ideal=True`` the
rod end is pinned to the slider: its ``y`` is fixed at 0 and the slider mass joins its ``x``.
Minimal coordinates, constant mass matrix, no multipliers.

Rod section: solid steel square, side 14.93 mm (``A = 0.21 kg / (7850 kg/m^3 x 0.12 m)``),
which gives the rod's 0.21 kg and, as a rigid body, ``m L^2 / 12 = 2.52e-4 kg m^2`` about its
centre (design.md: 2.5e-4). ``youngs_modulus`` changes the rod's stiffness only; the contact
stiffness stays steel on steel (207 GPa, nu 0.3).

Integration: velocity Verlet (central differences in velocity form), one force evaluation
per step, compiled; the damping and contact laws see the predicted velocity
``v_{n+1/2} + dt/2 a_n``. The step (auto: the smaller of 0.9 x the rod's stable step, 0.8 x
with its Kelvin-Voigt damping, and 1/50 of the contact period ``2 pi sqrt(m_eff / k_lin)`` at
a penetration of c/10; see :meth:`FlexibleSliderCrankCase.step_limits`) is fixed, so
contact onset is resolved to one step; ``delta_dot0`` is captured at the first step in
contact, and metrics are taken at every step before the series are thinned to the output
interval. Slider acceleration comes from the equations of motion (the solved acceleration).

Start: crank angle 0, rod straight at its rigid-body velocities; with the clearance joint the
journal is centred and at rest relative to the bearing (so the free slider is hit ~0.1 ms in,
as in the rigid model); with the ideal joint the rod starts deformed quasi-statically under
the rigid motion's inertia loads (otherwise the suddenly loaded stiff rod rings at its axial
frequency with the full inertia amplitude).
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping
from dataclasses import asdict, dataclass

import numpy as np

from ..contact_laws import SHAPE_IMPACT, conformal_stiffness, get_contact_law
from ..errors import InputError, SolverError, require_positive, require_range
from ..friction_laws import get_friction_law
from ..result import CaseResult
from ..templates.slider_crank import FLORES
from .ancf_beam import AncfBeam, hermite
from .cantilever import parse_fields
from .central_difference import banded_cholesky, highest_frequency
from .flexible_crank_loop import METRICS, OUT_COLUMNS, crank_loop, stable_step
from .statics import solve_static

# the reference mechanism's links and masses (design.md 1.3), shared with the rigid template
CRANK_LENGTH = FLORES.crank_length  # m
ROD_LENGTH = FLORES.rod_length  # m
ROD_MASS = FLORES.rod_mass  # kg
SLIDER_MASS = FLORES.slider_mass  # kg
BEARING_RADIUS = 0.01  # m
STEEL_DENSITY = 7850.0  # kg/m^3
STEEL_MODULUS = 207e9  # Pa
STEEL_POISSON = 0.3
GRAVITY = 9.81  # m/s^2, along -y
ROD_SIDE = math.sqrt(ROD_MASS / (STEEL_DENSITY * ROD_LENGTH))  # 14.93 mm square
CONTACT_STEPS = 50  # steps per contact period


@dataclass(frozen=True)
class FlexibleSliderCrankCase:
    """One case. ``clearance_mm`` c [mm]; ``stiffness_scale`` multiplies the computed K;
    ``restitution`` cr; ``friction`` mu; ``friction_velocity`` v0 and
    ``friction_velocity_full`` v1 [m/s]; ``static_friction`` (ADAMS law); ``speed_rpm``;
    ``t_end`` [s]; ``elements`` of the rod; ``youngs_modulus`` of the rod [Pa];
    ``damping_time`` Kelvin-Voigt eta of the rod [s]; ``damping_max`` [N s/m] and
    ``damping_depth`` [m] of the IMPACT law; ``dt`` [s] (None: automatic);
    ``output_interval`` [s] of the stored series."""

    clearance_mm: float = 0.5
    stiffness_scale: float = 1.0
    restitution: float = 0.9
    friction: float = 0.01
    friction_velocity: float = 1e-4
    friction_velocity_full: float = 1e-3
    static_friction: float = 0.0
    speed_rpm: float = 5000.0
    t_end: float = 0.024
    elements: int = 4
    youngs_modulus: float = STEEL_MODULUS
    damping_time: float = 0.0
    ideal: bool = False
    contact_law: str = "lankarani-nikravesh"
    friction_law: str = "coulomb-tanh"
    damping_max: float = 0.0
    damping_depth: float = 1e-6
    gauss_points: int = 5
    dt: float | None = None
    output_interval: float = 1e-5

    def __post_init__(self) -> None:
        require_range(
            "clearance_mm",
            self.clearance_mm,
            0.0,
            1e3 * BEARING_RADIUS,
            low_open=True,
            high_open=True,
        )
        for name in (
            "stiffness_scale",
            "speed_rpm",
            "t_end",
            "youngs_modulus",
            "friction_velocity",
            "friction_velocity_full",
            "damping_depth",
            "output_interval",
        ):
            require_positive(name, getattr(self, name))
        require_range("restitution", self.restitution, 0.0, 1.0, low_open=True)
        for name in ("friction", "static_friction", "damping_max", "damping_time"):
            require_range(name, getattr(self, name), 0.0, math.inf, high_open=True)
        if not isinstance(self.elements, int) or not 1 <= self.elements <= 50:
            raise InputError("elements", self.elements, "an integer in [1, 50]")
        if not isinstance(self.gauss_points, int) or not 1 <= self.gauss_points <= 10:
            raise InputError("gauss_points", self.gauss_points, "an integer in [1, 10]")
        if not isinstance(self.ideal, bool):
            raise InputError("ideal", self.ideal, "true or false")
        get_contact_law(self.contact_law)
        get_friction_law(self.friction_law)
        if self.dt is not None:
            require_positive("dt", self.dt)
            limit = self.step_limits()
            if self.dt > min(limit):
                raise InputError(
                    "dt",
                    self.dt,
                    f"<= {min(limit):.4g} s",
                    f"rod stable step {limit[0]:.4g} s, contact limit {limit[1]:.4g} s",
                )

    @classmethod
    def from_mapping(cls, values: Mapping[str, object]) -> FlexibleSliderCrankCase:
        """Build a case from user input (strings allowed); unknown names raise InputError."""
        return cls(**parse_fields(cls, values))

    @property
    def clearance(self) -> float:
        return 1e-3 * self.clearance_mm

    @property
    def omega(self) -> float:
        return self.speed_rpm * 2.0 * math.pi / 60.0

    def beam(self) -> AncfBeam:
        area = ROD_SIDE**2
        return AncfBeam(
            ROD_LENGTH,
            area,
            ROD_SIDE**4 / 12.0,
            self.youngs_modulus,
            STEEL_DENSITY,
            self.elements,
            self.gauss_points,
            self.damping_time,
        )

    def contact_stiffness(self) -> float:
        """K [N/m^1.5]: steel on steel, R_B = 10 mm, times ``stiffness_scale``."""
        k = conformal_stiffness(
            BEARING_RADIUS,
            self.clearance,
            STEEL_MODULUS,
            STEEL_POISSON,
            STEEL_MODULUS,
            STEEL_POISSON,
        )
        return self.stiffness_scale * k

    def free_coordinates(self) -> np.ndarray:
        """Integrated rod coordinates: all but the crank-pin position (and the end's y if ideal)."""
        n = 4 * (self.elements + 1)
        fixed = [0, 1, n - 3] if self.ideal else [0, 1]
        return np.setdiff1d(np.arange(n), fixed)

    def rod_mass_matrix(self, beam: AncfBeam) -> np.ndarray:
        m = beam.mass_matrix("consistent")
        if self.ideal:  # the slider rides on the rod end's x
            m[4 * self.elements, 4 * self.elements] += SLIDER_MASS
        return m

    def step_limits(self) -> tuple[float, float]:
        """(rod limit, contact limit) [s]; the auto step is 0.9 x the first (0.8 x when the rod
        is damped) and 2/5 of the second.

        The rod's is the loop's stable step on its stiffest mode with the Kelvin-Voigt
        damping ``eta omega^2`` (:func:`.flexible_crank_loop.stable_step`). The contact's is
        1/20 of the contact period ``2 pi sqrt(m_eff / k_lin)`` at a penetration of c/10,
        and for the IMPACT law also the stable step of that mode with ``c_max / m_eff``.
        """
        beam = self.beam()
        q0 = beam.reference_coordinates((CRANK_LENGTH, 0.0))
        omega = highest_frequency(beam, q0, self.free_coordinates(), self.rod_mass_matrix(beam))
        rod = stable_step(omega, beam.damping_time * omega**2)
        if self.ideal:
            return rod, math.inf
        end_mass = 0.5 * beam.mass_per_length * beam.element_length
        m_eff = SLIDER_MASS * end_mass / (SLIDER_MASS + end_mass)
        k_lin = 1.5 * self.contact_stiffness() * math.sqrt(0.1 * self.clearance)
        contact = 2.0 * math.pi * math.sqrt(m_eff / k_lin) / 20.0
        if get_contact_law(self.contact_law).shape == SHAPE_IMPACT and self.damping_max > 0.0:
            omega_c = math.sqrt(k_lin / m_eff)
            contact = min(contact, stable_step(omega_c, self.damping_max / m_eff))
        return rod, contact

    def time_step(self) -> float:
        if self.dt is not None:
            return self.dt
        rod, contact = self.step_limits()
        # Near a damped limit the stiffest mode, though stable, swings up at every impact:
        # eta = 1e-6 s gave an energy-balance error of 2.6e-4 at 0.9 x the limit, 1.6e-6 at 0.8 x.
        margin = 0.8 if self.damping_time > 0.0 else 0.9
        return min(margin * rod, contact * 20.0 / CONTACT_STEPS)


def rigid_rod_state(beam: AncfBeam, theta: float, omega: float) -> tuple[np.ndarray, ...]:
    """Rod coordinates, their rates and accelerations (n,) for a rigid rod at crank angle
    ``theta`` [rad] turning at ``omega`` [rad/s]; also the slider's (x, v, a)."""
    r, length = CRANK_LENGTH, ROD_LENGTH
    phi = math.asin(-r * math.sin(theta) / length)
    phid = -r * omega * math.cos(theta) / (length * math.cos(phi))
    phidd = (r * omega**2 * math.sin(theta) + length * phid**2 * math.sin(phi)) / (
        length * math.cos(phi)
    )
    c, s = math.cos(phi), math.sin(phi)
    pos_a = r * np.array([math.cos(theta), math.sin(theta)])
    vel_a = r * omega * np.array([-math.sin(theta), math.cos(theta)])
    acc_a = -r * omega**2 * np.array([math.cos(theta), math.sin(theta)])
    d_slope = phid * np.array([-s, c])
    dd_slope = phidd * np.array([-s, c]) - phid**2 * np.array([c, s])
    q = beam.reference_coordinates(tuple(pos_a), phi)
    v = np.zeros_like(q)
    a = np.zeros_like(q)
    for i, x in enumerate(np.linspace(0.0, length, beam.n_el + 1)):
        v[4 * i : 4 * i + 2] = vel_a + x * d_slope
        v[4 * i + 2 : 4 * i + 4] = d_slope
        a[4 * i : 4 * i + 2] = acc_a + x * dd_slope
        a[4 * i + 2 : 4 * i + 4] = dd_slope
    return q, v, a, (q[-4], v[-4], a[-4])


def simulate_flexible_slider_crank(case: FlexibleSliderCrankCase) -> CaseResult:
    """Run one case; see the module doc. Model ``"flexible-slider-crank"``.

    Metrics (SI): ``peak_slider_accel`` and ``rms_slider_accel`` [m/s^2],
    ``peak_contact_force`` [N], ``max_penetration`` [m], ``impacts`` (separation -> contact
    transitions), the same five with ``_steady`` over the last crank revolution,
    ``max_rod_deflection`` [m] (mid-span distance from the chord), ``energy_balance_error``
    (the largest |energy_residual| over every step / ``peak_kinetic_energy`` [J], as the rigid
    solver's), ``dt`` [s], ``steps``, ``wall_time_s``. Series (time base ``t``): the
    OUT_COLUMNS plus ``crank_angle``; energies [J]: ``energy_kinetic``, ``energy_strain``,
    ``energy_gravity``, ``energy_contact``, ``driver_work`` (work of the crank pin on the rod;
    the crank is not modelled, its kinetic energy is constant), ``damping_dissipation``
    (contact damping plus ``material_dissipation``, the rod's Kelvin-Voigt damping),
    ``friction_dissipation`` and ``energy_residual`` = their balance minus its initial value
    (see :mod:`.flexible_crank_loop`).
    """
    start = time.perf_counter()
    beam = case.beam()
    omega = case.omega
    free = case.free_coordinates()
    m_rod = case.rod_mass_matrix(beam)
    dt = case.time_step()
    q, v, a, (xs, vs, acc_s) = rigid_rod_state(beam, 0.0, omega)
    fg = beam.gravity_load((0.0, -GRAVITY))
    if case.ideal:
        # d'Alembert: the rod carries its own and the slider's rigid-motion inertia
        load = fg - m_rod @ a
        q = solve_static(beam, q, free, load).q
        u0, w0 = q[free], v[free]
        m_ff = m_rod[np.ix_(free, free)]
    else:
        u0 = np.append(q[free], xs)
        w0 = np.append(v[free], vs)
        m_ff = np.zeros((free.size + 1, free.size + 1))
        m_ff[:-1, :-1] = m_rod[np.ix_(free, free)]
        m_ff[-1, -1] = SLIDER_MASS
    mfp = np.ascontiguousarray(m_rod[np.ix_(free, [0, 1])])
    half = 0.5 * ROD_LENGTH / beam.element_length
    e_mid = min(int(half), beam.n_el - 1)
    mid = np.concatenate(([4.0 * e_mid], hermite(np.array([half - e_mid]), beam.element_length)[0]))
    law = get_contact_law(case.contact_law)
    contact = np.array(
        [
            law.shape,
            case.contact_stiffness(),
            1.5,
            law.chi(case.restitution),
            case.damping_max,
            case.damping_depth,
        ]
    )
    fric = np.array(
        [
            get_friction_law(case.friction_law).kind,
            case.friction,
            case.friction_velocity,
            case.friction_velocity_full,
            case.static_friction,
        ]
    )
    rod = np.array(
        [
            beam.n_el,
            beam.element_length,
            beam.axial_rigidity,
            beam.bending_rigidity,
            beam.damping_time,
            CRANK_LENGTH,
            SLIDER_MASS,
            BEARING_RADIUS,
            case.clearance,
            1.0 if case.ideal else 0.0,
        ]
    )
    gp, gw = beam.gauss()
    n_steps = max(1, int(round(case.t_end / dt)))
    out_every = max(1, int(round(case.output_interval / dt)))
    t_steady = max(0.0, n_steps * dt - 2.0 * math.pi / omega)
    status, t_fail, out, met = crank_loop(
        q,
        v,
        u0,
        w0,
        free,
        banded_cholesky(m_ff),
        m_rod,
        mfp,
        fg,
        mid,
        rod,
        gp,
        gw,
        contact,
        fric,
        omega,
        dt,
        n_steps,
        out_every,
        t_steady,
    )
    if status == 1:
        raise SolverError("flexible slider-crank state is no longer finite", t_fail)
    if status == 2:
        raise SolverError("journal passed through the bearing wall (penetration > c)", t_fail)
    metrics: dict[str, float | int] = {}
    for k, name in enumerate(METRICS):
        metrics[name] = float(met[k])
        metrics[name + "_steady"] = float(met[5 + k])
    metrics["impacts"] = int(met[4])
    metrics["impacts_steady"] = int(met[9])
    peak_ke = float(met[12])
    metrics.update(
        max_rod_deflection=float(met[10]),
        energy_balance_error=float(met[11]) / peak_ke if peak_ke > 0.0 else 0.0,
        peak_kinetic_energy=peak_ke,
        dt=dt,
        steps=n_steps,
    )
    t = np.arange(out.shape[0]) * out_every * dt
    series = {"t": t, "crank_angle": omega * t}
    series.update({name: out[:, c] for c, name in enumerate(OUT_COLUMNS)})
    metrics["wall_time_s"] = time.perf_counter() - start
    params = asdict(case)
    return CaseResult("flexible-slider-crank", params, metrics, series,
                      rotation_hz=abs(omega) / (2.0 * math.pi))


def rigid_slider_acceleration(t: np.ndarray, speed_rpm: float) -> np.ndarray:
    """Closed-form slider acceleration [m/s^2] of the rigid slider-crank at constant speed.

    ``x = r cos(th) + sqrt(L^2 - r^2 sin^2 th)``, ``th = omega t``, differentiated twice.
    """
    r, length = CRANK_LENGTH, ROD_LENGTH
    w = speed_rpm * 2.0 * math.pi / 60.0
    th = w * np.asarray(t, dtype=float)
    s2 = np.sin(th) ** 2
    root = np.sqrt(length**2 - r**2 * s2)
    c2 = np.cos(2.0 * th)
    sin2 = np.sin(2.0 * th)
    return (
        -r * w**2 * np.cos(th)
        - (r**2 * w**2 * c2) / root
        - (r**4 * w**2 * sin2**2) / (4.0 * root**3)
    )


__all__ = [
    "FlexibleSliderCrankCase",
    "rigid_slider_acceleration",
    "simulate_flexible_slider_crank",
]
