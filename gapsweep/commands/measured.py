"""Measured records (design.md 4.9): attach a rig's CSV to a study, list them.

    gapsweep measured add ID FILE [--case CASE_ID] [--json]   -> {"id", "study_id", ...}
    gapsweep measured list ID [--json]

A bad file is refused (exit 2) with the field, the value and what is allowed, and nothing
is stored. Through the archive (:func:`.studies.archive`): the configured database, or a
server's API with ``GAPSWEEP_URL`` set.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from .exit_codes import EXIT_BAD_INPUT, EXIT_OK
from .output import print_errors, print_json
from .studies import archive


def cmd_add(args: argparse.Namespace) -> int:
    from gapsweep.study.errors import FieldError, SpecError
    from gapsweep.study.measurements import MAX_BYTES

    path = Path(args.file)
    try:
        if path.stat().st_size > MAX_BYTES:
            raise SpecError([FieldError("file", f"{path.stat().st_size} bytes",
                                        f"at most {MAX_BYTES} bytes")])
        raw = path.read_bytes()
    except OSError as exc:
        print_errors([FieldError("file", str(path), f"a readable CSV file ({exc.strerror})")],
                     as_json=args.json)
        return EXIT_BAD_INPUT
    try:
        entry = archive().add_measurement(args.id, raw, name=path.name, case_id=args.case)
    except SpecError as exc:  # the case as the command line names it: --case
        print_errors([FieldError("--case", e.value, e.allowed) if e.field == "case_id" else e
                      for e in exc.errors], as_json=args.json)
        return EXIT_BAD_INPUT
    if args.json:
        print_json(entry)
    else:
        print(f"measurement {entry['id']} added to study {args.id}: {entry['n_samples']} "
              f"samples of {', '.join(entry['series'])} on {entry['time_base']}")
    return EXIT_OK


def cmd_list(args: argparse.Namespace) -> int:
    items = archive().measurements(args.id)
    if args.json:
        print_json({"items": items})
    else:
        for m in items:
            print(f"{m['id']:>6}  {m['name']:<30} {m['time_base']:<9} {m['n_samples']:>7} "
                  f"{', '.join(m['series'])}")
    return EXIT_OK


def register(sub: argparse._SubParsersAction) -> None:
    measured = sub.add_parser("measured", help="measured records of a study (rig CSV files)")
    msub = measured.add_subparsers(dest="measured_command", required=True)
    add = msub.add_parser("add", help="attach a CSV (time_s or crank_deg + series columns)")
    add.add_argument("id", type=int, help="the study's id")
    add.add_argument("file")
    add.add_argument("--case", type=int, default=None, help="attach to this case of the study")
    add.add_argument("--json", action="store_true")
    add.set_defaults(func=cmd_add)
    lst = msub.add_parser("list", help="a study's measurements")
    lst.add_argument("id", type=int)
    lst.add_argument("--json", action="store_true")
    lst.set_defaults(func=cmd_list)


