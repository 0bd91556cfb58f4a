r"""The oil film of a hydrodynamic journal bearing: its force on the journal (design.md 4.11).

One bearing: journal (pin) radius ``R`` (the film's R is the journal's, design.md 4.15),
axial length ``L``, radial clearance ``c``, oil viscosity ``mu``. The journal centre sits at
``e = r_J - r_B`` from the bearing centre, eccentricity ratio ``eps = |e|/c``, unit vectors
``n = e/|e|`` and ``t = (-n_y, n_x)`` (counter-clockwise from n). Its velocity relative to the
bearing centre gives ``u_r = de/dt . n / c`` (``eps_dot``) and ``u_t = de/dt . t / c``
(``eps gamma_dot``, gamma the angle of e). The surfaces turn at ``omega_J`` and
``omega_B``; the film sees their sum and the whirl through
``omega_bar = omega_J + omega_B - 2 gamma_dot``, here as ``z = eps omega_bar =
eps (omega_J + omega_B) - 2 u_t`` (finite at ``eps = 0``, where gamma_dot is not).

The force on the journal is ``F = F_r n + F_t t``:

* **short bearing** (Ocvirk, pi-film; the form with squeeze and wedge terms of Flores,
  Ambrosio, Claro & Pimenta, *Lubricated revolute joints in rigid multibody systems*,
  Nonlinear Dyn. 56 (2009) 277-295), ``K_s = mu R L^3 / (2 c^2)``, ``s = 1 - eps^2``::

      F_r = -K_s [2 eps z / s^2 + pi (1 + 2 eps^2) u_r / s^(5/2)]
      F_t =  K_s [pi z / (2 s^(3/2)) + 4 eps u_r / s^2]

* **long bearing** (Sommerfeld, pi-film), ``K_l = 12 mu R^3 L / c^2``: the long-bearing
  Reynolds equation ``d/dtheta (h^3 dp/dtheta) = 6 mu R^2 omega_bar dh/dtheta + 12 mu R^2
  dh/dt`` solved on the converging half film (theta from the largest gap to the smallest in
  the surfaces' direction) with the ambient pressure at both of its ends, integrated over it::

      F_r = -K_l [eps z / ((2 + eps^2) s) + (pi/2 - 8 / (pi (2 + eps^2))) u_r / s^(3/2)]
      F_t =  K_l [pi z / (2 (2 + eps^2) s^(1/2)) + 2 eps u_r / ((2 + eps^2) s)]

  (steady, ``u_r = u_t = 0``: ``F_r = -12 mu omega R^3 L eps^2 / (c^2 (2 + eps^2) s)``,
  ``F_t = 6 pi mu omega R^3 L eps / (c^2 (2 + eps^2) s^(1/2))``, Sommerfeld's pi-film). The
  wedge terms are Sommerfeld's, zero at both ends of the half film already; the squeeze terms
  are the exact solution with those ends. The squeeze terms this module first carried, read
  as the long-bearing form of Flores et al. 2009 (after Pinkus & Sternlicht: ``2 (pi/2 -
  8/(pi(2 + eps^2)))`` and ``4 eps / ((2 + eps^2)(1 + eps^2))``), do not solve this problem:
  their radial term is twice the one above (tests/core/test_film_reynolds.py solves the
  Reynolds equation numerically; over the whole 2 pi film the same solver gives the full-film
  squeeze force
  ``12 pi mu R^3 L de/dt / (c^3 (1 - eps^2)^(3/2))``, Hamrock's).

* **the half that converges.** The laws above are the film on the half that converges for
  ``z > 0`` (Flores et al.'s fixed half). Where ``z < 0`` (a whirl faster than half the
  surface speed, as under a load turning with the journal, omega_bar = -omega) that half
  holds suction and the film is on the other one. Mirroring the problem in the line of
  centres (t -> -t) leaves ``u_r`` and turns ``z`` into ``-z``, so the film there is the
  mirror image: ``F_r(z) = F_r(|z|)``, ``F_t(z) = -F_t(|z|)``, i.e. the laws with ``|z|``
  in the radial wedge term and ``sign(z)`` on the tangential squeeze term (the tangential
  wedge term ``~ z`` mirrors by itself). The load capacity follows ``|omega_bar|`` as in
  Hamrock's dynamically loaded bearing, and a load turning with the journal is carried like
  a steady one. ``sign(z)`` jumps at ``z = 0``; the force uses ``sigma = z / sqrt(z^2 + 4
  u_r^2)`` in its place, i.e. the mix ``(1 + sigma)/2`` of one half's film and ``(1 -
  sigma)/2`` of the other's (each a Reynolds solution). The band where the mix differs
  from the sharp flip, ``|z| < ~2 |u_r|``, is where the positive-pressure half of the
  short-bearing film (where ``z/2 sin a - u_r cos a`` has the pressure's sign) is turned by
  more than ~45 degrees from either fixed half, so neither fixed half is right there; it
  is empty wherever the journal does not move radially (steady states, ``gapsweep bearing``,
  equilibria: unchanged); the force stays Lipschitz in the velocity (homogeneous of degree
  one, no stiffness added as the band narrows) and ``|sigma z| <= |z|`` keeps the film
  dissipative (below). In pure squeeze (``z = 0``) the film is the mean of the two halves:
  the radial force of either, no tangential force (the mirror symmetry demands
  ``F_t(0, u_r) = 0``).

* **finite** (this project's choice): the harmonic combination of the two solutions, after
  Reason & Narang (*Rapid design and performance evaluation of steady-state journal
  bearings*, ASME J. Lubr. Technol. 104 (1982) 36-47; applied to dynamic loads by Hirani,
  Athre & Biswas, ASME J. Tribol. 120 (1998) 844-852), who combine the short and long
  pressures as ``p = p_s p_l / (p_s + p_l)``. Here at the force level:
  ``F = a F_s + b F_l`` with ``a = (|F_l| / (|F_s| + |F_l|))^2`` and
  ``b = (|F_s| / (|F_s| + |F_l|))^2``: parallel forces give exactly the harmonic mean
  ``|F_s| |F_l| / (|F_s| + |F_l|)``; the short solution alone as L/D -> 0 (|F_s| << |F_l|:
  F_s/F_l -> (L/D)^2 / 3 at small eps), the long one alone as L/D -> infinity. Both weights
  are >= 0, so the combination dissipates as each solution does. The rule by L/D: it is
  meant for 0.25 <= L/D <= 2 (Reason & Narang's range, a few per cent on the load against
  finite-difference solutions); below 0.25 it is within 2 % of the short bearing, above 2
  the long bearing is within a few per cent of it. Pick ``short-bearing`` or
  ``long-bearing`` to have one solution alone at any L/D.

Convention of :func:`bearing_state` (``gapsweep bearing``): x horizontal, y up, the load W
on the journal along -y, the journal turning counter-clockwise at ``omega``, the bearing
fixed; ``k_ij = -dF_i/de_j``, ``c_ij = -dF_i/d(de_j/dt)`` of the film force on the journal.

**In a mechanism** (:mod:`forces`) the film acts at the joint's centres and the viscous
torque of the film on the turning surfaces is left out (as Flores et al. 2009). The film
alone carries the journal up to ``eps = FILM_LIMIT = 0.98``; between 0.98 and 1 its
coefficients stay at their value at 0.98 and the force fades out with a cubic step (C1) to
zero at ``|e| = c``, where the dry contact law (zero force at zero penetration) takes over
alone. Seen from the frame turning at the mean surface speed ``(omega_J + omega_B)/2``, where
the walls only shear the film, the film's power on the journal's motion is
``c (F_r u_r - F_t z / 2) = -c K (A u_r^2 + B u_r sigma z + C z^2)`` with ``B^2 <= 4 A C``
(the fixed-half laws' negative semi-definite form in ``(u_r, z)``) and ``|sigma z| <= |z|``,
so it is <= 0 for all three choices on either half and across the band (the film
dissipates);
in the ground frame the wedge term also passes power ``(omega_J + omega_B)/2 * (e x F)``
from the turning surfaces into the journal's orbit (oil whirl), the power the left-out
torque would draw.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .errors import InputError

NONE, SHORT, LONG, FINITE = 0, 1, 2, 3
LUBRICATION = {"none": NONE, "short-bearing": SHORT, "long-bearing": LONG, "finite": FINITE}
FILM_LIMIT = 0.98  # eps where the film starts to hand over to the dry law (design.md 4.16)


def lubrication_kind(name: str, field: str = "lubrication") -> int:
    """The kernel's code of a lubrication name, or :class:`InputError` naming ``field``."""
    try:
        return LUBRICATION[name]
    except KeyError:
        raise InputError(field, name, "one of " + ", ".join(LUBRICATION)) from None


