"""An adaptive study ends when its search ends (issue 33, part 3; design.md 4.14, 4.15): real
``gapsweep run``, ``submit`` and ``wait`` processes follow an optimize and a calibrate study
to the end of their search, on the embedded default (each process its own local workers)
and against a served instance (``GAPSWEEP_URL``). Each study has as many cases as its
stopping rule says, every generation ran, nothing is left queued after the command has
returned, and the progress line names the generations in order.

The stopping rule (:mod:`gapsweep.study.search`, :mod:`gapsweep.study.calibration_cost`):
DE's population is 5 members per parameter, at least 10, at most half its stage's budget,
and a stage runs ``budget // population`` generations; a calibration runs three stages on
1/2, 1/4 and 1/4 of the budget (each at least 10 cases).
- optimize, one parameter, budget 30: population 10, 3 generations, 30 cases;
- calibrate, two parameters, budget 40: stages of 20, 10, 10 cases with populations 10, 5, 5:
  2 + 2 + 2 = 6 generations, 40 cases.
"""

from __future__ import annotations

import json
import re
import time
import urllib.request
from pathlib import Path

import pytest
from support.serving import Serve
from test_study_commands import as_json, clean_env, gapsweep

pytestmark = pytest.mark.timeout(600)

OPTIMIZE = (30, 3)  # (cases, generations) of the stopping rule above
CALIBRATE = (40, 6)


def optimize_file(folder: Path, name: str = "optimize to a target", budget: int = 30,
                  base: str = "ideal = true\ngravity = 0.0") -> Path:
    path = folder / f"{name.replace(' ', '_')}.toml"
    path.write_text(
        f'name = "{name}"\ndesign = "optimize"\nseries = "none"\nbudget = {budget}\nseed = 4\n'
        "objective = {metric = \"peak_slider_accel\", goal = \"target\", value = 1.2e4}\n"
        f"[base]\n{base}\nt_end = 0.024\nn_output = 25\n"
        "[axes.speed_rpm]\nstart = 3000.0\nstop = 6000.0\n")
    return path


def calibrate_file(folder: Path) -> Path:
    """A calibration (the reference mechanism, c = 0.05 mm) against a rig record of a
    sine and a harmonic: the search, not the fit, is what is followed here."""
    import numpy as np
    from gapsweep.study.measurements import Measurement, to_csv

    t = np.linspace(0.0, 0.006, 31)
    a = 2.0e4 * np.sin(2 * np.pi * 250.0 * t) + 300.0 * np.cos(2 * np.pi * 1.7e3 * t)
    (folder / "rig.csv").write_text(to_csv(Measurement("time_s", t,
                                                       {"slider_acceleration": a})))
    path = folder / "calibrate.toml"
    path.write_text(
        'name = "calibrate against the rig"\ndesign = "calibrate"\n'
        'series = "slider_acceleration"\nbudget = 40\nseed = 3\n'
        'measurement = {file = "rig.csv"}\n'
        "[base]\nclearance_mm = 0.05\nt_end = 0.006\nn_output = 61\n"
        "[axes.stiffness_scale]\nstart = 0.7\nstop = 1.5\n"
        "[axes.restitution]\nstart = 0.5\nstop = 0.95\n")
    return path


def generations_shown(stderr: str) -> list[tuple[int, int]]:
    """The (generation, of) pairs the progress lines named, in order, without repeats."""
    seen: list[tuple[int, int]] = []
    for g, n in re.findall(r"generation (\d+)/(\d+)", stderr):
        if not seen or seen[-1] != (int(g), int(n)):
            seen.append((int(g), int(n)))
    return seen


def check_ended(env: dict[str, str], study_id: int, rule: tuple[int, int],
                summary: dict) -> dict:
    """The study as ``show --json`` prints it, checked: done, its search finished after
    every generation of its rule, every case done, none queued or running."""
    cases, generations = rule
    assert summary == {"study_id": study_id, "status": "done", "cases": cases, "done": cases,
                       "failed": 0}
    detail = as_json(gapsweep(env, "show", study_id, "--json"))
    assert detail["status"] == "done"
    assert (detail["generation"], detail["generations"]) == (generations, generations)
    assert detail["search"]["finished"] is True
    assert len(detail["cases"]) == cases
    assert [c["status"] for c in detail["cases"]] == ["done"] * cases
    assert detail["best"] is not None
    return detail


