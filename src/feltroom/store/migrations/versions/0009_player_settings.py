"""player settings: whether a player shares their statistics and lets others find their tables

Revision ID: 0009_player_settings
Revises: 0006_table_leases
Create Date: 2026-12-02 12:40:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009_player_settings"
down_revision: str | None = "0008_tournaments"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "player_settings",
        sa.Column("player", sa.String(length=32), nullable=False),
        sa.Column("share_stats", sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.Column("findable", sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.ForeignKeyConstraint(
            ["player"], ["users.name"], name=op.f("fk_player_settings_player_users")
        ),
        sa.PrimaryKeyConstraint("player", name=op.f("pk_player_settings")),
    )


def downgrade() -> None:
    op.drop_table("player_settings")
