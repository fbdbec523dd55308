"""verified identities: what the operator checked at verification, as a keyed hash

``verify`` takes the identity the operator checked (a document number or an e-mail address);
the room keeps only its keyed hash (HMAC-SHA256 under a random key of the room's, in
``room_secrets``), with the account's name in lower case, so that an identity that belongs to a
self-excluded account verifies no other account while the exclusion runs (docs/operator.md).

Revision ID: 0015_verified_identities
Revises: 0014_seats_player
Create Date: 2026-12-05 19:30:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0015_verified_identities"
down_revision: str | None = "0014_seats_player"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "verified_identities",
        sa.Column("identity", sa.String(length=64), nullable=False),
        sa.Column("name", sa.String(length=32), nullable=False),
        sa.Column("verified_at", sa.Float(), nullable=False),
        sa.PrimaryKeyConstraint("identity", "name", name=op.f("pk_verified_identities")),
    )
    op.create_table(
        "room_secrets",
        sa.Column("name", sa.String(length=32), nullable=False),
        sa.Column("value", sa.String(length=128), nullable=False),
        sa.PrimaryKeyConstraint("name", name=op.f("pk_room_secrets")),
    )


def downgrade() -> None:
    op.drop_table("room_secrets")
    op.drop_table("verified_identities")