def film_force(kind, viscosity, radius, length, clearance, ex, ey, vx, vy, surface_speed):
    """The film's force ``(fx, fy)`` [N] on the journal (module docstring).

    ``kind`` one of SHORT, LONG, FINITE (NONE: zero); ``viscosity`` [Pa s]; ``radius`` R,
    ``length`` L, ``clearance`` c [m]; ``(ex, ey)`` the eccentricity [m] and ``(vx, vy)`` its
    rate [m/s]; ``surface_speed`` ``omega_J + omega_B`` [rad/s]. Includes the hand-over to
    the dry law over ``eps`` in [FILM_LIMIT, 1] (zero from ``|e| >= c``). Plain scalar math:
    the compiled contact kernel calls this same function (:mod:`forces`).
    """
    dist = math.sqrt(ex * ex + ey * ey)
    eps = dist / clearance
    if kind == NONE or eps >= 1.0:
        return 0.0, 0.0
    if dist > 1e-300:
        nx, ny = ex / dist, ey / dist
    else:  # centred: the short film is isotropic there, the direction does not matter
        nx, ny = 1.0, 0.0
    u_r = (vx * nx + vy * ny) / clearance
    u_t = (-vx * ny + vy * nx) / clearance
    z = eps * surface_speed - 2.0 * u_t
    # the film on the half that converges for the sign of z (module docstring: the laws
    # below are written for z >= 0 and mirror for z < 0), mixed across z = 0 over the band
    # |z| < ~2 |u_r| with the weight sigma = z / sqrt(z^2 + 4 u_r^2), |sigma| <= 1
    zz = z * z + 4.0 * u_r * u_r
    sigma = z / math.sqrt(zz) if zz > 0.0 else 0.0
    z_abs = sigma * z  # |z| outside the band
    weight = 1.0
    e = eps
    if eps > FILM_LIMIT:
        d = (eps - FILM_LIMIT) / (1.0 - FILM_LIMIT)
        weight = 1.0 - d * d * (3.0 - 2.0 * d)
        e = FILM_LIMIT
    s = 1.0 - e * e
    rs = math.sqrt(s)
    fr_s = ft_s = fr_l = ft_l = 0.0
    if kind != LONG:
        k_s = viscosity * radius * length**3 / (2.0 * clearance * clearance)
        fr_s = -k_s * (2.0 * e * z_abs / (s * s)
                       + math.pi * (1.0 + 2.0 * e * e) * u_r / (s * s * rs))
        ft_s = k_s * (math.pi * z / (2.0 * s * rs) + 4.0 * e * sigma * u_r / (s * s))
    if kind != SHORT:
        k_l = 12.0 * viscosity * radius**3 * length / (clearance * clearance)
        g = 2.0 + e * e
        squeeze = (0.5 * math.pi - 8.0 / (math.pi * g)) / (s * rs)
        fr_l = -k_l * (e * z_abs / (g * s) + squeeze * u_r)
        ft_l = k_l * (math.pi * z / (2.0 * g * rs) + 2.0 * e * sigma * u_r / (g * s))
    if kind == SHORT:
        fr, ft = fr_s, ft_s
    elif kind == LONG:
        fr, ft = fr_l, ft_l
    else:
        m_s = math.sqrt(fr_s * fr_s + ft_s * ft_s)
        m_l = math.sqrt(fr_l * fr_l + ft_l * ft_l)
        total = m_s + m_l
        if total > 0.0:
            a, b = (m_l / total) ** 2, (m_s / total) ** 2
        else:
            a = b = 0.0
        fr, ft = a * fr_s + b * fr_l, a * ft_s + b * ft_l
    fr *= weight
    ft *= weight
    return fr * nx - ft * ny, fr * ny + ft * nx


