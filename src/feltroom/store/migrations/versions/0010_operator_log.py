"""operators: operator and suspended accounts, operator addresses, table status, the operator log

Revision ID: 0010_operator_log
Revises: 0006_table_leases
Create Date: 2026-12-02 12:50:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010_operator_log"
down_revision: str | None = "0009_player_settings"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Plain ADD COLUMN (no table copy): the users table keeps its expression index.
    op.add_column(
        "users", sa.Column("operator", sa.Boolean(), nullable=False, server_default=sa.false())
    )
    op.add_column(
        "users", sa.Column("suspended", sa.Boolean(), nullable=False, server_default=sa.false())
    )
    op.add_column(
        "users",
        sa.Column("operator_addresses", sa.String(length=255), nullable=False, server_default=""),
    )
    op.add_column(
        "table_definitions",
        sa.Column("status", sa.String(length=8), nullable=False, server_default="open"),
    )
    op.create_table(
        "operator_log",
        sa.Column(
            "entry_id",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            autoincrement=True,
            nullable=False,
        ),
        sa.Column("at", sa.Float(), nullable=False),
        sa.Column("operator", sa.String(length=32), nullable=False),
        sa.Column("action", sa.String(length=32), nullable=False),
        sa.Column("target", sa.String(length=80), nullable=False),
        sa.Column("reason", sa.String(length=500), nullable=False),
        sa.Column("details", sa.Text(), nullable=False, server_default="{}"),
        sa.PrimaryKeyConstraint("entry_id", name=op.f("pk_operator_log")),
        sqlite_autoincrement=True,
    )
    op.create_index(op.f("ix_operator_log_at"), "operator_log", ["at"], unique=False)


def downgrade() -> None:
    op.drop_index(op.f("ix_operator_log_at"), table_name="operator_log")
    op.drop_table("operator_log")
    op.drop_column("table_definitions", "status")
    op.drop_column("users", "operator_addresses")
    op.drop_column("users", "suspended")
    op.drop_column("users", "operator")
