"""A browser's study-file upload decoded in the study layer (issue 28, part 6: it lived in the
new-study page): a data URL in, the file's mapping and the spec's errors out, no Dash."""

from __future__ import annotations

import base64

from gapsweep.study.upload import MAX_UPLOAD_BYTES, read_upload


def data_url(raw: bytes) -> str:
    return "data:application/octet-stream;base64," + base64.b64encode(raw).decode()


def test_a_study_file_comes_back_as_its_mapping_with_the_specs_errors():
    good = b'name = "Up"\n[axes.clearance_mm]\nvalues = [0.05, 0.1]\n'
    assert read_upload(data_url(good), "up.toml") == (
        {"name": "Up", "axes": {"clearance_mm": {"values": [0.05, 0.1]}}}, [])
    data, errors = read_upload(data_url(b'{"name": "J", "axes": {"clearance_mm": '
                                        b'{"values": [-1]}}}'), "j.json")
    assert data["name"] == "J"  # kept: the form shows it with the error beside it
    assert [e.field for e in errors] == ["axes.clearance_mm.values[0]"]


def test_what_cannot_be_read_is_refused_naming_the_file():
    too_big = data_url(b"#" * (MAX_UPLOAD_BYTES + 1))
    assert read_upload(too_big, "big.toml")[0] is None
    assert "at most 256 KB" in read_upload(too_big, "big.toml")[1][0].allowed
    for contents in ("no comma here", "data:;base64,@@@", data_url(b"\xff\xfe name")):
        data, (error,) = read_upload(contents, "odd.toml")
        assert data is None and (error.field, error.value) == ("file", "odd.toml")
    data, (error,) = read_upload(data_url(b"[1, 2]"), "list.json")
    assert data is None and error.allowed == "a table of the study's keys"
