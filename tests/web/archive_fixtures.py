"""A web app over a temporary SQLite archive, and studies in it with synthetic results.

Shared by the API and page tests (not a test module). Results are written through the
workers' own path (claim, then complete under the lease) with made-up metrics, so the tests
need no solver run; the metric values are functions of the parameters, so a test can
compute what a page or the API must show independently of the code under test.
"""

from __future__ import annotations

import contextlib
import copy
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pytest
from gapsweep.core.result import CaseResult
from gapsweep.db import leases, studies
from gapsweep.study.spec import parse_spec
from gapsweep.web.views.study_form import PRESET
from support.database_fixtures import copy_sqlite_at_head

from gapsweep.settings import get_settings

HOLDER = "test-holder"
N_SERIES = 50


def fake_metrics(params: dict[str, Any]) -> dict[str, float | int]:
    """Distinct, parameter-determined metrics (ideal twin: clearance 0)."""
    c = 0.0 if params.get("ideal") else float(params.get("clearance_mm", 0.5))
    k = float(params.get("stiffness_scale", 1.0))
    peak = 1000.0 * (1 + 100 * c) * k
    return {
        "peak_slider_accel": peak,
        "rms_slider_accel": peak / 3,
        "peak_contact_force": 10 * peak,
        "max_penetration": 1e-6 * k,
        "impacts": int(round(100 * c)),
        "peak_slider_accel_steady": peak / 2,
        "rms_slider_accel_steady": peak / 6,
        "peak_contact_force_steady": 5 * peak,
        "max_penetration_steady": 1e-6 * k,
        "impacts_steady": 1,
        "peak_driving_torque": 20.0 * k,
        "wall_time_s": 0.01,
        # the settled motion's (issue 23): the headline columns of tables and grids
        "peak_slider_accel_settled": 0.9 * peak,
        "peak_contact_force_settled": 9 * peak,
        "max_penetration_settled": 0.9e-6 * k,
        "impacts_settled": int(round(50 * c)),
        "peak_slider_accel_startup": 2 * peak,
    }


def fake_series(params: dict[str, Any]) -> dict[str, np.ndarray]:
    t = np.linspace(0.0, 0.024, N_SERIES)
    c = float(params.get("clearance_mm", 0.5)) * 1e-3
    return {
        "t": t,
        "slider_acceleration": np.sin(2 * np.pi * 83.3 * t) * fake_metrics(params)[
            "peak_slider_accel"],
        "eccentricity_x": c * np.cos(2 * np.pi * t / 0.012),
        "eccentricity_y": c * np.sin(2 * np.pi * t / 0.012),
        "penetration": np.zeros_like(t),
        # a spectrum with one peak whose height is the case's peak acceleration
        "spectrum_freq_hz": np.linspace(0.0, 1000.0, 101),
        "spectrum_slider_acceleration": np.where(
            np.arange(101) == 8, fake_metrics(params)["peak_slider_accel"], 1.0),
    }


@dataclass
class Archive:
    """The app, its settings and a record of what was "enqueued"."""

    app: Any
    settings: Any
    sent: list[list[int]] = field(default_factory=list)

    @property
    def sessions(self):
        from gapsweep.web import context

        return self.app.server.extensions[context.EXTENSION].sessions

    def client(self):
        return self.app.server.test_client()

    @contextlib.contextmanager
    def request(self, **kwargs: Any):
        """A request context that has passed the server's guard (web/auth.py), as a page
        load or a callback would: calling a callback as a plain function inside it sees the
        principal the guard set."""
        with self.app.server.test_request_context(**kwargs):
            denied = self.app.server.preprocess_request()
            assert denied is None, denied
            yield

    def create(self, data: dict[str, Any] | None = None) -> int:
        """Create a study (rows only, nothing enqueued); its id."""
        from gapsweep.workers.submit import create_study_rows

        return create_study_rows(parse_spec(data or preset()), sessions=self.sessions)

    def case_ids(self, study_id: int, kind: str | None = None) -> list[int]:
        from gapsweep.db.models import Case
        from sqlalchemy import select

        with self.sessions() as s:
            q = select(Case.id).where(Case.study_id == study_id).order_by(Case.id)
            if kind:
                q = q.where(Case.kind == kind)
            return list(s.scalars(q))

    def run(self, case_ids: list[int], *, fail: set[int] = frozenset()) -> None:
        """Claim and complete the cases with :func:`fake_metrics` (or fail them, final)."""
        from gapsweep.db.models import Case
        from gapsweep.db.studies import refresh_study_status

        with self.sessions.begin() as s:
            leases.claim_cases(s, case_ids=case_ids, holder=HOLDER, lease_s=60)
        for case_id in case_ids:
            with self.sessions.begin() as s:
                case = s.get(Case, case_id)
                params = dict(case.params)
                if case.kind == "twin" and case.index >= 0:  # < 0: a certificate
                    params["ideal"] = True
                if case_id in fail:
                    leases.fail_case(s, case_id=case_id, holder=HOLDER, reason="diverged",
                                     final=True)
                else:
                    result = CaseResult("slider-crank", params, metrics=fake_metrics(params))
                    leases.complete_case(s, case_id=case_id, holder=HOLDER, result=result,
                                         series=fake_series(params))
                refresh_study_status(s, case.study_id)

    def count(self, table: str) -> int:
        from sqlalchemy import text

        with self.sessions() as s:
            return int(s.execute(text(f"SELECT count(*) FROM {table}")).scalar())  # noqa: S608


