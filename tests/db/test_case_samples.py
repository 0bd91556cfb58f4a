"""The few cases a large study's tab draws, read by the database (issue 41): the spread
pick is the spectra overlay's pick from the whole detail, the class map's cells count every
done case once (binned by level rank or not), the start flag's count is the Python rule's -
on SQLite and PostgreSQL, on a synthetic archive inserted directly."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from gapsweep.db import case_samples
from gapsweep.db.models import Case, Result
from gapsweep.db.studies import study_detail
from sqlalchemy import select
from support.big_archive import fill_study

CLASSES = ("periodic-1", "periodic-2", "chaotic")


@pytest.fixture
def study(session_factory):
    """A 12 x 5 grid whose done cases carry a motion class and, some, a start verdict."""
    rng = random.Random(5)
    with session_factory.begin() as s:
        study_id = fill_study(s)
        results = s.scalars(select(Result).join(Case, Case.id == Result.case_id)
                            .where(Case.study_id == study_id, Case.kind == "case")).all()
        for r in results:
            r.extra = {**r.extra, "motion": rng.choice(CLASSES),
                       "start_spread": rng.uniform(0.0, 0.1),
                       **({"start_dependent": rng.randrange(2)} if rng.random() < 0.5 else {})}
    with session_factory() as s:
        return session_factory, study_id, study_detail(s, study_id)


def test_the_spread_pick_is_the_overlays_pick_from_the_whole_detail(study):
    from gapsweep.web.views.study_results import spectra_cases

    sessions, study_id, detail = study
    done = [c for c in detail["cases"] if c["status"] == "done"]
    for limit in (3, 5, 12):
        whole = [c["id"] for c in spectra_cases(detail, limit)]
        with sessions() as s:
            picked, total = case_samples.spread_cases(
                s, study_id=study_id, along="clearance_mm", equal={"stiffness_scale": 1.0},
                limit=limit)
        assert [c["id"] for c in picked] == whole
        assert total == sum(c["params"]["stiffness_scale"] == 1.0 for c in done)
    with sessions() as s:
        levels = case_samples.axis_levels(s, study_id=study_id, axis="stiffness_scale")
    assert sorted(levels) == sorted({c["params"]["stiffness_scale"] for c in done})


@pytest.mark.parametrize("bins", [100, 4])
def test_the_class_map_counts_every_done_case_once(study, bins):
    sessions, study_id, detail = study
    done = [c for c in detail["cases"] if c["status"] == "done"]
    with sessions() as s:
        cells = case_samples.motion_cells(s, study_id=study_id, x_axis="clearance_mm",
                                          y_axis="stiffness_scale", bins=bins)
    assert sum(c["count"] for c in cells) == len(done)
    assert Counter(c["motion"] for c in cells for _ in range(c["count"])) == \
        Counter(c["metrics"]["motion"] for c in done)
    xs = {c["x"] for c in cells}
    assert len(xs) == min(bins, len({c["params"]["clearance_mm"] for c in done}))
    if bins >= 12:  # each level its own cell: every (level pair, class) with its cases
        assert Counter({(c["x"], c["y"], c["motion"]): c["count"] for c in cells}) == Counter(
            (c["params"]["clearance_mm"], c["params"]["stiffness_scale"], c["metrics"]["motion"])
            for c in done)
        assert all(min(i for i in _ids(done, c)) == c["id"] for c in cells)


def _ids(done, cell):
    return [c["id"] for c in done if (c["params"]["clearance_mm"], c["params"]["stiffness_scale"],
                                      c["metrics"]["motion"]) == (cell["x"], cell["y"],
                                                                   cell["motion"])]


def test_the_start_flag_counts_what_the_python_rule_flags(study):
    from gapsweep.web.figures.bifurcation import (
        START_SPREAD_TOLERANCE,
        depends_on_start,
        start_dependence_note,
    )

    sessions, study_id, detail = study
    with sessions() as s:
        cases, count, largest = case_samples.start_dependent_cases(
            s, study_id=study_id, tolerance=START_SPREAD_TOLERANCE)
    flagged = [c for c in detail["cases"] if c["status"] == "done" and depends_on_start(c)]
    assert count == len(flagged) > 12
    assert [c["id"] for c in cases] == [c["id"] for c in flagged[:12]]
    from gapsweep.web.figures.bifurcation import start_dependence_text

    assert start_dependence_text([c["id"] for c in cases], count, largest) == \
        start_dependence_note(detail["cases"])
