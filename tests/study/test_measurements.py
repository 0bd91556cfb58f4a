"""The rig's CSV (design.md 4.9): read back exactly, and every bad file refused with the
field, the value and what is allowed."""

from __future__ import annotations

import numpy as np
import pytest
from gapsweep.study.errors import SpecError
from gapsweep.study.measurements import MAX_BYTES, Measurement, parse_measurement, to_csv


def test_a_record_reads_back_exactly():
    t = np.linspace(0.0, 0.024, 1201)
    a = 1e4 * np.sin(2 * np.pi * 83.3 * t) + 0.1
    text = to_csv(Measurement("time_s", t, {"slider_acceleration": a, "driving_torque": -a}))
    got = parse_measurement(text)
    assert got.time_base == "time_s"
    assert np.array_equal(got.time, t)
    assert np.array_equal(got.series["slider_acceleration"], a)
    assert np.array_equal(got.series["driving_torque"], -a)
    crank = parse_measurement("crank_deg,slider_acceleration\n0,1\n1.5,2\n3,4\n")
    assert crank.time_base == "crank_deg" and crank.series["slider_acceleration"].tolist() == [
        1, 2, 4]


@pytest.mark.parametrize("text,field,words", [
    ("slider_acceleration\n1\n2\n", "measurement.columns", "time column"),
    ("time_s,slider_acceleration\n0,1\n0.1,2\n0.1,3\n", "measurement.time_s[3]",
     "strictly increasing"),
    ("time_s,slider_acceleration\n0,1\n0.2,2\n0.1,3\n", "measurement.time_s[3]",
     "strictly increasing"),
    ("time_s,slider_acceleration\n0,1\n0.1,nan\n", "measurement.slider_acceleration[2]",
     "finite number"),
    ("time_s,slider_acceleration\n0,1\n0.1,\n", "measurement.slider_acceleration[2]",
     "finite number"),
    ("time_s,piston_accel\n0,1\n0.1,2\n", "measurement.columns", "a series of the case"),
    ("time_s,crank_deg,slider_acceleration\n0,0,1\n0.1,1,2\n", "measurement.columns",
     "exactly one time column"),
    ("time_s,slider_acceleration\n0,1\n", "measurement", "at least 2 samples"),
])
def test_bad_files_are_refused_naming_the_field(text, field, words):
    with pytest.raises(SpecError) as err:
        parse_measurement(text)
    assert any(e.field == field and words in e.allowed for e in err.value.errors), err.value


def test_a_file_too_large_is_refused_before_it_is_read():
    text = "time_s,slider_acceleration\n" + "0,1\n" * (MAX_BYTES // 4 + 1)
    with pytest.raises(SpecError) as err:
        parse_measurement(text)
    assert err.value.errors[0].allowed == f"at most {MAX_BYTES} bytes"
