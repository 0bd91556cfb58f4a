r"""Wear of a revolute clearance joint's bearing over its life (Archard; design.md 4.12).

**The worn bearing.** The hole's radius is :math:`r_B(\theta) = R_B + h(\theta)`, ``h``
sampled at ``N`` nodes :math:`\theta_i = 2\pi i/N` in the bearing body's frame (from its x
axis, counter-clockwise) and linear between them (periodic). The compiled contact
(:mod:`worn_contact`) is the resultant of the Winkler pressure below over the whole overlap
arc, wherever on the worn wall it is - not the depth under the line of centres - its size the
contact law's at an equivalent penetration. A zero profile is skipped, so the unworn joint is
exactly today's.

**The pressure model: an elastic (Winkler) foundation, scaled to the contact force** (the
contact's own, :mod:`worn_contact`). At a contact sample the interference of the rigid
journal with the worn wall at node ``i`` is
:math:`g_i = |e|\cos(\theta_i - \theta_e) - c - h_i` (the journal's surface in direction
:math:`\theta_i`, to first order in :math:`|e|/R`); the wall is taken as a bed of
independent springs, so the pressure is proportional to :math:`\max(g_i, 0)`, and its
resultant is set to the contact law's normal force :math:`F_n` over the bearing length
``L`` (``axial_length_mm``, design.md 4.15):
:math:`p_i = F_n\,g_i^+ / (L R_B \Delta\theta\,\sum_j g_j^+)`. Why this model: it reads the
worn profile, so the contact arc widens as the hole conforms to the journal - the mechanism
that drives a worn-in hole towards Reye's shape - and it needs no constant beyond the ones
the contact already has (the conformal stiffness laws' Hertz width does not see the wear).
Where the interference falls between two nodes (a light touch narrower than a node) the
force goes to the two nodes beside the contact's direction by linear interpolation. The pin
is not worn (its wear would add to ``clearance_after_wear``; stated in the docs).

**Archard.** :math:`\mathrm{d}h_i = k_D\,p_i\,|v_{slip}|\,\mathrm{d}t`, integrated over one
revolution's contact history by the trapezoidal rule. By construction the worn volume
:math:`\sum_i h_i R_B \Delta\theta L = k_D \int F_n |v_{slip}|\,\mathrm{d}t`, Archard's
law in the large (the closed form the tests check against an independent sliding work).

**The life** (:func:`wear_lives`): ``steps`` updates uniform in cycles; each runs the settled
motion on the current profiles, every worn joint of the case in the one run (through a
callable, so the core's solver and a prescribed history share the loop), takes each joint's
mean wear of one revolution of the settled window, scales it by the step's cycles and adds
it to that joint's profile.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from .worn_contact import resultants, sink


def node_angles(n_nodes: int) -> np.ndarray:
    """The profile's node angles [rad], ``[n_nodes]``, from 0 counter-clockwise."""
    return 2.0 * np.pi * np.arange(n_nodes) / n_nodes


def depth_at(profile: np.ndarray, theta: np.ndarray) -> np.ndarray:
    """``h(theta)`` [m] of ``profile`` ``[N]`` at angles ``theta`` [rad] (any shape), linear
    between nodes, as the compiled contact reads it (:mod:`worn_contact`)."""
    n = profile.shape[0]
    u = np.mod(np.asarray(theta, dtype=float) * (n / (2.0 * np.pi)), n)
    i = np.floor(u).astype(int) % n
    f = u - np.floor(u)
    return (1.0 - f) * profile[i] + f * profile[(i + 1) % n]


