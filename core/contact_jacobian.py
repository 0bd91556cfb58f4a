"""The clearance joints' part of the Jacobian, kept current between full Jacobians (issue 39).

The state's derivative is ``f(y) = [v, a(q, v), quadratures]`` with the accelerations of the
index-1 form (:mod:`dynamics`): ``a = P(q) Q(q, v) + a_0(q, v)``, where ``Q`` are the
generalized forces and ``P = M^-1 - M^-1 Phi_q^T S^-1 Phi_q M^-1`` (``S = Phi_q M^-1
Phi_q^T``, free rows only) takes a force to the accelerations it causes under the
constraints. The stiff part of ``df/dy`` is the clearance joints' forces ``Q_c`` (the dry
contact law, the oil film): ``P dQ_c/dy``, which changes from step to step along the orbit
and jumps when a contact opens or closes, while the rest (inertia, the constraints, gravity,
the driver) changes with the mechanism's slow motion. So the Radau step
(:mod:`radau`) takes the full Jacobian ``J_0`` by finite differences of the RHS (``2 n``
evaluations) now and then, and in between refreshes its clearance part without one
evaluation of the RHS::

    J(y) = J_0 + P_0 (G(y) - G_0),     G = dQ_c / d[q, v]   (rows of the accelerations)

``P_0`` and ``G_0`` are taken with ``J_0``. ``G`` is the Jacobian of the clearance forces
alone (:func:`clearance_force_jacobian`): central differences of the compiled force kernel
(:func:`forces.clearance_forces`, the contact and friction laws and the film force of
:mod:`journal_bearing`, with the same contact state) over the coordinates and velocities of
the joints' two bodies only - at most 12 columns, each two calls of the force kernel (no
constraint solve, no RHS evaluation), so exact to the differences' error whatever the law.
Its columns are the sparse ones (the joints' bodies): the update touches only those.

This is the splitting of a Jacobian into a cheap, fast-changing stiff part and a slow part
kept over steps, in the spirit of RADAU5's Jacobian reuse (Hairer & Wanner, *Solving ODEs
II*, 2nd ed., IV.8: the simplified Newton iteration converges with an approximate Jacobian,
at a rate that grows with its error), here with the stiff part the one that is cheap to
keep current.
"""

from __future__ import annotations

from .constraints import rotations
from .dynamics import (
    WS_ROW_BODY,
    WS_ROW_COEF,
    WS_SCHUR,
    WS_WEIGHTED,
    cholesky_substitute,
    row_dot,
    subtract_transpose,
)
from .forces import clearance_forces
from .jit import kernel


@kernel(runtime=False)
def clearance_force_sum(q, v, rot, model, in_contact, approach, out, diag):
    """``out = Q_c``: the clearance joints' generalized forces alone [N, N m] at ``(q, v)``
    (``rot`` a rotation table of the caller's, updated for ``q``; ``diag`` a scratch
    ``[n_clear, N_DIAG]``)."""
    for i in range(out.shape[0]):
        out[i] = 0.0
    rotations(q, rot)
    clearance_forces(q, v, rot, model.clear_int, model.clear_par, in_contact, approach, out,
                     diag)  # fmt: skip


@kernel(runtime=False)
def clearance_force_jacobian(y, model, in_contact, approach, g, mask, ys, rot, qa, qb, diag):
    """``g[:, c] = d Q_c / d y_c`` [n, 2 n] over the dynamic states ``y = [q, v]`` (``n``
    coordinates), by central differences of the clearance force kernel in the columns of the
    clearance joints' bodies (``mask[c] = 1``; the other columns are left as they were and
    are zero in ``Q_c``). Every joint counts, in contact or not: a free joint's dry force is
    zero, its film's is not. Scratch: ``ys`` [>= 2 n], ``rot`` [nb, 3], ``qa``, ``qb`` [n],
    ``diag`` [n_clear, N_DIAG]."""
    n = g.shape[0]
    clear_int = model.clear_int
    for i in range(2 * n):
        ys[i] = y[i]
    for k in range(clear_int.shape[0]):
        for side in range(2):
            body = clear_int[k, side]
            if body < 0:
                continue
            for half in range(2):  # the body's coordinates, then its velocities
                for d in range(3):
                    c = half * n + 3 * body + d
                    if mask[c] == 2.0:  # done (a body shared by two joints)
                        continue
                    mask[c] = 2.0
                    # 1e-8 relative as radau._jacobian's forward differences, here central:
                    # the error is second order in the step
                    step = 1e-8 * max(abs(y[c]), 1e-3)
                    ys[c] = y[c] + step
                    clearance_force_sum(ys[:n], ys[n : 2 * n], rot, model, in_contact,
                                        approach, qa, diag)  # fmt: skip
                    ys[c] = y[c] - step
                    clearance_force_sum(ys[:n], ys[n : 2 * n], rot, model, in_contact,
                                        approach, qb, diag)  # fmt: skip
                    ys[c] = y[c]
                    for i in range(n):
                        g[i, c] = (qa[i] - qb[i]) / (2.0 * step)
    for c in range(2 * n):
        if mask[c] == 2.0:
            mask[c] = 1.0


@kernel(runtime=False)
def constrained_response(ctx, p, lam, col):
    """``p = P`` [n, n], the accelerations per unit generalized force under the constraints
    (module docstring), from the Schur factor the last RHS evaluation left in ``ctx.ws`` (its
    ``q``). Scratch: ``lam`` [>= free rows], ``col`` [n]. False when ``lam`` is too short."""
    ws = ctx.ws
    row_body, row_coef, weighted, schur = ws[WS_ROW_BODY], ws[WS_ROW_COEF], ws[WS_WEIGHTED], \
        ws[WS_SCHUR]
    inv_mass = ctx.inv_mass
    n = inv_mass.shape[0]
    m_free = row_coef.shape[0] - 3 * ctx.model.prescribed.shape[0]
    if m_free > lam.shape[0]:
        return False
    for k in range(n):
        for i in range(n):
            col[i] = 0.0
        col[k] = 1.0
        for r in range(m_free):
            lam[r] = row_dot(row_body, weighted, r, col)
        cholesky_substitute(schur, lam, m_free)
        subtract_transpose(row_body, row_coef, lam, col, m_free)
        for i in range(n):
            p[i, k] = col[i] * inv_mass[i]
    return True


@kernel(runtime=False)
def update_clearance_part(jac, jac0, p, g, g0, mask):
    """``jac = jac0`` with the accelerations' rows ``n .. 2 n`` of the masked columns
    ``+ P (G - G_0)`` (module docstring)."""
    n = p.shape[0]
    for i in range(jac.shape[0]):
        for c in range(jac.shape[1]):
            jac[i, c] = jac0[i, c]
    for c in range(2 * n):
        if mask[c] == 0.0:
            continue
        for i in range(n):
            s = 0.0
            for k in range(n):
                s += p[i, k] * (g[k, c] - g0[k, c])
            jac[n + i, c] += s

