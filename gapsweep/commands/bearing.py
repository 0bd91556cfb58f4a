"""``gapsweep bearing``: one hydrodynamic journal bearing, as a designer checks one
(design.md 4.11, 4.15).

    gapsweep bearing --lubrication short-bearing --radius-mm R --length-mm L
                     --clearance-mm C --viscosity-pa-s MU --speed-rpm N
                     (--load-n W | --eccentricity-ratio E) [--json]

With a load: the static equilibrium and the linearised film coefficients there; with an
eccentricity ratio: the steady film force there and its coefficients. ``--radius-mm`` is
the film's R as given (the journal's radius). Convention: x horizontal, y up, the load on the
journal along -y, the journal turning counter-clockwise, the bearing fixed; e = journal centre
- bearing centre; k_ij = -dF_i/de_j, c_ij = -dF_i/d(de_j/dt). Pure numpy: nothing compiles.
"""

from __future__ import annotations

import argparse
import math

from .exit_codes import EXIT_OK
from .output import print_json


def _positive(flag: str, value: float, unit: str) -> float:
    from gapsweep.core.errors import InputError

    if not (math.isfinite(value) and value > 0.0):
        raise InputError(flag, value, f"> 0 {unit}".rstrip())
    return value


def cmd_bearing(args: argparse.Namespace) -> int:
    from gapsweep.core.errors import InputError
    from gapsweep.core.journal_bearing import (
        FILM_LIMIT,
        NONE,
        Bearing,
        bearing_state,
        lubrication_kind,
    )

    kind = lubrication_kind(args.lubrication, "--lubrication")
    if kind == NONE:
        raise InputError("--lubrication", args.lubrication, "short-bearing, long-bearing or finite")
    radius = _positive("--radius-mm", args.radius_mm, "mm") * 1e-3
    length = _positive("--length-mm", args.length_mm, "mm") * 1e-3
    clearance = _positive("--clearance-mm", args.clearance_mm, "mm") * 1e-3
    if clearance >= radius:
        raise InputError("--clearance-mm", args.clearance_mm, f"< --radius-mm {args.radius_mm:g}")
    viscosity = _positive("--viscosity-pa-s", args.viscosity_pa_s, "Pa s")
    speed = _positive("--speed-rpm", args.speed_rpm, "rpm") * 2.0 * math.pi / 60.0
    if (args.load_n is None) == (args.eccentricity_ratio is None):
        raise InputError("--load-n", args.load_n, "exactly one of --load-n, --eccentricity-ratio")
    if args.load_n is not None:
        _positive("--load-n", args.load_n, "N")
    else:
        e = args.eccentricity_ratio
        if not (math.isfinite(e) and 0.0 < e <= FILM_LIMIT):
            raise InputError("--eccentricity-ratio", e, f"in (0, {FILM_LIMIT}] (the film's range)")
    bearing = Bearing(kind, radius, length, clearance, viscosity, speed)
    state = bearing_state(bearing, load=args.load_n, eccentricity_ratio=args.eccentricity_ratio)
    if args.json:
        print_json(state)
        return EXIT_OK
    k, c = state["stiffness_n_per_m"], state["damping_n_s_per_m"]
    print(f"{args.lubrication}: R = {args.radius_mm:g} mm, L = {args.length_mm:g} mm, "
          f"c = {args.clearance_mm:g} mm, mu = {viscosity:g} Pa s, {args.speed_rpm:g} rpm")
    print(f"eccentricity ratio  {state['eccentricity_ratio']:.4f}")
    print(f"attitude            {state['attitude_deg']:.2f} deg")
    print(f"eccentricity        ({state['eccentricity_x_m']:.4e}, "
          f"{state['eccentricity_y_m']:.4e}) m")
    print(f"load                {state['load_n']:.6g} N (F_r {state['force_radial_n']:.6g}, "
          f"F_t {state['force_tangential_n']:.6g} N)")
    print(f"Sommerfeld number   {state['sommerfeld_number']:.4g}")
    print(f"stiffness [N/m]     [[{k[0][0]:.4g}, {k[0][1]:.4g}], [{k[1][0]:.4g}, {k[1][1]:.4g}]]")
    print(f"damping [N s/m]     [[{c[0][0]:.4g}, {c[0][1]:.4g}], [{c[1][0]:.4g}, {c[1][1]:.4g}]]")
    return EXIT_OK


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``bearing`` to the top-level parser."""
    p = sub.add_parser("bearing", help="one lubricated journal bearing: equilibrium and film "
                       "coefficients")
    p.add_argument("--lubrication", default="short-bearing",
                   help="short-bearing | long-bearing | finite")
    p.add_argument("--radius-mm", type=float, required=True, help="the film's R (the journal's)")
    p.add_argument("--length-mm", type=float, required=True, help="axial length L")
    p.add_argument("--clearance-mm", type=float, required=True, help="radial clearance c")
    p.add_argument("--viscosity-pa-s", type=float, required=True)
    p.add_argument("--speed-rpm", type=float, required=True, help="the journal's speed")
    p.add_argument("--load-n", type=float, help="static load along -y [N]")
    p.add_argument("--eccentricity-ratio", type=float, help="the state to evaluate, (0, 0.98]")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_bearing)
