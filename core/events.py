"""Contact onset and exit as events of the stepping loop (design.md 1.4, seed 003).

Each clearance joint is *free* or *in contact*. A step is classified by the signs of the
penetration ``delta`` at its start, middle and end (seed 003's continuous contact /
continuous separation / separation -> contact / contact -> separation): a free joint whose
``delta`` rises above the onset threshold, or a joint in contact whose ``delta`` drops
below 0, has an event inside the step. The crossing is then located on the step's dense
output by Illinois root finding (the stepping loop redoes the step exactly to it).

With several joints (design.md 4.14) every joint's crossings inside the step are looked
for, the earliest is the event, and the stepping loop checks the others again on the step
it has cut there (:func:`stepping._event_step`): an earlier crossing the cut step reveals
becomes the event, a coincident one flips with it, a later one comes in the next step. No
joint is ever free past the onset threshold at a step's end.
"""

from __future__ import annotations

import math

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


@kernel(inline="always")
def _hermite_peak(g_a, v_a, g_b, v_b, h):
    """Where the cubic Hermite through ``(g_a, v_a)`` and ``(g_b, v_b)`` on a piece of
    length ``h`` [s] has an interior maximum: ``(s, value)`` with ``s`` in (0, 1) the fraction
    of the piece, or ``(-1, value)`` when it has none (the ends' slopes do not turn + to -)."""
    m0, m1 = v_a * h, v_b * h
    if not (m0 > 0.0 and m1 < 0.0):
        return -1.0, g_a
    # g'(s) = a2 s^2 + a1 s + m0 turns from + to - once in (0, 1)
    a2 = 6.0 * g_a + 3.0 * m0 - 6.0 * g_b + 3.0 * m1
    a1 = -6.0 * g_a - 4.0 * m0 + 6.0 * g_b - 2.0 * m1
    if abs(a2) < 1e-300:
        s = -m0 / a1 if a1 != 0.0 else 0.5
    else:
        disc = math.sqrt(max(a1 * a1 - 4.0 * a2 * m0, 0.0))
        # the root where g' falls through 0 (stable form of the two roots)
        q = -0.5 * (a1 + math.copysign(disc, a1))
        r1 = q / a2
        r2 = m0 / q if q != 0.0 else r1
        s = r1 if 0.0 < r1 < 1.0 else r2
    s = min(max(s, 0.0), 1.0)
    s1 = 1.0 - s
    value = (
        (2.0 * s**3 - 3.0 * s * s + 1.0) * g_a
        + s * s1 * s1 * m0
        + (3.0 * s * s - 2.0 * s**3) * g_b
        - s * s * s1 * m1
    )
    return s, value


@kernel(runtime=False)
def find_event(
    t0, y0, f0, t1, y1, f1, r5, n, model, in_contact, eps_onset, rot, ystage, skip, slack_on,
    slack_ex, exact,
):  # fmt: skip
    """Earliest contact event of any clearance joint inside the step ``[t0, t1]``.

    Returns ``(joint, kind, t_lo, t_hi)``: kind ONSET, EXIT or NONE and a bracket of the
    crossing of ``delta`` through its target (``eps_onset`` for a free joint, 0 for one in
    contact). Every joint is checked at the step's end, its middle, and - where the cubic
    Hermite of ``delta`` through the ends and the middle (values and rates) turns inside a
    half - at that turn on the dense output, so a grazing contact (or separation) that
    enters and leaves within one step is found too. With ``exact`` (root finding) each
    crossing is located on the dense output and the earliest returned as ``t_lo = t_hi`` =
    its time; otherwise the earliest by linear interpolation in its bracket. Joint ``skip``
    (-1: none) is left out, and an end past the target by at most ``slack_on`` (onset) /
    ``slack_ex`` (exit) [m] is no crossing: the loop uses these to re-check the other
    joints on a step it has just cut at an event, where such an end is a coincident event
    flipped with it. A joint past its target from the step's start on (a projection's
    nudge) has its event at ``t_lo = t_hi = t0``.
    """
    best_joint, best_kind, best_lo, best_hi = -1, NONE, t0, t1
    n_clear = model.clear_int.shape[0]
    if n_clear == 0:
        return best_joint, best_kind, best_lo, best_hi
    best_t = t1
    h = t1 - t0
    tm = 0.5 * (t0 + t1)
    found = 0
    mid = False  # ystage holds the state at tm (the grazing check and location reuse it)
    for k in range(n_clear):
        if k == skip:
            continue
        if not mid:
            dense_output(t0, y0, f0, t1, y1, f1, r5, tm, ystage)
            mid = True
        free = in_contact[k] == 0
        # g > 0: past the target (sunk past the onset threshold, or separated)
        sign, target = (1.0, eps_onset) if free else (-1.0, 0.0)
        slack = slack_on if free else slack_ex
        d, v = penetration(y0, n, model, rot, k)
        g0, v0 = sign * (d - target), sign * v
        d, v = penetration(ystage, n, model, rot, k)
        gm, vm = sign * (d - target), sign * v
        d, v = penetration(y1, n, model, rot, k)
        g1, v1 = sign * (d - target), sign * v
        lo, hi = t0, t1
        g_lo, g_hi = g0, g1
        if g1 > slack:
            if g0 > 0.0 and gm > 0.0:
                lo, hi, g_hi = t0, t0, g0  # past the target from the start on: at once
            elif gm > 0.0:
                hi, g_hi = tm, gm
            else:
                lo, g_lo = tm, gm
        elif g1 > 0.0:
            continue  # past by no more than the slack: coincident with the event just cut
        elif gm > 0.0:
            hi, g_hi = tm, gm
        else:
            # a crossing that enters and leaves between the samples: look where the
            # Hermite of g turns, in each half, when it comes near the target
            hit = False
            for piece in range(2):
                a, ga, va, gb, vb = (t0, g0, v0, gm, vm) if piece == 0 else (tm, gm, vm, g1, v1)
                s, peak = _hermite_peak(ga, va, gb, vb, 0.5 * h)
                if s < 0.0 or peak < 0.5 * min(ga, gb):
                    continue
                ts = a + s * 0.5 * h
                dense_output(t0, y0, f0, t1, y1, f1, r5, ts, ystage)
                mid = False
                gs = sign * (penetration_at(ystage, n, model, rot, k)[0] - target)
                if gs > 0.0:
                    lo, hi, g_lo, g_hi = a, ts, ga, gs
                    hit = True
                    break
            if not hit:
                continue
        kind = ONSET if free else EXIT
        found += 1
        if hi == lo:
            t_est = lo
        elif exact:
            mid = False
            t_est = locate_event(t0, y0, f0, t1, y1, f1, r5, lo, hi, n, model, k, target, rot,
                                 ystage)  # fmt: skip
        else:
            frac = -g_lo / (g_hi - g_lo) if g_hi != g_lo else 0.0
            t_est = lo + min(max(frac, 0.0), 1.0) * (hi - lo)
        if best_kind == NONE or t_est < best_t:
            best_joint, best_kind, best_lo, best_hi, best_t = k, kind, lo, hi, t_est
    if exact and found > 0:
        # the earliest crossing located: the event step ends there
        best_lo, best_hi = best_t, best_t
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
