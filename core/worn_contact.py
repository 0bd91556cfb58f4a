r"""The contact of a journal with a worn bearing: the resultant of an elastic-foundation
(Winkler) pressure over the overlap arc (design.md 4.12, issue 37).

**Geometry.** The hole's radius is :math:`R_B + h(\theta)`, ``h`` at ``N`` nodes
:math:`\theta_i = 2\pi i/N` of the bearing's frame, linear between them (:mod:`wear`). With
the eccentricity ``e`` (journal centre minus bearing centre, in the bearing's frame,
:math:`|e| \ll R`), the journal's surface in direction :math:`\theta` stands
:math:`g(\theta) = e\cdot u(\theta) - c - h(\theta)` past the worn wall (its overlap; the
wall's normal taken radial, its tilt :math:`h'/R_B` left out as before).

**The pressure.** The wall is a bed of independent springs: the pressure is proportional to
the local overlap, :math:`p(\theta) \propto g(\theta)_+` (the linear foundation; the wear's
pressure, :func:`wear.wear_increment`, is the same distribution). Its resultant
:math:`W = \int g_+\,u\,\mathrm{d}\theta` [m] is integrated exactly: on each segment between
nodes ``g`` is :math:`|e|\cos\varphi - A - s\,\varphi` (closed-form antiderivatives), its
positive part cut at the exact roots of ``g`` (``g`` is concave where it is positive, so a
segment holds one positive interval at most). The contact force acts along ``W``, not the line
of centres; friction acts along the tangent to it, and the contact points are on the two
surfaces in that direction.

**Its size: the contact law at an equivalent penetration.** The force is the gradient of
the law's energy at the penetration :math:`\delta` of a *circular* hole of clearance
:math:`c'` that has the same Winkler potential :math:`V = \tfrac12\int g_+^2\,\mathrm{d}\theta`
[m² rad] (4-point Gauss-Legendre per positive interval): on that hole :math:`|e| = c' +
\delta`, the overlap arc is :math:`|\varphi| < \varphi_0`, :math:`\cos\varphi_0 = c'/|e|`,
:math:`\mathrm{d}V/\mathrm{d}\delta = W_\circ(\delta; c') = |e|\varphi_0 - c'\sin\varphi_0`
(:math:`\approx \tfrac43\sqrt{2/c'}\,\delta^{3/2}`), and :math:`\nabla_e V = W`, so the force
is the law's at :math:`\delta` times :math:`|W|/W_\circ(\delta; c')` along ``W``.

**The equivalent hole's clearance** :math:`c' = c + \bar h`, :math:`\bar h = \int g_+ h /
\int g_+` the pressure-weighted mean depth of the wall over the overlap arc. It is exact
where the wall under the arc is a circle: worn evenly by ``D`` (:math:`\bar h = D`: the new
hole of clearance ``c + D``, to round-off) and unworn (:math:`\bar h = 0`: a contact away from
the wear is the new joint's, whatever is worn elsewhere). The alternative, the deepest groove
anywhere (:math:`c' = c + h_{max}`), is also exact for even wear but makes a contact on the
unworn wall of a hole grooved elsewhere stiffer than the new joint's - by
:math:`\approx (c'/c)^{1/5}` in the penetration and :math:`(c'/c)^{1/2}` in the force for a
Hertz-type law (:math:`F \propto \delta^{3/2}`), x1.7 for a groove 2c deep - which is
no physics. Measured side by side
(issue 37) the two choices give the same lives within the noise: the slider-crank's life
(1e6 revolutions, k_D 1e-16) 3 -> 6 steps +2.44 % (h_max) and +2.52 % (mean), the rotor's
Reye shape L2 6.7 / 6.65 % of h0 at 90 nodes (10.9 / 10.8 % at 360), even wear exact with
both. The price of the local choice: ``c'`` moves with ``e`` where the depth varies across
the arc, and the force leaves out :math:`\partial\delta/\partial c'\,\nabla c'`, so it is
exactly conservative only where :math:`\bar h` is locally constant (even, unworn, or a pocket
the journal fills); the work that term would do round a loop is not measured. A pocket the
journal conforms to carries a wider arc and so a stiffer contact (the resultant grows with
the arc).

Why not the deepest overlap as the penetration (tried, docs/wear.md): in a conformal pocket the
deepest point of a nearly flat overlap jumps across the arc and grows with ``|ε|`` for a
sideways offset ``ε`` either way - the journal rattles in its pocket. The integral is smooth.

**Out of contact** (:math:`\max g \le 0`) the gap is the deepest overlap
:math:`\max_\theta g` (exact: the nodes, then the stationary point on the segments that can
hold the maximum), the direction the deepest point's. Both sides meet at 0 (as the overlap
vanishes, ``W`` does), so the one signed measure serves the force and the events
(:func:`events.penetration`): onset is located where the deepest overlap reaches the
threshold, wherever on the wall it is.

The circular hole (no profile, or a profile of zeros) never comes here: the compiled contact
keeps its own path, bit for bit (:func:`forces.clearance_kinematics`).
"""

