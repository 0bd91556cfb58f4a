"""A mechanism assembled by hand from the model vocabulary runs through the same solver."""

import numpy as np
import pytest
from gapsweep.core.model import Body, ClearanceJoint, ContactModel, Mechanism, Probe
from gapsweep.core.solver import Job, SolverOptions, run_jobs


def _pendulum(friction_law: str) -> Mechanism:
    # the README's example: a bar hanging from a pin in a 0.1 mm clearance hole
    bar = Body("bar", mass=1.0, inertia=1.0 * 0.4**2 / 12, pose=(0.0, -0.2, 0.0))
    pivot = ClearanceJoint(
        "ground",
        "bar",
        bearing_radius=5e-3,
        clearance=0.1e-3,
        journal_point=(0.0, 0.2),
        contact=ContactModel(law="hertz", friction_law=friction_law, friction=0.2),
    )
    return Mechanism("pendulum", bodies=(bar,), clearance_joints=(pivot,), probe=Probe("bar", 0))


@pytest.fixture(scope="module")
def runs():
    y0 = np.array([0.0, -0.2, 0.0, 0.5, 0.0, 0.0])
    options = SolverOptions(t_end=0.05, rtol=1e-10, atol=1e-13)  # balance error ~ 2e2 rtol
    return run_jobs([Job(_pendulum(law), y0, options) for law in ("none", "coulomb-tanh")])


def test_hand_built_pendulum_rattles_and_conserves_energy(runs):
    elastic = runs[0]
    assert elastic.ok, elastic.reason
    assert elastic.metrics["impacts"] > 10
    # Hertz contact, no friction, gravity: T + V + U_contact is a constant of the motion
    assert elastic.metrics["energy_balance_error"] < 1e-6
    assert elastic.series["friction_dissipation"][-1] == 0.0
    ex, ey = elastic.series["eccentricity_x"], elastic.series["eccentricity_y"]
    assert np.max(np.hypot(ex, ey)) < 0.1e-3 + elastic.metrics["max_penetration"] + 1e-12


def test_friction_dissipates_and_the_balance_still_closes(runs):
    rough = runs[1]
    assert rough.ok, rough.reason
    assert rough.series["friction_dissipation"][-1] > 0.0
    assert rough.metrics["energy_balance_error"] < 1e-5