def preset() -> dict[str, Any]:
    return copy.deepcopy(PRESET)


@pytest.fixture
def archive(tmp_path, monkeypatch) -> Archive:
    """A fresh app over ``tmp_path`` (embedded default); submit_study replaced by a stand-in
    that creates the rows for real and records the enqueue instead of sending it."""
    return make_archive(tmp_path, monkeypatch)


def make_archive(tmp_path, monkeypatch, database_url: str | None = None) -> Archive:
    """What the ``archive`` fixture returns, over ``database_url`` when given (else SQLite
    in ``tmp_path``)."""
    monkeypatch.setenv("GAPSWEEP_DATA", str(tmp_path))
    for var in ("GAPSWEEP_DATABASE_URL", "GAPSWEEP_BROKER_URL"):
        monkeypatch.delenv(var, raising=False)
    if database_url:
        monkeypatch.setenv("GAPSWEEP_DATABASE_URL", database_url)
    else:
        copy_sqlite_at_head(tmp_path / "gapsweep.db")
    import gapsweep.workers.submit as submit_module
    from gapsweep.web.app import create_app

    settings = get_settings()
    arch = Archive(app=create_app(settings), settings=settings)

    def stand_in(spec, *, sessions, settings, owner=None, plan=None, dispatcher=None):
        study_id = submit_module.create_study_rows(spec, sessions=sessions, owner=owner,
                                                   plan=plan)
        with sessions() as s:
            arch.sent.append(studies.queued_case_ids(s, study_id=study_id))
        return study_id

    monkeypatch.setattr(submit_module, "submit_study", stand_in)
    return arch


def page(name: str):
    """The page module Dash loaded from web/pages (after an app was created)."""
    import sys

    return sys.modules[f"pages.{name}"]


def component_ids(component) -> set:
    """Every id in a layout tree (the root's included); a pattern-matching id (a dict) as
    its sorted JSON text."""
    import json

    def key(c):
        cid = getattr(c, "id", None)
        return json.dumps(cid, sort_keys=True) if isinstance(cid, dict) else cid

    return {key(c) for c in [component, *component._traverse()]} - {None}


def find(component, cid):
    """The component with id ``cid`` in a layout tree."""
    for c in [component, *component._traverse()]:
        if getattr(c, "id", None) == cid:
            return c
    raise KeyError(cid)


def texts(component) -> str:
    """All the text of a layout tree, joined (what the user reads)."""
    out = []

    def walk(node):
        if isinstance(node, (str, int, float)):
            out.append(str(node))
        elif isinstance(node, (list, tuple)):
            for n in node:
                walk(n)
        elif node is not None and hasattr(node, "children"):
            walk(node.children)

    walk(component)
    return " ".join(out)


def run_as_worker(archive: Archive, study_id: int, case_ids: list[int],
                  model: str = "mechanism") -> dict[int, dict]:
    """Claim, run (for real, a twin ideal) and complete ``case_ids`` through the workers' own
    path: the claim joins the study's fixed parameters in, the study's series policy keeps
    the preview. Returns each case's claimed params."""
    from gapsweep.core.api import run_case
    from gapsweep.workers.series_policy import select_series

    with archive.sessions.begin() as s:
        claimed = leases.claim_cases(s, case_ids=case_ids, holder=HOLDER, lease_s=600)
        params = {c.id: dict(c.params) for c in claimed}
        kinds = {c.id: c.kind for c in claimed}
    for cid in case_ids:
        p = {**params[cid], "ideal": True} if kinds[cid] == "twin" else dict(params[cid])
        result = run_case(model, p)
        assert result.ok, result.reason
        with archive.sessions.begin() as s:
            series = select_series(result, "preview", result.rotation_hz)
            assert leases.complete_case(s, case_id=cid, holder=HOLDER, result=result,
                                        series=series)
            studies.refresh_study_status(s, study_id)
    return {cid: params[cid] for cid in case_ids if kinds[cid] == "case"}

