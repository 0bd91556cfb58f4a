"""The clearance part of the Radau Jacobian (core/contact_jacobian.py, issue 39).

``P G`` - the constrained response to the clearance forces' Jacobian, built from the force
kernel alone and the Schur factor - must be the part of the full RHS Jacobian the clearance
joint adds: the finite-difference Jacobian of the whole RHS with the joint's forces on,
minus the same with them off. Checked at a state in dry contact and at film states on both
halves of the film's sigma band (z > 0 and z < 0, with a radial velocity so that
|sigma| < 1). Then the update ``J_0 + P_0 (G(y) - G_0)`` against a fresh full Jacobian at a
state the film has moved on to: it must recover what the kept ``J_0`` lost.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from gapsweep.core.assembly import (
    CP_CLR,
    CP_LUB,
    CP_SBX,
    CP_SBY,
    CP_SJX,
    CP_SJY,
    ROWS,
    CaseModel,
    assemble,
)
from gapsweep.core.cases import SliderCrankCase
from gapsweep.core.constraints import body_point, rotation_table, rotations
from gapsweep.core.contact_jacobian import (
    clearance_force_jacobian,
    constrained_response,
    update_clearance_part,
)
from gapsweep.core.dynamics import N_AUX, inverse_mass, make_workspace
from gapsweep.core.forces import N_DIAG
from gapsweep.core.integrators import CaseContext, evaluate
from gapsweep.core.kinematics import initial_guess
from gapsweep.core.simulation import build_mechanism


def _context(lubricated: bool, in_contact: int):
    case = SliderCrankCase(
        clearance_mm=0.5, lubrication="short-bearing" if lubricated else "none",
        viscosity_pa_s=0.4, axial_length_mm=40.0,
    )  # fmt: skip
    mech = build_mechanism(case)
    topo, arrays = assemble(mech)
    n = topo.n_coordinates
    model = CaseModel(
        topo.joint_int.copy(), np.ascontiguousarray(arrays.joint_par[0]), topo.load_int,
        np.ascontiguousarray(arrays.load_par[0]), topo.clear_int.copy(),
        np.ascontiguousarray(arrays.clear_par[0]), np.ascontiguousarray(arrays.mass[0]),
        np.ascontiguousarray(arrays.inertia[0]), np.ascontiguousarray(arrays.gravity[0]),
        topo.prescribed.copy(),
    )  # fmt: skip
    m = sum(ROWS[int(k)] for k in topo.joint_int[:, 0])
    n_clear = topo.clear_int.shape[0]
    inv_mass = np.zeros(n)
    inverse_mass(model.mass, model.inertia, model.prescribed, inv_mass)
    ws = make_workspace(n, m, n_clear)
    contact = np.full(n_clear, in_contact, dtype=np.int64)
    ctx = CaseContext(model, contact, np.full(n_clear, 0.5), 0.0, 0.0, int(topo.probe),
                      inv_mass, ws)  # fmt: skip
    y = np.zeros(2 * n + N_AUX + (n_clear if lubricated else 0))
    y[:n] = initial_guess(mech)
    return ctx, y, n


def _place(ctx, y, n, ecc, e_dot, w_journal):
    """Move the journal body so that the joint's eccentricity is ``ecc`` [m] and its rate
    ``e_dot`` [m/s] (the bearing body at rest, the journal turning at ``w_journal``)."""
    model = ctx.model
    bearing, journal = model.clear_int[0]
    par = model.clear_par[0]
    rot = rotation_table(n // 3)
    rotations(y[:n], rot)
    bx, by, _, _ = body_point(y[:n], rot, bearing, par[CP_SBX], par[CP_SBY])
    jx, jy, _, _ = body_point(y[:n], rot, journal, par[CP_SJX], par[CP_SJY])
    y[3 * journal] += bx + ecc[0] - jx
    y[3 * journal + 1] += by + ecc[1] - jy
    y[n : 2 * n] = 0.0
    jx, jy = bx + ecc[0], by + ecc[1]
    # the journal centre's velocity = e_dot with the body turning about its own centre
    arm_x, arm_y = jx - y[3 * journal], jy - y[3 * journal + 1]
    y[n + 3 * journal] = e_dot[0] + w_journal * arm_y
    y[n + 3 * journal + 1] = e_dot[1] - w_journal * arm_x
    y[n + 3 * journal + 2] = w_journal
    return par


def _fd_rhs(ctx, y, n):
    """The full Jacobian of the accelerations by central differences of the RHS [n, 2 n]."""
    jac = np.zeros((n, 2 * n))
    fa, fb = np.zeros_like(y), np.zeros_like(y)
    for c in range(2 * n):
        step = 1e-8 * max(abs(y[c]), 1e-3)
        ya, yb = y.copy(), y.copy()
        ya[c] += step
        yb[c] -= step
        assert evaluate(0.0, ya, ctx, fa) and evaluate(0.0, yb, ctx, fb)
        jac[:, c] = (fa[n : 2 * n] - fb[n : 2 * n]) / (2.0 * step)
    return jac


def _pg(ctx, y, n):
    """P G at y, as the Radau step forms it."""
    g = np.zeros((n, 2 * n))
    mask = np.zeros(2 * n)
    clearance_force_jacobian(
        y, ctx.model, ctx.in_contact, ctx.approach, g, mask, np.zeros_like(y),
        rotation_table(n // 3), np.zeros(n), np.zeros(n), np.zeros((y.size, N_DIAG)),
    )  # fmt: skip
    evaluate(0.0, y, ctx, np.zeros_like(y))  # the Schur factor of this q in ctx.ws
    p = np.zeros((n, n))
    assert constrained_response(ctx, p, np.zeros(y.size), np.zeros(n))
    return p @ g, g, p, mask


def _without_joint_forces(ctx):
    """The same case with the clearance joint's forces off (no film, not in contact)."""
    par = ctx.model.clear_par.copy()
    par[:, CP_LUB] = 0.0
    model = ctx.model._replace(clear_par=par)
    return ctx._replace(model=model, in_contact=np.zeros_like(ctx.in_contact))


