"""Issue 23's checks of the motion classes: is the chaos the model's, or the solver's?

    .venv/bin/python benchmarks/motion_checks.py clearance   # c = 0.1 mm, 5000 rpm
    .venv/bin/python benchmarks/motion_checks.py low-speed   # c = 0.02 mm, 1000-3000 rpm
    .venv/bin/python benchmarks/motion_checks.py spectrum    # the settled spectra's f1/N
    .venv/bin/python benchmarks/motion_checks.py jitter      # c = 0.02 mm's section vs rtol
    .venv/bin/python benchmarks/motion_checks.py round-off   # classes under 1e-13 changes of K
    .venv/bin/python benchmarks/motion_checks.py eps-cases   # the tests' cases under 21 eps
    .venv/bin/python benchmarks/motion_checks.py eps-sweep   # the roundoff tests under 21 eps

``clearance``: the reference mechanism at c = 0.1 mm from the centred start at rtol 1e-6,
1e-7 and 1e-8, with a 1e-6 change of the contact stiffness, and from the wall and the run-up
starts (up to 120 revolutions): the class, the 0-1 test K, the impacts in all and in the
settled window, where the section was captured; then the section's separation for a 1e-6
change of K over 10 revolutions from the centred and the wall starts.

``low-speed``: c = 0.02 mm at 1000 rpm with the default friction (Coulomb, tanh, v0 =
1e-4 m/s), frictionless, v0 / 10, the Ambrosio law, rtol 1e-8, and at 3000 rpm with and
without friction: the class, K, the impacts and the share of continuous contact; then two
runs 1e-8 apart in K at rtol 1e-10 (2000 and 1000 rpm): the section's separation per
revolution. Exponential growth in continuous contact is chaos of the model.

``spectrum``: the settled c = 0.02 mm case and the chaotic c = 0.1 mm wall-start case: the
revolutions the spectra span and their bin width against f1.

``jitter``: c = 0.02 mm riding the wall, 30 revolutions at rtol 1e-6, 1e-7 and 1e-8: the
section's step from one revolution to the next (revolutions 10-30, in c). It falls with the
tolerance: the integration error, against which the settling tolerance (1e-3 c) is read.
Then the measured jitter (core/motion.py ``section_jitter``) of fixed 150-revolution runs of
the reference mechanism over revolutions 100-150, settled and chaotic: the scale the
classifier's tolerance (5 x jitter, floor 1e-3 c, cap 3e-3 c) is set against.

``eps-cases``: the settled-motion tests' cases (c = 0.02 mm, c = 0.1 mm from the centred and
the wall start) with K x (1 + eps) for the 21 eps of issue 33 (0 and +-1e-14 ... +-3e-11, ten
magnitudes log-spaced): class, revolutions, impacts, where the section was captured, the 0-1
test before it, and the jitter and tolerance the class was read with.

``eps-sweep``: ``pytest -m roundoff tests/core/test_settled_motion.py
tests/core/test_motion_classifier.py --roundoff-eps=<the 21>`` in one process: the pass/fail
table of every marked test under every eps (the round-off harness, tests/conftest.py).

``round-off``: the settled-motion tests' cases with the contact stiffness changed by 0,
+-1e-13, +-1e-12, 1e-11 and 3e-12 (what another processor's rounding does to a run): the
class, revolutions, impacts (all and settled) and contact mode of each (the README's
"c = 0.02 mm periodic-1 under such changes", "c = 0.1 mm: 1 to 120 impacts").

The machine may be shared: the load average is printed with the figures.
"""

from __future__ import annotations

import os
import sys
import time

import numpy as np
from gapsweep.core.cases import SliderCrankCase
from gapsweep.core.motion import (
    classify,
    observable,
    section_drift,
    section_jitter,
    zero_one_test,
)
from gapsweep.core.simulation import simulate_batch


def _section(result, c: float) -> np.ndarray:
    return np.column_stack([result.series["poincare_eccentricity_x"],
                            result.series["poincare_eccentricity_y"]]) / c


def _run(cases: dict[str, dict]) -> dict:
    t0 = time.perf_counter()
    results = dict(zip(cases, simulate_batch(list(cases.values())), strict=True))
    print(f"{len(cases)} runs in {time.perf_counter() - t0:.1f} s, load average "
          f"{os.getloadavg()[0]:.1f}")
    return results


def _line(name: str, r, c: float) -> None:
    if not r.ok:
        print(f"{name:24s} failed: {r.reason}")
        return
    m = r.metrics
    after = m.get("settled_after_revolutions", -1)
    pts = _section(r, c)
    before = pts[1 : after + 1] if after > 10 else pts[1:]
    print(f"{name:24s} {m['revolutions']:4d} rev  {m['motion']:11s} K {m['chaos_indicator']:6.3f}"
          f"  impacts {m['impacts']:4d} (settled window {m['impacts_settled']:3d})"
          f"  {m.get('contact_mode', '')}  settled after {after}"
          f"  K before it {zero_one_test(observable(before)):.3f}")


