"""A clearance joint's wear life run through the solver (design.md 4.12, 4.15 "Wear life").

:mod:`wear` holds the profile and Archard's law; this module gives its life loop the settled
runs: each step is one solver job of the case on the current profile, from the case's own
initial state, with traces of the bearing's angle and the joint's velocities so that the
contact history (line of centres in the bearing's frame, force, slip) of the settled window
can be read off the stored grid. The history is the output grid's (a run until settled keeps
``(n_output - 1) / 4`` samples a revolution over its last revolutions): fine for the
sliding contact that does the wear, coarse for an impact's ~50 us (its force x slip x time is
small against a revolution's sliding; say so where a chaotic case's wear is read).

One joint wears per case: ``joint``, the index of a clearance joint of the mechanism (a
built-in model has one; a described mechanism's first joint with a wear coefficient). A step
whose run fails ends the life: the case fails with the step's reason and keeps the life up to
the last good step (metrics and series), so that "the worn joint left the contact law's
validity at cycle N" is an answer, not a lost case.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import replace

import numpy as np

from .metrics import per_joint
from .result import CaseResult
from .solver import Job, VectorProbe
from .wear import ContactHistory, WearLife, WearParams, WearStep, depth_at, wear_life

# trace names (series of each step's run; not kept in the life's result)
_ANGLE, _W_B, _W_J = "wear_trace_phi_b", "wear_trace_w_b", "wear_trace_w_j"
_VBX, _VBY, _VJX, _VJY = "wear_trace_vbx", "wear_trace_vby", "wear_trace_vjx", "wear_trace_vjy"


def _body_index(job: Job, name: str) -> int:
    names = [b.name for b in job.mechanism.bodies]
    return names.index(name) if name in names else -1


def wear_traces(job: Job, joint: int = 0) -> tuple[VectorProbe, ...]:
    """The traces a step's run keeps for clearance joint ``joint``: the bearing body's angle
    and both bodies' angular velocities and joint-centre velocities (a ground body: none)."""
    cj = job.mechanism.clearance_joints[joint]
    out = []
    for body, point, w, vx, vy in ((cj.bearing_body, cj.bearing_point, _W_B, _VBX, _VBY),
                                   (cj.journal_body, cj.journal_point, _W_J, _VJX, _VJY)):
        b = _body_index(job, body)
        if b < 0:
            continue
        coord = 3 * b
        if body == cj.bearing_body:
            out.append(VectorProbe(_ANGLE, coord, (0.0, 0.0), "angle", "position"))
        out.append(VectorProbe(w, coord, (0.0, 0.0), "angle", "velocity"))
        out.append(VectorProbe(vx, coord, (float(point[0]), float(point[1])), "x", "velocity"))
        out.append(VectorProbe(vy, coord, (float(point[0]), float(point[1])), "y", "velocity"))
    return tuple(out)


def step_job(job: Job, profile: np.ndarray, joint: int = 0) -> Job:
    """``job`` with clearance joint ``joint``'s bearing worn to ``profile`` [m] and the
    traces its history needs."""
    mech = job.mechanism
    joints = list(mech.clearance_joints)
    joints[joint] = replace(joints[joint], wear_profile=tuple(float(h) for h in profile))
    options = replace(job.options, traces=tuple(job.options.traces) + wear_traces(job, joint))
    return replace(job, mechanism=replace(mech, clearance_joints=tuple(joints)),
                   options=options)


def window(job: Job, result: CaseResult) -> tuple[float, int]:
    """Start [s] and whole revolutions of the settled window the grid holds: one period of a
    periodic-N motion (N revolutions), else the settled window's revolutions in the grid; a
    run of fixed length: its last revolution."""
    t = result.series["t"]
    period = job.options.period
    t_last = float(t[-1])
    if not job.options.stop_when_settled or period <= 0.0:
        return max(t_last - period, float(t[0])), 1
    n = int(result.metrics.get("motion_period", 0) or 0)
    if n <= 0:
        held = float(t[0]) if len(t) else 0.0
        ring = job.options.n_output - job.options.output_head
        held = max(t_last - (ring - 1) * job.options.output_step, 0.0)
        start = max(held, float(result.metrics.get("settled_from_s", 0.0)))
        n = max(math.floor((t_last - start) / period + 1e-6), 1)
    return t_last - n * period, n