def _sigma(par, ecc, e_dot, w_sum):
    c = par[CP_CLR]
    dist = math.hypot(*ecc)
    nx, ny = ecc[0] / dist, ecc[1] / dist
    u_r = (e_dot[0] * nx + e_dot[1] * ny) / c
    u_t = (-e_dot[0] * ny + e_dot[1] * nx) / c
    z = dist / c * w_sum - 2.0 * u_t
    return z / math.sqrt(z * z + 4.0 * u_r * u_r)


CASES = {
    # dry contact: 2 um into the wall, closing at 1 mm/s, the journal turning
    "contact": (False, 1, (0.5e-3 + 2e-6) * np.array([0.6, 0.8]), (6e-4, 8e-4), 50.0),
    # the film at eps = 0.6, u_r = 100 /s: z = 72 /s > 0 inside the band (sigma ~ +0.34)
    "film z>0": (True, 0, 0.3e-3 * np.array([0.8, -0.6]), (0.04, -0.03), 120.0),
    # and, with a whirl of 0.1 m/s along t added, z = 72 - 400 /s < 0 (sigma ~ -0.85)
    "film z<0": (True, 0, 0.3e-3 * np.array([0.8, -0.6]), (0.1, 0.05), 120.0),
}


@pytest.mark.parametrize("name", list(CASES))
def test_the_clearance_part_is_the_joints_share_of_the_rhs_jacobian(name):
    lubricated, contact, ecc, e_dot, w_j = CASES[name]
    ctx, y, n = _context(lubricated, contact)
    par = _place(ctx, y, n, ecc, e_dot, w_j)
    if lubricated:
        sigma = _sigma(par, ecc, e_dot, w_j)
        assert 0.05 < abs(sigma) < 0.95, sigma  # inside the band, on the half named
        assert (sigma > 0) == (name == "film z>0")
    pg, g, _, mask = _pg(ctx, y, n)
    assert mask.sum() > 0 and np.all(g[:, mask == 0] == 0.0)
    joint = _fd_rhs(ctx, y, n) - _fd_rhs(_without_joint_forces(ctx), y, n)
    scale = np.abs(joint).max()
    assert scale > 0.0
    # the rest is d P / d q Q_c (not stiff) and the differences' error
    assert np.abs(pg - joint).max() <= 1e-3 * scale, np.abs(pg - joint).max() / scale


def test_the_update_recovers_the_moved_film():
    """J_0 at one film state, then the journal moved on (eccentricity 0.3 -> 0.7 c, another
    velocity): the update ``J_0 + P_0 (G - G_0)`` against the full Jacobian there is at
    least 20x closer than the kept J_0."""
    ctx, y0, n = _context(True, 0)
    _place(ctx, y0, n, 0.3e-3 * np.array([0.8, -0.6]), (0.04, -0.03), 120.0)
    y1 = y0.copy()
    _place(ctx, y1, n, 0.35e-3 * np.array([0.6, -0.8]), (0.02, 0.05), 120.0)
    j0 = np.zeros((y0.size, 2 * n))
    j0[n : 2 * n] = _fd_rhs(ctx, y0, n)
    _, g0, p0, mask = _pg(ctx, y0, n)
    _, g1, _, _ = _pg(ctx, y1, n)
    jac = np.zeros_like(j0)
    update_clearance_part(jac, j0, p0, g1, g0, mask)
    ref = _fd_rhs(ctx, y1, n)
    stale = np.abs(j0[n : 2 * n] - ref).max()
    kept = np.abs(jac[n : 2 * n] - ref).max()
    assert kept * 20.0 <= stale, (kept, stale)
    assert kept <= 1e-2 * np.abs(ref).max()


def test_the_reduced_newton_system_is_the_full_one():
    """radau._factor/_block_solve solve ``(gamma I - J) x = b`` through the n x n
    ``gamma^2 I - gamma A_v - A_q`` (q' = v makes J's position rows [0, I]): against a dense
    solve of the whole system, quadratures included, for the real and the complex gamma."""
    from gapsweep.core import radau

    n, ny = 4, 11
    rng = np.random.default_rng(1)
    work = radau.make_radau_work(ny, 2 * n, np.full(ny, 1e-9), 1e-6, True)
    jac = np.zeros((ny, 2 * n))
    jac[:n, n:] = np.eye(n)
    jac[n : 2 * n] = 50.0 * rng.normal(size=(n, 2 * n))
    jac[2 * n :] = rng.normal(size=(ny - 2 * n, 2 * n))
    work.jac[:] = jac
    h = 0.01
    assert radau._factor(h, work)
    full = np.zeros((ny, ny))
    full[:, : 2 * n] = jac
    for gamma, lu, piv in ((radau.MU_REAL / h, work.lu_r, work.piv_r),
                           (radau.MU_COMPLEX / h, work.lu_c, work.piv_c)):  # fmt: skip
        b = rng.normal(size=ny) + (0.0 if isinstance(gamma, float) else 1j * rng.normal(size=ny))
        x = b.copy()
        radau._block_solve(lu, piv, work.jac, gamma, x)
        ref = np.linalg.solve(gamma * np.eye(ny) - full, b)
        assert np.abs(x - ref).max() <= 1e-12 * np.abs(ref).max()
