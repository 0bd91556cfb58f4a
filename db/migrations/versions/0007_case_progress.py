"""A running case's progress within itself (issue 37: a wear life's steps).

A case of a wear life is ``wear_steps + 1`` settled runs, seconds to minutes where the other
cases take milliseconds: a study of such cases would otherwise show nothing between one
case's claim and its result. ``cases.progress`` (JSON, nullable) holds the step its worker
last reported, ``{"step": k, "steps": n}``; the claim clears it, the progress report reads
it for the running cases.

Revision ID: 0007_case_progress
Revises: 0006_stored_deviations
Create Date: 2026-12-06
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007_case_progress"
down_revision = "0006_stored_deviations"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("cases") as batch:
        batch.add_column(sa.Column("progress", sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("cases") as batch:
        batch.drop_column("progress")