@dataclass(frozen=True)
class ContactHistory:
    """One joint's contact over a stretch of motion, sampled at times ``t`` [s], all ``[m]``
    samples: ``theta`` line of centres in the bearing's frame [rad], ``ecc`` |e| [m],
    ``force`` normal contact force [N] (0 in free flight), ``slip`` tangential slip speed of
    the contact points [m/s] (sign free), ``normal`` the contact force's direction in the
    bearing's frame [rad] (the resultant of the pressure on a worn hole; None: the line of
    centres)."""

    t: np.ndarray
    theta: np.ndarray
    ecc: np.ndarray
    force: np.ndarray
    slip: np.ndarray
    normal: np.ndarray | None = None

    @property
    def direction(self) -> np.ndarray:
        """The contact force's direction [rad, bearing frame], ``[m]``."""
        return self.theta if self.normal is None else self.normal

    def sliding_work(self) -> float:
        """:math:`\\int F_n |v_{slip}|\\,dt` [J] over the history (trapezoidal)."""
        return float(np.trapezoid(self.force * np.abs(self.slip), self.t))


def wear_increment(profile: np.ndarray, history: ContactHistory, *, coefficient: float,
                   clearance: float, bearing_radius: float, length: float,
                   sunk: np.ndarray | None = None) -> np.ndarray:
    """Archard's depth increment ``[N]`` [m] of the bearing over ``history``.

    ``coefficient`` k_D [m²/N], ``clearance`` c, ``bearing_radius`` R_B, ``length`` L [m].
    dh_i = k_D p_i |v_slip| dt, p_i from the elastic foundation on ``profile`` (see the
    module), the rate integrated with the trapezoidal rule between samples. ``sunk``
    ``[m samples]`` [m], if given, moves the journal along the contact force's direction
    (``history.direction``): how much deeper it sits at each sample on ``profile`` than on
    the profile the history was run on. The pressure is the contact's own distribution over
    the whole overlap, wherever on the wall (off the line of centres in a worn hole).
    """
    n = profile.shape[0]
    area = length * bearing_radius * (2.0 * np.pi / n)  # the wall's area per node [m²]
    fv = history.force * np.abs(history.slip)
    theta_n = history.direction
    nodes = node_angles(n)[None, :]
    g = history.ecc[:, None] * np.cos(nodes - history.theta[:, None]) - clearance - profile
    if sunk is not None:
        g = g + sunk[:, None] * np.cos(nodes - theta_n[:, None])
    g = np.maximum(g, 0.0)
    total = g.sum(axis=1)
    touch = total <= 0.0  # narrower than a node: the two neighbours by interpolation
    if np.any(touch):
        u = np.mod(theta_n[touch], 2.0 * np.pi) * (n / (2.0 * np.pi))
        i = np.floor(u).astype(int) % n
        f = u - np.floor(u)
        rows = np.flatnonzero(touch)
        g[rows, i] = 1.0 - f
        g[rows, (i + 1) % n] += f
        total[touch] = 1.0
    rate = (coefficient / area) * (fv / total)[:, None] * g
    return np.trapezoid(rate, history.t, axis=0)


def wear_volume(profile: np.ndarray, bearing_radius: float, length: float) -> float:
    """Worn volume [m³] of ``profile`` ``[N]``: sum of h_i R_B dtheta L."""
    return float(profile.sum() * bearing_radius * (2.0 * np.pi / profile.shape[0]) * length)


@dataclass(frozen=True)
class WearStep:
    """What one settled run on a profile gives the life: the contact history of its settled
    window (``revolutions`` long) and the headline peak [its unit] on that profile."""

    history: ContactHistory
    revolutions: int
    peak: float