@dataclass(frozen=True)
class Bearing:
    """One journal bearing in SI units: ``radius`` R (the journal's) [m], ``length`` L [m],
    ``clearance`` c [m], ``viscosity`` mu [Pa s], ``speed`` omega_J [rad/s] (the bearing
    fixed), ``kind`` SHORT | LONG | FINITE."""

    kind: int
    radius: float
    length: float
    clearance: float
    viscosity: float
    speed: float

    def force(self, e, e_dot=(0.0, 0.0)) -> np.ndarray:
        """The film force [N] on the journal at eccentricity ``e`` [m] moving at ``e_dot``
        [m/s]: shape (2,)."""
        fx, fy = film_force(
            self.kind, self.viscosity, self.radius, self.length, self.clearance,
            float(e[0]), float(e[1]), float(e_dot[0]), float(e_dot[1]), self.speed,
        )  # fmt: skip
        return np.array([fx, fy])

    def steady_polar(self, eps: float) -> tuple[float, float]:
        """``(F_r, F_t)`` [N] of the steady film at eccentricity ratio ``eps`` (e along x)."""
        fx, fy = self.force((eps * self.clearance, 0.0))
        return fx, fy

    def sommerfeld(self, load: float) -> float:
        """``S = mu N L D / W (R/c)^2`` with N in rev/s (design.md 4.15)."""
        n_rev = abs(self.speed) / (2.0 * math.pi)
        d = 2.0 * self.radius
        return self.viscosity * n_rev * self.length * d / load * (self.radius / self.clearance) ** 2


