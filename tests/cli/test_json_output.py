"""The JSON the CLI prints is strict JSON, and equal to what the API answers: NaN and
infinities come out as null on both sides (issue 16, part 4), and a refused value is echoed
cut at 200 characters on the command line too."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from gapsweep.core.result import CaseResult
from gapsweep.db import leases
from gapsweep.db.engine import open_database
from gapsweep.study.spec import parse_spec
from support.database_fixtures import database_url  # noqa: E402, F401

from gapsweep.commands.output import json_text, print_json
from gapsweep.settings import get_settings

# the metrics a case may legitimately have no value for (too few samples for a spectrum)
# and values strict JSON cannot carry
ODD = {"dominant_frequency_accel_hz": math.nan, "high_frequency_ratio_accel": math.inf,
       "dominant_frequency_force_hz": -math.inf}


def strict_loads(text: str):
    """``json.loads`` that refuses NaN/Infinity/-Infinity (as JavaScript's JSON.parse does)."""
    def refuse(token: str):
        raise ValueError(f"non-standard JSON token {token}")

    return json.loads(text, parse_constant=refuse)


def test_print_json_writes_null_for_nan_and_infinity(capsys):
    print_json({"a": math.nan, "b": [1.5, math.inf, -math.inf], "c": np.float64("nan"),
                "d": np.array([1.0, np.nan]), "e": np.int64(3), "f": "nan"})
    out = capsys.readouterr().out
    assert strict_loads(out) == {"a": None, "b": [1.5, None, None], "c": None,
                                 "d": [1.0, None], "e": 3, "f": "nan"}
    with pytest.raises(ValueError, match="NaN"):
        strict_loads(json.dumps({"a": math.nan}))  # the parser does refuse what we avoid
    assert json_text({"t": 0.1}) == '{"t": 0.1}'


def _env(data: Path, url: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GAPSWEEP_")}
    env.update(GAPSWEEP_DATA=str(data), GAPSWEEP_DATABASE_URL=url)
    return env


def _gapsweep(env, *args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "gapsweep", *map(str, args)], env=env,
                          capture_output=True, text=True, timeout=120,
                          stdin=subprocess.DEVNULL)


def test_show_and_export_json_print_null_where_the_api_does(database_url, tmp_path):  # noqa: F811
    from gapsweep.web.app import create_app
    from gapsweep.workers.submit import create_study_rows

    data = tmp_path / "data"
    env = _env(data, database_url)
    sessions = open_database(database_url)
    try:
        spec = parse_spec({"name": "odd metrics", "ideal_twin": False, "series": "none",
                           "axes": {"clearance_mm": {"values": [0.05, 0.1]}}})
        study_id = create_study_rows(spec, sessions=sessions)
        with sessions.begin() as s:
            claimed = leases.claim_cases(s, case_ids=_ids(sessions, study_id), holder="t",
                                         lease_s=60)
        with sessions.begin() as s:
            leases.complete_cases(s, holder="t", outcomes=[
                (c.id, CaseResult("slider-crank", c.params, metrics={
                    "peak_slider_accel": 1000.0 * (k + 1), **ODD}), None)
                for k, c in enumerate(claimed)])
        app = create_app(get_settings(env))
        api = app.server.test_client().get(f"/api/studies/{study_id}").get_json()
    finally:
        sessions.kw["bind"].dispose()

    show = _gapsweep(env, "show", study_id, "--json")
    assert show.returncode == 0, show.stderr
    local = strict_loads(show.stdout)
    assert [c["status"] for c in local["cases"]] == ["done", "done"]
    for mine, theirs in zip(local["cases"], api["cases"], strict=True):
        for name in ODD:
            assert mine["metrics"][name] is None and theirs["metrics"][name] is None
        assert mine["metrics"] == theirs["metrics"]
    assert [c["metrics"]["peak_slider_accel"] for c in local["cases"]] == [1000.0, 2000.0]

    export = _gapsweep(env, "export", study_id, "--format", "json")
    assert export.returncode == 0, export.stderr
    rows = strict_loads(export.stdout)
    assert [r["peak_slider_accel"] for r in rows] == [1000.0, 2000.0]
    assert all(r[name] is None for r in rows for name in ODD)


def _ids(sessions, study_id: int) -> list[int]:
    with sessions() as s:
        return leases.queued_case_ids(s, study_id=study_id)


def test_a_refused_long_value_is_echoed_cut_on_the_command_line(tmp_path):
    long_name = "n" * 5000
    path = tmp_path / "long.json"
    path.write_text(json.dumps({"name": long_name,
                                "axes": {"clearance_mm": {"values": [0.05]}}}))
    env = _env(tmp_path / "data", f"sqlite:///{tmp_path / 'data' / 'gapsweep.db'}")
    out = _gapsweep(env, "study", "validate", path, "--json")
    assert out.returncode == 2
    (err,) = strict_loads(out.stdout)["errors"]
    assert err == {"field": "name", "value": "n" * 199 + "…", "allowed": "1-200 characters"}
    assert out.stderr.splitlines()[-1] == f"name: {'n' * 199}… — 1-200 characters"
