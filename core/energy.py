"""The mechanical energy of a state, for the energy balance (design.md 2).

``T + V + U_contact + E_damping + E_friction + E_film - W_driver - W_film`` stays at its
initial value for an exact solution; its deviation is the balance residual the stepping loop
tracks. ``E_film`` is what the oil films dissipate, ``W_film`` what the turning surfaces feed
into them (:func:`forces.film_forces`).
"""

from __future__ import annotations

from .constraints import rotations
from .dynamics import (
    AUX_DAMPING,
    AUX_DRIVER_WORK,
    AUX_FILM,
    AUX_FILM_WORK,
    AUX_FRICTION,
    WS_DIAG,
    WS_ROT,
)
from .forces import contact_energy, spring_energy
from .jit import kernel


@kernel(runtime=False)
def state_energy(y, n, model, in_contact, ws):
    """Kinetic, potential (gravity + springs) and contact energy [J] of state ``y``.

    The contact diagnostics in ``ws[WS_DIAG]`` must belong to ``y`` (its last evaluation).
    """
    load_int, load_par, clear_par = model.load_int, model.load_par, model.clear_par
    mass, inertia, gravity = model.mass, model.inertia, model.gravity
    kinetic = 0.0
    potential = 0.0
    for b in range(mass.shape[0]):
        vx, vy, w = y[n + 3 * b], y[n + 3 * b + 1], y[n + 3 * b + 2]
        kinetic += 0.5 * mass[b] * (vx * vx + vy * vy) + 0.5 * inertia[b] * w * w
        potential -= mass[b] * (gravity[0] * y[3 * b] + gravity[1] * y[3 * b + 1])
    if load_int.shape[0] > 0:
        rot = ws[WS_ROT]
        rotations(y[:n], rot)
        potential += spring_energy(y[:n], rot, load_int, load_par)
    return kinetic, potential, contact_energy(clear_par, in_contact, ws[WS_DIAG])


@kernel(runtime=False)
def balance_residual(y, n, kinetic, potential, contact, e0):
    """``T + V + U + E_damping + E_friction + E_film - W_driver - W_film - e0`` [J] at state
    ``y``, from the energies :func:`state_energy` gave for it (computed once, used for both
    records)."""
    dissipated = y[2 * n + AUX_DAMPING] + y[2 * n + AUX_FRICTION] + y[2 * n + AUX_FILM]
    external = y[2 * n + AUX_DRIVER_WORK] + y[2 * n + AUX_FILM_WORK]
    return kinetic + potential + contact + dissipated - external - e0
