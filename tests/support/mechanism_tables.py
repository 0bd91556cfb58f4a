"""The shipped mechanism examples as tables, for the mechanism tests."""

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
