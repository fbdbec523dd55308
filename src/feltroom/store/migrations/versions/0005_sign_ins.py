"""sign-in log: sign_ins keeps each sign-in's account, address, user agent and time

Revision ID: 0005_sign_ins
Revises: 0004_names_nocase
Create Date: 2026-12-02 09:15:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005_sign_ins"
down_revision: str | None = "0004_names_nocase"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "sign_ins",
        sa.Column(
            "sign_in_id",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            autoincrement=True,
            nullable=False,
        ),
        sa.Column("account", sa.String(length=32), nullable=False),
        sa.Column("address", sa.String(length=64), nullable=False),
        sa.Column("user_agent", sa.String(length=255), nullable=False),
        sa.Column("at", sa.Float(), nullable=False),
        sa.ForeignKeyConstraint(
            ["account"], ["users.name"], name=op.f("fk_sign_ins_account_users")
        ),
        sa.PrimaryKeyConstraint("sign_in_id", name=op.f("pk_sign_ins")),
        sqlite_autoincrement=True,
    )
    with op.batch_alter_table("sign_ins", schema=None) as batch_op:
        batch_op.create_index("ix_sign_ins_address", ["address"], unique=False)
        batch_op.create_index(batch_op.f("ix_sign_ins_at"), ["at"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("sign_ins", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_sign_ins_at"))
        batch_op.drop_index("ix_sign_ins_address")
    op.drop_table("sign_ins")
