"""verifiable deals: hand_deals keeps each settled hand's deck order, salts and commitment

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01 18:45:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "hand_deals",
        sa.Column("hand_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("scheme", sa.String(length=32), nullable=False),
        sa.Column("commitment", sa.String(length=64), nullable=False),
        sa.Column("deck", sa.String(length=160), nullable=False),
        sa.Column("salts", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(
            ["hand_id"], ["hands.hand_id"], name=op.f("fk_hand_deals_hand_id_hands")
        ),
        sa.PrimaryKeyConstraint("hand_id", name=op.f("pk_hand_deals")),
    )


def downgrade() -> None:
    op.drop_table("hand_deals")
