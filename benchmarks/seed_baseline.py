"""The baseline of issue 3: the slider-crank written the way the seeds do it.

One ``scipy.integrate.solve_ivp`` per case (RK45, rtol 1e-6, atol 1e-9, max_step 1e-5) with
terminal events at contact onset and separation; after each event the integration restarts
from the event state, carrying the approach velocity of the impact. The physics is the
project's (design.md 1.2-1.3), written independently in plain numpy:

* absolute coordinates ``q = [x, y, phi]`` of crank, rod and slider (9), velocities (9);
* Lagrange multipliers from the augmented system ``[[M, Phi_q^T], [Phi_q, 0]]`` solved with
  ``np.linalg.solve`` at every RHS evaluation, Baumgarte alpha = beta = 5 (as the papers);
* the clearance joint between the rod's small-end eye (bearing, R_B) and the pin at the
  slider's centre (journal, R_J = R_B - c), Lankarani-Nikravesh contact
  ``K delta^1.5 (1 + 3 (1 - cr^2) / 4 * delta_dot / delta_dot0)`` with the same conformal
  stiffness and the same floor on delta_dot0, tanh Coulomb friction, gravity -9.81 y;
* the start ``y0`` is taken from :func:`gapsweep.core.simulation.initial_state`.

Metrics are read at the solver's output points (its accepted steps, no dense output), the
way a seed script post-processes ``sol.y``: the RHS is evaluated again at every stored point
to get the slider acceleration and the contact force. Integration and post-processing are
timed separately.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np
from gapsweep.core.cases import SliderCrankCase
from gapsweep.core.contact_laws import MIN_APPROACH_VELOCITY, conformal_stiffness
from gapsweep.core.simulation import initial_state
from scipy.integrate import solve_ivp

ONSET = 1e-12  # [m] penetration that starts a contact (the project's threshold)
ALPHA = BETA = 5.0  # Baumgarte gains [1/s]
RTOL, ATOL, MAX_STEP = 1e-6, 1e-9, 1e-5


@dataclass
class SeedResult:
    metrics: dict
    integration_s: float
    post_s: float
    nfev: int
    status: str


class SliderCrank:
    """Flores slider-crank with a clearance joint at the piston pin, numpy throughout."""

    def __init__(self, case: SliderCrankCase):
        crank, rod = 0.05, 0.12
        self.h1, self.h2 = crank / 2, rod / 2
        masses = np.array([0.30, 0.21, 0.14])
        inertias = np.array([1.0e-5, 2.5e-4, 1.0e-4])
        self.M = np.diag(np.repeat(masses, 3) * np.tile([1.0, 1.0, 0.0], 3))
        self.M[[2, 5, 8], [2, 5, 8]] = inertias
        self.masses = masses
        self.g = np.array([0.0, -case.gravity])
        self.omega = case.omega
        self.phi0 = math.radians(case.crank_angle_deg)
        self.RB = case.bearing_radius_mm * 1e-3
        self.c = case.clearance_mm * 1e-3
        self.RJ = self.RB - self.c
        k = conformal_stiffness(
            self.RB,
            self.c,
            case.youngs_modulus,
            case.poisson_ratio,
            case.youngs_modulus,
            case.poisson_ratio,
        )
        self.K = k * case.stiffness_scale
        self.n = case.exponent
        self.chi = 0.75 * (1.0 - case.restitution**2)
        self.mu = case.friction if case.friction_law == "coulomb-tanh" else 0.0
        self.v0 = case.friction_velocity
        n_eq = 7
        # constant parts of the constraint Jacobian; the angle columns are filled per call
        self.J = np.zeros((n_eq, 9))
        self.J[0, 0] = self.J[1, 1] = -1.0
        self.J[2, 0] = self.J[3, 1] = 1.0
        self.J[2, 3] = self.J[3, 4] = -1.0
        self.J[4, 7] = self.J[5, 8] = self.J[6, 2] = 1.0
        self.Phi_t = np.zeros(n_eq)
        self.Phi_t[6] = -self.omega
        self.A = np.zeros((9 + n_eq, 9 + n_eq))
        self.A[:9, :9] = self.M
        self.Qg = np.zeros(9)
        self.Qg[0::3] = masses * self.g[0]
        self.Qg[1::3] = masses * self.g[1]

    # --- constraints ------------------------------------------------------------------
    def constraints(self, t, q, v):
        """``Phi``, ``Phi_q``, ``Phi_t`` and ``gamma`` (``Phi_q q'' = gamma``), by hand.

        Rows: ground-crank pivot (2), crank-rod pin (2), slider on the x axis (1), slider
        not rotating (1), crank driver ``phi_crank - phi0 - omega t`` (1).
        """
        h1, h2 = self.h1, self.h2
        x0, y0, p0, x1, y1, p1, _, y2, p2 = q
        w0, w1 = v[2], v[5]
        c0, s0, c1, s1 = math.cos(p0), math.sin(p0), math.cos(p1), math.sin(p1)
        Phi = np.array(
            [
                -(x0 - h1 * c0),
                -(y0 - h1 * s0),
                x0 + h1 * c0 - x1 + h2 * c1,
                y0 + h1 * s0 - y1 + h2 * s1,
                y2,
                p2,
                p0 - self.phi0 - self.omega * t,
            ]
        )
        J = self.J
        J[0, 2] = -h1 * s0
        J[1, 2] = h1 * c0
        J[2, 2], J[2, 5] = -h1 * s0, -h2 * s1
        J[3, 2], J[3, 5] = h1 * c0, h2 * c1
        gam = np.array(
            [
                h1 * c0 * w0 * w0,
                h1 * s0 * w0 * w0,
                h1 * c0 * w0 * w0 + h2 * c1 * w1 * w1,
                h1 * s0 * w0 * w0 + h2 * s1 * w1 * w1,
                0.0,
                0.0,
                0.0,
            ]
        )
        return Phi, J, self.Phi_t, gam

    # --- contact ------------------------------------------------------------------------
    def kinematics(self, q, v):
        """Penetration, its rate, the slip, the normal and the two contact points."""
        xr, yr, pr = q[3:6]
        bx, by = xr + self.h2 * math.cos(pr), yr + self.h2 * math.sin(pr)
        ex, ey = q[6] - bx, q[7] - by
        dist = math.hypot(ex, ey)
        nx, ny = (ex / dist, ey / dist) if dist > 1e-300 else (1.0, 0.0)
        qbx, qby = bx + self.RB * nx, by + self.RB * ny
        qjx, qjy = q[6] + self.RJ * nx, q[7] + self.RJ * ny
        # velocities of the material points at the contact points
        vbx = v[3] - v[5] * (qby - yr)
        vby = v[4] + v[5] * (qbx - xr)
        vjx = v[6] - v[8] * (qjy - q[7])
        vjy = v[7] + v[8] * (qjx - q[6])
        rx, ry = vjx - vbx, vjy - vby
        return dist - self.c, rx * nx + ry * ny, -rx * ny + ry * nx, (nx, ny, qbx, qby, qjx, qjy)

    def contact_force(self, q, v, in_contact, approach):
        """Generalized contact forces, the normal force [N] and the penetration [m]."""
        delta, ddot, vt, (nx, ny, qbx, qby, qjx, qjy) = self.kinematics(q, v)
        Q = np.zeros(9)
        if not in_contact or delta <= 0.0:
            return Q, 0.0, delta
        v0 = max(abs(approach), MIN_APPROACH_VELOCITY)
        fn = max(self.K * delta**self.n * (1.0 + self.chi * ddot / v0), 0.0)
        ft = -self.mu * fn * math.tanh(vt / self.v0)
        fx, fy = -fn * nx - ft * ny, -fn * ny + ft * nx  # on the journal (slider)
        Q[6:9] = fx, fy, (qjx - q[6]) * fy - (qjy - q[7]) * fx
        Q[3:6] = -fx, -fy, -((qbx - q[3]) * fy - (qby - q[4]) * fx)
        return Q, fn, delta

    # --- equations of motion ------------------------------------------------------------
    def rhs(self, t, y, in_contact, approach):
        """``y' = [v, q'']``: the augmented system ``[[M, J^T], [J, 0]] [q'', lam] = ...``."""
        q, v = y[:9], y[9:]
        Phi, J, Phi_t, gam = self.constraints(t, q, v)
        Qc, _, _ = self.contact_force(q, v, in_contact, approach)
        A = self.A
        A[9:, :9] = J
        A[:9, 9:] = J.T
        rate = J @ v + Phi_t
        b = np.concatenate([self.Qg + Qc, gam - 2.0 * ALPHA * rate - BETA**2 * Phi])
        acc = np.linalg.solve(A, b)[:9]
        return np.concatenate([v, acc])

    def penetration(self, y):
        return self.kinematics(y[:9], y[9:])[0]


