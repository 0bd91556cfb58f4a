"""The study page's upload of a measured record: stored as the CLI and the API store it; a
bad file refused with its field, nothing stored."""

from __future__ import annotations

import base64

from archive_fixtures import component_ids, page, texts
from gapsweep.web import ids
from gapsweep.web.components import measurement_upload


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


def test_a_case_page_overlays_the_measurement_on_its_series(archive):
    import numpy as np
    from archive_fixtures import find
    from gapsweep.web.figures.search import MEASURED_NAME, SIMULATED_NAME

    with archive.request():
        study_id = archive.create()
        case_id = archive.case_ids(study_id, "case")[0]
        archive.run([case_id])
        t = np.linspace(0.0, 0.02, 21)
        y = 500.0 * np.sin(300.0 * t)
        rows = "".join(f"{float(a)!r},{float(b)!r}\n" for a, b in zip(t, y, strict=True))
        stored = measurement_upload.upload(_upload("time_s,slider_acceleration\n" + rows),
                                           "rig.csv", study_id)
        assert "stored" in texts(stored)
        layout = page("case").layout(case_id=str(case_id))
        graph = find(layout, f"{ids.CASE_MEASURED}-1-slider_acceleration")
        measured = next(tr for tr in graph.figure.data if tr.name == MEASURED_NAME)
        assert list(measured.y) == y.tolist() and list(measured.x) == (t * 1e3).tolist()
        assert any(tr.name == SIMULATED_NAME for tr in graph.figure.data)
        assert "correlation" in graph.figure.layout.title.text


def test_a_stored_record_stays_listed_on_the_study_page_after_a_reload(archive):
    """Issue 35.5: "Measurement 1 stored", then nothing on the page after a reload."""
    from archive_fixtures import find

    with archive.request():
        study_id = archive.create()  # a grid study
        before = texts(find(page("study").layout(study_id=str(study_id)), ids.MEASUREMENT_LIST))
        assert "rig.csv" not in before
        message, listed = measurement_upload.upload(
            _upload("time_s,slider_acceleration\n0,1.5\n0.001,-2\n0.002,3\n"), "rig.csv",
            study_id)
        assert "Measurement 1 stored" in texts(message) and "rig.csv" in texts(listed)
        reloaded = find(page("study").layout(study_id=str(study_id)), ids.MEASUREMENT_LIST)
    line = texts(reloaded)
    assert "Measurement 1: rig.csv" in line and "3 samples of slider_acceleration" in line
