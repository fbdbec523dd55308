"""the cluster: table leases (owner, fencing epoch, expiry) and table definitions (docs/cluster.md)

Revision ID: 0006_table_leases
Revises: 0005_sign_ins
Create Date: 2026-12-02 09:40:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006_table_leases"
down_revision: str | None = "0005_sign_ins"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "table_leases",
        sa.Column("table_id", sa.String(length=32), nullable=False),
        sa.Column("owner", sa.String(length=64), nullable=False),
        sa.Column("epoch", sa.BigInteger(), nullable=False),
        sa.Column("expires_at", sa.Float(), nullable=False),
        sa.CheckConstraint("epoch > 0", name=op.f("ck_table_leases_positive_epoch")),
        sa.PrimaryKeyConstraint("table_id", name=op.f("pk_table_leases")),
    )
    op.create_table(
        "table_definitions",
        sa.Column("table_id", sa.String(length=32), nullable=False),
        sa.Column("definition", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("table_id", name=op.f("pk_table_definitions")),
    )


def downgrade() -> None:
    op.drop_table("table_definitions")
    op.drop_table("table_leases")
