"""an index on the seats' player: a player's seats are found without reading every seat

A gateway of a cluster looks up the seats of every player who says hello (to put them back at
their tables); without the index that read every seat of every table, a cost that grew with the
room for each connection.

Revision ID: 0014_seats_player
Revises: 0013_account_ids
Create Date: 2026-12-03 02:40:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0014_seats_player"
down_revision: str | None = "0013_account_ids"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_index("ix_seats_player", "seats", ["player"])


def downgrade() -> None:
    op.drop_index("ix_seats_player", table_name="seats")
