"""the cluster's shared state: the throttles, the tables' states (docs/cluster.md)

Revision ID: 0007_cluster_state
Revises: 0006_table_leases
Create Date: 2026-12-02 12:50:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007_cluster_state"
down_revision: str | None = "0006_table_leases"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "throttle_failures",
        sa.Column(
            "failure_id",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            autoincrement=True,
            nullable=False,
        ),
        sa.Column("scope", sa.String(length=16), nullable=False),
        sa.Column("key", sa.String(length=160), nullable=False),
        sa.Column("at", sa.Float(), nullable=False),
        sa.PrimaryKeyConstraint("failure_id", name=op.f("pk_throttle_failures")),
        sqlite_autoincrement=True,
    )
    op.create_index(
        "ix_throttle_failures_scope_key_at", "throttle_failures", ["scope", "key", "at"]
    )
    op.create_table(
        "table_states",
        sa.Column("table_id", sa.String(length=32), nullable=False),
        sa.Column("state", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("table_id", name=op.f("pk_table_states")),
    )


def downgrade() -> None:
    op.drop_table("table_states")
    op.drop_index("ix_throttle_failures_scope_key_at", table_name="throttle_failures")
    op.drop_table("throttle_failures")
