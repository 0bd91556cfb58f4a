"""``gapsweep mechanism check FILE [--json]`` and ``gapsweep mechanism draw FILE -o OUT``:
a described mechanism (design.md 4.7) validated, assembled and drawn, from a study file or
a file holding only a ``[mechanism]`` table."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from .exit_codes import EXIT_BAD_INPUT
from .output import print_json


def read_table(path: str) -> dict[str, Any]:
    """The ``[mechanism]`` table of a study file, or the file itself if it holds only one."""
    from gapsweep.core.errors import InputError

    p = Path(path)
    fmt = {".toml": "toml", ".json": "json"}.get(p.suffix.lower())
    if fmt is None:
        raise InputError("file", p.name, "a .toml or .json file")
    try:
        text = p.read_text(encoding="utf-8")
        if fmt == "toml":
            from gapsweep.study.spec import tomllib  # the Python 3.10 shim

            data = tomllib.loads(text)
        else:
            data = json.loads(text)
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise InputError("file", str(p), f"a readable {fmt.upper()} file ({exc})") from None
    if isinstance(data, dict) and isinstance(data.get("mechanism"), dict):
        return data["mechanism"]
    if isinstance(data, dict) and "bodies" in data:
        return data
    raise InputError("mechanism", None, "a [mechanism] table (design.md 4.7)")


def _refuse(exc: Any, as_json: bool) -> int:
    entry = {"field": exc.field, "value": exc.value,
             "allowed": exc.allowed + (f" ({exc.detail})" if exc.detail else "")}
    if as_json:
        print_json({"errors": [entry]})
    print(f"{entry['field']}: {entry['value']!r} — {entry['allowed']}", file=sys.stderr)
    return EXIT_BAD_INPUT


def report(table: dict[str, Any]) -> dict[str, Any]:
    """What ``mechanism check --json`` prints: bodies, joints, clearance joints, degrees of
    freedom, the driver and its period, loads, measures and the sweepable names."""
    from gapsweep.core.mechanism.build import kinematics
    from gapsweep.core.mechanism.case import MechanismCase, sweepable_names
    from gapsweep.study.mechanism import driverless_t_end

    # a mechanism without a driver runs for its study's t_end, which the table does not carry:
    # any duration serves to check the table itself
    case = MechanismCase.from_mapping({"mechanism": table, **driverless_t_end(table)})
    spec = case.spec
    k = kinematics(spec)
    return {
        "name": spec.name,
        "bodies": [{"name": b.name, "mass_kg": b.mass, "inertia_kgm2": b.inertia,
                    "cm_mm": [b.cm[0] * 1e3, b.cm[1] * 1e3]} for b in spec.bodies],
        "joints": [{"name": j.name, "type": j.type, "bodies": [j.body_i, j.body_j],
                    "at_mm": [j.at[0] * 1e3, j.at[1] * 1e3],
                    "clearance_mm": dict(j.contact)["clearance_mm"] if j.contact else None}
                   for j in spec.joints],
        "clearance_joints": [j.name for j in spec.clearance_joints],
        "degrees_of_freedom": k.dof,
        "driver": {"joint": spec.driver_joint, "speed_rpm": spec.speed_rpm,
                   "period_s": spec.period, "full_revolution": k.dof == 1}
        if spec.driver_joint else None,
        "loads": [{"name": ld.name, "type": ld.type, "tabled": ld.tabled} for ld in spec.loads],
        "measures": [{"name": m.name, "body": m.body, "quantity": m.quantity,
                      "component": m.component} for m in spec.measures],
        "t_end_default_s": 2.0 * spec.period if spec.driver_joint else None,
        "sweepable": sweepable_names(table),
    }


def cmd_check(args: argparse.Namespace) -> int:
    from gapsweep.core.errors import InputError

    try:
        data = report(read_table(args.file))
    except InputError as exc:
        return _refuse(exc, args.json)
    if args.json:
        print_json(data)
        return 0
    print(f"{data['name']}: {len(data['bodies'])} bodies, {len(data['joints'])} joints, "
          f"{data['degrees_of_freedom']} degree(s) of freedom without the driver")
    for j in data["joints"]:
        extra = f", clearance {j['clearance_mm']:g} mm" if j["clearance_mm"] else ""
        print(f"  joint {j['name']}: {j['type']} {j['bodies'][0]}-{j['bodies'][1]}{extra}")
    d = data["driver"]
    if d is None:
        print("  no driver: it moves under its loads and gravity from rest for t_end")
    else:
        print(f"  driver {d['joint']}: {d['speed_rpm']:g} rpm, period {d['period_s']:.6g} s, "
              f"{'turns a full revolution' if d['full_revolution'] else 'not swept'}")
    print("sweepable names:")
    for name, unit in data["sweepable"].items():
        print(f"  {name}" + (f" [{unit}]" if unit else ""))
    return 0


def cmd_draw(args: argparse.Namespace) -> int:
    from gapsweep.core.errors import InputError
    from gapsweep.core.mechanism.case import MechanismCase
    from gapsweep.core.mechanism.drawing import png, shapes, svg

    try:
        from gapsweep.study.mechanism import driverless_t_end

        table = read_table(args.file)
        case = MechanismCase.from_mapping({"mechanism": table, **driverless_t_end(table)})
        out = Path(args.output)
        if out.suffix.lower() not in (".svg", ".png"):
            raise InputError("output", args.output, "a file ending in .svg or .png")
    except InputError as exc:
        return _refuse(exc, False)
    s = shapes(case.spec)
    if out.suffix.lower() == ".svg":
        out.write_text(svg(s), encoding="utf-8")
    else:
        try:
            png(s, str(out))
        except RuntimeError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return EXIT_BAD_INPUT
    print(str(out))
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``mechanism check`` and ``mechanism draw``."""
    mech = sub.add_parser("mechanism", help="check or draw a described mechanism")
    msub = mech.add_subparsers(dest="mechanism_command", required=True)
    check = msub.add_parser("check", help="validate and assemble the [mechanism] of FILE")
    check.add_argument("file")
    check.add_argument("--json", action="store_true")
    check.set_defaults(func=cmd_check)
    draw = msub.add_parser("draw", help="draw the mechanism of FILE at driver angle 0")
    draw.add_argument("file")
    draw.add_argument("-o", "--output", required=True, help="OUT.svg or OUT.png")
    draw.set_defaults(func=cmd_draw)