def test_run_and_wait_follow_the_search_to_its_end_on_the_embedded_default(tmp_path):
    data = tmp_path / "data"
    env = clean_env(data)
    out = gapsweep(env, "run", calibrate_file(tmp_path), "--json", timeout=400)
    assert out.returncode == 0, out.stderr[-3000:]
    summary = as_json(out)
    study_id = summary["study_id"]
    check_ended(env, study_id, CALIBRATE, summary)
    shown = generations_shown(out.stderr)
    # the line names the generations in order up to the last; which ones a poll catches is
    # the machine's speed (a generation can end between two polls: CI saw 1, 2, 4, 6), so
    # that every generation ran is the study's own count above, not the line's
    assert shown[-1] == (CALIBRATE[1], CALIBRATE[1])
    assert {n for _, n in shown} == {CALIBRATE[1]}
    assert [g for g, _ in shown] == sorted({g for g, _ in shown})  # one by one, in order
    assert len(shown) >= 2  # the line moves with the search

    # submit, then wait in another process: wait's own local workers run every generation
    submitted = as_json(gapsweep(env, "submit", optimize_file(tmp_path), "--json"))
    assert submitted["cases"] == 10 and submitted["status"] == "queued"  # generation 1 only
    out = gapsweep(env, "wait", submitted["study_id"], "--json", timeout=400)
    assert out.returncode == 0, out.stderr[-3000:]
    check_ended(env, submitted["study_id"], OPTIMIZE, as_json(out))
    assert generations_shown(out.stderr)[-1] == (OPTIMIZE[1], OPTIMIZE[1])

    # nothing was left for a later process: both studies read the same after a while
    time.sleep(2.0)
    for sid, rule in ((study_id, CALIBRATE), (submitted["study_id"], OPTIMIZE)):
        again = as_json(gapsweep(env, "show", sid, "--json"))
        assert again["status"] == "done" and len(again["cases"]) == rule[0]


def progress_route(url: str, study_id: int) -> dict:
    with urllib.request.urlopen(f"{url}/api/studies/{study_id}/progress", timeout=30) as r:
        return json.loads(r.read())


def test_run_and_wait_follow_the_search_to_its_end_against_a_server(tmp_path):
    data = tmp_path / "served"
    serve = Serve(clean_env(data), data)
    try:
        serve.start()
        serve.wait_workers()
        env = clean_env(tmp_path / "client", GAPSWEEP_URL=serve.url)
        out = gapsweep(env, "run", calibrate_file(tmp_path), "--json", timeout=400)
        assert out.returncode == 0, out.stderr[-3000:]
        summary = as_json(out)
        check_ended(env, summary["study_id"], CALIBRATE, summary)
        assert generations_shown(out.stderr)[-1] == (CALIBRATE[1], CALIBRATE[1])
        report = progress_route(serve.url, summary["study_id"])
        assert report["status"] == "done"
        assert (report["generation"], report["generations"]) == (CALIBRATE[1], CALIBRATE[1])
        assert report["counts"]["queued"] == 0 and report["counts"]["running"] == 0

        # a long search (clearance cases, 20 generations): wait ends with 3 on its timeout;
        # cancelled, wait ends with 1 (design.md 4.15) once nothing of it runs
        long = as_json(gapsweep(env, "submit", optimize_file(
            tmp_path, "long", budget=200, base="clearance_mm = 0.05"), "--json"))
        early = gapsweep(env, "wait", long["study_id"], "--timeout", "0.1", "--json")
        assert early.returncode == 3, early.stderr[-2000:]
        assert as_json(early)["status"] in ("queued", "running")
        assert gapsweep(env, "cancel", long["study_id"]).returncode == 0
        out = gapsweep(env, "wait", long["study_id"], "--json", timeout=200)
        assert out.returncode == 1, out.stderr[-2000:]
        assert as_json(out)["status"] == "cancelled"
        report = progress_route(serve.url, long["study_id"])
        assert report["counts"]["queued"] == 0 and report["counts"]["running"] == 0
        assert report["generation"] < report["generations"] == 200 // 10

        # submit, then wait: 0 at the search's end
        submitted = as_json(gapsweep(env, "submit", optimize_file(tmp_path), "--json"))
        out = gapsweep(env, "wait", submitted["study_id"], "--json", timeout=400)
        assert out.returncode == 0, out.stderr[-3000:]
        check_ended(env, submitted["study_id"], OPTIMIZE, as_json(out))
        assert serve.stop() == 128 + 15
    finally:
        serve.kill()