@dataclass(frozen=True)
class WearLife:
    """A joint's life: the final ``profile`` ``[N]`` [m] and per step (``[steps + 1]``, the
    new joint first) ``cycle``, ``max_depth`` [m], ``peak`` (the settled headline), with the
    ``sliding_work`` [J per revolution] of the last run."""

    profile: np.ndarray
    cycle: np.ndarray
    max_depth: np.ndarray
    peak: np.ndarray
    sliding_work: float
    total_sliding_work: float

    def metrics(self, clearance: float, bearing_radius: float, length: float) -> dict:
        """The joint's wear metrics (design.md 4.12), SI."""
        return {
            "contact_sliding_work": self.sliding_work,
            "wear_volume": wear_volume(self.profile, bearing_radius, length),
            "max_wear_depth": float(self.profile.max()),
            "clearance_after_wear": clearance + float(self.profile.max()),
        }

    def series(self) -> dict[str, np.ndarray]:
        """The final profile and the per-step record (design.md 4.12's names)."""
        return {
            "wear_angle": node_angles(self.profile.shape[0]),
            "wear_depth": self.profile.copy(),
            "wear_cycle": self.cycle.copy(),
            "wear_max_depth": self.max_depth.copy(),
            "wear_peak_settled": self.peak.copy(),
        }


#: profile updates per life step on one run's contact history (:func:`wear_lives`)
SUBSTEPS = 8


@dataclass(frozen=True)
class WornJoint:
    """The constants of one worn joint's life, SI: ``nodes`` of its profile, ``coefficient``
    k_D [m²/N], ``clearance`` c, ``bearing_radius`` R_B and ``length`` L [m]."""

    nodes: int
    coefficient: float
    clearance: float
    bearing_radius: float
    length: float

    def advance(self, profile: np.ndarray, step: WearStep, cycles: float) -> np.ndarray:
        """``profile`` ``[nodes]`` [m] worn by ``cycles`` revolutions of ``step``'s mean
        revolution, in :data:`SUBSTEPS` updates on the one history, the journal sinking into
        what it wears: moved along the contact's direction until the Winkler pressure on the
        updated profile has the resultant it had in the run (the foundation carrying the
        unchanged force; :func:`worn_contact.sink`). The first step's contact on the new
        circular hole would otherwise put a whole step's wear in a narrow groove; sinking by
        the wear under the contact's centre instead would deepen the middle of a conformal
        contact, whose overlap is far shallower than a step's wear, into a spike."""
        revs = max(step.revolutions, 1)
        seen, hist = profile, step.history
        along = hist.direction
        on = hist.force > 0.0
        # the resultant of the foundation's pressure on the run's profile: held as the wall
        # wears (the force it carries is the sample's)
        target = resultants(seen, self.clearance, hist.ecc[on], hist.theta[on])
        sunk = np.zeros(hist.t.shape)
        for _ in range(SUBSTEPS):
            if np.any(profile > 0.0) and np.any(on):
                guess = depth_at(profile, along[on]) - depth_at(seen, along[on])
                sunk[on] = sink(profile, self.clearance, hist.ecc[on], hist.theta[on],
                                along[on], target, guess)
            dh = wear_increment(profile, hist, coefficient=self.coefficient,
                                clearance=self.clearance, bearing_radius=self.bearing_radius,
                                length=self.length, sunk=sunk) / revs
            profile = profile + dh * (cycles / SUBSTEPS)
        return profile


#: ``progress(runs, total)``: the life's settled runs done so far of its ``steps + 1``
LifeProgress = Callable[[int, int], None]