def _separation(a, b, c: float, n: int) -> np.ndarray:
    return np.hypot(*(_section(a, c)[: n + 1] - _section(b, c)[: n + 1]).T)


def clearance() -> None:
    c = 0.1e-3
    base = {"clearance_mm": 0.1, "max_revolutions": 120}
    runs = _run({
        "centred rtol 1e-6": base,
        "centred rtol 1e-7": {**base, "rtol": 1e-7},
        "centred rtol 1e-8": {**base, "rtol": 1e-8},
        "centred K x (1+1e-6)": {**base, "stiffness_scale": 1 + 1e-6},
        "wall (80)": {"clearance_mm": 0.1, "initial": "wall"},
        "wall (120)": {**base, "initial": "wall"},
        "run-up": {**base, "initial": "run-up"},
    })
    for name, r in runs.items():
        _line(name, r, c)
    t = SliderCrankCase().period
    for start in ("centred", "wall"):
        a, b = simulate_batch([{"clearance_mm": 0.1, "initial": start, "t_end": 10 * t,
                                "stiffness_scale": k} for k in (1.0, 1 + 1e-6)])
        d = _separation(a, b, c, 10)
        print(f"{start}: 1e-6 change of K moves the section by (c) per revolution 0-10:",
              np.array2string(d, precision=3, max_line_width=200))


def low_speed() -> None:
    c = 0.02e-3
    base = {"clearance_mm": 0.02, "speed_rpm": 1000}
    runs = _run({
        "1000 rpm": base,
        "1000 rpm frictionless": {**base, "friction": 0.0},
        "1000 rpm v0 1e-5 m/s": {**base, "friction_velocity": 1e-5},
        "1000 rpm ambrosio": {**base, "friction_law": "ambrosio"},
        "1000 rpm rtol 1e-8": {**base, "rtol": 1e-8},
        "3000 rpm": {**base, "speed_rpm": 3000},
        "3000 rpm frictionless": {**base, "speed_rpm": 3000, "friction": 0.0},
    })
    for name, r in runs.items():
        _line(name, r, c)
        print(f"{'':24s} share of continuous contact {r.metrics.get('share_contact', 0):.3f}, "
              f"section drift {r.metrics['section_drift']:.2e} c/rev")
    for rpm, n, friction in ((1000, 12, 0.01), (1000, 12, 0.0), (2000, 12, 0.01),
                             (3000, 40, 0.01)):
        t = SliderCrankCase(speed_rpm=rpm).period
        fine = {**base, "speed_rpm": rpm, "t_end": n * t, "rtol": 1e-10, "atol": 1e-13,
                "friction": friction}
        a, b = simulate_batch([fine, {**fine, "stiffness_scale": 1 + 1e-8}])
        d = _separation(a, b, c, n)
        print(f"{rpm} rpm, mu {friction:g}, rtol 1e-10: 1e-8 change of K moves the section "
              f"by (c): {np.array2string(d, precision=2, max_line_width=200)}")


def spectrum() -> None:
    f1 = 1.0 / SliderCrankCase().period
    runs = _run({"0.02 mm centred": {"clearance_mm": 0.02},
                 "0.1 mm wall": {"clearance_mm": 0.1, "initial": "wall"}})
    for name, r in runs.items():
        m = r.metrics
        print(f"{name}: {m['motion']}, {m['revolutions']} revolutions, settled after "
              f"{m['settled_after_revolutions']}; spectra over {m['spectrum_revolutions']:g} "
              f"revolutions from t = {m['spectrum_from_s']:.4f} s: bins "
              f"{m['spectrum_resolution_hz']:.3f} Hz = f1/{f1 / m['spectrum_resolution_hz']:.3g}"
              f" (f1 = {f1:.2f} Hz); series rows {len(r.series['t'])}")


def jitter() -> None:
    c = 0.02
    runs = _run({f"rtol {rtol:g}": {"clearance_mm": c, "rtol": rtol, "t_end": 30 * T}
                 for rtol in (1e-6, 1e-7, 1e-8)})
    for name, r in runs.items():
        step = np.hypot(*np.diff(_section(r, c * 1e-3)[10:], axis=0).T)
        print(f"{name}: section step over revolutions 10-30 median {np.median(step):.2e} c, "
              f"max {step.max():.2e} c")
    long = {"0.02": {"clearance_mm": 0.02}, "0.05": {"clearance_mm": 0.05},
            "0.1 (captured)": {"clearance_mm": 0.1},
            "0.1 wall (chaotic)": {"clearance_mm": 0.1, "initial": "wall"},
            "0.08 (chaotic)": {"clearance_mm": 0.08}}
    runs = _run({name: {**case, "t_end": 150 * T} for name, case in long.items()})
    for name, r in runs.items():
        pts = _section(r, long[name]["clearance_mm"] * 1e-3)[100:]
        print(f"c = {name} mm, revolutions 100-150: jitter {section_jitter(pts):.2e} c, "
              f"drift {section_drift(pts):.2e} c/rev, class {classify(pts, 1e-3).name}")


