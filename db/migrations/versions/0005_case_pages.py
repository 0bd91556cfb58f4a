"""Indexes for reading a large study a page at a time (issue 41).

``ix_cases_study_id_kind_status_index`` (study, kind, status, design index): the keyset page
of a study's cases filtered by status (``GET /api/studies/<id>/cases?status=``) is one range
scan in design order, and the status counts of the header (``study_progress``) are answered
from the index alone. The unfiltered page in design order already has its index, the unique
(study, kind, index) of ``0001_initial``. Headline metrics are real columns of ``results``
since ``0001_initial``: a metric of 100,000 cases is read from its column, no JSON decoded.

Revision ID: 0005_case_pages
Revises: 0004_measurements
Create Date: 2026-12-06
"""

from __future__ import annotations

from alembic import op

revision = "0005_case_pages"
down_revision = "0004_measurements"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_cases_study_id_kind_status_index", "cases",
                    ["study_id", "kind", "status", "index"])


def downgrade() -> None:
    op.drop_index("ix_cases_study_id_kind_status_index", table_name="cases")
