"""``gapsweep fit FIT --diameter-mm D [--json]``: an ISO 286 fit's limits (design.md 4.8).

    gapsweep fit H7/g6 --diameter-mm 20
    hole  20.000 .. 20.021 mm, shaft 19.980 .. 19.993 mm, radial clearance 0.0035 .. 0.0205 mm

Unknown fit or diameter out of the tables' range: exit 2 with the field, value and allowed.
"""

from __future__ import annotations

import argparse

from gapsweep.core.iso286 import fit_limits

from .output import print_json


def cmd_fit(args: argparse.Namespace) -> int:
    limits = fit_limits(args.fit, args.diameter_mm)  # InputError -> exit 2 (cli.main)
    if args.json:
        print_json(limits.to_dict())
        return 0
    (h0, h1), (s0, s1), (c0, c1) = limits.hole_mm, limits.shaft_mm, limits.clearance_mm
    print(f"{limits.fit} at {limits.diameter_mm:g} mm (ISO 286-1:2010 Tables 1 and 2)")
    print(f"  hole   {h0:.3f} .. {h1:.3f} mm")
    print(f"  shaft  {s0:.3f} .. {s1:.3f} mm")
    print(f"  radial clearance (hole - shaft) / 2: {c0:.4f} .. {c1:.4f} mm")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``fit`` to the top-level parser."""
    p = sub.add_parser("fit", help="an ISO 286 fit's limits and radial clearance")
    p.add_argument("fit", help="a hole-basis fit, e.g. H7/g6")
    p.add_argument("--diameter-mm", required=True, type=str, dest="diameter_mm",
                   help="nominal diameter [mm], > 0 and <= 500")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_fit)