def wear_lives(run: Callable[[list[np.ndarray]], list[WearStep]],
               joints: Sequence[WornJoint], *, cycles: float, steps: int,
               progress: LifeProgress | None = None) -> list[WearLife]:
    """Step the lives of ``joints``, worn together: ``steps`` profile updates uniform over
    ``cycles`` revolutions.

    ``run(profiles)`` runs the settled motion with joint ``j``'s bearing worn to
    ``profiles[j]`` (``[joints[j].nodes]`` [m]) from the case's initial state and returns a
    :class:`WearStep` per joint (the joints of one run: one motion, so one headline peak).
    Each update adds to each joint the mean wear of one revolution of its window times
    ``cycles / steps``; a last run on the final profiles gives the end-of-life peak.
    ``progress``, if given, hears of each run as it ends.
    """
    profiles = [np.zeros(j.nodes) for j in joints]
    per_step = cycles / steps
    depth: list[list[float]] = [[0.0] for _ in joints]
    cycle, peak = [0.0], []
    total = [0.0 for _ in joints]

    def settled(k: int) -> list[WearStep]:
        out = run(profiles)
        if progress is not None:
            progress(k, steps + 1)
        return out

    now = settled(1)
    for s in range(steps):
        for j, joint in enumerate(joints):
            profiles[j] = joint.advance(profiles[j], now[j], per_step)
            total[j] += now[j].history.sliding_work() / max(now[j].revolutions, 1) * per_step
            depth[j].append(float(profiles[j].max()))
        peak.append(now[0].peak)
        cycle.append((s + 1) * per_step)
        now = settled(s + 2)
    peak.append(now[0].peak)
    return [WearLife(profiles[j], np.array(cycle), np.array(depth[j]), np.array(peak),
                     now[j].history.sliding_work() / max(now[j].revolutions, 1), total[j])
            for j in range(len(joints))]


def wear_life(run: Callable[[np.ndarray], WearStep], *, nodes: int, cycles: float, steps: int,
              coefficient: float, clearance: float, bearing_radius: float, length: float
              ) -> WearLife:
    """One joint's life (:func:`wear_lives`): ``run(profile)`` gives its :class:`WearStep`
    on ``profile`` ``[nodes]`` [m]."""
    joint = WornJoint(nodes, coefficient, clearance, bearing_radius, length)
    return wear_lives(lambda profiles: [run(profiles[0])], [joint], cycles=cycles,
                      steps=steps)[0]


#: Upper bounds of the life's resolution: a finer profile or more steps cost a run each
MAX_WEAR_STEPS = 1000
MAX_WEAR_NODES = 7200


@dataclass(frozen=True)
class WearParams:
    """A clearance joint's wear settings (design.md 4.12), as the user names them:
    ``wear_coefficient_m2_per_n`` k_D [m²/N] (0: no wear), ``wear_cycles`` driver revolutions
    of life (no default: required with a coefficient; 0 = not given), ``wear_steps`` profile
    updates, ``wear_nodes`` points of the profile."""

    wear_coefficient_m2_per_n: float = 0.0
    wear_cycles: float = 0.0
    wear_steps: int = 20
    wear_nodes: int = 360

    @property
    def on(self) -> bool:
        return self.wear_coefficient_m2_per_n > 0.0

    def validate(self, prefix: str = "") -> None:
        """Raise :class:`InputError` naming the first field outside its range (``prefix``
        the joint's path, e.g. ``joints.pin.``)."""
        from .errors import InputError, require_finite

        k = require_finite(prefix + "wear_coefficient_m2_per_n", self.wear_coefficient_m2_per_n)
        if not 0.0 <= k < 1e-6:
            raise InputError(prefix + "wear_coefficient_m2_per_n", k,
                             "in [0, 1e-6) m²/N (0: no wear; steel on bronze ~1e-16..1e-14)")
        cycles = require_finite(prefix + "wear_cycles", self.wear_cycles)
        if self.on and not 0.0 < cycles <= 1e12:
            raise InputError(prefix + "wear_cycles", self.wear_cycles,
                             "in (0, 1e12] revolutions, required with a wear coefficient")
        if cycles < 0.0:
            raise InputError(prefix + "wear_cycles", self.wear_cycles, ">= 0 revolutions")
        if int(self.wear_steps) != self.wear_steps or not 1 <= self.wear_steps <= MAX_WEAR_STEPS:
            raise InputError(prefix + "wear_steps", self.wear_steps,
                             f"an integer in [1, {MAX_WEAR_STEPS}]")
        if int(self.wear_nodes) != self.wear_nodes or not 8 <= self.wear_nodes <= MAX_WEAR_NODES:
            raise InputError(prefix + "wear_nodes", self.wear_nodes,
                             f"an integer in [8, {MAX_WEAR_NODES}]")
