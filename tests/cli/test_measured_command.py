"""``gapsweep measured add ID FILE`` (design.md 4.9) as a script drives it: exit 0 and the
record stored; a bad file exit 2 naming the field, nothing stored; an unknown study exit 2."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "clearance_x_stiffness.toml"


def gapsweep(data: Path, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GAPSWEEP_")}
    env["GAPSWEEP_DATA"] = str(data)
    return subprocess.run([sys.executable, "-m", "gapsweep", *map(str, args)], env=env,
                          capture_output=True, text=True, timeout=120)


def test_add_list_and_refuse(tmp_path):
    data = tmp_path / "data"
    out = gapsweep(data, "submit", EXAMPLE, "--json")
    assert out.returncode == 0, out.stderr
    study_id = json.loads(out.stdout)["study_id"]
    good = tmp_path / "rig.csv"
    good.write_text("crank_deg,slider_acceleration\n0,10.5\n1,-3.25\n2,7\n")
    out = gapsweep(data, "measured", "add", study_id, good, "--json")
    assert out.returncode == 0, out.stderr
    added = json.loads(out.stdout)
    assert added["n_samples"] == 3 and added["time_base"] == "crank_deg"
    bad = tmp_path / "bad.csv"
    bad.write_text("crank_deg,slider_acceleration\n0,1\n2,2\n1,3\n")
    out = gapsweep(data, "measured", "add", study_id, bad)
    assert out.returncode == 2
    assert "file.crank_deg[3]" in out.stderr and "strictly increasing" in out.stderr
    out = gapsweep(data, "measured", "list", study_id, "--json")
    assert [m["id"] for m in json.loads(out.stdout)["items"]] == [added["id"]]
    assert gapsweep(data, "measured", "add", 987654, good).returncode == 2
    out = gapsweep(data, "measured", "add", study_id, good, "--case", 987654, "--json")
    assert out.returncode == 2
    assert [e["field"] for e in json.loads(out.stdout)["errors"]] == ["--case"]
    out = gapsweep(data, "measured", "list", study_id, "--json")
    assert len(json.loads(out.stdout)["items"]) == 1  # nothing stored by the refusals