from __future__ import annotations

import math

import numpy as np

from .jit import kernel


@kernel(runtime=False)  # a call LLVM inlines
def _g(ecc, a, s, pa, phi):
    """Overlap [m] at ``phi`` (from the line of centres) on a segment where the wall is
    ``a + s (phi - pa)``."""
    return ecc * math.cos(phi) - a - s * (phi - pa)


@kernel(runtime=False)
def _root(ecc, a, s, pa, lo, hi, glo):
    """The root of :func:`_g` in ``[lo, hi]`` (``g`` changes sign there; ``glo`` = g(lo)):
    Newton kept in the bracket, bisection where it leaves it."""
    x = 0.5 * (lo + hi)
    for _ in range(80):
        gx = _g(ecc, a, s, pa, x)
        if gx == 0.0:
            return x
        if (gx > 0.0) == (glo > 0.0):
            lo, glo = x, gx
        else:
            hi = x
        d = -ecc * math.sin(x) - s
        nx = x - gx / d if d != 0.0 else 0.5 * (lo + hi)
        if not lo < nx < hi:
            nx = 0.5 * (lo + hi)
        if abs(nx - x) <= 1e-15 * (1.0 + abs(x)) or hi - lo <= 1e-15 * (1.0 + abs(x)):
            return nx
        x = nx
    return x


@kernel(runtime=False)
def _moments(ecc, a, s, pa, lo, hi, sm, cm, sd, cd):
    """``(int g cos phi, int g sin phi)`` [m] over ``[lo, hi]`` in closed form,
    ``g = ecc cos phi - a - s (phi - pa)``, written with the interval's middle ``m`` and
    half-width ``d`` (``sm, cm, sd, cd`` their sines and cosines) so that no difference of
    two cosines near 1 is taken: the resultant of a light touch keeps its direction."""
    d = 0.5 * (hi - lo)
    dsin = 2.0 * cm * sd  # sin(hi) - sin(lo)
    dcos = -2.0 * sm * sd  # cos(hi) - cos(lo)
    sh, ch = sm * cd + cm * sd, cm * cd - sm * sd
    wc = (ecc * (d + (cm * cm - sm * sm) * sd * cd) - a * dsin
          - s * ((hi - lo) * sh + (lo - pa) * dsin + dcos))
    ws = (2.0 * sm * sd * (ecc * cm * cd - a)
          - s * (-(hi - lo) * ch - (lo - pa) * dcos + dsin))
    return wc, ws