ROUND_OFF_CASES = {
    "0.02 centred": {"clearance_mm": 0.02},
    "0.1 wall": {"clearance_mm": 0.1, "initial": "wall"},
    "0.1 centred": {"clearance_mm": 0.1},
    "0.05 centred": {"clearance_mm": 0.05},
}


def round_off() -> None:
    changes = (0.0, 1e-13, -1e-13, 1e-12, -1e-12, 1e-11, 3e-12)
    runs = _run({f"K x (1 {e:+g}), {name}": {**case, "stiffness_scale": 1.0 + e}
                 for e in changes for name, case in ROUND_OFF_CASES.items()})
    for label, r in runs.items():
        m = r.metrics
        print(f"{label:30s} {m['motion']:11s} {m['revolutions']:3d} rev  impacts "
              f"{m['impacts']:4d} (settled {m['impacts_settled']:3d})  {m.get('contact_mode', '')}")


SWEEP_EPS = (0.0, *(s * e for e in np.geomspace(1e-14, 3e-11, 10) for s in (1.0, -1.0)))


def eps_cases() -> None:
    cases = {"0.02 centred": {"clearance_mm": 0.02},
             "0.1 centred": {"clearance_mm": 0.1},
             "0.1 wall": {"clearance_mm": 0.1, "initial": "wall"}}
    runs = _run({(name, e): {**case, "stiffness_scale": 1.0 + e}
                 for e in SWEEP_EPS for name, case in cases.items()})
    for (name, e), r in sorted(runs.items()):
        m = r.metrics
        after = m["settled_after_revolutions"]
        pts = _section(r, cases[name]["clearance_mm"] * 1e-3)
        before = pts[1 : after + 1] if after > 0 else pts[1:]
        k_before = zero_one_test(observable(before)) if len(before) >= 10 else float("nan")
        print(f"{name:13s} eps {e:+8.1e}  {m['motion']:11s} {m['revolutions']:3d} rev  "
              f"impacts {m['impacts']:4d} (settled {m['impacts_settled']:3d})  settled after "
              f"{after:3d}  K before {k_before:5.2f}  spread before "
              f"{np.ptp(np.hypot(*before.T)):.3f} c  jitter {m['section_jitter']:.1e} c  "
              f"tol {m['motion_tolerance']:.1e} c")


def eps_sweep() -> None:
    import re
    import subprocess
    import tempfile
    import xml.etree.ElementTree as ET

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    eps = ",".join(repr(float(e)) for e in SWEEP_EPS)
    with tempfile.TemporaryDirectory() as tmp:
        xml = os.path.join(tmp, "sweep.xml")
        t0 = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-m", "roundoff", "-p", "no:cacheprovider",
             "tests/core/test_settled_motion.py", "tests/core/test_motion_classifier.py",
             f"--roundoff-eps={eps}", f"--junitxml={xml}"],
            cwd=root, check=False,
        )
        wall = time.perf_counter() - t0
        table: dict[str, dict[str, str]] = {}
        for case in ET.parse(xml).getroot().iter("testcase"):
            name = case.get("name", "")
            found = re.search(r"eps=([+-]?\d\.\de[+-]\d+|0)", name)
            e = found.group(1) if found else "?"
            test = name.replace(f"eps={e}", "").replace("[-", "[").replace("-]", "]")
            test = test.replace("[]", "")
            bad = case.find("failure") is not None or case.find("error") is not None
            table.setdefault(test, {})[e] = "FAIL" if bad else "ok"
    print(f"\n{len(SWEEP_EPS)} eps, {len(table)} marked tests, {wall:.0f} s, load average "
          f"{os.getloadavg()[0]:.1f}")
    for test, row in table.items():
        fails = [e for e, v in row.items() if v != "ok"]
        print(f"{test:75s} {len(row) - len(fails):2d}/{len(row)} pass"
              + (f"  FAIL at {', '.join(fails)}" if fails else ""))


T = SliderCrankCase().period
CHECKS = {"clearance": clearance, "low-speed": low_speed, "spectrum": spectrum,
          "jitter": jitter, "round-off": round_off, "eps-cases": eps_cases,
          "eps-sweep": eps_sweep}

if __name__ == "__main__":
    if len(sys.argv) != 2 or sys.argv[1] not in CHECKS:
        sys.exit(f"usage: motion_checks.py {{{'|'.join(CHECKS)}}}")
    CHECKS[sys.argv[1]]()
