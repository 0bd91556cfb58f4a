"""``gapsweep bearing`` as a designer's script runs it (design.md 4.11, 4.15), on Friswell et
al.'s Example 5.5.1; the references are derived here from Ocvirk's load equation."""

import json
import math
import subprocess
import sys

import pytest
from scipy.optimize import brentq

R, L, C, MU, OMEGA, W = 0.05, 0.03, 1e-4, 0.1, 157.1, 525.0
KEYS = ["eccentricity_ratio", "attitude_deg", "eccentricity_x_m", "eccentricity_y_m", "load_n",
        "force_radial_n", "force_tangential_n", "sommerfeld_number", "stiffness_n_per_m",
        "damping_n_s_per_m"]
FLAGS = ["--lubrication", "short-bearing", "--radius-mm", "50", "--length-mm", "30",
         "--clearance-mm", "0.1", "--viscosity-pa-s", "0.1",
         "--speed-rpm", repr(OMEGA * 60 / (2 * math.pi))]


def bearing(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "gapsweep", "bearing", *args],
                          capture_output=True, text=True, timeout=120)


def test_example_5_5_1_json():
    out = bearing(*FLAGS, "--load-n", "525", "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert list(data) == KEYS

    def load(e):
        return (MU * OMEGA * R * L**3 / (4 * C**2) * e / (1 - e * e) ** 2
                * math.sqrt(16 * e * e + math.pi**2 * (1 - e * e)))

    eps = brentq(lambda e: load(e) - W, 1e-9, 0.999, xtol=1e-14)
    assert data["eccentricity_ratio"] == pytest.approx(eps, rel=1e-9)
    assert round(data["eccentricity_ratio"], 4) == 0.2663
    assert round(data["attitude_deg"], 1) == 70.6
    assert data["eccentricity_x_m"] > 0 > data["eccentricity_y_m"]  # CCW journal, load down
    assert data["sommerfeld_number"] == pytest.approx(3.572, abs=6e-4)
    k, c = data["stiffness_n_per_m"], data["damping_n_s_per_m"]
    assert [[round(x / 1e6, 2) for x in row] for row in k] == [[12.81, 16.40], [-25.06, 8.81]]
    assert [[round(x / 1e3, 1) for x in row] for row in c] == [[232.9, -81.9], [-81.9, 294.9]]


def test_eccentricity_ratio_gives_the_steady_force_there():
    out = bearing(*FLAGS, "--eccentricity-ratio", "0.5", "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    k_s = MU * R * L**3 / (2 * C**2)
    assert data["force_radial_n"] == pytest.approx(-k_s * 2 * 0.25 * OMEGA / 0.75**2, rel=1e-9)
    assert data["force_tangential_n"] == pytest.approx(
        k_s * math.pi * 0.5 * OMEGA / (2 * 0.75**1.5), rel=1e-9)
    long = bearing(*FLAGS[:1], "long-bearing", *FLAGS[2:], "--eccentricity-ratio", "0.5",
                   "--json")
    data = json.loads(long.stdout)
    assert round(data["load_n"] / 1e3, 2) == 30.36 and round(data["attitude_deg"], 1) == 69.8


def test_human_readable_output():
    out = bearing(*FLAGS, "--load-n", "525")
    assert out.returncode == 0, out.stderr
    assert "eccentricity ratio  0.2663" in out.stdout and "Sommerfeld number   3.572" in out.stdout


@pytest.mark.parametrize(("flag", "value"), [
    ("--viscosity-pa-s", "0"), ("--radius-mm", "-5"), ("--clearance-mm", "nan"),
    ("--speed-rpm", "0"), ("--lubrication", "grease"), ("--load-n", "-1"),
    ("--eccentricity-ratio", "0.99"), ("--load-n", "1e12"),
])
def test_bad_input_exits_2_naming_the_flag(flag, value):
    args = dict(zip(FLAGS[::2], FLAGS[1::2], strict=True))
    args[flag] = value
    if flag != "--load-n":
        args.setdefault("--load-n", "525")
    if flag == "--eccentricity-ratio":
        args.pop("--load-n")
    out = bearing(*[x for kv in args.items() for x in kv], "--json")
    assert out.returncode == 2
    assert flag in out.stderr