def equilibrium_ratio(bearing: Bearing, load: float) -> float:
    """The eccentricity ratio where the steady film carries ``load`` [N] (bisection on
    ``|F(eps)|``, which rises monotonically from 0 towards infinity on [0, FILM_LIMIT])."""
    lo, hi = 0.0, FILM_LIMIT
    if math.hypot(*bearing.steady_polar(hi)) < load:
        raise InputError(
            "--load-n", load, f"<= {math.hypot(*bearing.steady_polar(hi)):.6g} N (the film's "
            f"load at eps = {FILM_LIMIT}; beyond it the dry contact carries the journal)",
        )
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if math.hypot(*bearing.steady_polar(mid)) < load:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-15:
            break
    return 0.5 * (lo + hi)


def bearing_state(bearing: Bearing, *, load: float | None = None,
                  eccentricity_ratio: float | None = None) -> dict:
    """``gapsweep bearing``'s answer (design.md 4.11, 4.15): the state under ``load`` [N]
    (static equilibrium) or at ``eccentricity_ratio``, in the convention of the module
    docstring, with the linearised film coefficients there. Keys in SI units."""
    if (load is None) == (eccentricity_ratio is None):
        raise InputError("--load-n", load, "exactly one of --load-n, --eccentricity-ratio")
    eps = equilibrium_ratio(bearing, load) if load is not None else float(eccentricity_ratio)
    fr, ft = bearing.steady_polar(eps)
    # e makes the angle phi with -y towards the rotation: e = |e| (sin phi, -cos phi) turns
    # F = F_r n + F_t t into (0, |F|) when tan phi = F_t / -F_r (counter-clockwise journal)
    sign = 1.0 if bearing.speed >= 0.0 else -1.0
    phi = math.atan2(ft, -fr) if eps > 0.0 else 0.5 * math.pi
    ex = eps * bearing.clearance * sign * math.sin(phi)
    ey = -eps * bearing.clearance * math.cos(phi)
    magnitude = math.hypot(fr, ft)
    w = magnitude if load is None else load
    stiffness, damping = linearise(bearing, (ex, ey))
    return {
        "eccentricity_ratio": eps,
        "attitude_deg": math.degrees(phi),
        "eccentricity_x_m": ex,
        "eccentricity_y_m": ey,
        "load_n": w,
        "force_radial_n": fr,
        "force_tangential_n": ft,
        "sommerfeld_number": bearing.sommerfeld(w) if w > 0.0 else math.inf,
        "stiffness_n_per_m": stiffness.tolist(),
        "damping_n_s_per_m": damping.tolist(),
    }


def linearise(bearing: Bearing, e) -> tuple[np.ndarray, np.ndarray]:
    """``(K, C)``, each [[xx, xy], [yx, yy]]: ``k_ij = -dF_i/de_j`` [N/m] and
    ``c_ij = -dF_i/d(de_j/dt)`` [N s/m] of the film force at rest at ``e`` [m], by central
    differences (steps 1e-6 c and 1e-6 c omega: the force is smooth there, and linear in the
    velocity for the short and long bearings: at rest with ``omega != 0`` the step stays far
    outside the band where the film's half changes, ``sigma = 1 - O(1e-12)``)."""
    e = np.asarray(e, dtype=float)
    h = 1e-6 * bearing.clearance
    hv = h * max(abs(bearing.speed), 1.0)
    stiffness = np.empty((2, 2))
    damping = np.empty((2, 2))
    for j in range(2):
        de = np.zeros(2)
        de[j] = h
        stiffness[:, j] = -(bearing.force(e + de) - bearing.force(e - de)) / (2.0 * h)
        dv = np.zeros(2)
        dv[j] = hv
        damping[:, j] = -(bearing.force(e, dv) - bearing.force(e, -dv)) / (2.0 * hv)
    return stiffness, damping


def film_grid_metrics(ex, ey, clearance: float) -> dict[str, float]:
    """``max_eccentricity_ratio`` and ``min_film_thickness`` [m] of a journal whose
    eccentricity ``(ex, ey)`` [m] was sampled on the output grid (arrays), clearance c [m]:
    ``c (1 - eps_max)``, 0 where the journal reached the wall."""
    ex, ey = np.asarray(ex, dtype=float), np.asarray(ey, dtype=float)
    eps_max = float(np.max(np.hypot(ex, ey))) / clearance if ex.size else 0.0
    return {"max_eccentricity_ratio": eps_max,
            "min_film_thickness": clearance * max(1.0 - eps_max, 0.0)}