@kernel(runtime=False)
def circle_resultant(delta, clearance):
    """:math:`W_\\circ(\\delta; c')` [m] and its derivative in ``delta``: the Winkler
    resultant of a journal sunk ``delta`` > 0 into a circular hole of clearance
    ``clearance``."""
    ecc = clearance + delta
    phi0 = 2.0 * math.asin(math.sqrt(0.5 * delta / ecc))
    if phi0 < 0.05:  # phi - sin phi without its cancellation
        p2 = phi0 * phi0
        excess = phi0 * p2 / 6.0 * (1.0 - p2 / 20.0 * (1.0 - p2 / 42.0 * (1.0 - p2 / 72.0)))
    else:
        excess = phi0 - math.sin(phi0)
    return delta * phi0 + clearance * excess, phi0 + math.sin(phi0) * clearance / ecc


# Gauss-Legendre on [-1, 1], 4 points (the overlap's square on a segment) and 8 (the circle's)
_GL4_X = (0.33998104358485626, 0.8611363115940526)
_GL4_W = (0.6521451548625461, 0.34785484513745385)
_GL8_X = (0.1834346424956498, 0.525532409916329, 0.7966664774136267, 0.9602898564975363)
_GL8_W = (0.362683783378362, 0.31370664587788727, 0.22238103445337448, 0.10122853629037626)


@kernel(runtime=False)
def circle_potential(delta, clearance):
    """The potential ``V = 1/2 int g_+^2 dphi`` [m² rad] of a journal sunk ``delta`` > 0 into a
    circular hole of clearance ``clearance``: ``int_0^phi0 |e|^2 (cos phi - cos phi0)^2``,
    the difference of the cosines as a product of sines (no cancellation), Gauss-Legendre (8
    points; the integrand is smooth, ``~ (phi0^2 - phi^2)^2`` for a light touch)."""
    ecc = clearance + delta
    phi0 = 2.0 * math.asin(math.sqrt(0.5 * delta / ecc))
    half = 0.5 * phi0
    total = 0.0
    for k in range(4):
        for sign in (-1.0, 1.0):
            phi = half + sign * _GL8_X[k] * half
            g = 2.0 * ecc * math.sin(0.5 * (phi0 + phi)) * math.sin(0.5 * (phi0 - phi))
            total += _GL8_W[k] * g * g
    return total * half


@kernel(runtime=False)
def equivalent_penetration(v, clearance):
    """The ``delta`` [m] at which :func:`circle_potential` is ``v`` > 0 (Newton on
    ``V^(2/5)``, nearly linear in ``delta``; ``dV/ddelta`` is the resultant,
    :func:`circle_resultant`)."""
    # the light touch: V = (8/15) sqrt(2/c') delta^(5/2)
    x = (v / (8.0 / 15.0 * math.sqrt(2.0 / clearance))) ** 0.4
    target = v ** 0.4
    for _ in range(60):
        vx = circle_potential(x, clearance)
        w = circle_resultant(x, clearance)[0]
        step = (vx ** 0.4 - target) / (0.4 * w / vx ** 0.6)
        nx = x - step
        if nx <= 0.0:
            nx = 0.5 * x
        if abs(nx - x) <= 1e-14 * x:
            return nx
        x = nx
    return x


@kernel(runtime=False)
def _window(profile, clearance, lx, ly, ecc, theta_e, step):
    """The window of the wall that can matter, ``(first, count, wrap)``: ``count`` segments
    from node ``first`` (``wrap`` of them past node 0 when the window wraps).

    The overlap is at most ecc cos(phi) - c - h_min, and the nearest node's overlap g0 bounds
    the deepest one from below, so a point with ecc cos(phi) - c - h_min < min(g0, 0) can
    neither be the deepest nor overlap: only the segments within phi_w of the line of centres
    are scanned (a light touch or free flight: a few tens of the nodes; the whole wall where
    the journal is deep in a wide groove)."""
    n = profile.shape[0]
    hmin = profile[0]
    for i in range(n):
        hmin = min(hmin, profile[i])
    i0 = int(math.floor(theta_e / step + 0.5)) % n
    g0 = lx * math.cos(i0 * step) + ly * math.sin(i0 * step) - clearance - profile[i0]
    cw = (min(g0, 0.0) + clearance + hmin - 1e-9 * ecc) / ecc
    m = n
    if cw > -1.0:
        m = int(math.acos(min(cw, 1.0)) / step) + 2  # segments either side of node i0
    if 2 * m + 2 >= n:  # the whole wall, from node 0
        first, count = 0, n
    else:
        first, count = (i0 - m) % n, 2 * m + 2
    # the window's segments in the order of their nodes from 0 (the sums' order as over the
    # whole wall): nodes 0..wrap-1 first if the window wraps past node 0, then first..
    wrap = max(first + count - n, 0)
    return first, count, wrap


