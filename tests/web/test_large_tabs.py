"""A large study's Spectra, Motion and Convergence tabs read what they draw, not every case
(issue 41, design.md 4.16): each tab of a 5,500-case study opened through Dash's callback
route fetches far fewer rows than the study has (the rows the database hands back are
counted), on SQLite and PostgreSQL; and what they draw is what the whole detail draws."""

from __future__ import annotations

from contextlib import contextmanager

import pytest
from account_fixtures import callback_body
from archive_fixtures import page as loaded_page
from support.big_archive import big_app, fill_study

N_CLEARANCE, N_STIFFNESS = 1100, 5  # 5,500 cases: past the 5,000 the tabs read whole


@pytest.fixture(params=["sqlite", "postgresql"])
def big(request, tmp_path, monkeypatch):
    """An app over a database holding one 5,500-case study: (archive, study id)."""

    def fill(sessions) -> int:
        with sessions.begin() as s:
            study_id = fill_study(s, n_clearance=N_CLEARANCE, n_stiffness=N_STIFFNESS)
        with sessions.begin() as s:
            add_certificates(s, study_id)
        return study_id

    with big_app(request.param, tmp_path, monkeypatch, fill) as out:
        yield out


def add_certificates(session, study_id: int) -> None:
    """The certificates a finished study gets: its sources (chosen from every case) each
    refined by every ladder's runs, done, their peaks a little off the source's."""
    from gapsweep.db.models import METRIC_COLUMNS, Case, Result, Study, utcnow
    from gapsweep.db.studies import study_detail
    from gapsweep.study.certificates import plan_certificates

    detail = study_detail(session, study_id)
    cases = detail["cases"]
    for index, planned in enumerate(plan_certificates(detail["model"], "grid", cases)):
        source = cases[planned.source_index]
        cert = Case(study_id=study_id, kind="certificate", index=index, status="done",
                    attempts=1, params=planned.params, source_case_id=source["id"],
                    slot=planned.slot, queued_at=utcnow())
        session.add(cert)
        session.flush()
        scale = 1.0 + 0.001 * (planned.slot + 1)
        session.add(Result(case_id=cert.id, extra={}, **{
            m: source["metrics"][m] * scale for m in METRIC_COLUMNS}))
    session.get(Study, study_id).status = "done"


@contextmanager
def rows_fetched():
    """Counts the rows every query hands back while open (``counted[0]``)."""
    from sqlalchemy.engine import cursor

    strategy = cursor.CursorFetchStrategy
    counted = [0]
    originals = {name: getattr(strategy, name) for name in ("fetchone", "fetchmany",
                                                            "fetchall")}

    def counting(name):
        def fetch(self, *args, **kwargs):
            out = originals[name](self, *args, **kwargs)
            counted[0] += (out is not None) if name == "fetchone" else len(out)
            return out
        return fetch

    for name in originals:
        setattr(strategy, name, counting(name))
    try:
        yield counted
    finally:
        for name, fn in originals.items():
            setattr(strategy, name, fn)


def _open(client, output, values):
    body = callback_body(client, output, values)
    if len(body["outputs"]) == 1:  # one output: the renderer sends it alone, not in a list
        body["outputs"] = body["outputs"][0]
    r = client.post("/_dash-update-component", json=body)
    assert r.status_code in (200, 204), r.get_data(as_text=True)
    return r.get_json() if r.status_code == 200 else None


def test_each_tab_of_a_large_study_reads_only_what_it_draws(big):
    from gapsweep.web import data, ids
    from gapsweep.web.views import study_results

    archive, study_id = big
    client = archive.client()
    n_cases = N_CLEARANCE * N_STIFFNESS
    base = {(ids.STUDY_ID_STORE, "data"): study_id, (ids.STUDY_VERSION, "data"): None}
    # Spectra and Convergence called as the page's functions (their callbacks are
    # registered with the first app a process makes), Motion's over Dash's route
    page = loaded_page("study")
    direct = {
        "spectra": lambda: page.spectra("spectra", None, "slider_accel", "overlay", [], [],
                                        [], study_id),
        "choices": lambda: page.spectra_choices("spectra", None, study_id),
        "convergence": lambda: page.convergence("convergence", None, study_id),
    }
    motion = [
        (f"{ids.BIFURCATION_GRAPH}.figure", {(ids.MOTION_AXIS, "value"): "clearance_mm"}),
        (f"{ids.MOTION_MAP_GRAPH}.figure",
         {(ids.MOTION_MAP_X, "value"): "clearance_mm",
          (ids.MOTION_MAP_Y, "value"): "stiffness_scale"}),
    ]
    answers = {}
    fetched = {}
    with archive.request(path="/"):
        for name, call in direct.items():
            with rows_fetched() as counted:
                answers[name] = call()
            fetched[name] = counted[0]
    for output, values in motion:
        with rows_fetched() as counted:
            answers[output] = _open(client, output, {**base, (ids.STUDY_TABS, "active_tab"):
                                                     "motion", **values})
        fetched[output] = counted[0]
    # the picker lists at most MAX_CHOICES; the rest read a few rows or a count per cell
    for name, n in fetched.items():
        assert n <= study_results.MAX_CHOICES + 100 < n_cases, (name, n)
    assert "no spectra" in str(answers["spectra"])  # series "none": said, not drawn
    assert "Certificates: 8 of 8 done" in str(answers["convergence"])
    with archive.request(path="/"):
        detail = data.study_detail(study_id)
        assert len(detail["cases"]) == n_cases
        # the picker offers the cases the whole detail offers: the grid's middle stiffness,
        # along the clearance
        whole = study_results.spectra_choices(detail)
        # the certificates read from their sources alone say what the whole detail says
        assert str(answers["convergence"]) == str(study_results.certificates(detail))
    options = answers["choices"]
    assert options == whole and 1 < len(whole) <= study_results.MAX_CHOICES
    # the class map: one cell per run of clearance levels (binned to MAP_BINS) and per
    # stiffness level (5: each its own), every cell where a case is done
    from gapsweep.db.case_samples import MAP_BINS

    fig = answers[f"{ids.MOTION_MAP_GRAPH}.figure"]["response"][ids.MOTION_MAP_GRAPH]["figure"]
    drawn = {(x, y) for t in fig["data"] for x, y in zip(t["x"], t["y"], strict=True)}
    done = [c["params"] for c in detail["cases"] if c["status"] == "done"]
    assert {y for _, y in drawn} == {p["stiffness_scale"] for p in done}
    assert len({x for x, _ in drawn}) == MAP_BINS
    clearances = [p["clearance_mm"] for p in done]
    assert all(min(clearances) <= x <= max(clearances) for x, _ in drawn)
