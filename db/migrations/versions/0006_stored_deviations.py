"""Twin deviations stored with the results (issue 34.3): back-fill the archives from before.

Since this revision a clearance case's ``deviation_*`` from its ideal twin are computed once,
when the case (or its twin, whichever is stored last) is stored, and kept in
``results.extra`` with its other metrics; every read takes them as stored. Results stored
before carry none: this revision computes them, with the same rule
(:func:`gapsweep.study.twins.deviations`), for every clearance case that has a result and a
twin. No schema change; the downgrade removes the stored keys again.

Revision ID: 0006_stored_deviations
Revises: 0005_case_pages
Create Date: 2026-12-06
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0006_stored_deviations"
down_revision = "0005_case_pages"
branch_labels = None
depends_on = None

_BATCH = 2000  # results per round trip: memory bounded by a batch, not by the archive


def _tables() -> tuple[sa.Table, sa.Table, list[str]]:
    from gapsweep.db.models import METRIC_COLUMNS

    meta = sa.MetaData()
    cases = sa.Table("cases", meta, sa.Column("id", sa.Integer, primary_key=True),
                     sa.Column("kind", sa.String), sa.Column("twin_id", sa.Integer))
    results = sa.Table("results", meta, sa.Column("id", sa.Integer, primary_key=True),
                       sa.Column("case_id", sa.Integer), sa.Column("extra", sa.JSON),
                       *[sa.Column(m, sa.Float) for m in METRIC_COLUMNS])
    return cases, results, list(METRIC_COLUMNS)


def _metrics(row: Any, columns: list[str]) -> dict[str, Any]:
    out = {m: getattr(row, m) for m in columns if getattr(row, m) is not None}
    out.update(row.extra or {})
    return out


def upgrade() -> None:
    from gapsweep.study.twins import deviations

    bind = op.get_bind()
    cases, results, columns = _tables()
    twin_result = results.alias("twin_result")
    query = (
        sa.select(results.c.id, results.c.extra, *[results.c[m] for m in columns],
                  *[twin_result.c[m].label(f"t_{m}") for m in columns],
                  twin_result.c.extra.label("t_extra"))
        .select_from(results.join(cases, cases.c.id == results.c.case_id)
                     .outerjoin(twin_result, twin_result.c.case_id == cases.c.twin_id))
        .where(cases.c.kind == "case", cases.c.twin_id.is_not(None))
        .order_by(results.c.id)
    )
    after = 0
    while True:
        rows = bind.execute(query.where(results.c.id > after).limit(_BATCH)).all()
        if not rows:
            return
        updates = []
        for row in rows:
            twin = {m: getattr(row, f"t_{m}") for m in columns
                    if getattr(row, f"t_{m}") is not None}
            twin.update(row.t_extra or {})
            found = deviations(_metrics(row, columns), twin)
            updates.append({"rid": row.id, "new_extra": {**(row.extra or {}), **found}})
        bind.execute(results.update().where(results.c.id == sa.bindparam("rid"))
                     .values(extra=sa.bindparam("new_extra")), updates)
        after = rows[-1].id


def downgrade() -> None:
    bind = op.get_bind()
    _, results, _ = _tables()
    rows = bind.execute(sa.select(results.c.id, results.c.extra)).all()
    updates = [{"rid": r.id, "new_extra": {k: v for k, v in r.extra.items()
                                           if not k.startswith("deviation_")}}
               for r in rows if r.extra and any(k.startswith("deviation_") for k in r.extra)]
    if updates:
        bind.execute(results.update().where(results.c.id == sa.bindparam("rid"))
                     .values(extra=sa.bindparam("new_extra")), updates)
