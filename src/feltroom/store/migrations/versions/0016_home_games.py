"""home games: the private tables players host (issue 45, docs/home-games.md)

Each game's host, its invite link's secret, its status and the rest of it as JSON. Its table is
a table definition like any other and its chips a currency of the books (the game's id).

Revision ID: 0016_home_games
Revises: 0015_verified_identities
Create Date: 2026-12-05 23:00:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0016_home_games"
down_revision: str | None = "0015_verified_identities"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "home_games",
        sa.Column("game_id", sa.String(length=32), nullable=False),
        sa.Column("host", sa.String(length=32), nullable=False),
        sa.Column("secret", sa.String(length=64), nullable=False),
        sa.Column("status", sa.String(length=8), nullable=False),
        sa.Column("created_at", sa.Float(), nullable=False),
        sa.Column("ended_at", sa.Float(), nullable=True),
        sa.Column("state", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("game_id", name=op.f("pk_home_games")),
    )
    op.create_index("uq_home_games_secret", "home_games", ["secret"], unique=True)
    op.create_index(op.f("ix_home_games_host"), "home_games", ["host"], unique=False)


def downgrade() -> None:
    op.drop_index("uq_home_games_secret", table_name="home_games")
    op.drop_index(op.f("ix_home_games_host"), table_name="home_games")
    op.drop_table("home_games")