def run_seed_case(case: SliderCrankCase) -> SeedResult:
    """Integrate one case the seeds' way and read its peaks at the output points."""
    model = SliderCrank(case)
    y = initial_state(case)[:18].copy()
    t, t_end = 0.0, case.t_end
    in_contact, approach = False, 0.0
    segments = []  # (t, y, in_contact, approach) of each solve_ivp call
    nfev = 0
    impacts = 0
    status = "ok"
    t0 = time.perf_counter()
    while t < t_end:
        if in_contact:

            def event(t, y, *_):
                return model.penetration(y)

            event.direction = -1.0
        else:

            def event(t, y, *_):
                return model.penetration(y) - ONSET

            event.direction = 1.0
        event.terminal = True
        sol = solve_ivp(
            model.rhs,
            (t, t_end),
            y,
            method="RK45",
            rtol=RTOL,
            atol=ATOL,
            max_step=MAX_STEP,
            events=event,
            args=(in_contact, approach),
        )
        nfev += sol.nfev
        segments.append((sol.t, sol.y, in_contact, approach))
        if sol.status == 1:  # an event: restart from it with the new contact state
            t = float(sol.t_events[0][0])
            y = sol.y_events[0][0].copy()
            in_contact = not in_contact
            if in_contact:
                approach = model.kinematics(y[:9], y[9:])[1]
                impacts += 1
        elif sol.status == 0:
            t = t_end
        else:
            status = f"failed: {sol.message}"
            break
    integration_s = time.perf_counter() - t0

    t0 = time.perf_counter()
    peak_acc = peak_fn = max_pen = 0.0
    for ts, ys, contact, v0 in segments:
        for k in range(ts.shape[0]):
            yk = ys[:, k]
            f = model.rhs(ts[k], yk, contact, v0)
            _, fn, delta = model.contact_force(yk[:9], yk[9:], contact, v0)
            peak_acc = max(peak_acc, abs(f[9 + 6]))
            peak_fn = max(peak_fn, fn)
            if contact:
                max_pen = max(max_pen, delta)
    post_s = time.perf_counter() - t0
    metrics = {
        "peak_slider_accel": peak_acc,
        "peak_contact_force": peak_fn,
        "max_penetration": max_pen,
        "impacts": impacts,
        "rhs_evaluations": nfev,
    }
    return SeedResult(metrics, integration_s, post_s, nfev, status)


if __name__ == "__main__":
    r = run_seed_case(SliderCrankCase(clearance_mm=0.05, t_end=0.024))
    print(r)
