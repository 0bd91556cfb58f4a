"""A clearance joint's wear life run through the solver (design.md 4.12, 4.15 "Wear life").

:mod:`wear` holds the profile and Archard's law; this module gives its life loop the settled
runs: each step is one solver job of the case on the current profile, from the case's own
initial state, with traces of the bearing's angle and the joint's velocities so that the
contact history (line of centres in the bearing's frame, force, slip) of the settled window
can be read off the stored grid. The history is the output grid's (a run until settled keeps
``(n_output - 1) / 4`` samples a revolution over its last revolutions): fine for the
sliding contact that does the wear, coarse for an impact's ~50 us (its force x slip x time is
small against a revolution's sliding; say so where a chaotic case's wear is read).

Every clearance joint with a wear coefficient wears, all in the same life: each step is one
run with every worn joint on its current profile (one motion, design.md 4.14), and each
joint's profile is updated from its own contact history. The joints share ``wear_cycles``
and ``wear_steps`` (one machine, one count of revolutions; the case refuses joints that
differ). A step
whose run fails ends the life: the case fails with the step's reason and keeps the life up to
the last good step (metrics and series), so that "the worn joint left the contact law's
validity at cycle N" is an answer, not a lost case.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace

import numpy as np

from .metrics import per_joint
from .result import CaseResult
from .solver import Job, VectorProbe
from .wear import (
    ContactHistory,
    LifeProgress,
    WearLife,
    WearParams,
    WearStep,
    WornJoint,
    depth_at,
    wear_lives,
)
from .worn_contact import contact_directions

# trace names (series of each step's run; not kept in the life's result)
_ANGLE, _W_B, _W_J = "wear_trace_phi_b", "wear_trace_w_b", "wear_trace_w_j"
_VBX, _VBY, _VJX, _VJY = "wear_trace_vbx", "wear_trace_vby", "wear_trace_vjx", "wear_trace_vjy"
#: the life's series kept per joint (``name.<joint>``)
_JOINT_SERIES = ("wear_angle", "wear_depth", "wear_max_depth")


def _body_index(job: Job, name: str) -> int:
    names = [b.name for b in job.mechanism.bodies]
    return names.index(name) if name in names else -1


def _trace(name: str, cj) -> str:
    return per_joint(name, cj.name)


def wear_traces(job: Job, joint: int = 0) -> tuple[VectorProbe, ...]:
    """The traces a step's run keeps for clearance joint ``joint`` (named per joint): the
    bearing body's angle and both bodies' angular velocities and joint-centre velocities (a
    ground body: none)."""
    cj = job.mechanism.clearance_joints[joint]
    out = []
    for body, point, w, vx, vy in ((cj.bearing_body, cj.bearing_point, _W_B, _VBX, _VBY),
                                   (cj.journal_body, cj.journal_point, _W_J, _VJX, _VJY)):
        b = _body_index(job, body)
        if b < 0:
            continue
        coord = 3 * b
        if body == cj.bearing_body:
            out.append(VectorProbe(_trace(_ANGLE, cj), coord, (0.0, 0.0), "angle", "position"))
        out.append(VectorProbe(_trace(w, cj), coord, (0.0, 0.0), "angle", "velocity"))
        at = (float(point[0]), float(point[1]))
        out.append(VectorProbe(_trace(vx, cj), coord, at, "x", "velocity"))
        out.append(VectorProbe(_trace(vy, cj), coord, at, "y", "velocity"))
    return tuple(out)


def step_job(job: Job, profiles: Mapping[int, np.ndarray]) -> Job:
    """``job`` with each clearance joint ``j`` of ``profiles`` worn to ``profiles[j]`` [m]
    and the traces their histories need."""
    mech = job.mechanism
    joints = list(mech.clearance_joints)
    traces = list(job.options.traces)
    for j, profile in profiles.items():
        joints[j] = replace(joints[j], wear_profile=tuple(float(h) for h in profile))
        traces += wear_traces(job, j)
    options = replace(job.options, traces=tuple(traces))
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
        ring = job.options.n_output - job.options.output_head
        held = max(t_last - (ring - 1) * job.options.output_step, 0.0)
        start = max(held, float(result.metrics.get("settled_from_s", 0.0)))
        n = max(math.floor((t_last - start) / period + 1e-6), 1)
    return t_last - n * period, n


def joint_history(job: Job, result: CaseResult, profile: np.ndarray, joint: int = 0
                  ) -> WearStep:
    """Clearance joint ``joint``'s contact history over the settled window of ``result``
    (a run of ``step_job(job, {joint: profile, ...})``), and its settled headline peak."""
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
    phi_b = col(_ANGLE)
    theta = np.mod(np.arctan2(ey, ex) - phi_b, 2 * np.pi)
    # the contact force's direction: the Winkler resultant's on a worn hole (the compiled
    # contact's, core/worn_contact.py), the line of centres on a new one
    if profile.size:
        _, normal = contact_directions(profile, cj.clearance, ecc, theta)
    else:
        normal = theta
    nx, ny = np.cos(normal + phi_b), np.sin(normal + phi_b)
    r_b = cj.bearing_radius + (depth_at(profile, normal) if profile.size else 0.0)
    r_j = cj.bearing_radius - cj.clearance
    slip = ((col(_VJX) - col(_VBX)) * -ny + (col(_VJY) - col(_VBY)) * nx
            + col(_W_J) * r_j - col(_W_B) * r_b)
    force = np.maximum(col("contact_normal_force"), 0.0)
    history = ContactHistory(t[keep], theta, ecc, force, slip, normal)
    return WearStep(history, revs, float(result.metrics.get(_peak_key(result), math.nan)))


def _peak_key(result: CaseResult) -> str:
    for key in ("peak_slider_accel_settled", "peak_contact_force_settled"):
        if key in result.metrics:
            return key
    return next((k for k in result.metrics if k.startswith("peak_") and
                 k.endswith("_settled")), "peak_contact_force")


def _partial(done: list, joints: int) -> list[WearLife]:
    """The lives up to their last good step (``done``: (cycle, profiles, steps) of each)."""
    cycle = np.array([c for c, _, _ in done])
    peak = np.array([st[0].peak for _, _, st in done])
    out = []
    for j in range(joints):
        depth = np.array([float(p[j].max()) if p[j].size else 0.0 for _, p, _ in done])
        last = done[-1][2][j]
        work = last.history.sliding_work() / max(last.revolutions, 1)
        out.append(WearLife(done[-1][1][j], cycle, depth, peak, work, math.nan))
    return out


def worn_joint(job: Job, wear: WearParams, joint: int) -> WornJoint:
    """Clearance joint ``joint``'s life constants (SI) with ``wear``'s settings."""
    cj = job.mechanism.clearance_joints[joint]
    return WornJoint(int(wear.wear_nodes), wear.wear_coefficient_m2_per_n, cj.clearance,
                     cj.bearing_radius, cj.contact.axial_length)


def run_life(job: Job, worn: Sequence[tuple[int, WearParams]],
             run: Callable[[Sequence[Job]], list[CaseResult]],
             progress: LifeProgress | None = None) -> CaseResult:
    """The life (:func:`wear.wear_lives`) of the clearance joints ``worn`` ((index, wear
    settings) of each, one life: the same ``wear_cycles`` and ``wear_steps``), all worn in
    each step's one run of ``job`` through ``run``.

    Returns the end-of-life run's result with each joint's wear metrics (design.md 4.12)
    as ``name.<joint>`` for a named joint and the unsuffixed name the extreme over the worn
    joints (the largest; a built-in model's one joint: its own), the new joint's settled
    peak ``wear_peak_settled_new``, the end of life's ``wear_peak_settled_end``, and the
    life's series (the profile and its depths per joint too; the unsuffixed ones the most
    worn joint's). ``progress(runs, total)`` hears of each settled run as it ends. A failed
    step ends the life: that step's failed result, with the reason and cycle, carries the
    life up to it. ``wall_time_s`` is the whole life's."""
    first = worn[0][1]
    for _, wear in worn[1:]:
        if (wear.wear_cycles, wear.wear_steps) != (first.wear_cycles, first.wear_steps):
            raise ValueError("the worn joints of one case share one life: wear_cycles and "
                             "wear_steps must agree (checked at the edge)")
    started = time.perf_counter()
    index = [j for j, _ in worn]
    joints = [worn_joint(job, wear, j) for j, wear in worn]
    last: dict[str, CaseResult] = {}
    done: list[tuple[float, list[np.ndarray], list[WearStep]]] = []
    per_step = first.wear_cycles / first.wear_steps

    def step(profiles: list[np.ndarray]) -> list[WearStep]:
        result = run([step_job(job, dict(zip(index, profiles, strict=True)))])[0]
        last["result"] = result
        if not result.ok:
            raise _StepFailedError(result)
        out = [joint_history(job, result, p, j) for j, p in zip(index, profiles, strict=True)]
        done.append((len(done) * per_step, [p.copy() for p in profiles], out))
        return out

    try:
        lives = wear_lives(step, joints, cycles=first.wear_cycles,
                           steps=int(first.wear_steps), progress=progress)
    except _StepFailedError as failed:
        result = failed.result
        result.reason = (f"wear life: the run at cycle {len(done) * per_step:.6g} failed: "
                         f"{result.reason}")
        if not done:
            return result
        lives = _partial(done, len(joints))
    result = last["result"]
    for name in [k for k in result.series if k.startswith("wear_trace_")]:
        del result.series[name]
    _store(result, job, index, joints, lives)
    result.params = dict(job.params)
    # the case's cost is its whole life (every run and the wear updates), not its last run
    result.metrics["wall_time_s"] = time.perf_counter() - started
    return result


def _store(result: CaseResult, job: Job, index: list[int], joints: list[WornJoint],
           lives: list[WearLife]) -> None:
    """Each worn joint's metrics and series into ``result``, per joint, and the unsuffixed
    names: the extreme over the joints (design.md 4.15 "Names"), the series of the most
    worn joint."""
    extreme: dict[str, float] = {}
    for j, joint, life in zip(index, joints, lives, strict=True):
        name = job.mechanism.clearance_joints[j].name
        metrics = life.metrics(joint.clearance, joint.bearing_radius, joint.length)
        metrics["wear_peak_settled_new"] = float(life.peak[0])
        metrics["wear_peak_settled_end"] = float(life.peak[-1])
        for key, value in metrics.items():
            result.metrics[per_joint(key, name)] = value
            extreme[key] = max(value, extreme.get(key, -math.inf))
        if name:  # the cycles and peaks are the case's, once
            result.series.update({per_joint(k, name): v for k, v in life.series().items()
                                  if k in _JOINT_SERIES})
    result.metrics.update(extreme)
    deepest = max(range(len(lives)), key=lambda k: float(lives[k].profile.max()))
    result.series.update(lives[deepest].series())


class _StepFailedError(Exception):
    def __init__(self, result: CaseResult) -> None:
        super().__init__(result.reason)
        self.result = result
