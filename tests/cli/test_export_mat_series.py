"""What ``gapsweep export --format mat`` holds for a case the solver ran, per series policy,
against what docs/studies.md says is in it (issue 35: the README's example once named a
field, ``s.series{i}.time``, that no file had). One short solver run, no archive: the
worker's own series selection (``workers/series_policy.py``) and the export's writer."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from gapsweep.core.api import run_case
from gapsweep.workers.series_policy import select_series
from scipy.io import loadmat

from gapsweep.commands.export import write_mat

DOCS = Path(__file__).resolve().parents[2] / "docs" / "studies.md"
SPEED_HZ = 5000 / 60


@pytest.fixture(scope="module")
def result():
    # one crank revolution (0.012 s at 5000 rpm): enough for every series to be stored
    done = run_case("slider-crank", {"clearance_mm": 0.1, "t_end": 0.012, "n_output": 241})
    assert done.ok, done.reason
    return done


def exported(tmp_path, result, policy) -> dict:
    series = select_series(result, policy, SPEED_HZ)
    rows = [{"clearance_mm": 0.1, "status": "done", "case_id": 7,
             **{k: v for k, v in result.metrics.items() if isinstance(v, (int, float))}}]
    columns = ["clearance_mm", "status", *[k for k in rows[0] if k not in
                                           ("clearance_mm", "status", "case_id")], "case_id"]
    path = tmp_path / f"{policy}.mat"
    write_mat(str(path), {"id": 1, "name": "docs", "model": "slider-crank"}, columns, rows,
              {7: series})
    return loadmat(path, simplify_cells=True)


def documented_fields() -> set[tuple[str, str]]:
    """The ``s.<part>.<field>`` and ``s.series{i}.<field>`` the docs' mat example names."""
    text = DOCS.read_text(encoding="utf-8")
    block = text[text.index("--format mat"):]
    block = block[:block.index("gapsweep cancel")]
    # a placeholder stands for a series of the case: the slider's acceleration
    block = block.replace("<series>", "slider_acceleration")
    return set(re.findall(r"\bs\.(\w+)(?:\{i\})?\.(\w+)", block))


def test_the_documented_fields_are_in_the_files(tmp_path, result):
    named = documented_fields()
    assert {("series", "slider_acceleration"), ("series", "t"),
            ("series", "spectrum_freq_hz")} <= named
    preview = exported(tmp_path, result, "preview")
    full = exported(tmp_path, result, "full")
    for part, field in named:
        if part != "series":
            assert field in preview[part], (part, field)
        elif field == "t":  # "series = full shares s.series{i}.t"
            assert field in full["series"] and field not in preview["series"]
        elif field.startswith("t_"):  # a preview's own time base per series
            assert field in preview["series"] and field not in full["series"]
        else:
            assert field in preview["series"] and field in full["series"], field


def test_a_full_file_holds_every_series_on_one_time_base(tmp_path, result):
    s = exported(tmp_path, result, "full")["series"]
    t = s["t"]
    assert t.size == 241 and np.all(np.diff(t) > 0)
    assert t[-1] == pytest.approx(0.012)
    # every series of the run, each a vector against t (the solver's, not a reduction)
    on_t = {n for n, v in s.items() if np.ndim(v) == 1 and np.size(v) == t.size}
    assert {"slider_acceleration", "slider_position", "contact_normal_force", "penetration",
            "eccentricity_x", "eccentricity_y"} <= on_t
    np.testing.assert_allclose(s["slider_acceleration"],
                               result.series["slider_acceleration"], rtol=1e-6, atol=1e-3)
    # the others are what docs/studies.md says: against their own axis, never against t
    others = set(s) - on_t - {"t"}
    assert others and all(n.startswith(("poincare_", "spectrum_")) for n in others), others
    assert np.size(s["spectrum_slider_acceleration"]) == np.size(s["spectrum_freq_hz"])
    assert np.size(s["poincare_eccentricity_x"]) == np.size(s["poincare_time"])
