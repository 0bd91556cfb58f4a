"""ISO 286 fits against ISO 286-2's limit-deviation tables.

The expected deviations below are read from ISO 286-2:2010's tables of limit deviations
(holes H, shafts c d e f g h), written here in micrometres as the standard prints them - not
computed from the module's IT and fundamental-deviation tables, which they check.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from gapsweep.core.errors import InputError
from gapsweep.core.iso286 import fit_limits, parse_zone, zone_deviations_um

from gapsweep.cli import main

# (zone, nominal diameter [mm], lower, upper deviation [µm]) from ISO 286-2:2010
ISO_286_2 = [
    ("H7", 20, 0, 21), ("g6", 20, -20, -7),
    ("H7", 30, 0, 21), ("g6", 30, -20, -7),          # 30 mm is in the 18-30 step
    ("H7", 30.001, 0, 25), ("g6", 30.001, -25, -9),  # just above: 30-50
    ("f7", 25, -41, -20),
    ("e8", 50, -89, -50),
    ("d9", 100, -207, -120),
    ("c11", 40, -280, -120), ("c11", 40.5, -290, -130),  # c changes at 40 (Table 2 substeps)
    ("c11", 200, -530, -240), ("c11", 3, -120, -60),
    ("h6", 6, -8, 0), ("H8", 10, 0, 22), ("H11", 3, 0, 60),
    ("g5", 500, -47, -20), ("f6", 120, -58, -36),
    ("H9", 315, 0, 130), ("d10", 315, -400, -190),
    ("e9", 18, -75, -32), ("h11", 180, -250, 0), ("H10", 80, 0, 120),
]


@pytest.mark.parametrize("zone, d, lower, upper", ISO_286_2)
def test_zone_deviations_match_iso_286_2(zone, d, lower, upper):
    z = parse_zone(zone, hole=zone[0].isupper())
    assert zone_deviations_um(z, d) == (lower, upper)


def test_h7_g6_at_20_mm_limits_and_radial_clearance():
    lim = fit_limits("H7/g6", 20)
    assert lim.hole_mm == (20.0, 20.021)
    assert lim.shaft_mm == (19.98, 19.993)
    # radial: (smallest hole - largest shaft) / 2 .. (largest hole - smallest shaft) / 2
    assert lim.clearance_mm == pytest.approx((0.0035, 0.0205), abs=1e-12)


def test_h_h_fit_has_zero_smallest_clearance():
    assert fit_limits("H8/h7", 50).clearance_mm[0] == 0.0


@pytest.mark.parametrize("fit, d, field", [
    ("H7/z6", 20, "fit"), ("X7/g6", 20, "fit"), ("H7/g13", 20, "fit"), ("H7", 20, "fit"),
    ("H7/g6", 0, "diameter_mm"), ("H7/g6", 500.5, "diameter_mm"),
    ("H7/g6", float("nan"), "diameter_mm"),
])
def test_refused_fits_and_diameters_name_the_field(fit, d, field):
    with pytest.raises(InputError) as exc:
        fit_limits(fit, d)
    assert exc.value.field == field


def test_fit_command_json(capsys):
    assert main(["fit", "H7/g6", "--diameter-mm", "20", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out == {"fit": "H7/g6", "diameter_mm": 20.0, "hole_mm": [20.0, 20.021],
                   "shaft_mm": [19.98, 19.993], "clearance_mm": [0.0035, 0.0205]}


@pytest.mark.parametrize("argv", [["H7/q6", "--diameter-mm", "20"],
                                  ["H7/g6", "--diameter-mm", "600"],
                                  ["H7/g6", "--diameter-mm", "abc"]])
def test_fit_command_bad_input_exits_2(argv):
    r = subprocess.run([sys.executable, "-m", "gapsweep", "fit", *argv],
                       capture_output=True, text=True)
    assert r.returncode == 2
    assert "fit" in r.stderr or "diameter_mm" in r.stderr


def test_every_fit_name_offered_has_limits_at_every_step():
    from gapsweep.core.iso286 import STEPS_MM, fit_names

    names = fit_names()
    assert names[0] == "H7/g6" and len(names) == len(set(names)) == 7 * 6 * 7
    for d in STEPS_MM:
        for name in names:
            lo, hi = fit_limits(name, d).clearance_mm
            assert 0.0 <= lo < hi  # H with c..h: a clearance fit, h the zero line
