"""Certificates as their own case kind: ``kind = 'certificate'`` with the design case it
refines (``source_case_id``) and its refinement (``slot``).

Before this revision a convergence certificate was a row of kind "twin" with a negative
``index`` encoding both: ``index = -(1 + source_index * 8 + slot)``. The upgrade converts
those rows (each gets the id of its source, its slot, and an ``index`` counting the study's
certificates 0, 1, ... by source then slot); the downgrade writes the old encoding back.
A database check keeps the new columns to certificates, and (source, slot) is unique, which
the encoding used to give through ``uq_cases_study_id_kind_index``.

tests/db/test_db_case_kinds.py upgrades an archive made at 0002 (certificates in it) and
downgrades it again, on both databases; tests/db/test_db_migrations.py compares the result
with the models.

Revision ID: 0003_case_kinds
Revises: 0002_accounts
Create Date: 2026-12-03
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003_case_kinds"
down_revision = "0002_accounts"
branch_labels = None
depends_on = None

OLD_SLOTS = 8  # refinement slots per source case in the 0002 encoding
KIND_0002 = "kind IN ('case', 'twin')"
KIND_0003 = "kind IN ('case', 'twin', 'certificate')"
# a certificate names its source and slot, nothing else does
SOURCE = ("(kind = 'certificate' AND source_case_id IS NOT NULL AND slot IS NOT NULL) OR "
          "(kind <> 'certificate' AND source_case_id IS NULL AND slot IS NULL)")

_cases = sa.table(
    "cases",
    sa.column("id", sa.Integer),
    sa.column("study_id", sa.Integer),
    sa.column("kind", sa.String),
    sa.column("index", sa.Integer),
    sa.column("source_case_id", sa.Integer),
    sa.column("slot", sa.Integer),
)


def upgrade() -> None:
    with op.batch_alter_table("cases", table_kwargs={"sqlite_autoincrement": True}) as batch:
        batch.alter_column("kind", existing_type=sa.String(length=8),
                           type_=sa.String(length=16), existing_nullable=False)
        batch.add_column(sa.Column("source_case_id", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("slot", sa.Integer(), nullable=True))
        batch.drop_constraint("ck_cases_kind", type_="check")
        batch.create_check_constraint("ck_cases_kind", KIND_0003)
        batch.create_check_constraint("ck_cases_source", SOURCE)
        batch.create_foreign_key("fk_cases_source_case_id_cases", "cases", ["source_case_id"],
                                 ["id"], ondelete="CASCADE")
        batch.create_unique_constraint("uq_cases_source_case_id_slot", ["source_case_id", "slot"])
    _certificates_up(op.get_bind())


def _certificates_up(conn: sa.Connection) -> None:
    """Each old certificate row (kind "twin", index < 0) as kind "certificate"."""
    rows = conn.execute(
        sa.select(_cases.c.id, _cases.c.study_id, _cases.c.index)
        .where(_cases.c.kind == "twin", _cases.c.index < 0)
    ).all()
    by_study: dict[int, list[tuple[int, int, int]]] = {}
    for case_id, study_id, index in rows:
        source_index, slot = divmod(-index - 1, OLD_SLOTS)
        by_study.setdefault(study_id, []).append((source_index, slot, case_id))
    for study_id, certificates in by_study.items():
        sources = dict(conn.execute(
            sa.select(_cases.c.index, _cases.c.id)
            .where(_cases.c.study_id == study_id, _cases.c.kind == "case")
        ).all())
        for n, (source_index, slot, case_id) in enumerate(sorted(certificates)):
            if source_index not in sources:  # its source is gone: nothing left to certify
                conn.execute(sa.delete(_cases).where(_cases.c.id == case_id))
                continue
            conn.execute(
                sa.update(_cases).where(_cases.c.id == case_id)
                .values(kind="certificate", index=n, source_case_id=sources[source_index],
                        slot=slot)
            )


def _certificates_down(conn: sa.Connection) -> None:
    """Each certificate back to the 0002 encoding: kind "twin", a negative index."""
    source = sa.alias(_cases, "source")
    rows = conn.execute(
        sa.select(_cases.c.id, source.c.index, _cases.c.slot)
        .join(source, source.c.id == _cases.c.source_case_id)
        .where(_cases.c.kind == "certificate")
    ).all()
    for case_id, source_index, slot in rows:
        conn.execute(
            sa.update(_cases).where(_cases.c.id == case_id)
            .values(kind="twin", index=-(1 + source_index * OLD_SLOTS + slot),
                    source_case_id=None, slot=None)
        )


def downgrade() -> None:
    _certificates_down(op.get_bind())
    with op.batch_alter_table("cases", table_kwargs={"sqlite_autoincrement": True}) as batch:
        batch.drop_constraint("uq_cases_source_case_id_slot", type_="unique")
        batch.drop_constraint("fk_cases_source_case_id_cases", type_="foreignkey")
        batch.drop_constraint("ck_cases_source", type_="check")
        batch.drop_constraint("ck_cases_kind", type_="check")
        batch.create_check_constraint("ck_cases_kind", KIND_0002)
        batch.drop_column("slot")
        batch.drop_column("source_case_id")
        batch.alter_column("kind", existing_type=sa.String(length=16),
                           type_=sa.String(length=8), existing_nullable=False)
