"""A calibration against a synthetic rig record made by the project's own solver from known
parameters (reference mechanism, c = 0.05 mm, 5000 rpm, two revolutions, 50 kHz, noise 1 %
of the record's RMS), run through the core (benchmarks/calibration.py runs five truths):
stiffness scale and restitution recovered within 5 % and 0.05 in at most 300 cases, where the
plain RMS error has a needle-narrow basin (checked here too: the best point of a 15-point grid
over the box has more than 5 times the RMS error of the point found)."""

from __future__ import annotations

import numpy as np
from gapsweep.core.api import run_cases
from gapsweep.study.calibration_cost import calibration_metrics
from gapsweep.study.measurements import Measurement, to_csv
from gapsweep.study.search_run import run_search
from gapsweep.study.spec import parse_spec

BASE = {"clearance_mm": 0.05, "speed_rpm": 5000.0, "t_end": 0.024}
TRUTH = {"stiffness_scale": 0.7, "restitution": 0.6}


def test_stiffness_and_restitution_recovered_from_a_noisy_record():
    r = run_cases("slider-crank", [{**BASE, **TRUTH, "n_output": 1201}], threads=2)[0]
    t, a = r.series["t"], r.series["slider_acceleration"]
    noisy = a + np.random.default_rng(1).normal(0.0, 0.01 * np.sqrt(np.mean(a**2)), a.size)
    csv = to_csv(Measurement("time_s", t, {"slider_acceleration": noisy}))
    spec = parse_spec({
        "name": "calibration", "design": "calibrate", "base": BASE,
        "series": "slider_acceleration", "measurement": {"csv": csv}, "budget": 300, "seed": 0,
        "axes": {"stiffness_scale": {"start": 0.5, "stop": 2.0},
                 "restitution": {"start": 0.5, "stop": 0.98}}})
    run = run_search(spec, threads=2)
    best = run.best["params"]
    assert len(run.cases) <= 300
    assert abs(best["stiffness_scale"] / TRUTH["stiffness_scale"] - 1) < 0.05
    assert abs(best["restitution"] - TRUTH["restitution"]) < 0.05
    # the needle: the plain RMS error of the grid's best point is far above the found one
    grid = [{**BASE, "stiffness_scale": k, "restitution": c}
            for k in np.linspace(0.5, 2.0, 5) for c in np.linspace(0.5, 0.98, 3)]
    errors = [calibration_metrics(g.series["t"], g.series["slider_acceleration"], t, noisy)[
        "calibration_rms_error"] for g in run_cases("slider-crank", grid, threads=2)]
    found = run.best["metrics"]["calibration_rms_error"]
    assert min(errors) > 5 * found
