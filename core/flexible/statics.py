"""Static equilibrium of an ANCF beam by Newton-Raphson with load stepping.

Solves ``F_int(q) = F_ext`` on the free coordinates (the others keep their given values).
The tangent is the element-local central-difference Jacobian of the compiled elastic force
(:func:`ancf_beam.tangent_stiffness`), accurate to ~1e-10 relative, which keeps Newton's
quadratic convergence. The load is applied in increments that halve when an increment does
not converge, so a large-deflection (elastica) case starts from the straight beam unaided.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import SolverError
from .ancf_beam import AncfBeam

MAX_ITERATIONS = 25
MIN_INCREMENT = 1.0 / 1024.0


@dataclass(frozen=True, eq=False)
class StaticSolution:
    """``q``: equilibrium coordinates (n,); ``iterations``: Newton iterations in all;
    ``increments``: load increments used; ``residual``: final |F_int - F_ext|_free [N]."""

    q: np.ndarray
    iterations: int
    increments: int
    residual: float


def _newton(
    beam: AncfBeam, q: np.ndarray, free: np.ndarray, load: np.ndarray, tol: float
) -> tuple[np.ndarray, int, bool]:
    """Newton iterations from ``q`` for ``F_int = load``; returns (q, iterations, converged)."""
    scale_q = max(beam.length, 1.0)
    previous = np.inf
    for it in range(1, MAX_ITERATIONS + 1):
        f_int, _, _ = beam.elastic_forces(q)
        residual = (f_int - load)[free]
        k = beam.stiffness(q)[np.ix_(free, free)]
        try:
            dq = np.linalg.solve(k, -residual)
        except np.linalg.LinAlgError:
            return q, it, False
        if not np.all(np.isfinite(dq)):
            return q, it, False
        q = q.copy()
        q[free] += dq
        size = float(np.max(np.abs(dq)))
        if size <= tol * scale_q:
            return q, it, True
        # At the round-off floor of the stiff axial force the corrections stop shrinking.
        if size <= 1e-3 * np.sqrt(tol) * scale_q and size > 0.5 * previous:
            return q, it, True
        previous = size
    return q, MAX_ITERATIONS, False


def solve_static(
    beam: AncfBeam,
    q0: np.ndarray,
    free: np.ndarray,
    f_ext: np.ndarray,
    *,
    tol: float = 1e-11,
) -> StaticSolution:
    """Equilibrium under the dead load ``f_ext`` (n,) [N], starting from ``q0`` (n,).

    ``free``: indices of the unknown coordinates. Converged when a Newton correction is
    below ``tol`` times the beam length (or 1 m). Raises SolverError when even a load
    increment of 1/1024 does not converge (a mechanism, or a load beyond a limit point).
    """
    free = np.asarray(free, dtype=np.int64)
    q = np.asarray(q0, dtype=float).copy()
    applied, step, iterations, increments = 0.0, 1.0, 0, 0
    while applied < 1.0:
        target = min(1.0, applied + step)
        q_try, its, ok = _newton(beam, q, free, target * f_ext, tol)
        iterations += its
        if ok:
            q, applied = q_try, target
            increments += 1
            step = min(1.0, 2.0 * step)
        else:
            step *= 0.5
            if step < MIN_INCREMENT:
                raise SolverError(f"static Newton did not converge at load factor {target:.4g}")
    f_int, _, _ = beam.elastic_forces(q)
    residual = float(np.linalg.norm((f_int - f_ext)[free]))
    return StaticSolution(q, iterations, increments, residual)
