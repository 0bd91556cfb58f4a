"""Peaks between steps: impacts last ~50 us, so a peak read at the accepted steps under-reads
by up to 1 % and one read off a 1e-5 s grid by ~2 % (design.md 1.3). A local maximum at a
step end is refined by golden-section search over the two steps around it, evaluating the
RHS on the dense output - a few hundred extra evaluations per case.
"""

from __future__ import annotations

from .dynamics import WS_DIAG
from .forces import D_DELTA, D_FN
from .integrators import dense_output, evaluate
from .jit import kernel

ACCELERATION, CONTACT_FORCE, PENETRATION = 0, 1, 2
GOLDEN = 0.6180339887498949
ITERATIONS = 16  # bracket 0.618^16 = 5e-4 of two steps: the peak's error is its square


@kernel(runtime=False)
def observe(f, n, probe, ws, quantity):
    """The refined quantities after an evaluation: |probe acceleration|, max Fn, max delta."""
    if quantity == ACCELERATION:
        return abs(f[n + probe]) if probe >= 0 else 0.0
    diag = ws[WS_DIAG]
    best = 0.0
    for k in range(diag.shape[0]):
        best = max(best, diag[k, D_FN] if quantity == CONTACT_FORCE else diag[k, D_DELTA])
    return best


@kernel(runtime=False)
def _value_at(x, steps, ctx, n, probe, quantity, ystage, fst):
    (ta, ya, fa, ra), (tb, yb, fb, rb), (tc, yc, fc) = steps
    if x <= tb:
        dense_output(ta, ya, fa, tb, yb, fb, ra, x, ystage)
    else:
        dense_output(tb, yb, fb, tc, yc, fc, rb, x, ystage)
    evaluate(x, ystage, ctx, fst)
    return observe(fst, n, probe, ctx.ws, quantity)


@kernel(runtime=False)
def refine_peak(steps, lo, quantity, ctx, n, probe, ystage, fst):
    """Maximum of ``quantity`` on ``[max(t_a, lo), t_c]`` around the step end ``t_b``.

    ``steps = ((t_a, y_a, f_a, r5_a), (t_b, y_b, f_b, r5_b), (t_c, y_c, f_c))``: the three
    step ends and the dense-output terms of the two steps. Returns (peak, RHS evaluations).
    """
    x0 = max(steps[0][0], lo)
    x3 = steps[2][0]
    p0, p1 = x3 - GOLDEN * (x3 - x0), x0 + GOLDEN * (x3 - x0)  # the two inner points
    v0 = _value_at(p0, steps, ctx, n, probe, quantity, ystage, fst)
    v1 = _value_at(p1, steps, ctx, n, probe, quantity, ystage, fst)
    for _ in range(ITERATIONS):
        if v0 > v1:
            x3, p1, v1 = p1, p0, v0
            p0 = x3 - GOLDEN * (x3 - x0)
            v0 = _value_at(p0, steps, ctx, n, probe, quantity, ystage, fst)
        else:
            x0, p0, v0 = p0, p1, v1
            p1 = x0 + GOLDEN * (x3 - x0)
            v1 = _value_at(p1, steps, ctx, n, probe, quantity, ystage, fst)
    return max(v0, v1), ITERATIONS + 2
