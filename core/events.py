"""Contact onset and exit as events of the stepping loop (design.md 1.4, seed 003).

Each clearance joint is *free* or *in contact*. A step is classified by the signs of the
penetration ``delta`` at its start, middle and end (seed 003's continuous contact /
continuous separation / separation -> contact / contact -> separation): a free joint whose
``delta`` rises above the onset threshold, or a joint in contact whose ``delta`` drops
below 0, has an event inside the step. The crossing is then located on the step's dense
output by Illinois root finding (the stepping loop redoes the step exactly to it).
"""

from __future__ import annotations

from .constraints import rotations
from .forces import clearance_kinematics
from .integrators import dense_output
from .jit import kernel

ONSET, EXIT, NONE = 1, -1, 0


@kernel(inline="always")
def penetration(y, n, model, rot, k):
    """Penetration [m] and its rate [m/s] of clearance joint ``k`` in state ``y``."""
    q = y[:n]
    rotations(q, rot)
    bi, bj = model.clear_int[k, 0], model.clear_int[k, 1]
    out = clearance_kinematics(q, y[n : 2 * n], rot, bi, bj, model.clear_par, k)
    return out[4], out[5]


@kernel(runtime=False)
def penetration_at(y, n, model, rot, k):
    """:func:`penetration` as a plain call, for the stepping loop's few calls per event:
    inlined at each of its sites there, it made that loop's compile the longest."""
    return penetration(y, n, model, rot, k)


@kernel(runtime=False)
def find_event(t0, y0, f0, t1, y1, f1, r5, n, model, in_contact, eps_onset, rot, ystage):
    """Earliest contact event inside the step ``[t0, t1]``.

    Returns ``(joint, kind, t_lo, t_hi)``: kind ONSET, EXIT or NONE and a bracket of the
    crossing. A free joint is also checked at mid-step so a grazing contact that enters and
    leaves within one step is not missed.
    """
    best_joint, best_kind, best_lo, best_hi = -1, NONE, t0, t1
    n_clear = model.clear_int.shape[0]
    if n_clear == 0:
        return best_joint, best_kind, best_lo, best_hi
    best_t = t1
    tm = 0.5 * (t0 + t1)
    dense_output(t0, y0, f0, t1, y1, f1, r5, tm, ystage)
    for k in range(n_clear):
        d1 = penetration(y1, n, model, rot, k)[0]
        dm = penetration(ystage, n, model, rot, k)[0]
        kind, lo, hi = NONE, t0, t1
        if in_contact[k] == 0:
            if dm > eps_onset:
                kind, hi = ONSET, tm
            elif d1 > eps_onset:
                kind, lo = ONSET, tm
        else:
            if dm < 0.0:
                kind, hi = EXIT, tm
            elif d1 < 0.0:
                kind, lo = EXIT, tm
        if kind == NONE:
            continue
        # with several joints the earliest crossing wins, estimated by linear interpolation
        # in its bracket: a later joint's event taken first would leave an earlier one
        # penetrating without force
        target = eps_onset if kind == ONSET else 0.0
        if lo == t0:
            d_lo, d_hi = penetration(y0, n, model, rot, k)[0], dm
        else:
            d_lo, d_hi = dm, d1
        frac = (target - d_lo) / (d_hi - d_lo) if d_hi != d_lo else 0.0
        t_est = lo + min(max(frac, 0.0), 1.0) * (hi - lo)
        if best_kind == NONE or t_est < best_t:
            best_joint, best_kind, best_lo, best_hi, best_t = k, kind, lo, hi, t_est
    return best_joint, best_kind, best_lo, best_hi


@kernel(runtime=False)
def locate_event(t0, y0, f0, t1, y1, f1, r5, lo, hi, n, model, joint, target, rot, ystage):
    """Time in ``[lo, hi]`` where ``delta = target`` on the dense output (Illinois)."""
    dense_output(t0, y0, f0, t1, y1, f1, r5, lo, ystage)
    glo = penetration(ystage, n, model, rot, joint)[0] - target
    dense_output(t0, y0, f0, t1, y1, f1, r5, hi, ystage)
    ghi = penetration(ystage, n, model, rot, joint)[0] - target
    side = 0
    for _ in range(60):
        if ghi == glo:
            break
        x = hi - ghi * (hi - lo) / (ghi - glo)
        dense_output(t0, y0, f0, t1, y1, f1, r5, x, ystage)
        g = penetration(ystage, n, model, rot, joint)[0] - target
        if abs(g) < 1e-15:
            return x  # converged from either side: ``hi`` may be a stale bracket end
        if (g > 0.0) == (ghi > 0.0):
            hi, ghi = x, g
            if side == 1:
                glo *= 0.5
            side = 1
        else:
            lo, glo = x, g
            if side == -1:
                ghi *= 0.5
            side = -1
        if hi - lo <= 1e-15 * max(1.0, abs(hi)):
            break
    # end on the far side of the crossing so the new contact state holds from here on
    return hi


@kernel(runtime=False)
def eccentricity_at(y, n, model, rot, k):
    """Eccentricity ``e = r_J - r_B`` [m] (global x, y) of clearance joint ``k`` in state ``y``
    (the Poincare section's coordinates)."""
    q = y[:n]
    rotations(q, rot)
    bi, bj = model.clear_int[k, 0], model.clear_int[k, 1]
    out = clearance_kinematics(q, y[n : 2 * n], rot, bi, bj, model.clear_par, k)
    return out[0], out[1]
