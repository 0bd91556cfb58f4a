"""The mechanisms a form offers, read from their files (design.md 4.7, 4.13): the shipped
examples' ``[mechanism]`` tables, and the study file an ADAMS import wrote. The web form
reads these instead of opening TOML itself (``core`` and ``study`` own the files' formats).
"""

from __future__ import annotations

from typing import Any

from .examples import example_files, example_spec
from .spec import tomllib  # the Python 3.10 shim


def example_mechanisms() -> dict[str, dict[str, Any]]:
    """The shipped examples' mechanisms, ``"<its name> (example)"`` -> its ``[mechanism]``
    table, in the examples' order (those with a table only)."""
    out = {}
    for name in example_files():
        table = example_spec(name).get("mechanism")
        if table:
            out[f"{table.get('name', name)} (example)"] = table
    return out


def imported_study(text: str | None) -> dict[str, Any]:
    """The study file ``gapsweep import-adams`` (or the form's .adm upload) wrote, as a
    mapping: its ``name`` (the dataset's title line), ``base`` and ``[mechanism]``; {} for
    no text."""
    return tomllib.loads(text) if text else {}