@kernel(runtime=False)
def _deepest_node(profile, clearance, lx, ly, first, count, step, cd, sd):
    """The deepest overlap [m] at the window's ``count + 1`` nodes from ``first`` (the node's
    direction by rotation, ``cd, sd`` the ``step``'s cosine and sine: the scan needs no more)."""
    n = profile.shape[0]
    best = -math.inf
    ci, si = math.cos(first * step), math.sin(first * step)
    for k in range(count + 1):
        i = first + k
        if i >= n:
            i -= n
        best = max(best, lx * ci + ly * si - clearance - profile[i])
        ci, si = ci * cd - si * sd, si * cd + ci * sd
    return best


@kernel(runtime=False)
def _segment_peak(ecc, a, s, pa, pb, ga, gb):
    """The deepest overlap on a segment ``[pa, pb]`` and where, ``(pm, gm)``: the deeper end,
    or the stationary point (g' = -ecc sin(phi) - s = 0) when an end is out of contact (for
    the deepest overlap out of contact and the roots of a positive part)."""
    pm, gm = pa, ga
    if gb > gm:
        pm, gm = pb, gb
    if (ga <= 0.0 or gb <= 0.0) and abs(s) < ecc:
        ps = -math.asin(s / ecc)
        if pa < ps < pb:
            gs = math.sqrt(ecc * ecc - s * s) - a - s * (ps - pa)
            if gs > gm:
                pm, gm = ps, gs
    return pm, gm


@kernel(runtime=False)
def _arc_integrals(ecc, clearance, a, s, pa, pb, half, sm, cm, sh0, ch0, ga, gb, pm, gm,
                   gs0, gc0, gs1, gc1, pot, sg, sgh):
    """The positive part of a segment ``[pa, pb]`` (``gm`` > 0), its ends exact: the
    resultant's moments ``(dc, ds)`` [m] over it, and the running sums ``pot`` (of g_+^2)
    [m² rad], ``sg`` (g_+) [m rad] and ``sgh`` (g_+ h) [m² rad] with its 4 Gauss-Legendre
    points added (in place of a per-segment sum: the same order of additions as one loop
    over the wall, the same bits).

    ``sm, cm`` are the sine and cosine of the segment's middle, ``sh0, ch0`` of its
    half-width ``half``, ``gs0, gc0, gs1, gc1`` of the Gauss points' offsets on a whole one."""
    lo, hi = pa, pb
    if ga <= 0.0:
        lo = _root(ecc, a, s, pa, pa, pm, ga)
    if gb <= 0.0:
        hi = _root(ecc, a, s, pa, pm, pb, gm)
    if ga > 0.0 and gb > 0.0:
        mid, d, smid, cmid, sd_, cd_ = pa + half, half, sm, cm, sh0, ch0
    else:
        mid, d = 0.5 * (lo + hi), 0.5 * (hi - lo)
        smid, cmid, sd_, cd_ = math.sin(mid), math.cos(mid), math.sin(d), math.cos(d)
    dc, ds = _moments(ecc, a, s, pa, lo, hi, smid, cmid, sd_, cd_)
    whole = d == half
    for q in range(2):
        if whole:
            sx, cx = (gs0, gc0) if q == 0 else (gs1, gc1)
        else:
            sx, cx = math.sin(_GL4_X[q] * d), math.cos(_GL4_X[q] * d)
        for sign in (-1.0, 1.0):
            phi = mid + sign * _GL4_X[q] * d
            g = ecc * (cmid * cx - sign * smid * sx) - a - s * (phi - pa)
            pot += _GL4_W[q] * d * g * g
            sg += _GL4_W[q] * d * g
            sgh += _GL4_W[q] * d * g * (a - clearance + s * (phi - pa))
    return dc, ds, pot, sg, sgh


