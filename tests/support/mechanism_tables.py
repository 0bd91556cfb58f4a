"""The shipped mechanism examples as tables, and the tables the tests build themselves (the
Whitworth quick-return of tests/core/test_slide_on_moving_body.py), for the mechanism tests."""

from __future__ import annotations

import copy
from pathlib import Path

import tomllib

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def example(name: str) -> dict:
    """The whole study file ``examples/mechanism_<name>.toml``."""
    with open(EXAMPLES / f"mechanism_{name}.toml", "rb") as f:
        return tomllib.load(f)


def table(name: str) -> dict:
    """A deep copy of the example's ``[mechanism]`` table (free to edit)."""
    return copy.deepcopy(example(name)["mechanism"])


#: the quick-return's crank length r, crank pivot height d and ram line height h [mm]
R_MM, D_MM, H_MM = 50.0, 100.0, 200.0
RPM = 60.0  # the crank's speed [rpm]


def quick_return(clearance_mm: float | None = None) -> dict:
    """The Whitworth crank-and-slotted-lever quick-return (two slides on the moving lever, a
    ram on the ground line) as a ``[mechanism]`` table; with ``clearance_mm``, the crank pin
    A has that clearance (bearing radius 5 mm)."""
    r, d, h = R_MM, D_MM, H_MM
    pin = {"type": "revolute", "bodies": ["crank", "block_a"], "at": "A"}
    if clearance_mm is not None:
        pin.update(clearance_mm=clearance_mm, bearing_radius_mm=5.0)
    return {
        "name": "Whitworth quick-return",
        "gravity": [0, 0],
        "points": {"O2": [0, d], "O4": [0, 0], "A": [r, d], "B": [h * r / d, h]},
        "bodies": {
            "crank": {"mass_kg": 0.5, "inertia_kgm2": 2e-4, "cm": [r / 2, d]},
            "block_a": {"mass_kg": 0.1, "inertia_kgm2": 1e-5, "cm": "A"},
            "lever": {"mass_kg": 1.0, "inertia_kgm2": 5e-3, "cm": [h * r / d / 2, h / 2]},
            "block_b": {"mass_kg": 0.1, "inertia_kgm2": 1e-5, "cm": "B"},
            "ram": {"mass_kg": 2.0, "inertia_kgm2": 1e-3, "cm": "B"},
        },
        "joints": {
            "main": {"type": "revolute", "bodies": ["ground", "crank"], "at": "O2"},
            "pin": pin,
            "slot_a": {"type": "translational", "bodies": ["lever", "block_a"], "at": "A",
                       "direction": [r, d]},
            "pivot": {"type": "revolute", "bodies": ["ground", "lever"], "at": "O4"},
            "slot_b": {"type": "translational", "bodies": ["lever", "block_b"], "at": "B",
                       "direction": [r, d]},
            "ram_pin": {"type": "revolute", "bodies": ["block_b", "ram"], "at": "B"},
            "guide": {"type": "translational", "bodies": ["ground", "ram"], "at": "B",
                      "direction": [1, 0]},
        },
        "driver": {"joint": "main", "speed_rpm": RPM},
        "measures": {
            "ram_x": {"body": "ram", "quantity": "position", "component": "x"},
            "ram_v": {"body": "ram", "quantity": "velocity", "component": "x"},
        },
    }
