"""The study files that ship with gapsweep (:mod:`gapsweep.examples`).

    gapsweep examples [--json]                 their names, what they hold and where they are
    gapsweep run --example clearance_x_stiffness   (also submit, study validate)
"""

from __future__ import annotations

import argparse
from pathlib import Path

from gapsweep.study import examples

from .exit_codes import EXIT_OK, CommandError
from .output import print_json


def example_file(name: str) -> Path:
    """The shipped study file ``name`` (with or without its suffix); exit 2 naming the
    value and the names there are."""
    try:
        return examples.example_file(name)
    except KeyError:
        names = ", ".join(examples.example_files()) or "(none)"
        raise CommandError(f"--example: {name!r} — allowed one of {names}"
                           " (`gapsweep examples` lists them)") from None


def _title(path: Path) -> str:
    """The study's ``name`` line, read without parsing the spec (a listing stays instant)."""
    for line in path.read_text(encoding="utf-8").splitlines():
        key, sep, value = line.partition("=")
        if sep and key.strip() == "name":
            return value.split("#", 1)[0].strip().strip('"')
    return ""


def cmd_examples(args: argparse.Namespace) -> int:
    files = examples.example_files()
    if args.json:
        print_json({"examples": [{"name": n, "title": _title(p), "path": str(p)}
                                 for n, p in files.items()]})
        return EXIT_OK
    for name, path in files.items():
        print(f"{name:<28} {_title(path):<32} {path}")
    print("run one: gapsweep run --example NAME (or copy the file and edit it)")
    return EXIT_OK


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``examples`` to the top-level parser."""
    p = sub.add_parser("examples", help="the study files that ship with gapsweep")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_examples)