def joint_history(job: Job, result: CaseResult, profile: np.ndarray, joint: int = 0
                  ) -> WearStep:
    """Clearance joint ``joint``'s contact history over the settled window of ``result``
    (a run of ``step_job(job, profile, joint)``), and its settled headline peak."""
    s = result.series
    t0, revs = window(job, result)
    t = np.asarray(s["t"])
    keep = t >= t0 - 1e-12 * max(abs(t0), 1.0)
    cj = job.mechanism.clearance_joints[joint]
    zero = np.zeros(int(keep.sum()))

    def col(name: str) -> np.ndarray:
        own = per_joint(name, cj.name)  # a named joint's own series, where observed
        name = own if own in s else name
        return np.asarray(s[name])[keep] if name in s else zero

    ex, ey = col("eccentricity_x"), col("eccentricity_y")
    ecc = np.hypot(ex, ey)
    theta = np.arctan2(ey, ex) - col(_ANGLE)
    nx, ny = np.cos(np.arctan2(ey, ex)), np.sin(np.arctan2(ey, ex))
    r_b = cj.bearing_radius + (depth_at(profile, theta) if profile.size else 0.0)
    r_j = cj.bearing_radius - cj.clearance
    slip = ((col(_VJX) - col(_VBX)) * -ny + (col(_VJY) - col(_VBY)) * nx
            + col(_W_J) * r_j - col(_W_B) * r_b)
    force = np.maximum(col("contact_normal_force"), 0.0)
    history = ContactHistory(t[keep], np.mod(theta, 2 * np.pi), ecc, force, slip)
    return WearStep(history, revs, float(result.metrics.get(_peak_key(result), math.nan)))


def _peak_key(result: CaseResult) -> str:
    for key in ("peak_slider_accel_settled", "peak_contact_force_settled"):
        if key in result.metrics:
            return key
    return next((k for k in result.metrics if k.startswith("peak_") and
                 k.endswith("_settled")), "peak_contact_force")


def _partial(steps: list, profile: np.ndarray) -> WearLife:
    """The life up to its last good step (``steps``: (cycle, profile, step) of each)."""
    cycle = np.array([c for c, _, _ in steps])
    depth = np.array([float(p.max()) if p.size else 0.0 for _, p, _ in steps])
    peak = np.array([st.peak for _, _, st in steps])
    last = steps[-1][2]
    work = last.history.sliding_work() / max(last.revolutions, 1)
    return WearLife(profile, cycle, depth, peak, work, math.nan)


def run_life(job: Job, wear: WearParams,
             run: Callable[[Sequence[Job]], list[CaseResult]], joint: int = 0) -> CaseResult:
    """Clearance joint ``joint``'s life (:func:`wear.wear_life`) with each step a run of
    ``job`` on the profile through ``run``; returns the end-of-life run's result with the
    wear metrics (design.md 4.12; per joint as ``name.<joint>`` for a named joint, the
    unsuffixed name the worn joint's: the extreme over the joints), the new joint's settled
    peak ``wear_peak_settled_new`` and the life's series. A failed step ends the life: that
    step's failed result, with the reason and cycle, carries the life up to it."""
    cj = job.mechanism.clearance_joints[joint]
    last: dict[str, CaseResult] = {}
    done: list[tuple[float, np.ndarray, WearStep]] = []
    per_step = wear.wear_cycles / wear.wear_steps

    def step(profile: np.ndarray) -> WearStep:
        result = run([step_job(job, profile, joint)])[0]
        last["result"] = result
        if not result.ok:
            raise _StepFailedError(result)
        out = joint_history(job, result, profile, joint)
        done.append((len(done) * per_step, profile.copy(), out))
        return out

    try:
        life: WearLife = wear_life(
            step, nodes=int(wear.wear_nodes), cycles=wear.wear_cycles,
            steps=int(wear.wear_steps), coefficient=wear.wear_coefficient_m2_per_n,
            clearance=cj.clearance, bearing_radius=cj.bearing_radius,
            length=cj.contact.axial_length)
    except _StepFailedError as failed:
        result = failed.result
        result.reason = (f"wear life: the run at cycle {len(done) * per_step:.6g} failed: "
                         f"{result.reason}")
        if not done:
            return result
        life = _partial(done, done[-1][1])
    result = last["result"]
    for name in [k for k in result.series if k.startswith("wear_trace_")]:
        del result.series[name]
    metrics = life.metrics(cj.clearance, cj.bearing_radius, cj.contact.axial_length)
    metrics["wear_peak_settled_new"] = float(life.peak[0])
    for key, value in metrics.items():
        result.metrics[key] = value
        result.metrics[per_joint(key, cj.name)] = value
    result.series.update(life.series())
    result.params = dict(job.params)
    return result


class _StepFailedError(Exception):
    def __init__(self, result: CaseResult) -> None:
        super().__init__(result.reason)
        self.result = result
