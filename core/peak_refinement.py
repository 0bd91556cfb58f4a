"""Peaks between steps: impacts last ~50 us, so a peak read at the accepted steps under-reads
by up to 1 % and one read off a 1e-5 s grid by ~2 % (design.md 1.3). A local maximum at a
step end is refined by golden-section search over the two steps around it, evaluating the
RHS on the dense output - a few hundred extra evaluations per case.

The same holds for every observed quantity of a case (:func:`observation`): each measure of
a mechanism and each clearance joint's contact force and penetration, all of one run.
"""

from __future__ import annotations

import math

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


# --- the vector probes: every measure of a mechanism, every clearance joint ----------------
# A measure's fields in the options row (``opts[base + k]``, :mod:`stepping`'s
# ``PROBE_FIELDS`` a measure): the index of its body's x coordinate in q, the point [m] in the
# body's frame (0, 0: the centre of mass), the component and the quantity.
(PROBE_COORD, PROBE_SX, PROBE_SY, PROBE_COMPONENT, PROBE_QUANTITY) = range(5)
PROBE_FIELDS = 5
COMPONENTS = ("x", "y", "angle", "magnitude")
QUANTITIES = ("position", "velocity", "acceleration")


@kernel(runtime=False)
def measure_value(y, f, n, opts, base):
    """The signed value of the measure whose fields start at ``opts[base]`` at the state
    ``y`` with ``f = f(t, y)``: a body coordinate, or a point ``s`` moving with the body -
    position ``r + A s``, velocity ``v + w x (A s)``, acceleration
    ``a + alpha x (A s) - w^2 A s`` - or the magnitude of the 2-vector [m, m/s, m/s^2; rad,
    rad/s, rad/s^2 for an angle]."""
    i = int(opts[base + PROBE_COORD])
    sx, sy = opts[base + PROBE_SX], opts[base + PROBE_SY]
    component = int(opts[base + PROBE_COMPONENT])
    quantity = int(opts[base + PROBE_QUANTITY])
    if quantity == 0:
        gx, gy, ga = y[i], y[i + 1], y[i + 2]
    elif quantity == 1:
        gx, gy, ga = y[n + i], y[n + i + 1], y[n + i + 2]
    else:
        gx, gy, ga = f[n + i], f[n + i + 1], f[n + i + 2]
    if component == 2:
        return ga
    if sx != 0.0 or sy != 0.0:
        phi = y[i + 2]
        c, s = math.cos(phi), math.sin(phi)
        ax, ay = c * sx - s * sy, s * sx + c * sy  # A s
        if quantity == 0:
            gx, gy = gx + ax, gy + ay
        elif quantity == 1:
            w = y[n + i + 2]
            gx, gy = gx - w * ay, gy + w * ax
        else:
            w, alpha = y[n + i + 2], f[n + i + 2]
            gx, gy = gx - alpha * ay - w * w * ax, gy + alpha * ax - w * w * ay
    if component == 0:
        return gx
    if component == 1:
        return gy
    return math.sqrt(gx * gx + gy * gy)


@kernel(runtime=False)
def observation(w, y, f, n, ws, opts, base, n_probe, n_joint):
    """Observed quantity ``w`` after an evaluation at ``y`` (``f`` its derivative, ``ws``
    its diagnostics): ``w < n_probe`` |measure w|, then each joint's normal force [N], then
    each joint's penetration [m] (``n_joint`` joints)."""
    if w < n_probe:
        return abs(measure_value(y, f, n, opts, base + PROBE_FIELDS * w))
    j = w - n_probe
    diag = ws[WS_DIAG]
    if j < n_joint:
        return diag[j, D_FN]
    return diag[j - n_joint, D_DELTA]


@kernel(runtime=False)
def _observed_at(x, steps, ctx, n, w, opts, base, n_probe, n_joint, ystage, fst):
    (ta, ya, fa, ra), (tb, yb, fb, rb), (tc, yc, fc) = steps
    if x <= tb:
        dense_output(ta, ya, fa, tb, yb, fb, ra, x, ystage)
    else:
        dense_output(tb, yb, fb, tc, yc, fc, rb, x, ystage)
    evaluate(x, ystage, ctx, fst)
    return observation(w, ystage, fst, n, ctx.ws, opts, base, n_probe, n_joint)


@kernel(runtime=False)
def refine_observation(steps, lo, w, ctx, n, opts, base, n_probe, n_joint, ystage, fst):
    """:func:`refine_peak` of observed quantity ``w`` (:func:`observation`): its maximum on
    ``[max(t_a, lo), t_c]`` by the same golden-section search. Returns (peak, evaluations)."""
    x0 = max(steps[0][0], lo)
    x3 = steps[2][0]
    p0, p1 = x3 - GOLDEN * (x3 - x0), x0 + GOLDEN * (x3 - x0)
    v0 = _observed_at(p0, steps, ctx, n, w, opts, base, n_probe, n_joint, ystage, fst)
    v1 = _observed_at(p1, steps, ctx, n, w, opts, base, n_probe, n_joint, ystage, fst)
    for _ in range(ITERATIONS):
        if v0 > v1:
            x3, p1, v1 = p1, p0, v0
            p0 = x3 - GOLDEN * (x3 - x0)
            v0 = _observed_at(p0, steps, ctx, n, w, opts, base, n_probe, n_joint, ystage, fst)
        else:
            x0, p0, v0 = p0, p1, v1
            p1 = x0 + GOLDEN * (x3 - x0)
            v1 = _observed_at(p1, steps, ctx, n, w, opts, base, n_probe, n_joint, ystage, fst)
    return max(v0, v1), ITERATIONS + 2
