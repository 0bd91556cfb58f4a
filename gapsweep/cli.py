"""``gapsweep`` command line: the solver core, the study archive and the services.

    gapsweep simulate [--model slider-crank] [--set NAME=VALUE ...] [--ideal] [--json]
    gapsweep warmup | models | params [--model NAME | --study FILE] | fit FIT --diameter-mm D
    gapsweep mechanism check FILE [--json] | mechanism draw FILE -o OUT.svg|png
    gapsweep import-adams FILE.adm [-o STUDY.toml] [--json]
    gapsweep study validate FILE | run FILE | submit FILE | wait ID | examples
    gapsweep studies | show ID | export ID | cancel ID | retry ID | delete ID | purge
    gapsweep worker | workers | serve [--auth] | db upgrade
    gapsweep measured add ID FILE | measured list ID
    gapsweep user add|list|set-role|disable|enable|password|token|tokens|revoke | audit

Bad input exits with status 2 and one line naming the field; a case the solver could not
finish exits with status 1 (its JSON still printed, with ``status`` and ``reason``).
With ``GAPSWEEP_URL`` set the study commands talk to that server (:mod:`gapsweep.archive`).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from gapsweep.archive.errors import ForbiddenError, RefusedError, UnavailableError
from gapsweep.core.errors import GapsweepError, InputError

from .commands import (
    adams,
    bearing,
    examples,
    fit,
    measured,
    mechanism,
    models,
    services,
    simulate,
    studies,
    users,
)
from .commands.exit_codes import EXIT_BAD_INPUT, EXIT_FAILED, CommandError

# Each group's module imports only the standard library and gapsweep's light modules at the
# top; what a command needs (SQLAlchemy, numba, scipy, Celery, Dash) is imported inside it,
# so `gapsweep --help` and the archive commands answer at once (tests/cli/test_imports.py).
COMMAND_GROUPS = (simulate, models, studies, examples, mechanism, adams, services, users, fit,
                  measured, bearing)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="gapsweep", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    for group in COMMAND_GROUPS:
        group.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `gapsweep ... | head`: the reader left, nothing to report
        sys.stderr.close()
        return 0
    except CommandError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return exc.code
    except (RefusedError, ForbiddenError) as exc:  # bad input, credentials, role, no API
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except UnavailableError as exc:  # the server cannot be reached: another time may work
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_FAILED
    except InputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except GapsweepError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_FAILED
    except Exception as exc:
        for group in COMMAND_GROUPS:
            handle = getattr(group, "handle_errors", None)
            code = handle(args, exc) if handle else None
            if code is not None:
                return code
        raise


if __name__ == "__main__":
    sys.exit(main())
