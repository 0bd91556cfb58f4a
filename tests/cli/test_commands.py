"""The command line's parsing, exit codes and outputs: ``simulate`` (single case and the sweep
table), ``params`` and ``warmup``.

Parse errors are checked in-process through ``gapsweep.cli.main`` with every model runner
replaced by one that fails the test, so "runs nothing" is asserted rather than assumed; the
outputs are checked as a real subprocess.
"""

import io
import json
import math
import re
import subprocess
import sys
from dataclasses import fields

import pytest
from gapsweep.core.api import MODELS, Model
from gapsweep.core.cases import SliderCrankCase

from gapsweep import cli
from gapsweep.commands import simulate as command

R, L, RPM = 0.05, 0.12, 5000.0
IDEAL_PEAK = (RPM * 2 * math.pi / 60) ** 2 * (R + R * R / L)


def gapsweep(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "gapsweep", *args], capture_output=True, text=True, timeout=300
    )


@pytest.fixture
def nothing_runs(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("a case ran although the input was bad")

    monkeypatch.setattr(Model, "run", refuse)
    monkeypatch.setattr(Model, "run_many", refuse)


@pytest.mark.parametrize(
    ("argv", "names"),
    [
        (["--sweep", "clearance_mm"], "NAME=VALUE"),  # no "="
        (["--sweep", "=0.1,0.2"], "NAME=VALUE"),  # no name
        (["--sweep", "clearance_mm=0.02:0.1"], "START:STOP:COUNT"),  # a:b
        (["--sweep", "clearance_mm=0.02:0.1:2:4"], "START:STOP:COUNT"),
        (["--sweep", "clearance_mm=a:0.1:3"], "with numbers"),
        (["--sweep", "clearance_mm=0.02:0.1:x"], "with numbers"),
        (["--sweep", "clearance_mm=0.02:0.1:2.5"], "with numbers"),  # COUNT not an integer
        (["--sweep", "clearance_mm=0.02:0.1:0"], "COUNT >= 1"),
        (["--sweep", "clearance_mm=0.02:0.1:-3"], "COUNT >= 1"),
        (["--sweep", "clearance_mm="], "v1,v2"),  # empty list
        (["--sweep", "clearance_mm=, ,"], "v1,v2"),
        (["--sweep", "clearance_mm=0.02,abc"], "clearance_mm"),  # non-numeric value
        (["--sweep", "clearance_mm=0.1", "--sweep", "clearance_mm=0.2"], "swept once"),
        (["--sweep", "no_such=1,2"], "no_such"),
        (["--set", "clearance_mm"], "NAME=VALUE"),  # --set without "="
        (["--set", "clearance_mm=0.1", "--set", "speed_rpm"], "speed_rpm"),
    ],
)
def test_every_bad_sweep_or_set_exits_2_and_runs_nothing(nothing_runs, capsys, argv, names):
    assert cli.main(["simulate", *argv]) == 2
    out = capsys.readouterr()
    assert out.out == ""
    assert out.err.startswith("error: ") and names in out.err


def test_one_bad_point_of_a_grid_rejects_the_grid(nothing_runs, capsys):
    argv = ["--sweep", "clearance_mm=0.05,0.1", "--sweep", "restitution=0.5,1.5"]
    assert cli.main(["simulate", *argv, "--json"]) == 2
    assert "restitution" in capsys.readouterr().err


def test_sweep_values_are_evenly_spaced_with_both_ends():
    assert command.sweep_values("x=0:1:3") == ("x", ["0.0", "0.5", "1.0"])
    assert command.sweep_values("x=0.2:0.4:1") == ("x", ["0.2"])
    assert command.sweep_values(" x = 1, 2 ,3 ") == ("x", ["1", "2", "3"])


def test_models_lists_the_core_registry(capsys):
    """``gapsweep models`` (design.md 4.5 names it; the example study file points at it)
    lists every model of the core's registry, in text and as JSON."""
    assert cli.main(["models"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines[:-1]] == list(MODELS)
    assert lines[-1] == "its parameters: gapsweep params --model NAME"
    assert cli.main(["models", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)["models"]
    assert [(m["name"], m["description"]) for m in listed] == [
        (m.name, m.description) for m in MODELS.values()]


def test_an_unknown_command_or_option_is_argparses_exit_2(capsys):
    for argv in (["nonsense"], ["simulate", "--no-such-option"], ["simulate", "--threads", "x"]):
        with pytest.raises(SystemExit) as stop:
            cli.main(argv)
        assert stop.value.code == 2


@pytest.mark.parametrize("model", list(MODELS))
def test_params_lists_every_field_its_default_unit_kind_and_range(capsys, model):
    """`gapsweep params` prints the core's registry: one row per case field, in field order."""
    from gapsweep.core.parameters import allowed, find

    assert cli.main(["params", "--model", model]) == 0
    lines = capsys.readouterr().out.splitlines()
    defaults = MODELS[model].defaults()
    assert lines[0].split() == ["name", "default", "unit", "kind", "allowed"]
    assert [ln.split()[0] for ln in lines[1:]] == list(defaults)
    for line, name in zip(lines[1:], defaults, strict=True):
        entry = find(name, model)
        assert f"  {entry.kind}  " in line and line.rstrip().endswith(allowed(model, name))
    assert cli.main(["params", "--model", model, "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["name"] for r in rows] == list(defaults)
    for row in rows:
        d = defaults[row["name"]]
        expected = list(d) if isinstance(d, tuple) else None if d == math.inf else d
        assert row["default"] == expected and row["unit"] == find(row["name"], model).unit
    if model == "slider-crank":
        assert [r["name"] for r in rows] == [f.name for f in fields(SliderCrankCase)]
        by_name = {ln.split()[0]: ln.split() for ln in lines[1:]}
        assert by_name["clearance_mm"][:4] == ["clearance_mm", "0.5", "mm", "joint"]
        assert by_name["contact_law"][:4] == ["contact_law", "lankarani-nikravesh", "-",
                                              "contact"]


def test_human_output_names_each_metrics_unit():
    # penetrations in µm as the pages show them (1.5e-5 m = 15 µm); counts and ratios bare
    values = {"onset_penetration_error": 1.5e-5, "max_free_flight_penetration": 1.5e-5,
              "max_penetration_steady": 1.5e-5, "energy_balance_error": 1.5,
              "peak_kinetic_energy": 1.5, "peak_slider_accel": 1.5, "impacts": 3}
    shown = {k: command._format_value(k, v) for k, v in values.items()}
    assert shown == {
        "onset_penetration_error": "15 µm", "max_free_flight_penetration": "15 µm",
        "max_penetration_steady": "15 µm", "energy_balance_error": "1.5",
        "peak_kinetic_energy": "1.5 J", "peak_slider_accel": "1.5 m/s²", "impacts": "3"}


def test_params_of_an_unknown_model_exits_2(capsys):
    assert cli.main(["params", "--model", "pendulum"]) == 2
    assert "model" in capsys.readouterr().err


def test_progress_is_one_line_per_report_off_a_terminal(monkeypatch):
    err = io.StringIO()
    monkeypatch.setattr(sys, "stderr", err)
    for done in (4, 8, 9):
        command._progress(done, 9)
    assert err.getvalue() == "[4/9] cases done\n[8/9] cases done\n[9/9] cases done\n"


def test_progress_rewrites_its_line_on_a_terminal(monkeypatch):
    class Terminal(io.StringIO):
        def isatty(self):
            return True

    err = Terminal()
    monkeypatch.setattr(sys, "stderr", err)
    for done in (4, 9):
        command._progress(done, 9)
    assert err.getvalue() == "\r[4/9] cases done\r[9/9] cases done\n"


def test_the_compile_notice_says_about_once(monkeypatch, capsys):
    import gapsweep.core.jit as jit  # the notice asks it at call time (imported on use)

    monkeypatch.setattr(jit, "kernels_cached", lambda: False)
    command._warm_notice()
    err = capsys.readouterr().err
    assert "about" in err and "about about" not in err


def test_a_solver_failure_exits_1_with_its_reason_in_the_json():
    # a contact a million times too soft: the journal passes through the wall at once
    out = gapsweep("simulate", "--set", "stiffness_scale=1e-6", "--set", "t_end=0.002", "--json")
    assert out.returncode == 1, out.stderr
    data = json.loads(out.stdout)
    assert data["status"] == "failed" and "penetration exceeded its bound" in data["reason"]


def _table(stdout: str) -> tuple[list[str], list[str], list[list[str]], list[str]]:
    """Header, unit line, rows and the summary lines of the sweep table."""
    lines = stdout.splitlines()
    blank = lines.index("")
    rows = [ln.split() for ln in lines[2:blank]]
    return lines[0].split(), lines[1].split(), rows, lines[blank + 1 :]


def test_the_sweep_prints_one_row_per_case_and_a_summary():
    grid = ["--sweep", "clearance_mm=0.02,0.1", "--sweep", "stiffness_scale=0.7:1.3:3"]
    base = ["--set", "t_end=0.004", "--threads", "1"]
    out = gapsweep("simulate", *grid, *base)
    assert out.returncode == 0, out.stderr
    head, units, rows, summary = _table(out.stdout)
    metrics = [*command.headline()]
    assert head == ["case", "clearance_mm", "stiffness_scale", "status", *metrics]
    # the units the pages label these metrics with: max_penetration in µm (the JSON stays SI)
    assert units == ["[m/s²]", "[N]", "[µm]", "[count]", "[m/s²]"]
    assert [(r[1], r[2], r[3]) for r in rows] == [
        (c, s, "ok") for c in ("0.02", "0.1") for s in ("0.7", "1", "1.3")
    ]
    # the same grid as JSON: every cell is that case's metric to the 5 digits shown
    data = json.loads(gapsweep("simulate", *grid, *base, "--json").stdout)
    for row, case in zip(rows, data, strict=True):
        for key, cell in zip(metrics, row[4:], strict=True):
            shown = case[key] * (1e6 if key.startswith("max_penetration") else 1.0)
            assert float(cell) == pytest.approx(shown, rel=1e-4), key
    top = max(range(len(data)), key=lambda i: data[i]["peak_slider_accel"])
    assert summary[0] == "6 of 6 cases ok"
    largest = f"largest peak_slider_accel: {rows[top][4]} m/s² in case {top + 1}"
    assert summary[1].startswith(largest)
    assert f"clearance_mm={rows[top][1]}, stiffness_scale={rows[top][2]}" in summary[1]
    ideal = float(re.search(r"ideal joint peak_slider_accel: (\S+) m/s²", summary[2])[1])
    assert ideal == pytest.approx(IDEAL_PEAK, rel=1e-4)
    ratio = float(re.search(r", (\S+) x the ideal joint's peak", summary[1])[1])
    assert ratio == pytest.approx(data[top]["peak_slider_accel"] / IDEAL_PEAK, rel=6e-3)  # 3 digits
    # off a terminal the progress comes as whole lines (4 cases a chunk on one thread)
    assert out.stderr.splitlines()[-2:] == ["[4/6] cases done", "[6/6] cases done"]
    assert "\r" not in out.stderr


def test_a_sweep_over_speed_gives_an_ideal_reference_per_speed_and_fails_with_1():
    out = gapsweep(
        "simulate", "--sweep", "speed_rpm=3000,5000", "--sweep", "stiffness_scale=1e-6,1",
        "--set", "t_end=0.003", "--quiet",
    )  # fmt: skip
    assert out.returncode == 1, out.stderr
    _, _, rows, summary = _table(out.stdout)
    assert [r[3] for r in rows] == ["failed", "ok", "failed", "ok"]
    assert summary[0].startswith("case 1 failed: penetration exceeded its bound")
    assert summary[2] == "2 of 4 cases ok"
    assert summary[3].startswith("largest peak_slider_accel:") and "in case 4" in summary[3]
    found = re.finditer(r": (\S+) m/s² \(speed_rpm=(\d+)\)", out.stdout)
    ideal = {m[2]: float(m[1]) for m in found}
    w3 = 3000 * 2 * math.pi / 60
    assert ideal["3000"] == pytest.approx(w3 * w3 * (R + R * R / L), rel=1e-4)
    assert ideal["5000"] == pytest.approx(IDEAL_PEAK, rel=1e-4)
    assert out.stderr == ""  # --quiet


def test_single_case_output_is_the_block_and_json_unchanged():
    out = gapsweep("simulate", "--set", "clearance_mm=0.1", "--set", "t_end=0.003")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == "model: slider-crank   status: ok"
    assert lines[1] == "parameters: clearance_mm=0.1, t_end=0.003"
    assert re.fullmatch(r"  peak_slider_accel +\S+ m/s²", lines[2])
    assert any(re.fullmatch(r"  max_penetration +\S+ µm", ln) for ln in lines)


def test_cantilever_output():
    out = gapsweep("simulate", "--model", "cantilever", "--set", "t_end=0.01", "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["model"] == "cantilever" and data["status"] == "ok" and data["t_end"] == 0.01
    # static tip deflection of the seed 001 cantilever under its own weight, qL^4 / 8EI
    q, ei = 7850 * 0.05 * 0.01 * 9.81, 210e9 * 0.05 * 0.01**3 / 12
    assert data["tip_deflection_static"] == pytest.approx(q / (8 * ei), rel=1e-3)
    human = gapsweep("simulate", "--model", "cantilever", "--set", "t_end=0.01")
    assert human.stdout.startswith("model: cantilever   status: ok")
    assert re.search(r"  tip_deflection_static +\S+ m\n", human.stdout)


def test_flexible_slider_crank_output():
    args = ("simulate", "--model", "flexible-slider-crank", "--set", "t_end=0.002")
    out = gapsweep(*args, "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["model"] == "flexible-slider-crank" and data["status"] == "ok"
    for key in ("peak_slider_accel", "peak_contact_force", "max_penetration", "impacts"):
        assert math.isfinite(data[key]), key
    assert 0.0 < data["max_penetration"] < 0.5e-3
    human = gapsweep(*args)
    assert human.stdout.startswith("model: flexible-slider-crank   status: ok")


def test_warmup_compiles_or_loads_every_model_and_says_so():
    out = gapsweep("warmup")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].startswith("Compiling and caching the solver kernels (about ")
    for name, model in MODELS.items():
        ready = any(re.fullmatch(rf"  {name}: ready in [\d.]+ s \(ok\)", ln) for ln in lines)
        # a described mechanism has no default table; it runs the slider-crank's kernels
        assert ready == model.warms_up, name
    assert any(re.fullmatch(r"  wall and run-up starts: ready in [\d.]+ s \(ok\)", ln)
               for ln in lines), lines


def test_after_warmup_a_mechanism_from_any_start_compiles_nothing():
    # gapsweep warmup runs no mechanism: what a mechanism's run loads (its kinematic sweep,
    # the batch, a wall or run-up start's reaction) must already be in the cache after it
    from pathlib import Path

    from gapsweep.core.jit import CACHE_ROOT

    def cached() -> set[str]:
        # every kernel's index (.nbi) and every compiled version of it (.nbc, one per type
        # signature): a new signature of a kernel already cached adds a .nbc, not a .nbi
        root = Path(CACHE_ROOT)
        return {str(p.relative_to(root)) for p in root.rglob("*.nb[ci]")}

    assert gapsweep("warmup").returncode == 0
    before = cached()
    assert any(p.endswith(".nbi") for p in before) and any(p.endswith(".nbc") for p in before)
    example = Path(__file__).resolve().parents[2] / "examples"
    code = (
        "import tomllib, sys\n"
        "from gapsweep.core.api import run_case\n"
        f"t = tomllib.load(open({str(example / 'mechanism_two_clearance_slider_crank.toml')!r},"
        " 'rb'))['mechanism']\n"
        "for start in ('centred', 'wall', 'run-up'):\n"
        "    r = run_case('mechanism', {'mechanism': t, 'initial': start, 't_end': 0.001})\n"
        "    assert r.ok, r.reason\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=600)
    assert out.returncode == 0, out.stderr
    after = cached()
    assert after == before, sorted(after - before)