@kernel(runtime=False)
def _overlap_arc(profile, clearance, lx, ly, ecc, theta_e, first, count, wrap, best):
    """The scan of the window's segments (:func:`_window`): ``(wc, ws, gmax, tmax, pot, sg,
    sgh)``, the resultant's moments [m] along and across the line of centres, the deepest
    overlap [m] and its angle [rad] from the line of centres, and the integrals of g_+^2
    [m² rad], g_+ [m rad] and g_+ h [m² rad]. The exact overlap is taken only where a segment
    can hold the maximum (above ``best``, the deepest node's) or a positive part."""
    n = profile.shape[0]
    step = 2.0 * math.pi / n
    cd, sd = math.cos(step), math.sin(step)
    # the most a segment's overlap rises above its ends, and a margin for the rotated nodes
    bump = 0.125 * ecc * step * step + 1e-12 * ecc
    wc, ws = 0.0, 0.0
    gmax, tmax = -math.inf, 0.0
    exact_at = -1  # the node whose exact overlap ``gb`` holds
    gb = 0.0
    half = 0.5 * step
    sh0, ch0 = math.sin(half), math.cos(half)
    # the Gauss points' offsets on a whole segment (half-width ``half``)
    gs0, gc0 = math.sin(_GL4_X[0] * half), math.cos(_GL4_X[0] * half)
    gs1, gc1 = math.sin(_GL4_X[1] * half), math.cos(_GL4_X[1] * half)
    pot = 0.0  # the potential's integral of g_+^2 [m² rad]
    sg, sgh = 0.0, 0.0  # int g_+ [m rad] and int g_+ h [m² rad]: the pressure's mean depth
    ci, si, gra = 0.0, 0.0, 0.0
    for k in range(count):
        i = k if k < wrap else first + k - wrap
        if k == 0 or k == wrap:  # a run of segments starts: its first node's overlap
            ci, si = math.cos(i * step), math.sin(i * step)
            gra = lx * ci + ly * si - clearance - profile[i]
        j = i + 1 if i + 1 < n else 0
        ci, si = ci * cd - si * sd, si * cd + ci * sd
        grb = lx * ci + ly * si - clearance - profile[j]
        top = max(gra, grb) + bump
        gra = grb
        if top < best and top <= 0.0:
            continue
        pa = i * step - theta_e  # the segment's start from the line of centres, near it
        x = pa + math.pi
        if not 0.0 <= x < 2.0 * math.pi:  # the modulo only where it acts (the same bits)
            x %= 2.0 * math.pi
        pa = x - math.pi
        pb = pa + step
        a = clearance + profile[i]
        s = (profile[j] - profile[i]) / step
        sm, cm = math.sin(pa + half), math.cos(pa + half)
        if exact_at != i:  # not the previous segment's end: its own
            gb = ecc * (cm * ch0 + sm * sh0) - a
        ga = gb
        gb = ecc * (cm * ch0 - sm * sh0) - a - s * step
        exact_at = j
        pm, gm = _segment_peak(ecc, a, s, pa, pb, ga, gb)
        if gm > gmax:
            gmax, tmax = gm, pm
        if gm > 0.0:
            dc, ds, pot, sg, sgh = _arc_integrals(
                ecc, clearance, a, s, pa, pb, half, sm, cm, sh0, ch0, ga, gb, pm, gm,
                gs0, gc0, gs1, gc1, pot, sg, sgh)
            wc += dc
            ws += ds
    return wc, ws, gmax, tmax, pot, sg, sgh


