"""Measured records (design.md 4.9) and an adaptive study's search state.

``measurements``: a rig's CSV, validated, stored as JSON with its study (and optionally a
case). ``studies.search``: what an optimize / calibrate study's search has reached
(generation, best so far, history, finished) - derived from its cases, which are the
optimizer's whole state.

Revision ID: 0004_measurements
Revises: 0003_case_kinds
Create Date: 2026-12-03
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004_measurements"
down_revision = "0003_case_kinds"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "measurements",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("study_id", sa.Integer(), nullable=False),
        sa.Column("case_id", sa.Integer(), nullable=True),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("time_base", sa.String(length=16), nullable=False),
        sa.Column("n_samples", sa.Integer(), nullable=False),
        sa.Column("data", sa.JSON(), nullable=False),
        sa.Column("created", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["study_id"], ["studies.id"],
                                name="fk_measurements_study_id_studies", ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["case_id"], ["cases.id"],
                                name="fk_measurements_case_id_cases", ondelete="SET NULL"),
        sa.PrimaryKeyConstraint("id", name="pk_measurements"),
        sqlite_autoincrement=True,
    )
    op.create_index("ix_measurements_study_id", "measurements", ["study_id"])
    with op.batch_alter_table("studies") as batch:
        batch.add_column(sa.Column("search", sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("studies") as batch:
        batch.drop_column("search")
    op.drop_index("ix_measurements_study_id", table_name="measurements")
    op.drop_table("measurements")
