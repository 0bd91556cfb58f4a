r"""The planar gradient-deficient ANCF beam element (design.md 1.5, seed 001).

Each node carries 4 absolute coordinates ``[r_x, r_y, dr_x/dx, dr_y/dx]`` (position [m] and
the unitless slope along the reference arc length ``x``); an element joins two nodes, so it
has **8** coordinates, and node ``i`` of a mesh owns the global coordinates ``4i .. 4i+3``.
The centreline is the cubic Hermite interpolation
``r(xi) = N1 r_1 + N2 r_1' + N3 r_2 + N4 r_2'``, ``xi = x / L_e`` in [0, 1].

Elastic energy per unit reference length ``1/2 (E A eps^2 + E I kappa^2)`` with the axial
Green strain ``eps = 1/2 (r_x . r_x - 1)`` and the exact planar curvature
``kappa = (r_x x r_xx) / |r_x|^3``. Both vanish for any rigid motion of the straight beam,
which the simplified ``|r_xx|`` curvature does too but only while ``|r_x| = 1``. The axial
integrand is a polynomial of degree 8 in ``xi``: ``n`` Gauss points integrate degree
``2n - 1`` exactly, so 5 points are exact for the axial force and near-exact for bending.

Optional Kelvin-Voigt material damping: the stress resultants become
``E A (eps + eta deps/dt)`` and ``E I (kappa + eta dkappa/dt)``, ``eta`` [s] the retardation
time (damping ratio ``eta omega / 2`` in a mode of angular frequency ``omega``; linearised,
it is stiffness-proportional Rayleigh damping ``C = eta K``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..errors import InputError
from ..jit import kernel

COORDS_PER_NODE = 4
COORDS_PER_ELEMENT = 8
DEFAULT_GAUSS_POINTS = 5


@kernel
def element_force(
    q: np.ndarray,
    v: np.ndarray,
    offset: int,
    le: float,
    ea: float,
    ei: float,
    eta: float,
    gp: np.ndarray,
    gw: np.ndarray,
    f: np.ndarray,
) -> tuple[float, float]:
    """Add one element's elastic (and damping) force to ``f[offset:offset+8]``.

    ``q``, ``v``: coordinates and their rates; the element is ``q[offset:offset+8]``.
    ``le`` [m], ``ea`` [N], ``ei`` [N m^2], ``eta`` [s]; ``gp``, ``gw``: Gauss points on
    [0, 1] and weights summing to 1. Returns (axial, bending) strain energy [J].
    """
    ua = 0.0
    ub = 0.0
    a = np.empty(4)
    b = np.empty(4)
    for g in range(gp.size):
        s = gp[g]
        a[0] = (-6.0 * s + 6.0 * s * s) / le
        a[1] = 1.0 - 4.0 * s + 3.0 * s * s
        a[2] = (6.0 * s - 6.0 * s * s) / le
        a[3] = -2.0 * s + 3.0 * s * s
        b[0] = (-6.0 + 12.0 * s) / (le * le)
        b[1] = (-4.0 + 6.0 * s) / le
        b[2] = (6.0 - 12.0 * s) / (le * le)
        b[3] = (-2.0 + 6.0 * s) / le
        rx = 0.0
        ry = 0.0
        rxx = 0.0
        rxy = 0.0
        for k in range(4):
            rx += a[k] * q[offset + 2 * k]
            ry += a[k] * q[offset + 2 * k + 1]
            rxx += b[k] * q[offset + 2 * k]
            rxy += b[k] * q[offset + 2 * k + 1]
        g2 = rx * rx + ry * ry
        g15 = g2 * math.sqrt(g2)
        cross = rx * rxy - ry * rxx
        eps = 0.5 * (g2 - 1.0)
        kap = cross / g15
        # d(kappa)/d(r_x) and d(kappa)/d(r_xx), 2-vectors
        kx = rxy / g15 - 3.0 * cross * rx / (g15 * g2)
        ky = -rxx / g15 - 3.0 * cross * ry / (g15 * g2)
        kxx = -ry / g15
        kxy = rx / g15
        normal = eps
        moment = kap
        if eta != 0.0:
            eps_dot = 0.0
            kap_dot = 0.0
            for k in range(4):
                vx = v[offset + 2 * k]
                vy = v[offset + 2 * k + 1]
                eps_dot += a[k] * (rx * vx + ry * vy)
                kap_dot += a[k] * (kx * vx + ky * vy) + b[k] * (kxx * vx + kxy * vy)
            normal += eta * eps_dot
            moment += eta * kap_dot
        wl = gw[g] * le
        normal *= ea * wl
        moment *= ei * wl
        for k in range(4):
            f[offset + 2 * k] += normal * a[k] * rx + moment * (a[k] * kx + b[k] * kxx)
            f[offset + 2 * k + 1] += normal * a[k] * ry + moment * (a[k] * ky + b[k] * kxy)
        ua += 0.5 * ea * eps * eps * wl
        ub += 0.5 * ei * kap * kap * wl
    return ua, ub


@kernel(runtime=True)  # element_force allocates, and the runtime-free crank loop calls this
def internal_forces(
    q: np.ndarray,
    v: np.ndarray,
    n_el: int,
    le: float,
    ea: float,
    ei: float,
    eta: float,
    gp: np.ndarray,
    gw: np.ndarray,
    f: np.ndarray,
) -> tuple[float, float]:
    """Overwrite ``f`` (shape (4 (n_el+1),)) with the assembled elastic force [N or N m].

    Returns the (axial, bending) strain energy [J] of the whole beam.
    """
    f[:] = 0.0
    ua = 0.0
    ub = 0.0
    for e in range(n_el):
        dua, dub = element_force(q, v, COORDS_PER_NODE * e, le, ea, ei, eta, gp, gw, f)
        ua += dua
        ub += dub
    return ua, ub


@kernel
def tangent_stiffness(
    q: np.ndarray, n_el: int, le: float, ea: float, ei: float, gp: np.ndarray, gw: np.ndarray
) -> np.ndarray:
    """Tangent stiffness dF_int/dq [N/m ...], shape (n, n), by element-local central differences.

    Each element's 8x8 block is differenced on its own (16 element evaluations), so the cost
    is linear in the element count; the step is relative to each coordinate's size.
    """
    n = q.size
    k = np.zeros((n, n))
    zero = np.zeros(COORDS_PER_ELEMENT)
    fp = np.zeros(COORDS_PER_ELEMENT)
    fm = np.zeros(COORDS_PER_ELEMENT)
    for e in range(n_el):
        off = COORDS_PER_NODE * e
        loc = q[off : off + COORDS_PER_ELEMENT].copy()
        for j in range(COORDS_PER_ELEMENT):
            h = 1e-6 * max(1.0, abs(loc[j]), le)
            keep = loc[j]
            fp[:] = 0.0
            fm[:] = 0.0
            loc[j] = keep + h
            element_force(loc, zero, 0, le, ea, ei, 0.0, gp, gw, fp)
            loc[j] = keep - h
            element_force(loc, zero, 0, le, ea, ei, 0.0, gp, gw, fm)
            loc[j] = keep
            for i in range(COORDS_PER_ELEMENT):
                k[off + i, off + j] += (fp[i] - fm[i]) / (2.0 * h)
    return k


def hermite(xi: np.ndarray, le: float) -> np.ndarray:
    """Hermite shape functions N1..N4 at ``xi`` (shape (m,)), returned with shape (m, 4)."""
    xi = np.asarray(xi, dtype=float)
    return np.stack(
        [
            1.0 - 3.0 * xi**2 + 2.0 * xi**3,
            le * (xi - 2.0 * xi**2 + xi**3),
            3.0 * xi**2 - 2.0 * xi**3,
            le * (-(xi**2) + xi**3),
        ],
        axis=-1,
    )


def gauss_rule(n_points: int) -> tuple[np.ndarray, np.ndarray]:
    """Gauss-Legendre points on [0, 1] and weights summing to 1, ``n_points`` in 1..10."""
    if not isinstance(n_points, (int, np.integer)) or not 1 <= n_points <= 10:
        raise InputError("gauss_points", n_points, "an integer in [1, 10]")
    x, w = np.polynomial.legendre.leggauss(int(n_points))
    return 0.5 * (x + 1.0), 0.5 * w


@dataclass(frozen=True)
class AncfBeam:
    """A straight uniform beam of ``n_el`` equal ANCF elements, SI units.

    ``length`` [m], ``area`` [m^2], ``second_moment`` I [m^4] (in-plane bending),
    ``youngs_modulus`` [Pa], ``density`` [kg/m^3], ``damping_time`` eta [s] (Kelvin-Voigt,
    0 = undamped). Coordinates are laid out node by node (see the module doc).
    """

    length: float
    area: float
    second_moment: float
    youngs_modulus: float
    density: float
    n_el: int
    gauss_points: int = DEFAULT_GAUSS_POINTS
    damping_time: float = 0.0

    @property
    def n_coords(self) -> int:
        return COORDS_PER_NODE * (self.n_el + 1)

    @property
    def element_length(self) -> float:
        return self.length / self.n_el

    @property
    def axial_rigidity(self) -> float:
        return self.youngs_modulus * self.area

    @property
    def bending_rigidity(self) -> float:
        return self.youngs_modulus * self.second_moment

    @property
    def mass_per_length(self) -> float:
        return self.density * self.area

    def gauss(self) -> tuple[np.ndarray, np.ndarray]:
        return gauss_rule(self.gauss_points)

    def kernel_args(self) -> tuple:
        """``(n_el, le, EA, EI, eta, gp, gw)`` as the compiled kernels take them."""
        gp, gw = self.gauss()
        return (
            self.n_el,
            self.element_length,
            self.axial_rigidity,
            self.bending_rigidity,
            self.damping_time,
            gp,
            gw,
        )

    def reference_coordinates(
        self, origin: tuple[float, float] = (0.0, 0.0), angle: float = 0.0
    ) -> np.ndarray:
        """Coordinates of the straight unstressed beam from ``origin`` [m] at ``angle`` [rad]."""
        q = np.zeros(self.n_coords)
        c, s = math.cos(angle), math.sin(angle)
        x = np.linspace(0.0, self.length, self.n_el + 1)
        q[0::4] = origin[0] + c * x
        q[1::4] = origin[1] + s * x
        q[2::4] = c
        q[3::4] = s
        return q

    def mass_matrix(self, kind: str = "consistent") -> np.ndarray:
        """Global mass matrix [kg, kg m, kg m^2], shape (n, n); constant in ANCF.

        ``consistent``: ``int rho A S^T S dx``. ``lumped``: the row sums of that matrix taken
        within each coordinate kind (positions over position columns, slopes over slope
        columns) placed on the diagonal: each element end gets ``rho A L_e / 2`` on its
        positions and ``rho A L_e^3 / 420`` on its slopes. A plain row sum would add kg to
        kg m entries (and gives zero or negative slope masses), so it is not offered.
        """
        le, mpl = self.element_length, self.mass_per_length
        xi, w = gauss_rule(5)  # degree-6 integrand: exact
        shape = hermite(xi, le)
        m4 = mpl * le * np.einsum("g,gi,gj->ij", w, shape, shape)
        if kind == "lumped":
            lumped = np.zeros(4)
            lumped[[0, 2]] = m4[np.ix_([0, 2], [0, 2])].sum(axis=1)
            lumped[[1, 3]] = m4[np.ix_([1, 3], [1, 3])].sum(axis=1)
            m4 = np.diag(lumped)
        elif kind != "consistent":
            raise InputError("mass", kind, "one of: consistent, lumped")
        m8 = np.kron(m4, np.eye(2))
        m = np.zeros((self.n_coords, self.n_coords))
        for e in range(self.n_el):
            o = COORDS_PER_NODE * e
            m[o : o + 8, o : o + 8] += m8
        return m

    def distributed_load(self, force_per_length: tuple[float, float]) -> np.ndarray:
        """Generalized force of a uniform dead load [N/m] (gravity: ``rho A g``), shape (n,)."""
        le = self.element_length
        xi, w = gauss_rule(3)
        shape_int = le * np.einsum("g,gi->i", w, hermite(xi, le))  # int N_k dx
        f = np.zeros(self.n_coords)
        for e in range(self.n_el):
            o = COORDS_PER_NODE * e
            for k in range(4):
                f[o + 2 * k] += shape_int[k] * force_per_length[0]
                f[o + 2 * k + 1] += shape_int[k] * force_per_length[1]
        return f

    def gravity_load(self, gravity: tuple[float, float]) -> np.ndarray:
        """Generalized weight for the acceleration of gravity ``gravity`` [m/s^2], shape (n,)."""
        mpl = self.mass_per_length
        return self.distributed_load((mpl * gravity[0], mpl * gravity[1]))

    def point_load(self, node: int, force: tuple[float, float]) -> np.ndarray:
        """Generalized force of a dead force [N] at node ``node``, shape (n,)."""
        f = np.zeros(self.n_coords)
        f[COORDS_PER_NODE * node] = force[0]
        f[COORDS_PER_NODE * node + 1] = force[1]
        return f

    def elastic_forces(
        self, q: np.ndarray, v: np.ndarray | None = None
    ) -> tuple[np.ndarray, float, float]:
        """Elastic (+ damping) force, shape (n,), and the axial and bending strain energy [J]."""
        n_el, le, ea, ei, eta, gp, gw = self.kernel_args()
        f = np.zeros(self.n_coords)
        vel = np.zeros(self.n_coords) if v is None else np.asarray(v, dtype=float)
        ua, ub = internal_forces(np.asarray(q, float), vel, n_el, le, ea, ei, eta, gp, gw, f)
        return f, ua, ub

    def stiffness(self, q: np.ndarray) -> np.ndarray:
        """Tangent stiffness dF_int/dq at ``q``, shape (n, n)."""
        n_el, le, ea, ei, _, gp, gw = self.kernel_args()
        return tangent_stiffness(np.asarray(q, float), n_el, le, ea, ei, gp, gw)

    def interpolate(self, q: np.ndarray, s: np.ndarray) -> np.ndarray:
        """Centreline positions [m] at reference arc lengths ``s`` [m], shape (m, 2)."""
        s = np.clip(np.asarray(s, dtype=float), 0.0, self.length)
        le = self.element_length
        e = np.minimum((s / le).astype(int), self.n_el - 1)
        xi = s / le - e
        shape = hermite(xi, le)  # (m, 4)
        q = np.asarray(q, dtype=float)
        out = np.zeros((s.size, 2))
        for k in range(4):
            idx = COORDS_PER_NODE * e + 2 * k
            out[:, 0] += shape[:, k] * q[idx]
            out[:, 1] += shape[:, k] * q[idx + 1]
        return out


def deformed_shape(q: np.ndarray, n_points: int, length: float) -> np.ndarray:
    """Centreline of the beam with coordinates ``q`` at ``n_points`` equally spaced points.

    ``q``: shape (4 (n_el+1),); ``length``: undeformed length [m]. Points are interpolated
    with the Hermite shape functions inside each element, not joined node to node.
    Returns shape (n_points, 2) [m].
    """
    q = np.asarray(q, dtype=float)
    n_el = q.size // COORDS_PER_NODE - 1
    if n_el < 1 or q.size != COORDS_PER_NODE * (n_el + 1):
        raise InputError("q", f"shape {q.shape}", "4 (elements + 1) coordinates")
    if n_points < 2:
        raise InputError("n_points", n_points, ">= 2")
    beam = AncfBeam(length, 1.0, 1.0, 1.0, 1.0, n_el)
    return beam.interpolate(q, np.linspace(0.0, length, n_points))