@kernel(runtime=False)
def _wall_depth(profile, theta):
    """The wall's depth [m] in the direction ``theta`` [rad] (bearing frame), linear between
    the nodes."""
    n = profile.shape[0]
    step = 2.0 * math.pi / n
    f = (theta % (2.0 * math.pi)) / step
    i = int(f)
    f -= i
    i = i % n
    j = i + 1 if i + 1 < n else 0
    return (1.0 - f) * profile[i] + f * profile[j]


@kernel(runtime=False)
def worn_contact(profile, clearance, lx, ly):
    """Joint's gap and contact direction on the worn ``profile`` ``[N]`` [m] for the
    eccentricity ``(lx, ly)`` [m] in the bearing's frame (the module's model).

    Returns ``(delta, nx, ny, h, scale, w)``: the signed penetration [m] (the equivalent
    penetration of the Winkler resultant in contact, the deepest overlap out of it), the unit
    direction of the contact force on the bearing's wall (bearing frame), the wall's depth
    ``h`` [m] there, the force's scale ``|W| / W_o(delta; c')`` (1 out of contact) and the
    resultant's size ``|W|`` [m] (0 out of contact).
    """
    n = profile.shape[0]
    step = 2.0 * math.pi / n
    ecc = math.sqrt(lx * lx + ly * ly)
    if ecc <= 1e-300:
        lo = profile[0]
        for i in range(n):
            lo = min(lo, profile[i])
        return -clearance - lo, 1.0, 0.0, lo, 1.0, 0.0
    ux, uy = lx / ecc, ly / ecc
    theta_e = math.atan2(uy, ux)
    first, count, wrap = _window(profile, clearance, lx, ly, ecc, theta_e, step)
    best = _deepest_node(profile, clearance, lx, ly, first, count, step,
                         math.cos(step), math.sin(step))
    wc, ws, gmax, tmax, pot, sg, sgh = _overlap_arc(profile, clearance, lx, ly, ecc, theta_e,
                                                    first, count, wrap, best)
    if gmax <= 0.0:  # free: the deepest overlap, at the deepest point
        c, s_ = math.cos(tmax), math.sin(tmax)
        theta = tmax + theta_e
        w = 0.0
    else:
        w = math.sqrt(wc * wc + ws * ws)
        if w > 0.0:
            c, s_ = wc / w, ws / w
        else:  # a touch too light to integrate: at the deepest point
            c, s_ = math.cos(tmax), math.sin(tmax)
        theta = math.atan2(uy * c + ux * s_, ux * c - uy * s_)
    nx, ny = ux * c - uy * s_, uy * c + ux * s_
    h = _wall_depth(profile, theta)
    if gmax <= 0.0 or w <= 0.0 or pot <= 0.0:
        return gmax, nx, ny, h, 1.0, w
    # the law's energy at the circular hole's equivalent penetration, its clearance c' the
    # pressure's mean worn clearance over the arc (the module's text)
    wide = clearance + (max(sgh / sg, 0.0) if sg > 0.0 else h)
    delta = equivalent_penetration(0.5 * pot, wide)
    return delta, nx, ny, h, w / circle_resultant(delta, wide)[0], w


