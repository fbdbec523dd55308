"""player protection: verified accounts, limits, reminders, cool-off and self-exclusion

Revision ID: 0012_player_protection
Revises: 0010_operator_log
Create Date: 2026-12-02 13:10:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0012_player_protection"
down_revision: str | None = "0010_operator_log"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Plain ADD COLUMN (no table copy): the users table keeps its expression index.
    op.add_column(
        "users", sa.Column("verified", sa.Boolean(), nullable=False, server_default=sa.false())
    )
    op.create_table(
        "player_protection",
        sa.Column("name", sa.String(length=32), nullable=False),
        sa.Column("reminder_minutes", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("cool_off_until", sa.Float(), nullable=True),
        sa.Column("excluded_until", sa.Float(), nullable=True),
        sa.Column("excluded_permanently", sa.Boolean(), nullable=False, server_default=sa.false()),
        sa.PrimaryKeyConstraint("name", name=op.f("pk_player_protection")),
    )
    op.create_table(
        "player_limits",
        sa.Column("name", sa.String(length=32), nullable=False),
        sa.Column("currency", sa.String(length=8), nullable=False),
        sa.Column("kind", sa.String(length=8), nullable=False),
        sa.Column("period", sa.String(length=8), nullable=False),
        sa.Column("amount", sa.BigInteger(), nullable=True),
        sa.Column("pending", sa.BigInteger(), nullable=True),
        sa.Column("pending_at", sa.Float(), nullable=True),
        sa.PrimaryKeyConstraint(
            "name", "currency", "kind", "period", name=op.f("pk_player_limits")
        ),
    )
    op.create_index(
        "ix_transfers_credit_created_at", "transfers", ["credit", "created_at"], unique=False
    )
    op.create_index(
        "ix_transfers_debit_created_at", "transfers", ["debit", "created_at"], unique=False
    )


def downgrade() -> None:
    op.drop_index("ix_transfers_debit_created_at", table_name="transfers")
    op.drop_index("ix_transfers_credit_created_at", table_name="transfers")
    op.drop_table("player_limits")
    op.drop_table("player_protection")
    op.drop_column("users", "verified")
