"""Response surfaces: a polynomial in the study's numeric factors fitted to one metric.

design.md 4.8. Factors are **coded** to [-1, 1] over the range the run cases span
(``x_c = (x - centre) / half_range``), so the coefficients are comparable across factors and
the normal equations stay well conditioned. The model holds every monomial of total degree
<= ``order`` (1: linear, 2: quadratic - the default -, 3: cubic), fitted by least squares
(QR through ``numpy.linalg.lstsq``).

Goodness of fit, stated: R² = 1 - SSE/SST; adjusted R² = 1 - (1 - R²)(n - 1)/(n - p);
predicted R² = 1 - PRESS/SST, PRESS = Σ (e_i / (1 - h_ii))² with h the hat matrix's diagonal
(the leave-one-out residuals without refitting). A predicted R² well below R² means the
surface follows the run cases' scatter rather than a trend: chaotic regions (c >= 0.08 mm on
the reference mechanism) scatter late-time metrics, and :data:`POOR_PREDICTED_R2` is where a
page flags the surface instead of drawing it as fact.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

DEFAULT_ORDER = 2
ORDERS = (1, 2, 3)
# below this predicted R² the surface predicts the held-out cases poorly: flagged, not drawn
POOR_PREDICTED_R2 = 0.5


def monomials(d: int, order: int) -> list[tuple[int, ...]]:
    """Exponent tuples of every monomial in ``d`` factors of total degree <= ``order``,
    constant first, then by degree (x1, x2, x1², x1x2, x2², ...)."""
    out = []
    for degree in range(order + 1):
        for combo in itertools.combinations_with_replacement(range(d), degree):
            exps = [0] * d
            for j in combo:
                exps[j] += 1
            out.append(tuple(exps))
    return out


def term_name(exps: tuple[int, ...], names: Sequence[str]) -> str:
    """``"1"``, ``"clearance_mm"``, ``"clearance_mm^2"``, ``"clearance_mm*stiffness_scale"``."""
    parts = [n if e == 1 else f"{n}^{e}" for n, e in zip(names, exps, strict=True) if e]
    return "*".join(parts) or "1"


def model_matrix(xc: np.ndarray, terms: Sequence[tuple[int, ...]]) -> np.ndarray:
    """``(n, p)``: each monomial of ``terms`` evaluated at the coded points ``xc`` ``(n, d)``."""
    xc = np.atleast_2d(np.asarray(xc, dtype=float))
    return np.column_stack([np.prod(xc ** np.array(t), axis=1) for t in terms])


@dataclass(frozen=True)
class ResponseSurface:
    """A fitted surface. ``centre``/``half_range``: the coding per factor (parameter units);
    ``coefficients``: one per term, on coded factors; ``x``/``y``: the run cases fitted."""

    names: tuple[str, ...]
    order: int
    centre: np.ndarray
    half_range: np.ndarray
    terms: tuple[tuple[int, ...], ...]
    coefficients: np.ndarray
    r2: float
    r2_adjusted: float | None
    r2_predicted: float | None
    x: np.ndarray
    y: np.ndarray

    def code(self, x: np.ndarray) -> np.ndarray:
        return (np.atleast_2d(np.asarray(x, dtype=float)) - self.centre) / self.half_range

    def predict(self, x: np.ndarray) -> np.ndarray:
        """The surface at points ``x`` ``(m, d)`` in parameter units -> ``(m,)``."""
        return model_matrix(self.code(x), self.terms) @ self.coefficients

    def predict_at(self, values: Mapping[str, float]) -> float:
        return float(self.predict(np.array([[float(values[n]) for n in self.names]]))[0])

    def nearest_case(self, values: Mapping[str, float]) -> int:
        """Index (into ``x``) of the run case nearest ``values`` in coded units."""
        point = self.code(np.array([[float(values[n]) for n in self.names]]))
        return int(np.argmin(((self.code(self.x) - point) ** 2).sum(axis=1)))

    @property
    def poor(self) -> bool:
        """Predicted R² missing or below :data:`POOR_PREDICTED_R2`: not to be trusted."""
        return self.r2_predicted is None or self.r2_predicted < POOR_PREDICTED_R2

    def coefficient_table(self) -> dict[str, float]:
        return {term_name(t, self.names): float(c)
                for t, c in zip(self.terms, self.coefficients, strict=True)}

    def to_dict(self) -> dict[str, object]:
        return {"factors": list(self.names), "order": self.order,
                "centre": self.centre.tolist(), "half_range": self.half_range.tolist(),
                "coefficients": self.coefficient_table(), "r2": self.r2,
                "r2_adjusted": self.r2_adjusted, "r2_predicted": self.r2_predicted,
                "poor": self.poor, "n": int(self.y.size)}


class SurfaceError(ValueError):
    """Too few distinct cases for the terms asked, or no factor that varies."""


def fit_surface(x: np.ndarray, y: np.ndarray, names: Sequence[str],
                order: int = DEFAULT_ORDER) -> ResponseSurface:
    """Least-squares polynomial of ``order`` in the coded factors. ``x``: ``(n, d)``
    parameter units, ``y``: ``(n,)``. Factors that do not vary are left out (their column
    would be constant); more terms than cases -> :class:`SurfaceError`."""
    if order not in ORDERS:
        raise SurfaceError(f"order {order}: one of {ORDERS}")
    if len(y) == 0:  # the metric is in no done case (another model's name, or none done)
        raise SurfaceError("no done case has this metric")
    x = np.asarray(x, dtype=float).reshape(len(y), -1)
    y = np.asarray(y, dtype=float)
    lo, hi = x.min(axis=0), x.max(axis=0)
    varied = hi > lo
    if not varied.any():
        raise SurfaceError("no factor varies among the cases")
    x, names = x[:, varied], [n for n, v in zip(names, varied, strict=True) if v]
    centre, half = (lo + hi)[varied] / 2.0, (hi - lo)[varied] / 2.0
    terms = monomials(len(names), order)
    n, p = len(y), len(terms)
    if n < p:
        raise SurfaceError(f"{p} terms for order {order} in {len(names)} factors need at "
                           f"least {p} cases; {n} done")
    a = model_matrix((x - centre) / half, terms)
    coef, *_ = np.linalg.lstsq(a, y, rcond=None)
    resid = y - a @ coef
    sse, sst = float(resid @ resid), float(((y - y.mean()) ** 2).sum())
    r2 = 1.0 - sse / sst if sst > 0 else 1.0
    r2_adj = 1.0 - (1.0 - r2) * (n - 1) / (n - p) if n > p else None
    r2_pred = None
    if sst > 0 and n > p:
        q, _ = np.linalg.qr(a)
        h = (q * q).sum(axis=1)  # hat-matrix diagonal
        if np.all(h < 1.0 - 1e-10):
            press = float(((resid / (1.0 - h)) ** 2).sum())
            r2_pred = 1.0 - press / sst
    return ResponseSurface(tuple(names), order, centre, half, tuple(terms), coef, r2, r2_adj,
                           r2_pred, x, y)


def grid(surface: ResponseSurface, fx: str, fy: str, values: Mapping[str, float],
         points: int = 41) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The surface over factors ``fx`` × ``fy`` (each over its run range, ``points`` each),
    the other factors held at ``values``: (xs, ys, z ``(points, points)``, z[i, j] at
    ys[i], xs[j])."""
    i, j = surface.names.index(fx), surface.names.index(fy)
    xs = np.linspace(surface.centre[i] - surface.half_range[i],
                     surface.centre[i] + surface.half_range[i], points)
    ys = np.linspace(surface.centre[j] - surface.half_range[j],
                     surface.centre[j] + surface.half_range[j], points)
    gx, gy = np.meshgrid(xs, ys)
    pts = np.tile([float(values[n]) for n in surface.names], (gx.size, 1))
    pts[:, i], pts[:, j] = gx.ravel(), gy.ravel()
    return xs, ys, surface.predict(pts).reshape(gx.shape)
