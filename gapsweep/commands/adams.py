"""``gapsweep import-adams FILE.adm [-o STUDY.toml] [--json] [--t-end S]``: a planar ADAMS/Solver
dataset as a mechanism study (design.md 4.13, 4.15).

Without ``-o`` the study file goes to standard output. ``--json`` prints
``{"study", "mechanism", "supported", "skipped", "refused"}`` (and ``contacts``, ``notes``).
Anything refused exits 2 with nothing written.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from .exit_codes import EXIT_BAD_INPUT
from .output import print_json


def _read(path: Path) -> bytes:
    from gapsweep.study.adams import AdamsError
    from gapsweep.study.adams.tokenizer import MAX_BYTES

    size = path.stat().st_size
    if size > MAX_BYTES:  # refused without reading it
        raise AdamsError(f"the file is {size / 2**20:.1f} MB; at most {MAX_BYTES // 2**20} MB "
                         "is read")
    with open(path, "rb") as f:
        return f.read(MAX_BYTES + 1)


def _assembles(table: dict[str, Any], t_end: float | None) -> str | None:
    """Why the imported mechanism cannot run (None when it assembles)."""
    from gapsweep.core.errors import InputError
    from gapsweep.core.mechanism.case import MechanismCase

    try:
        MechanismCase.from_mapping({"mechanism": table,
                                    **({"t_end": t_end} if "driver" not in table else {})})
    except InputError as exc:
        return str(exc)
    return None


def cmd_import(args: argparse.Namespace) -> int:
    from gapsweep.study.adams import AdamsError, import_dataset
    from gapsweep.study.adams.study_file import DEFAULT_T_END, study_toml

    path = Path(args.file)
    report: dict[str, Any] = {"study": None, "mechanism": None, "supported": [],
                              "skipped": [], "refused": [], "contacts": [], "notes": []}
    try:
        result = import_dataset(_read(path), path.name)  # AdamsError: refused as a whole
    except OSError as exc:
        report["refused"] = [{"line": 0, "statement": "(file)", "why": f"cannot read: {exc}"}]
        result = None
    except AdamsError as exc:
        report["refused"] = [{"line": exc.line, "statement": exc.statement, "why": exc.why}]
        result = None
    if result is not None:
        report.update(
            supported=[s.as_dict(why=False) for s in result.supported],
            skipped=[s.as_dict(why=False) for s in result.skipped],
            refused=[s.as_dict() for s in result.refused],
            contacts=[{"line": c.line, "statement": c.statement, "joint": c.joint}
                      for c in result.contacts],
            notes=result.notes)
        if result.mechanism is not None:
            why = _assembles(result.mechanism, args.t_end or DEFAULT_T_END)
            if why is not None:
                report["refused"] = [{"line": 0, "statement": "(mechanism)", "why": why}]
            else:
                report["mechanism"] = result.mechanism
    if report["refused"]:
        if args.json:
            print_json(report)
        for r in report["refused"]:
            where = f"line {r['line']}: " if r["line"] else ""
            print(f"refused: {where}{r['statement']}: {r['why']}", file=sys.stderr)
        print("nothing written", file=sys.stderr)
        return EXIT_BAD_INPUT
    assert result is not None
    text = study_toml(result, path.name, args.t_end)
    if args.output:
        Path(args.output).write_text(text, encoding="utf-8")
        report["study"] = str(args.output)
    if args.json:
        print_json(report)
    elif not args.output:
        sys.stdout.write(text)
    if not args.json:
        _summary(report, args.output)
    return 0


def _summary(report: dict[str, Any], output: str | None) -> None:
    err = sys.stderr
    mech = report["mechanism"]
    print(f"imported {len(report['supported'])} statements: {len(mech['bodies'])} bodies, "
          f"{len(mech['joints'])} joints" + (f", study written to {output}" if output else ""),
          file=err)
    for s in report["skipped"]:
        print(f"skipped: line {s['line']}: {s['statement']}", file=err)
    for c in report["contacts"]:
        joint = (f"add joints.{c['joint']}.clearance_mm as an axis (commented out in the study)"
                 if c["joint"] else "no revolute joins its parts")
        print(f"contact: line {c['line']}: {c['statement']} not imported: {joint}", file=err)


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``import-adams``."""
    p = sub.add_parser("import-adams", help="a planar ADAMS/Solver dataset (.adm) as a study")
    p.add_argument("file", help="FILE.adm")
    p.add_argument("-o", "--output", help="STUDY.toml (default: standard output)")
    p.add_argument("--json", action="store_true")
    p.add_argument("--t-end", type=float, default=None, dest="t_end",
                   help="run length [s] written in [base] (default 1 s without a MOTION)")
    p.set_defaults(func=cmd_import)
