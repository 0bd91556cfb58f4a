"""A mechanism study's cases store what varies; the study holds its [mechanism] table once
and the claim joins it in (issue 34.4), on SQLite and PostgreSQL. An archive whose cases
carry the table (from before) still claims and reads them with it."""

from __future__ import annotations

import json
from pathlib import Path

from gapsweep.db.leases import claim_cases
from gapsweep.db.models import Case
from gapsweep.db.studies import case_detail, create_study, study_detail
from gapsweep.study.designs import plan_study
from gapsweep.study.spec import load_spec_file
from sqlalchemy import select, update

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "mechanism_four_bar_crank_rocker.toml"


def _study(session_factory):
    spec = load_spec_file(EXAMPLE)
    with session_factory.begin() as s:
        created = create_study(s, spec=spec, plan=plan_study(spec), provenance={})
    return spec, created


def test_a_case_stores_what_varies_and_runs_with_the_study_table(session_factory):
    spec, created = _study(session_factory)
    table_chars = len(json.dumps(spec.mechanism))
    assert table_chars > 1000  # the example's table: what each case used to repeat
    with session_factory() as s:
        stored = [s.get(Case, i).params for i in created.queued_ids]
        shown = study_detail(s, created.id)
        page = case_detail(s, created.case_ids[0])
    assert all("mechanism" not in p for p in stored)
    assert max(len(json.dumps(p)) for p in stored) < 200
    assert all("mechanism" not in c["params"] for c in shown["cases"] + shown["twins"])
    assert page["params"]["mechanism"] == spec.mechanism  # the case page draws it
    with session_factory.begin() as s:
        claimed = claim_cases(s, case_ids=created.queued_ids, holder="w", lease_s=60)
    assert len(claimed) == len(created.queued_ids)
    assert all(c.params["mechanism"] == spec.mechanism for c in claimed)
    assert {k: v for k, v in claimed[-1].params.items() if k != "mechanism"} == stored[-1]


def test_a_case_from_before_keeps_the_table_it_carries(session_factory):
    spec, created = _study(session_factory)
    own = {**spec.mechanism, "name": "carried by the case"}
    first = created.case_ids[0]
    with session_factory.begin() as s:
        params = s.scalar(select(Case.params).where(Case.id == first))
        s.execute(update(Case).where(Case.id == first)
                  .values(params={**params, "mechanism": own}))
    with session_factory.begin() as s:
        (claimed,) = claim_cases(s, case_ids=[first], holder="w", lease_s=60)
    assert claimed.params["mechanism"] == own
    with session_factory() as s:
        assert case_detail(s, first)["params"]["mechanism"] == own
