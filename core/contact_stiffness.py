r"""Elastic force-penetration laws of the revolute clearance joint: its *stiffness model*.

A contact law (:mod:`contact_laws`) is an elastic part times a dissipative factor; this
module supplies the elastic part :math:`F_e(\delta)` [N] at penetration ``delta`` [m]. The
sphere-type Hertz stiffness of design.md 1.2 treats the pin in its eye as two spheres; a pin
in a bore of nearly equal radius is a *cylindrical* contact, for which the clearance-joint
literature offers line-contact laws (reviewed by Pereira, Ramalho & Ambrosio 2011, Nonlinear
Dyn. 63:681). ``c`` is the radial clearance [m], ``L`` the axial length [m],
``1/E* = (1-nu_B^2)/E_B + (1-nu_J^2)/E_J`` [Pa]. Registered in :data:`STIFFNESS_MODELS`:

* ``hertz-sphere`` - :math:`F = K\delta^n`, :math:`K = \tfrac43 E^*\sqrt{R^*}`,
  :math:`R^* = R_J R_B / c` (explicit; the default, today's law).
* ``johnson-cylinder`` - :math:`\delta = \frac{F}{\pi L E^*}\left[\ln\frac{4\pi L E^*
  c}{F} - 1\right]` (implicit). It is Johnson's approach of two cylinders in 2-D Hertz
  contact, :math:`\delta = \frac{P}{\pi E^*}(2\ln\frac{4R}{a} - 1)` per unit length
  :math:`P = F/L`, with the Hertz half-width :math:`a^2 = 4PR^*/(\pi E^*)` and
  :math:`R_J R_B \approx R^2`: a non-conformal line contact, valid while ``a << R_J``.
* ``liu-conformal`` - :math:`F = \tfrac12\pi E^* L\,\delta\sqrt{\delta/(2(c+\delta))}`
  (explicit): Liu, Zhang & Yang's model of conformal cylinders, built on the contact half
  angle :math:`\cos\varepsilon = c/(c+\delta)` and fitted to FEM; its tangent
  :math:`dF/d\delta = \tfrac18\pi E^* L\sqrt{2\delta(3c+2\delta)^2/(c+\delta)^3}` is the
  stiffness Bai & Zhao's hybrid model uses. As ``delta/c -> 0`` it tends to a
  :math:`\delta^{3/2}` law, :math:`3\pi L/(8\sqrt{2R_JR_B})` times the sphere-type one.

``stiffness_scale`` multiplies the elastic force of every model (hertz-sphere: K; the line
laws: :math:`\pi L E^*`, which scales their force at a given penetration by that factor).
``stiffness`` (a given K) and ``exponent`` belong to hertz-sphere alone.

The compiled kernels stay data-driven like the contact laws: each joint row carries the
model's number (``shape``) and two parameters, the line stiffness ``A = scale * pi L E*``
[N/m] and the clearance ``c`` [m]; a new model of these inputs is one registry entry and one
branch in :func:`elastic_force` / :func:`elastic_energy`.

**Inverting Johnson's law.** The stepping loop needs F(delta). In units of ``X = 4 c A``
(force) and ``4 c`` (penetration) the law is universal: with ``s = ln(X/F)``,
``delta / (4c) = e^{-s} (s - 1)``. The compiled kernel solves
``h(s) = s - ln(s - 1) + ln(delta/4c) = 0`` by Newton's method; ``h`` is increasing and
convex for ``s > 2``, so from ``s0 = L + ln L`` (``L = -ln(delta/4c)``) Newton lands right
of the root within one step and then converges monotonically: 3-4 steps to round-off. That
was chosen over a precomputed table for exactness without an interpolation error budget;
it costs about 30 sphere-law evaluations (one RHS in contact +60 %, the 15-case study +14 %,
``benchmarks/stiffness_models.py``). The relation holds up to ``delta = 8c/e^3`` (0.40 c);
beyond, the force follows its tangent there (see :data:`JOHNSON_S_END`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .contact_laws import elastic_energy as sphere_energy
from .errors import InputError
from .jit import kernel

HERTZ_SPHERE = 0
JOHNSON_CYLINDER = 1
LIU_CONFORMAL = 2

# Johnson's delta(F) peaks at s = ln(X/F) = 2 (delta = 4c/e^2, about 0.54 c) and bends back:
# past s = 3 (delta = 8c/e^3, about 0.40 c) it is continued by its tangent there (slope
# dF/ddelta = A / (s - 2) = A), so the force stays monotone and C1 beyond its validity.
JOHNSON_S_END = 3.0
_JOHNSON_D_END = (JOHNSON_S_END - 1.0) * math.exp(-JOHNSON_S_END)  # delta / (4c) there
_JOHNSON_U_END = math.exp(-JOHNSON_S_END)  # F / X there
# the series of Liu's energy integral below this asinh(sqrt(delta/c)): the closed form
# cancels (its terms are O(t), the sum O(t^5))
_LIU_SERIES_BELOW = 1e-3


@dataclass(frozen=True)
class StiffnessModel:
    """One entry of the stiffness-model registry (formula in the module docstring)."""

    name: str
    shape: int
    formula: str
    reference: str
    validity: str
    uses_axial_length: bool


STIFFNESS_MODELS: dict[str, StiffnessModel] = {
    m.name: m
    for m in (
        StiffnessModel(
            "hertz-sphere",
            HERTZ_SPHERE,
            "F = K delta^n, K = 4/3 E* sqrt(R*), R* = R_J R_B / c",
            "Hertz 1882, J. reine angew. Math. 92:156; as used by Lankarani & Nikravesh 1990 "
            "and Flores et al. 2006 for revolute clearance joints",
            "non-conformal point contact: contact radius sqrt(R* delta) << R_J; "
            "overestimates the stiffness of a pin in a bore at small clearance",
            False,
        ),
        StiffnessModel(
            "johnson-cylinder",
            JOHNSON_CYLINDER,
            "delta = F/(pi L E*) (ln(4 pi L E* c / F) - 1)",
            "Johnson 1985, Contact Mechanics, Cambridge University Press "
            "(2-D Hertz line contact, pin in a hole); Pereira, Ramalho & Ambrosio 2011, "
            "Nonlinear Dyn. 63:681",
            "line contact, half-width small against R_J; the relation holds up to "
            "delta = 8c/e^3 (0.40 c, F = 4 pi L E* c / e^3), tangent-continued beyond",
            True,
        ),
        StiffnessModel(
            "liu-conformal",
            LIU_CONFORMAL,
            "F = 1/2 pi E* L delta sqrt(delta / (2 (c + delta)))",
            "Liu, Zhang & Yang 2007, Mech. Mach. Theory 42:183 (FEM-fitted conformal "
            "cylinders); in this form in Bai & Zhao 2013, Int. J. Non-Linear Mech. 48:15",
            "conformal cylinders: small clearance, large load (contact half-angle up to "
            "about 90 deg); tends to a delta^1.5 law as delta/c -> 0",
            True,
        ),
    )
}


def get_stiffness_model(name: str) -> StiffnessModel:
    """Look up a stiffness model, or raise :class:`InputError` listing the known ones."""
    try:
        return STIFFNESS_MODELS[name]
    except KeyError:
        raise InputError("stiffness_model", name, "one of " + ", ".join(STIFFNESS_MODELS)) from None


def sphere_only_fields(model: str, stiffness: float, exponent: float) -> None:
    """Refuse a given K (``stiffness`` > 0 [N/m^n]) or an exponent other than 1.5 with a
    cylindrical model: they define the sphere-type law and the line laws would ignore them."""
    if get_stiffness_model(model).shape == HERTZ_SPHERE:
        return
    if stiffness > 0.0:
        raise InputError(
            "stiffness",
            stiffness,
            f"0 (computed) with stiffness_model = {model}: "
            "a given K is sphere-type, only with hertz-sphere",
        )
    if exponent != 1.5:
        raise InputError(
            "exponent",
            exponent,
            f"1.5 with stiffness_model = {model}: the exponent is "
            "hertz-sphere's; the cylindrical laws fix their own",
        )


def effective_modulus(
    youngs_bearing: float, poisson_bearing: float, youngs_journal: float, poisson_journal: float
) -> float:
    """``E* = 1 / ((1-nu_B^2)/E_B + (1-nu_J^2)/E_J)`` [Pa] (moduli in Pa)."""
    return 1.0 / (
        (1.0 - poisson_bearing**2) / youngs_bearing + (1.0 - poisson_journal**2) / youngs_journal
    )


def line_stiffness(axial_length: float, e_eff: float) -> float:
    """``A = pi L E*`` [N/m] of the line-contact laws: ``L`` [m], ``E*`` [Pa]."""
    return math.pi * axial_length * e_eff


@kernel(runtime=False)
def johnson_force(line_k: float, clearance: float, delta: float) -> float:
    """Force [N] of Johnson's pin-in-hole line contact at penetration ``delta`` [m].

    Inverts ``delta = F/A (ln(4 c A / F) - 1)`` (``A = line_k`` [N/m], ``c = clearance``
    [m]) by Newton on ``s = ln(X/F)``, ``X = 4 c A``; past ``delta = 8c/e^3`` the tangent.
    """
    if delta <= 0.0:
        return 0.0
    x = 4.0 * clearance * line_k
    d = delta / (4.0 * clearance)
    if d < 1e-300:  # a force below ~1e-290 N, and ln(d) would be -inf at an underflow
        return 0.0
    if d >= _JOHNSON_D_END:
        return x * _JOHNSON_U_END + line_k * (delta - 4.0 * clearance * _JOHNSON_D_END)
    big_l = -math.log(d)  # > 2.3 on this branch
    s = big_l + math.log(big_l)
    for _ in range(40):
        step = (s - math.log(s - 1.0) - big_l) * (s - 1.0) / (s - 2.0)
        s -= step
        # Newton's error after a step is ~ step^2 / (2 (s-1)(s-2)): below round-off here
        if abs(step) < 1e-10 * s:
            break
    return x * math.exp(-s)


@kernel(runtime=False)
def johnson_energy(line_k: float, clearance: float, delta: float) -> float:
    """Elastic energy [J] of Johnson's law: ``U = F delta - int_0^F delta(f) df``.

    On the published branch ``U = F^2/(2A) (s - 3/2)``, ``s = ln(4 c A / F)``; beyond
    ``delta = 8c/e^3`` the tangent's trapezoid is added.
    """
    if delta <= 0.0:
        return 0.0
    d_end = 4.0 * clearance * _JOHNSON_D_END
    if delta <= d_end:
        f = johnson_force(line_k, clearance, delta)
        if f <= 0.0:
            return 0.0
        s = math.log(4.0 * clearance * line_k / f)
        return f * f / (2.0 * line_k) * (s - 1.5)
    f_end = 4.0 * clearance * line_k * _JOHNSON_U_END
    u_end = f_end * f_end / (2.0 * line_k) * (JOHNSON_S_END - 1.5)
    extra = delta - d_end
    return u_end + f_end * extra + 0.5 * line_k * extra * extra


@kernel(runtime=False)
def liu_force(line_k: float, clearance: float, delta: float) -> float:
    """Force [N] of Liu et al.'s conformal law ``F = A/2 delta sqrt(delta / (2 (c + delta)))``
    (``A = pi L E*`` [N/m], ``c`` [m], ``delta`` [m])."""
    if delta <= 0.0:
        return 0.0
    return 0.5 * line_k * delta * math.sqrt(delta / (2.0 * (clearance + delta)))


@kernel(runtime=False)
def liu_energy(line_k: float, clearance: float, delta: float) -> float:
    """Elastic energy [J] of Liu et al.'s law, ``A/(2 sqrt 2) int_0^delta x^1.5 (c+x)^-0.5 dx``.

    With ``x = c sinh^2 t`` the integral is ``2 c^2 (3t/8 - sinh 2t / 4 + sinh 4t / 32)``.
    """
    if delta <= 0.0:
        return 0.0
    t = math.asinh(math.sqrt(delta / clearance))
    if t < _LIU_SERIES_BELOW:
        t2 = t * t
        integral = 2.0 * clearance * clearance * t2 * t2 * t * (0.2 + 2.0 / 21.0 * t2)
    else:
        integral = (
            2.0
            * clearance
            * clearance
            * (0.375 * t - 0.25 * math.sinh(2.0 * t) + math.sinh(4.0 * t) / 32.0)
        )
    return line_k / (2.0 * math.sqrt(2.0)) * integral


@kernel(inline="always")
def elastic_force(
    model: int, stiffness: float, exponent: float, line_k: float, clearance: float, delta: float
) -> float:
    """Elastic contact force [N] of stiffness model ``model`` at penetration ``delta`` > 0 [m].

    ``stiffness`` K [N/m^n] and ``exponent`` n serve hertz-sphere; ``line_k`` A [N/m] and
    ``clearance`` c [m] the line-contact laws.
    """
    if model == HERTZ_SPHERE:
        # the Hertz exponent 1.5 as a square root: pow() would cost as much as the rest
        return stiffness * (delta * math.sqrt(delta) if exponent == 1.5 else delta**exponent)
    if model == JOHNSON_CYLINDER:
        return johnson_force(line_k, clearance, delta)
    return liu_force(line_k, clearance, delta)


@kernel(runtime=False)
def elastic_energy(
    model: int, stiffness: float, exponent: float, line_k: float, clearance: float, delta: float
) -> float:
    """Energy [J] stored in the elastic part of ``model`` at penetration ``delta`` [m]."""
    if model == HERTZ_SPHERE:
        return sphere_energy(stiffness, exponent, delta)
    if model == JOHNSON_CYLINDER:
        return johnson_energy(line_k, clearance, delta)
    return liu_energy(line_k, clearance, delta)


def contact_half_width(
    model: str,
    *,
    delta: float,
    force: float,
    journal_radius: float,
    clearance: float,
    e_eff: float,
    axial_length: float,
) -> float:
    """Half-width [m] of the contact patch each model implies (lengths in m, force N, E* Pa).

    hertz-sphere: the Hertz contact radius ``sqrt(R* delta)``, ``R* = R_J (R_J + c) / c``;
    johnson-cylinder: the Hertz line-contact half-width ``sqrt(4 F R* / (pi L E*))``;
    liu-conformal: the arc ``R_J eps`` of the half contact angle ``cos eps = c / (c + delta)``
    (the overlap of the two circles, from which Liu's law is built).
    """
    r_eff = journal_radius * (journal_radius + clearance) / clearance
    kind = get_stiffness_model(model).shape
    if kind == HERTZ_SPHERE:
        return math.sqrt(r_eff * delta)
    if kind == JOHNSON_CYLINDER:
        return math.sqrt(4.0 * force * r_eff / (math.pi * axial_length * e_eff))
    return journal_radius * math.acos(clearance / (clearance + delta))


def contact_area(model: str, half_width: float, axial_length: float) -> float:
    """Contact area [m^2]: a disc of radius ``half_width`` for the sphere-type model, a
    ``2 half_width x L`` strip for the cylindrical ones (lengths in m)."""
    if get_stiffness_model(model).shape == HERTZ_SPHERE:
        return math.pi * half_width * half_width
    return 2.0 * half_width * axial_length
