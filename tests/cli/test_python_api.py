"""``gapsweep.open()`` (issue 28, part 3): the archive from Python, on a data folder and on a
served instance, with ``studies()``, ``study(id)``, ``submit(spec)``, ``wait(id)`` and
``cases(id)`` as a DataFrame. One real ``gapsweep serve`` (its own data folder, free port,
one local worker) runs the cases of both; the data folder is opened directly for the local
archive (SQLite, the embedded broker the serve's worker reads)."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import pandas as pd
import pytest
from support.serving import server_fixture

import gapsweep
from gapsweep.archive.errors import RefusedError, UnknownIdError

SPEC = {"name": "From Python", "tags": ["notebook"], "series": "none", "ideal_twin": False,
        "base": {"speed_rpm": 5000, "t_end": 0.02},
        "axes": {"clearance_mm": {"values": [0.05, 0.1]}}}


#: ``gapsweep serve`` of a data folder of its own, its worker ready
served = server_fixture("python-api", workers=True, name="served")


def export_json(env: dict[str, str], study_id: int) -> list[dict]:
    out = subprocess.run([sys.executable, "-m", "gapsweep", "export", str(study_id),
                          "--format", "json"], env=env, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def same(a, b) -> bool:
    """Equal, a missing value (JSON's null) matching the frame's NaN or None."""
    if a is None:
        return b is None or (isinstance(b, float) and math.isnan(b))
    return a == b


def test_a_study_from_python_on_the_server_and_on_its_data_folder(served, tmp_path):
    serve, data, env = served["serve"], served["data"], served["env"]
    remote = gapsweep.open(serve.url)
    local = gapsweep.open(data)
    study_id = remote.submit(SPEC)  # a mapping, as a notebook writes it
    assert remote.wait(study_id, timeout_s=150) is True
    detail = remote.study(study_id)
    assert (detail["name"], detail["status"], detail["counts"]["done"]) == (
        "From Python", "done", 2)

    frame = remote.cases(study_id)
    assert isinstance(frame, pd.DataFrame) and frame.index.name == "case_id"
    assert list(frame.index) == [c["id"] for c in detail["cases"]]
    assert list(frame["clearance_mm"]) == [0.05, 0.1]
    # the DataFrame holds the export's rows, value for value (the server's CSV, read back)
    rows = export_json(env, study_id)
    assert list(frame.columns) == [k for k in rows[0] if k != "case_id"]
    for row in rows:
        for column, value in row.items():
            if column != "case_id":
                assert same(value, frame.loc[row["case_id"], column]), (column, value)
    # the data folder's archive gives the same frame, and the same study
    pd.testing.assert_frame_equal(local.cases(study_id), frame, check_dtype=False)
    assert local.study(study_id)["cases"] == detail["cases"]

    # submit and wait on the data folder: a study file this time, run by the serve's worker
    path = tmp_path / "local.toml"
    path.write_text('name = "Local from Python"\nseries = "none"\nideal_twin = false\n'
                    "[base]\nt_end = 0.02\n[axes.clearance_mm]\nvalues = [0.08]\n")
    second = local.submit(path)
    assert local.wait(second, timeout_s=150) is True
    assert local.cases(second)["status"].tolist() == ["done"]
    names = [s["name"] for s in remote.studies()]
    assert names[:2] == ["Local from Python", "From Python"]  # newest first
    assert [s["id"] for s in local.studies(tag="notebook")] == [study_id]


def test_unknown_ids_and_what_a_server_does_not_offer(served):
    serve, data = served["serve"], served["data"]
    for archive in (gapsweep.open(serve.url), gapsweep.open(data)):
        with pytest.raises(UnknownIdError, match="no study with id 987654"):
            archive.study(987654)
        with pytest.raises(UnknownIdError):
            archive.cases(987654)
    with pytest.raises(RefusedError, match="GAPSWEEP_URL is set"):
        gapsweep.open(serve.url).delete(1)


def test_measured_records_through_either_archive_and_the_command_with_a_server(served, tmp_path):
    """One archive operation: a record attached through the server reads back the same from
    the data folder; ``gapsweep measured add`` with GAPSWEEP_URL posts it (it was refused)."""
    from gapsweep.study.errors import SpecError

    serve, data, env = served["serve"], served["data"], served["env"]
    remote, local = gapsweep.open(serve.url), gapsweep.open(data)
    study_id = remote.submit({**SPEC, "name": "With a rig"})
    csv = "time_s,slider_acceleration\n0,1.5\n0.001,-2.25\n0.002,4\n"
    entry = remote.add_measurement(study_id, csv.encode(), name="rig.csv")
    assert (entry["n_samples"], entry["series"], entry["name"]) == (
        3, ["slider_acceleration"], "rig.csv")
    assert local.measurements(study_id) == remote.measurements(study_id) == [entry]
    record = local.measurement(entry["id"])
    assert record == remote.measurement(entry["id"])
    assert record["data"]["series"]["slider_acceleration"] == [1.5, -2.25, 4.0]
    for archive in (remote, local):
        with pytest.raises(SpecError) as bad:
            archive.add_measurement(study_id, "time_s,slider_acceleration\n0,1\n0,2\n")
        assert any(e.field.endswith("time_s[2]") for e in bad.value.errors)
        with pytest.raises(UnknownIdError, match="no measurement with id 987654"):
            archive.measurement(987654)
        with pytest.raises(UnknownIdError, match="no study with id 987654"):
            archive.measurements(987654)

    rig = tmp_path / "rig2.csv"
    rig.write_text("crank_deg,slider_acceleration\n0,10.5\n1,-3.25\n")
    remote_env = {**env, "GAPSWEEP_URL": serve.url}
    out = subprocess.run([sys.executable, "-m", "gapsweep", "measured", "add", str(study_id),
                          str(rig), "--json"], env=remote_env, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["time_base"] == "crank_deg"
    out = subprocess.run([sys.executable, "-m", "gapsweep", "measured", "list", str(study_id),
                          "--json"], env=env, capture_output=True, text=True, timeout=120)
    assert [m["name"] for m in json.loads(out.stdout)["items"]] == ["rig.csv", "rig2.csv"]
    remote.cancel(study_id)
