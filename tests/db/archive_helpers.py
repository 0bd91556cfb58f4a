"""Stand-ins for the study layer's StudySpec and StudyPlan (the attributes create_study
reads), a core-like CaseResult, and small builders shared by the archive's tests."""

from __future__ import annotations

import itertools
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
from gapsweep.core.result import CaseResult
from gapsweep.db.models import Case, Result, Series, Study, StudyTag
from gapsweep.db.studies import create_study
from sqlalchemy import func, select
from sqlalchemy.orm import Session

CLEARANCES = [0.02, 0.035, 0.05, 0.08, 0.1]
STIFFNESS = [0.7, 1.0, 1.3]


@dataclass
class FakeSpec:
    name: str = "Clearance x stiffness"
    model: str = "slider-crank"
    description: str = "Flores mechanism, LN contact"
    tags: list[str] = field(default_factory=lambda: ["flores", "baseline"])
    design: str = "grid"
    series: str = "preview"
    base: dict[str, Any] = field(default_factory=lambda: {"speed_rpm": 5000})

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class FakePlan:
    cases: list[dict[str, Any]]
    twins: list[dict[str, Any]]
    twin_of: list[int | None]


def user_plan(twins: bool = True) -> FakePlan:
    """The user's 15-case grid (clearance outermost), one shared ideal twin."""
    cases = [
        {"speed_rpm": 5000, "clearance_mm": c, "stiffness_scale": k}
        for c, k in itertools.product(CLEARANCES, STIFFNESS)
    ]
    if not twins:
        return FakePlan(cases, [], [None] * len(cases))
    return FakePlan(cases, [{"speed_rpm": 5000, "ideal": True}], [0] * len(cases))


def make_study(session: Session, spec: FakeSpec | None = None, plan: FakePlan | None = None):
    study = create_study(
        session,
        spec=spec or FakeSpec(),
        plan=plan or user_plan(),
        provenance={"gapsweep": "0.1.0", "numpy": np.__version__},
    )
    return study


def fake_metrics(seed: float) -> dict[str, Any]:
    """Metrics shaped like the core's (contract columns plus extras)."""
    return {
        "peak_slider_accel": 1000.0 + seed,
        "rms_slider_accel": 100.0 + seed / 10,
        "peak_contact_force": 2000.0 + seed,
        "max_penetration": 1e-5 * (1 + seed / 100),
        "impacts": int(seed) % 7,
        "peak_slider_accel_steady": 500.0 + seed,
        "rms_slider_accel_steady": 50.0 + seed,
        "peak_contact_force_steady": 300.0 + seed,
        "max_penetration_steady": 1e-6,
        "impacts_steady": 0,
        "peak_driving_torque": 300.0 + seed,
        "contact_time_fraction": 0.5,
        "rhs_evaluations": np.int64(16011),
        "energy_balance_error": np.float64(2.5e-6),
        "wall_time_s": 0.06,
    }


def fake_result(params: dict[str, Any], seed: float = 0.0) -> CaseResult:
    return CaseResult("slider-crank", dict(params), metrics=fake_metrics(seed))


def preview_series(n: int = 500) -> dict[str, np.ndarray]:
    t = np.linspace(0.0, 0.05, n)
    return {"t": t, "slider_acceleration": np.sin(400 * t) * 1e4, "state": np.arange(n)}


def row_counts(session: Session) -> dict[str, int]:
    return {
        m.__tablename__: session.scalar(select(func.count()).select_from(m))
        for m in (Study, StudyTag, Case, Result, Series)
    }
