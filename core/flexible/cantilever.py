"""Seed 001's case: a uniform ANCF beam bending under its own weight (and a tip load).

:class:`CantileverCase` holds the inputs (SI; defaults are seed 001's steel beam),
:func:`simulate_cantilever` runs the static Newton solve and the explicit dynamic run from the
straight beam at rest and returns a :class:`CaseResult` (model ``"cantilever"``).

Metrics: ``tip_deflection_static`` [m, downward positive] under gravity + tip load;
``tip_deflection_mean`` (averaged over whole periods of the first mode) and
``tip_deflection_max`` [m] from the dynamic run; ``tip_shortening_static`` [m] the static
horizontal displacement of the tip towards the root; ``first_frequency_hz`` from the period of the
dynamic tip motion (mean-level up-crossings, linearly interpolated; ``first_frequency_linear_hz``
is the generalized eigenvalue of the system linearised about the static state, for
comparison); ``energy_drift`` (max |E(t) - E(0)| / peak strain energy); ``stable_dt`` [s];
``wall_time_s``. With a supported tip (``boundary`` ``clamped-pinned`` or ``pinned-pinned``)
"tip" means the mid-span node, where the tip load then acts.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, fields, replace
from typing import Any

import numpy as np
import scipy.linalg

from ..convergence import ConvergenceStudy, refinement_study
from ..errors import InputError, require_finite, require_positive, require_range
from ..result import CaseResult
from .ancf_beam import AncfBeam, deformed_shape
from .central_difference import Trajectory, integrate, stable_time_step
from .statics import solve_static

BOUNDARIES = ("clamped", "clamped-pinned", "pinned-pinned")
MASS_KINDS = ("consistent", "lumped")
AUTO_DT_FRACTION = 0.9  # of the stable step, when dt is not given
SHAPE_POINTS = 101
STATIC_METRICS = ("tip_deflection_static",)


@dataclass(frozen=True)
class CantileverCase:
    """One beam case. Lengths [m], modulus [Pa], density [kg/m^3], gravity [m/s^2] (acting
    in -y), ``tip_load`` [N] downward, times [s]; ``dt=None`` picks 0.9 x the stable step.
    ``damping_time``: Kelvin-Voigt retardation time [s] (0 = undamped). ``shape_times``:
    times [s] at which the deformed shape is returned (empty: 5 times spread over the run)."""

    length: float = 1.0
    width: float = 0.05
    height: float = 0.01
    youngs_modulus: float = 2.1e11
    density: float = 7850.0
    gravity: float = 9.81
    tip_load: float = 0.0
    elements: int = 10
    dt: float | None = None
    t_end: float = 0.5
    gauss_points: int = 5
    mass: str = "consistent"
    damping_time: float = 0.0
    boundary: str = "clamped"
    output_interval: float = 1e-4
    shape_times: tuple[float, ...] = ()

    def __post_init__(self) -> None:
        for name in ("length", "width", "height", "youngs_modulus", "density", "t_end"):
            require_positive(name, getattr(self, name))
        require_positive("output_interval", self.output_interval)
        require_finite("gravity", self.gravity)
        require_finite("tip_load", self.tip_load)
        require_range("damping_time", self.damping_time, 0.0, math.inf, high_open=True)
        if not isinstance(self.elements, int) or not 1 <= self.elements <= 1000:
            raise InputError("elements", self.elements, "an integer in [1, 1000]")
        if not isinstance(self.gauss_points, int) or not 1 <= self.gauss_points <= 10:
            raise InputError("gauss_points", self.gauss_points, "an integer in [1, 10]")
        if self.mass not in MASS_KINDS:
            raise InputError("mass", self.mass, "one of: " + ", ".join(MASS_KINDS))
        if self.boundary not in BOUNDARIES:
            raise InputError("boundary", self.boundary, "one of: " + ", ".join(BOUNDARIES))
        if self.boundary != "clamped" and self.elements % 2:
            raise InputError("elements", self.elements, f"even with boundary {self.boundary}")
        if self.height > self.length / 4 or self.width > self.length / 4:
            raise InputError(
                "height" if self.height > self.width else "width",
                max(self.height, self.width),
                f"<= length / 4 = {self.length / 4:g} m",
                "a stubby beam needs shear deformation, which this element does not have",
            )
        for t in self.shape_times:
            require_range("shape_times", t, 0.0, self.t_end)
        if self.dt is not None:
            require_positive("dt", self.dt)
            limit = self.stable_dt()
            if self.dt > limit:
                raise InputError(
                    "dt", self.dt, f"<= {limit:.4g} s", "central-difference stable step"
                )

    @classmethod
    def from_mapping(cls, values: Mapping[str, object]) -> CantileverCase:
        """Build a case from user input (strings allowed); unknown names raise InputError."""
        return cls(**parse_fields(cls, values))

    def beam(self) -> AncfBeam:
        area = self.width * self.height
        return AncfBeam(
            self.length,
            area,
            self.width * self.height**3 / 12.0,
            self.youngs_modulus,
            self.density,
            self.elements,
            self.gauss_points,
            self.damping_time,
        )

    def free_coordinates(self) -> np.ndarray:
        """Indices of the integrated coordinates: a clamped node loses 4, a pinned node 2."""
        n = 4 * (self.elements + 1)
        fixed = [0, 1, 2, 3] if self.boundary.startswith("clamped") else [0, 1]
        if self.boundary.endswith("pinned"):
            fixed += [n - 4, n - 3]
        return np.setdiff1d(np.arange(n), fixed)

    def monitor_node(self) -> int:
        return self.elements if self.boundary == "clamped" else self.elements // 2

    def stable_dt(self) -> float:
        """The central-difference stable step [s] of this mesh (linearised, unloaded)."""
        beam = self.beam()
        q0 = beam.reference_coordinates()
        return stable_time_step(beam, q0, self.free_coordinates(), beam.mass_matrix(self.mass))

    def params(self) -> dict[str, Any]:
        out = asdict(self)
        out["shape_times"] = list(self.shape_times)
        return out


def parse_fields(cls: type, values: Mapping[str, object]) -> dict[str, Any]:
    """Convert user strings to the types of ``cls``'s fields; unknown names raise InputError.

    Shared by the flexible models' ``from_mapping``: numbers must be finite, integers whole,
    booleans one of true/false/1/0/yes/no, tuples comma-separated numbers, ``dt`` may be
    ``auto``.
    """
    known = {f.name: f for f in fields(cls)}
    out: dict[str, Any] = {}
    for name, raw in values.items():
        if name not in known:
            raise InputError(name, raw, "one of: " + ", ".join(known))
        default = known[name].default
        kind = str(known[name].type)
        out[name] = _convert(name, raw, default, kind)
    return out


def _convert(name: str, raw: object, default: object, kind: str) -> Any:
    text = raw.strip() if isinstance(raw, str) else raw
    if kind.startswith("bool"):
        if isinstance(text, bool):
            return text
        word = str(text).lower()
        if word in ("true", "1", "yes", "on"):
            return True
        if word in ("false", "0", "no", "off"):
            return False
        raise InputError(name, raw, "true or false")
    if kind.startswith("int"):
        x = require_finite(name, text)
        if x != int(x):
            raise InputError(name, raw, "a whole number")
        return int(x)
    if kind.startswith("float | None"):
        if text is None or str(text).lower() in ("auto", "none", ""):
            return None
        return require_finite(name, text)
    if kind.startswith("float"):
        return require_finite(name, text)
    if kind.startswith("tuple"):
        items = text.split(",") if isinstance(text, str) else text
        if not isinstance(items, Sequence):
            raise InputError(name, raw, "comma-separated numbers")
        return tuple(require_finite(name, x) for x in items if str(x).strip())
    if kind.startswith("str"):
        return str(text)
    return text  # pragma: no cover - every field type is handled above


def _up_crossings(t: np.ndarray, x: np.ndarray, level: float) -> np.ndarray:
    """Times [s] where ``x`` crosses ``level`` upwards, linearly interpolated."""
    s = x - level
    k = np.nonzero((s[:-1] < 0.0) & (s[1:] >= 0.0))[0]
    return t[k] - s[k] * (t[k + 1] - t[k]) / (s[k + 1] - s[k])


def tip_motion_metrics(t: np.ndarray, deflection: np.ndarray) -> tuple[float, float]:
    """(first frequency [Hz], mean deflection [m]) of a tip history, shapes (m,).

    The period is the mean spacing of mean-level up-crossings (needs two); the mean is
    taken over the whole periods between the first and last crossing, so an unfinished
    cycle does not bias it. Falls back to (nan, plain mean) with fewer than two crossings.
    """
    level = 0.5 * (deflection.max() + deflection.min())
    ups = _up_crossings(t, deflection, level)
    if ups.size < 2:
        return math.nan, float(np.mean(deflection))
    period = (ups[-1] - ups[0]) / (ups.size - 1)
    inside = (t >= ups[0]) & (t <= ups[-1])
    tt = np.concatenate(([ups[0]], t[inside], [ups[-1]]))
    xx = np.concatenate(([level], deflection[inside], [level]))
    mean = float(np.sum(0.5 * (xx[1:] + xx[:-1]) * np.diff(tt)) / (tt[-1] - tt[0]))
    return 1.0 / period, mean


def linear_first_frequency(
    beam: AncfBeam, q: np.ndarray, free: np.ndarray, mass: np.ndarray
) -> float:
    """Lowest natural frequency [Hz] of the mesh linearised about ``q``."""
    k = beam.stiffness(q)[np.ix_(free, free)]
    k = 0.5 * (k + k.T)
    lam = scipy.linalg.eigh(k, mass[np.ix_(free, free)], eigvals_only=True, subset_by_index=[0, 0])
    return float(math.sqrt(max(lam[0], 0.0)) / (2.0 * math.pi))


def simulate_cantilever(case: CantileverCase, *, dynamic: bool = True) -> CaseResult:
    """Static solve and (if ``dynamic``) the explicit run of ``case``; see the module doc."""
    start = time.perf_counter()
    beam = case.beam()
    q0 = beam.reference_coordinates()
    free = case.free_coordinates()
    node = case.monitor_node()
    f_ext = beam.gravity_load((0.0, -case.gravity)) + beam.point_load(node, (0.0, -case.tip_load))
    static = solve_static(beam, q0, free, f_ext)
    watch = 4 * node + 1
    metrics: dict[str, float | int] = {
        "tip_deflection_static": float(q0[watch] - static.q[watch]),
        "tip_shortening_static": float(q0[watch - 1] - static.q[watch - 1]),
        "static_iterations": static.iterations,
    }
    series: dict[str, np.ndarray] = {}
    if dynamic:
        mass = beam.mass_matrix(case.mass)
        stable = stable_time_step(beam, q0, free, mass)
        dt = AUTO_DT_FRACTION * stable if case.dt is None else case.dt
        traj = integrate(
            beam, q0, free, f_ext, dt=dt, t_end=case.t_end, mass=case.mass,
            output_interval=case.output_interval, watch=watch, stable_dt=stable,
        )  # fmt: skip
        deflection = q0[watch] - traj.q[:, watch]
        freq, mean = tip_motion_metrics(traj.t, deflection)
        strain = traj.axial + traj.bending
        total = traj.total
        metrics.update(
            tip_deflection_mean=mean,
            tip_deflection_max=float(q0[watch] - traj.watch_min),
            first_frequency_hz=float(freq),
            first_frequency_linear_hz=linear_first_frequency(beam, static.q, free, mass),
            energy_drift=float(np.max(np.abs(total - total[0])) / max(strain.max(), 1e-300)),
            dt=dt,
            stable_dt=stable,
            steps=int(round(case.t_end / dt)),
        )
        series = _series(case, traj, watch)
    metrics["wall_time_s"] = time.perf_counter() - start
    return CaseResult("cantilever", case.params(), metrics, series)


def _series(case: CantileverCase, traj: Trajectory, watch: int) -> dict[str, np.ndarray]:
    """Time series (sharing ``t``), deformed shapes and the tip spectrum (names say so)."""
    series = {
        "t": traj.t,
        "tip_x": traj.q[:, watch - 1],
        "tip_y": traj.q[:, watch],
        "energy_kinetic": traj.kinetic,
        "energy_axial": traj.axial,
        "energy_bending": traj.bending,
        "energy_potential": traj.potential,
        "energy_total": traj.total,
        "energy_drift": traj.total - traj.total[0],
    }
    times = case.shape_times or tuple(np.linspace(0.0, case.t_end, 5))
    frames = np.clip(np.searchsorted(traj.t, times), 0, traj.t.size - 1)
    series["shape_times"] = traj.t[frames]
    for k, i in enumerate(frames):
        shape = deformed_shape(traj.q[i], SHAPE_POINTS, case.length)
        series[f"shape_x_{k}"] = shape[:, 0]
        series[f"shape_y_{k}"] = shape[:, 1]
    if traj.t.size >= 8:
        from ..spectra import amplitude_spectrum

        spec = amplitude_spectrum(traj.t, traj.q[:, watch])
        series["spectrum_frequency_hz"] = spec.frequency_hz
        series["spectrum_tip_y_amplitude"] = spec.amplitude
    return series


def mesh_convergence(
    case: CantileverCase,
    element_counts: Sequence[int] = (10, 20, 40),
    metric: str = "tip_deflection_static",
    tolerance: float = 0.01,
) -> ConvergenceStudy:
    """Run ``case`` at each element count and report the metric's changes and observed order.

    A static metric runs only the static solve; any other metric runs the dynamic case too
    (with ``dt=None`` so each mesh gets its own stable step).
    """
    dynamic = metric not in STATIC_METRICS
    values = []
    for n in element_counts:
        res = simulate_cantilever(replace(case, elements=int(n), dt=None), dynamic=dynamic)
        if metric not in res.metrics:
            raise InputError("metric", metric, "one of: " + ", ".join(res.metrics))
        values.append(float(res.metrics[metric]))
    return refinement_study(element_counts, values, tolerance=tolerance)


def time_step_convergence(
    case: CantileverCase,
    dts: Sequence[float] | None = None,
    metric: str = "tip_deflection_max",
    tolerance: float = 0.01,
) -> ConvergenceStudy:
    """Run the dynamic ``case`` at each step ``dts`` [s] (default: the auto step, /2, /4)."""
    if dts is None:
        base = AUTO_DT_FRACTION * case.stable_dt()
        dts = (base, base / 2.0, base / 4.0)
    values = []
    for dt in dts:
        res = simulate_cantilever(replace(case, dt=float(dt)))
        if metric not in res.metrics:
            raise InputError("metric", metric, "one of: " + ", ".join(res.metrics))
        values.append(float(res.metrics[metric]))
    return refinement_study(dts, values, tolerance=tolerance)
