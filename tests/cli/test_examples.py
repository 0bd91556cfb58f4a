"""The study files that ship with gapsweep (issue 16): ``gapsweep examples`` finds them in the
installed package, and ``--example NAME`` stands for FILE in ``study validate`` and
``submit`` (``run`` shares the same option)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO_EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "clearance_x_stiffness.toml"


@pytest.fixture
def env(tmp_path) -> dict[str, str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("GAPSWEEP_")}
    return {**clean, "GAPSWEEP_DATA": str(tmp_path / "data")}


def gapsweep(env: dict[str, str], *args: str, cwd: Path) -> subprocess.CompletedProcess:
    # run from a folder without examples/: the file must come from the installed package
    return subprocess.run([sys.executable, "-m", "gapsweep", *args], env=env, cwd=cwd,
                          capture_output=True, text=True, timeout=120)


def test_examples_lists_the_readme_study(env, tmp_path):
    out = gapsweep(env, "examples", "--json", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    listed = {e["name"]: e for e in json.loads(out.stdout)["examples"]}
    # the README's study, the rattle map (issue 23) and the five described mechanisms of
    # design.md 4.7 (issue 24), the lubricated slider-crank (issue 36) and the wear life
    # (issue 37)
    assert set(listed) == {"clearance_x_stiffness", "rattle_map",
                           "mechanism_reference_slider_crank",
                           "mechanism_offset_slider_crank_gas", "mechanism_four_bar_crank_rocker",
                           "mechanism_two_clearance_slider_crank", "mechanism_toggle_press",
                           "lubricated_slider_crank", "wear_life"}
    assert listed["rattle_map"]["title"] == "Rattle map"
    entry = listed["clearance_x_stiffness"]
    assert entry["title"] == "Clearance x stiffness"
    assert Path(entry["path"]).read_bytes() == REPO_EXAMPLE.read_bytes()


def test_example_stands_for_the_file(env, tmp_path):
    out = gapsweep(env, "study", "validate", "--example", "clearance_x_stiffness", "--json",
                   cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["cases"] == 15
    out = gapsweep(env, "submit", "--example", "clearance_x_stiffness.toml", "--json",
                   cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    submitted = json.loads(out.stdout)
    assert (submitted["cases"], submitted["status"]) == (15, "queued")
    shown = json.loads(gapsweep(env, "show", str(submitted["study_id"]), "--json",
                                cwd=tmp_path).stdout)
    assert shown["name"] == "Clearance x stiffness"


def test_unknown_example_and_ambiguous_arguments_are_refused(env, tmp_path):
    out = gapsweep(env, "run", "--example", "no_such_study", cwd=tmp_path)
    assert out.returncode == 2
    assert "no_such_study" in out.stderr and "clearance_x_stiffness" in out.stderr
    both = gapsweep(env, "submit", str(REPO_EXAMPLE), "--example", "clearance_x_stiffness",
                    cwd=tmp_path)
    neither = gapsweep(env, "submit", cwd=tmp_path)
    for out in (both, neither):
        assert out.returncode == 2 and "--example" in out.stderr and "Traceback" not in out.stderr
    assert not (tmp_path / "data").exists()  # refused before the archive was opened
