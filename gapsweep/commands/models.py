"""``gapsweep models``: the models a study or ``simulate`` can name (design.md 4.5).

    gapsweep models [--json]     name and what each one is; `gapsweep params --model NAME`
                                 lists a model's parameters
"""

from __future__ import annotations

import argparse

from .exit_codes import EXIT_OK
from .output import print_json


def cmd_models(args: argparse.Namespace) -> int:
    # the core's registry names the models and where they live; nothing is imported or
    # compiled to list them
    from gapsweep.core.api import MODELS

    if args.json:
        print_json({"models": [{"name": m.name, "description": m.description}
                               for m in MODELS.values()]})
        return EXIT_OK
    width = max(len(name) for name in MODELS)
    for model in MODELS.values():
        print(f"{model.name:<{width}}  {model.description}")
    print("its parameters: gapsweep params --model NAME")
    return EXIT_OK


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``models`` to the top-level parser."""
    p = sub.add_parser("models", help="the models a study or simulate can name")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_models)
