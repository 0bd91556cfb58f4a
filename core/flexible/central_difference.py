r"""Explicit central differences for the ANCF beam (design.md 1.5, seed 001).

``q_{n+1} = 2 q_n - q_{n-1} + dt^2 M_ff^{-1} (F_ext - F_int(q_n, v_{n-1/2}))`` on the free
coordinates only: the constrained coordinates (a clamped node's 4, a pinned node's 2) are
never integrated, they keep their initial values because no update ever writes them. The
constant mass matrix is factorised once (banded Cholesky, half-bandwidth <= 7) and each step
costs two banded triangular solves. The run starts from a given state at rest or moving,
``q_{-1} = q_0 - dt v_0 + dt^2/2 a_0``.

Stability: undamped central differences are stable for ``dt <= 2 / omega_max``, ``omega_max``
the highest natural angular frequency of the linearised mesh (``K_ff x = omega^2 M_ff x`` at
the reference state). For the cubic Hermite element that mode is axial and much stiffer than
the seed's ``L_e / sqrt(E / rho)`` estimate suggests: with the consistent mass the limit is
about ``L_e / (4.8 sqrt(E / rho))`` (4.05e-6 s for seed 001's 10 steel elements, so the
seed's 5e-6 s is unstable). :func:`stable_time_step` computes the exact linearised limit.

Energy is recorded every output step: kinetic ``1/2 v_n^T M v_n`` with the centred velocity
``v_n = (q_{n+1} - q_{n-1}) / (2 dt)``, axial and bending strain energy, and the potential
of the constant external load ``-F_ext . (q_n - q_0)`` (gravity and dead tip load).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.linalg

from ..errors import InputError, SolverError
from ..jit import kernel
from .ancf_beam import AncfBeam, internal_forces


def banded_cholesky(m: np.ndarray) -> np.ndarray:
    """Lower Cholesky factor of s.p.d. banded ``m`` (n, n) stored as ``Lb[i, k] = L[i, i-k]``.

    Returns shape (n, bw + 1), ``bw`` the half-bandwidth of ``m``; a banded matrix has no
    fill-in outside its band, so the band holds the whole factor.
    """
    rows, cols = np.nonzero(m)
    bw = int(np.max(np.abs(rows - cols))) if rows.size else 0
    low = np.linalg.cholesky(m)
    n = m.shape[0]
    band = np.zeros((n, bw + 1))
    for k in range(bw + 1):
        band[k:, k] = np.diagonal(low, -k)
    return band


@kernel
def band_solve(lb: np.ndarray, rhs: np.ndarray, out: np.ndarray) -> None:
    """Solve ``L L^T out = rhs`` with the banded factor ``lb`` from :func:`banded_cholesky`."""
    n, w = lb.shape
    for i in range(n):
        s = rhs[i]
        for k in range(1, min(w, i + 1)):
            s -= lb[i, k] * out[i - k]
        out[i] = s / lb[i, 0]
    for i in range(n - 1, -1, -1):
        s = out[i]
        for k in range(1, min(w, n - i)):
            s -= lb[i + k, k] * out[i + k]
        out[i] = s / lb[i, 0]


@kernel
def band_kinetic(lb: np.ndarray, v: np.ndarray) -> float:
    """``1/2 v^T M v = 1/2 |L^T v|^2`` [J] with the banded factor of M."""
    n, w = lb.shape
    total = 0.0
    for j in range(n):
        s = 0.0
        for k in range(min(w, n - j)):
            s += lb[j + k, k] * v[j + k]
        total += s * s
    return 0.5 * total


@kernel
def central_difference_loop(
    q0: np.ndarray,
    v0: np.ndarray,
    free: np.ndarray,
    lb: np.ndarray,
    f_ext: np.ndarray,
    n_el: int,
    le: float,
    ea: float,
    ei: float,
    eta: float,
    gp: np.ndarray,
    gw: np.ndarray,
    dt: float,
    n_steps: int,
    out_every: int,
    watch: int,
) -> tuple:
    """The compiled time loop; see :func:`integrate` for the meaning of the arguments.

    Returns ``(status, q_out, energies, watch_min, watch_max)``: ``status`` -1 when finished,
    else the step where the state stopped being finite; ``q_out`` (n_out, n) every
    ``out_every`` steps from step 0; ``energies`` (n_out, 4) kinetic, axial, bending, load
    potential [J]; the extremes of coordinate ``watch`` over every step.
    """
    n = q0.size
    nf = free.size
    n_out = n_steps // out_every + 1
    q_out = np.zeros((n_out, n))
    energies = np.zeros((n_out, 4))
    q = q0.copy()
    q_prev = q0.copy()
    q_next = q0.copy()
    vel = v0.copy()
    f = np.zeros(n)
    rhs = np.zeros(nf)
    acc = np.zeros(nf)
    vf = np.zeros(nf)
    wmin = q0[watch]
    wmax = q0[watch]
    internal_forces(q, vel, n_el, le, ea, ei, eta, gp, gw, f)
    for i in range(nf):
        rhs[i] = f_ext[free[i]] - f[free[i]]
    band_solve(lb, rhs, acc)
    for i in range(nf):
        j = free[i]
        q_prev[j] = q0[j] - dt * v0[j] + 0.5 * dt * dt * acc[i]
    for step in range(n_steps + 1):
        if eta != 0.0:  # damping sees the lagged velocity v_{n-1/2}: explicit, first order
            for i in range(nf):
                vel[free[i]] = (q[free[i]] - q_prev[free[i]]) / dt
        ua, ub = internal_forces(q, vel, n_el, le, ea, ei, eta, gp, gw, f)
        for i in range(nf):
            rhs[i] = f_ext[free[i]] - f[free[i]]
        band_solve(lb, rhs, acc)
        for i in range(nf):
            j = free[i]
            q_next[j] = 2.0 * q[j] - q_prev[j] + dt * dt * acc[i]
        if step % out_every == 0:
            k = step // out_every
            potential = 0.0
            for j in range(n):
                q_out[k, j] = q[j]
                potential -= f_ext[j] * (q[j] - q0[j])
            for i in range(nf):
                vf[i] = (q_next[free[i]] - q_prev[free[i]]) / (2.0 * dt)
            energies[k, 0] = band_kinetic(lb, vf)
            energies[k, 1] = ua
            energies[k, 2] = ub
            energies[k, 3] = potential
            if not np.isfinite(energies[k, 0] + ua + ub):
                return step, q_out, energies, wmin, wmax
        wmin = min(wmin, q[watch])
        wmax = max(wmax, q[watch])
        if step == n_steps:
            break
        for j in range(n):
            q_prev[j] = q[j]
            q[j] = q_next[j]
    return -1, q_out, energies, wmin, wmax


def highest_frequency(
    beam: AncfBeam, q_ref: np.ndarray, free: np.ndarray, mass: np.ndarray
) -> float:
    """``omega_max`` [rad/s], the top eigenvalue of ``K_ff x = omega^2 M_ff x`` of the mesh
    linearised at ``q_ref`` (one eigenvalue of a dense symmetric pencil: milliseconds up to
    a few hundred elements). ``free``: integrated coordinate indices; ``mass``: the full
    mass matrix (n, n)."""
    k = beam.stiffness(q_ref)[np.ix_(free, free)]
    k = 0.5 * (k + k.T)
    m = mass[np.ix_(free, free)]
    n = free.size
    lam = scipy.linalg.eigh(k, m, eigvals_only=True, subset_by_index=[n - 1, n - 1])[0]
    return float(np.sqrt(lam))


def stable_time_step(
    beam: AncfBeam, q_ref: np.ndarray, free: np.ndarray, mass: np.ndarray
) -> float:
    """Largest stable step ``2 / omega_max`` [s] of this loop on the undamped mesh linearised
    at ``q_ref`` (:func:`highest_frequency`).

    Kelvin-Voigt damping, which the loop applies with the lagged velocity ``v_{n-1/2}``, adds
    the condition ``eta omega^2 dt < 2`` (the amplification of ``q_{n+1} = (2 - W^2 - eta W^2
    / dt) q_n - (1 - eta W^2 / dt) q_{n-1}``, ``W = omega dt``): it damps the stiffest mode
    hardest, so it suits high-frequency noise, not the first mode.
    """
    omega = highest_frequency(beam, q_ref, free, mass)
    return 2.0 / omega * min(1.0, 1.0 / max(beam.damping_time * omega, 1e-300))


@dataclass(frozen=True, eq=False)
class Trajectory:
    """Output of :func:`integrate`, every ``out_every`` steps.

    ``t`` (n_out,) [s]; ``q`` (n_out, n) coordinates; ``kinetic``, ``axial``, ``bending``,
    ``potential`` (n_out,) [J]; ``watch_min`` / ``watch_max`` the extremes of the watched
    coordinate over every step; ``dt`` [s]; ``stable_dt`` [s].
    """

    t: np.ndarray
    q: np.ndarray
    kinetic: np.ndarray
    axial: np.ndarray
    bending: np.ndarray
    potential: np.ndarray
    watch_min: float
    watch_max: float
    dt: float
    stable_dt: float

    @property
    def total(self) -> np.ndarray:
        return self.kinetic + self.axial + self.bending + self.potential


def integrate(
    beam: AncfBeam,
    q0: np.ndarray,
    free: np.ndarray,
    f_ext: np.ndarray,
    *,
    dt: float,
    t_end: float,
    output_interval: float,
    mass: str = "consistent",
    v0: np.ndarray | None = None,
    watch: int = 0,
    stable_dt: float | None = None,
) -> Trajectory:
    """Integrate the beam from ``q0`` (shape (n,)) with velocity ``v0`` (default at rest).

    ``free``: indices of the integrated coordinates; the rest stay at their ``q0`` values.
    ``f_ext``: constant external load (n,) [N]. ``dt``, ``t_end``, ``output_interval`` [s];
    ``dt`` above the stable step raises InputError naming ``dt``. ``watch``: a coordinate
    whose extremes are tracked over every step (the tip's y). ``stable_dt``: pass a value
    already computed to skip the eigen-solve.
    """
    m_full = beam.mass_matrix(mass)
    free = np.asarray(free, dtype=np.int64)
    if stable_dt is None:
        stable_dt = stable_time_step(beam, q0, free, m_full)
    if not dt <= stable_dt:
        raise InputError("dt", dt, f"<= {stable_dt:.4g} s", "central-difference stable step")
    lb = banded_cholesky(m_full[np.ix_(free, free)])
    n_steps = max(1, int(round(t_end / dt)))
    out_every = max(1, int(round(output_interval / dt)))
    n_el, le, ea, ei, eta, gp, gw = beam.kernel_args()
    vel0 = np.zeros_like(q0) if v0 is None else np.asarray(v0, dtype=float)
    status, q_out, en, wmin, wmax = central_difference_loop(
        np.asarray(q0, float), vel0, free, lb, np.asarray(f_ext, float),
        n_el, le, ea, ei, eta, gp, gw, float(dt), n_steps, out_every, int(watch),
    )  # fmt: skip
    if status >= 0:
        raise SolverError("beam state is no longer finite (unstable step or load)", status * dt)
    t = np.arange(q_out.shape[0]) * out_every * dt
    return Trajectory(t, q_out, en[:, 0], en[:, 1], en[:, 2], en[:, 3], wmin, wmax, dt, stable_dt)