def contact_directions(profile: np.ndarray, clearance: float, ecc: np.ndarray,
                       theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`worn_contact` over samples: for the eccentricity ``ecc`` [m] at the angle
    ``theta`` [rad] (bearing frame), ``[m]`` each, the penetration [m] and the contact force's
    direction [rad, bearing frame], ``[m]`` each. A zero profile: the line of centres."""
    ecc = np.asarray(ecc, dtype=float)
    theta = np.asarray(theta, dtype=float)
    if not np.any(profile > 0.0):
        return ecc - clearance, np.mod(theta, 2.0 * np.pi)
    delta, angle = np.empty(ecc.shape), np.empty(ecc.shape)
    _directions(np.ascontiguousarray(profile, dtype=float), float(clearance),
                np.ravel(ecc * np.cos(theta)), np.ravel(ecc * np.sin(theta)), delta.reshape(-1),
                angle.reshape(-1))
    return delta, angle


@kernel(runtime=False)
def _directions(profile, clearance, lx, ly, delta, angle):
    for k in range(lx.shape[0]):
        d, nx, ny, _, _, _ = worn_contact(profile, clearance, lx[k], ly[k])
        delta[k] = d
        angle[k] = math.atan2(ny, nx) % (2.0 * math.pi)


def resultants(profile: np.ndarray, clearance: float, ecc: np.ndarray,
               theta: np.ndarray) -> np.ndarray:
    """The Winkler resultant's size ``|W|`` [m] (:func:`worn_contact`) for the eccentricity
    ``ecc`` [m] at ``theta`` [rad] (bearing frame), ``[m]`` each; 0 out of contact."""
    out = np.zeros(np.shape(ecc))
    _resultants(np.ascontiguousarray(profile, dtype=float), float(clearance),
                np.ravel(ecc * np.cos(theta)), np.ravel(ecc * np.sin(theta)), out.reshape(-1))
    return out


@kernel(runtime=False)
def _resultants(profile, clearance, lx, ly, out):
    for k in range(lx.shape[0]):
        out[k] = worn_contact(profile, clearance, lx[k], ly[k])[5]


def sink(profile: np.ndarray, clearance: float, ecc: np.ndarray, theta: np.ndarray,
         along: np.ndarray, target: np.ndarray, start: np.ndarray) -> np.ndarray:
    """How far [m] the journal must move along ``along`` [rad] (bearing frame) from the
    eccentricity ``ecc`` [m] at ``theta`` [rad] for the Winkler resultant on ``profile``
    ``[N]`` [m] to be ``target`` [m] (all ``[m]``; from ``start`` [m], bracketed, Illinois):
    the journal sinking into what it wears with the foundation carrying the force it carried
    (:func:`wear.WornJoint.advance`)."""
    out = np.array(start, dtype=float)
    _sink(np.ascontiguousarray(profile, dtype=float), float(clearance),
          np.ravel(ecc * np.cos(theta)), np.ravel(ecc * np.sin(theta)),
          np.ravel(np.cos(along)), np.ravel(np.sin(along)), np.ravel(target), out.reshape(-1))
    return out


@kernel(runtime=False)
def _sink(profile, clearance, lx, ly, dx, dy, target, out):
    for k in range(lx.shape[0]):
        lo = out[k]
        flo = worn_contact(profile, clearance, lx[k] + lo * dx[k], ly[k] + lo * dy[k])[5]
        flo -= target[k]
        span = max(abs(lo), 1e-9)
        hi, fhi = lo, flo
        for _ in range(60):  # a bracket: W grows as the journal moves into the wall
            hi = lo + span if flo < 0.0 else lo - span
            fhi = worn_contact(profile, clearance, lx[k] + hi * dx[k],
                               ly[k] + hi * dy[k])[5] - target[k]
            if (fhi >= 0.0) != (flo >= 0.0):
                break
            lo, flo = hi, fhi
            span *= 2.0
        side = 0
        x = lo
        for _ in range(100):
            if fhi == flo:
                break
            x = hi - fhi * (hi - lo) / (fhi - flo)
            fx = worn_contact(profile, clearance, lx[k] + x * dx[k], ly[k] + x * dy[k])[5]
            fx -= target[k]
            if fx == 0.0 or abs(hi - lo) <= 1e-16 + 1e-13 * abs(x):
                break
            if (fx >= 0.0) == (fhi >= 0.0):
                hi, fhi = x, fx
                if side == 1:
                    flo *= 0.5
                side = 1
            else:
                lo, flo = x, fx
                if side == -1:
                    fhi *= 0.5
                side = -1
        out[k] = x
