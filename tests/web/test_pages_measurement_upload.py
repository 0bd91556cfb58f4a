"""The study page's upload of a measured record: stored as the CLI and the API store it; a
bad file refused with its field, nothing stored."""

from __future__ import annotations

import base64

from archive_fixtures import component_ids, page, texts
from gapsweep.web import ids, measurement_upload


def _upload(text: str) -> str:
    return "data:text/csv;base64," + base64.b64encode(text.encode()).decode()


def test_upload_stores_a_good_file_and_refuses_a_bad_one(archive):
    with archive.request():
        study_id = archive.create()
        assert ids.MEASUREMENT_UPLOAD in component_ids(page("study").layout(
            study_id=str(study_id)))
        good = measurement_upload.upload(
            _upload("time_s,slider_acceleration\n0,1.5\n0.001,-2\n"), "rig.csv", study_id)
        assert "Measurement 1 stored: 2 samples of slider_acceleration" in texts(good)
        bad = measurement_upload.upload(
            _upload("time_s,slider_acceleration\n0,1\n0.001,nan\n"), "bad.csv", study_id)
        assert "file.slider_acceleration[2]" in texts(bad) and "Not stored" in texts(bad)
    assert archive.count("measurements") == 1
