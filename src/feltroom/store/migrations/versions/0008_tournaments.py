"""tournaments: each instance (its settings and seed) and the journal of its director's inputs
(docs/tournaments.md)

Revision ID: 0008_tournaments
Revises: 0006_table_leases
Create Date: 2026-12-02 12:40:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008_tournaments"
down_revision: str | None = "0007_cluster_state"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "tournaments",
        sa.Column("tournament_id", sa.String(length=32), nullable=False),
        sa.Column("spec_id", sa.String(length=32), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("currency", sa.String(length=8), nullable=False),
        sa.Column("settings", sa.Text(), nullable=False),
        sa.Column("seed", sa.String(length=40), nullable=False),
        sa.Column("start_at", sa.Float(), nullable=True),
        sa.Column("status", sa.String(length=20), nullable=False),
        sa.Column("created_at", sa.Float(), nullable=False),
        sa.Column("seen_at", sa.Float(), nullable=False),
        sa.PrimaryKeyConstraint("tournament_id", name=op.f("pk_tournaments")),
    )
    op.create_index(op.f("ix_tournaments_status"), "tournaments", ["status"], unique=False)
    op.create_table(
        "tournament_journal",
        sa.Column("tournament_id", sa.String(length=32), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("at", sa.Float(), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("payload", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(
            ["tournament_id"],
            ["tournaments.tournament_id"],
            name=op.f("fk_tournament_journal_tournament_id_tournaments"),
        ),
        sa.PrimaryKeyConstraint("tournament_id", "seq", name=op.f("pk_tournament_journal")),
    )


def downgrade() -> None:
    op.drop_table("tournament_journal")
    op.drop_index(op.f("ix_tournaments_status"), table_name="tournaments")
    op.drop_table("tournaments")
