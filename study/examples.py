"""The study files that ship with gapsweep (the data package :mod:`gapsweep.examples`),
found by name: the CLI's ``--example NAME`` and the archive page's example button both read
them here (a study file is the spec's business, not a command's or a page's)."""

from __future__ import annotations

import importlib.resources
import json
from pathlib import Path

from .spec import tomllib  # the Python 3.10 shim

SUFFIXES = (".toml", ".json")


def example_files() -> dict[str, Path]:
    """Name (the file's stem) -> path of every shipped study file, sorted by name."""
    folder = importlib.resources.files("gapsweep.examples")
    found = {p.name: p for p in folder.iterdir() if p.name.endswith(SUFFIXES)}
    # installed as files (setuptools wheels unpack): a real path each
    return {Path(n).stem: Path(str(found[n])) for n in sorted(found)}


def example_file(name: str) -> Path:
    """The shipped study file ``name`` (with or without its suffix); KeyError naming it
    when there is none of that name."""
    stem = Path(name).stem if name.endswith(SUFFIXES) else name
    files = example_files()
    if stem not in files:
        raise KeyError(name)
    return files[stem]


def example_spec(name: str) -> dict:
    """The shipped study file ``name`` as the mapping it holds (TOML or JSON), unvalidated:
    a submit parses and plans it once (:func:`example_file` for the KeyError)."""
    path = example_file(name)
    text = path.read_text(encoding="utf-8")
    return json.loads(text) if path.suffix == ".json" else tomllib.loads(text)
