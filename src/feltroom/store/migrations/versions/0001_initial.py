"""initial schema: accounts, ledger, players, tables, hands

Revision ID: 0001
Revises: (none)
Create Date: 2026-11-29 13:34:41.177206
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "accounts",
        sa.Column("key", sa.String(length=80), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("currency", sa.String(length=8), nullable=False),
        sa.Column("owner", sa.String(length=32), nullable=False),
        sa.Column("balance", sa.BigInteger(), server_default="0", nullable=False),
        sa.CheckConstraint(
            "balance >= 0 OR kind = 'external'", name=op.f("ck_accounts_nonnegative")
        ),
        sa.PrimaryKeyConstraint("key", name=op.f("pk_accounts")),
    )
    with op.batch_alter_table("accounts", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_accounts_owner"), ["owner"], unique=False)

    op.create_table(
        "operations",
        sa.Column("operation", sa.String(length=32), nullable=False),
        sa.Column("key", sa.String(length=200), nullable=False),
        sa.Column("details", sa.Text(), nullable=False),
        sa.Column("result", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("operation", "key", name=op.f("pk_operations")),
    )
    op.create_table(
        "tables",
        sa.Column("table_id", sa.String(length=32), nullable=False),
        sa.Column("currency", sa.String(length=8), nullable=False),
        sa.PrimaryKeyConstraint("table_id", name=op.f("pk_tables")),
    )
    op.create_table(
        "users",
        sa.Column("name", sa.String(length=32), nullable=False),
        sa.Column("password_hash", sa.String(length=255), nullable=False),
        sa.Column("created_at", sa.Float(), nullable=False),
        sa.Column("protections_reset_at", sa.Float(), server_default="0", nullable=False),
        sa.PrimaryKeyConstraint("name", name=op.f("pk_users")),
    )
    op.create_table(
        "hands",
        sa.Column(
            "hand_id",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            autoincrement=True,
            nullable=False,
        ),
        sa.Column("table_id", sa.String(length=32), nullable=False),
        sa.Column("currency", sa.String(length=8), nullable=False),
        sa.Column("status", sa.String(length=8), nullable=False),
        sa.Column("started_at", sa.Float(), nullable=False),
        sa.Column("finished_at", sa.Float(), nullable=True),
        sa.Column("rake", sa.BigInteger(), server_default="0", nullable=False),
        sa.Column("fee", sa.BigInteger(), server_default="0", nullable=False),
        sa.Column("tax", sa.BigInteger(), server_default="0", nullable=False),
        sa.Column("settings", sa.Text(), server_default="{}", nullable=False),
        sa.Column("record", sa.Text(), server_default="{}", nullable=False),
        sa.ForeignKeyConstraint(
            ["table_id"], ["tables.table_id"], name=op.f("fk_hands_table_id_tables")
        ),
        sa.PrimaryKeyConstraint("hand_id", name=op.f("pk_hands")),
        sqlite_autoincrement=True,
    )
    with op.batch_alter_table("hands", schema=None) as batch_op:
        batch_op.create_index("ix_hands_status_table_id", ["status", "table_id"], unique=False)

    op.create_table(
        "protections",
        sa.Column(
            "protection_id",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            autoincrement=True,
            nullable=False,
        ),
        sa.Column("user", sa.String(length=32), nullable=False),
        sa.Column("at", sa.Float(), nullable=False),
        sa.Column("table_id", sa.String(length=32), nullable=False),
        sa.Column("hand_id", sa.BigInteger(), nullable=True),
        sa.ForeignKeyConstraint(["user"], ["users.name"], name=op.f("fk_protections_user_users")),
        sa.PrimaryKeyConstraint("protection_id", name=op.f("pk_protections")),
        sqlite_autoincrement=True,
    )
    with op.batch_alter_table("protections", schema=None) as batch_op:
        batch_op.create_index("ix_protections_user_at", ["user", "at"], unique=False)

    op.create_table(
        "seats",
        sa.Column("table_id", sa.String(length=32), nullable=False),
        sa.Column("player", sa.String(length=32), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("stack", sa.BigInteger(), nullable=False),
        sa.CheckConstraint("stack >= 0", name=op.f("ck_seats_nonnegative")),
        sa.ForeignKeyConstraint(["player"], ["users.name"], name=op.f("fk_seats_player_users")),
        sa.ForeignKeyConstraint(
            ["table_id"], ["tables.table_id"], name=op.f("fk_seats_table_id_tables")
        ),
        sa.PrimaryKeyConstraint("table_id", "player", name=op.f("pk_seats")),
    )
    op.create_table(
        "sessions",
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("user", sa.String(length=32), nullable=False),
        sa.Column("created_at", sa.Float(), nullable=False),
        sa.Column("expires_at", sa.Float(), nullable=False),
        sa.ForeignKeyConstraint(["user"], ["users.name"], name=op.f("fk_sessions_user_users")),
        sa.PrimaryKeyConstraint("token_hash", name=op.f("pk_sessions")),
    )
    with op.batch_alter_table("sessions", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_sessions_expires_at"), ["expires_at"], unique=False)

    op.create_table(
        "transfers",
        sa.Column(
            "seq",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            autoincrement=True,
            nullable=False,
        ),
        sa.Column("transfer_id", sa.String(length=32), nullable=False),
        sa.Column("currency", sa.String(length=8), nullable=False),
        sa.Column("debit", sa.String(length=80), nullable=False),
        sa.Column("credit", sa.String(length=80), nullable=False),
        sa.Column("amount", sa.BigInteger(), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("reference", sa.String(length=255), nullable=False),
        sa.Column("created_at", sa.Float(), nullable=False),
        sa.CheckConstraint("amount > 0", name=op.f("ck_transfers_positive")),
        sa.ForeignKeyConstraint(
            ["credit"], ["accounts.key"], name=op.f("fk_transfers_credit_accounts")
        ),
        sa.ForeignKeyConstraint(
            ["debit"], ["accounts.key"], name=op.f("fk_transfers_debit_accounts")
        ),
        sa.PrimaryKeyConstraint("seq", name=op.f("pk_transfers")),
        sqlite_autoincrement=True,
    )
    with op.batch_alter_table("transfers", schema=None) as batch_op:
        batch_op.create_index("uq_transfers_transfer_id", ["transfer_id"], unique=True)

    op.create_table(
        "hand_players",
        sa.Column("hand_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("player", sa.String(length=32), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("start_stack", sa.BigInteger(), nullable=False),
        sa.Column("contribution", sa.BigInteger(), nullable=False),
        sa.Column("payout", sa.BigInteger(), nullable=False),
        sa.Column("tax", sa.BigInteger(), nullable=False),
        sa.Column("hole", sa.String(length=64), nullable=False),
        sa.Column("showdown", sa.Boolean(), nullable=False),
        sa.Column("shown", sa.Boolean(), nullable=False),
        sa.ForeignKeyConstraint(
            ["hand_id"], ["hands.hand_id"], name=op.f("fk_hand_players_hand_id_hands")
        ),
        sa.PrimaryKeyConstraint("hand_id", "player", name=op.f("pk_hand_players")),
    )
    with op.batch_alter_table("hand_players", schema=None) as batch_op:
        batch_op.create_index("ix_hand_players_player_hand_id", ["player", "hand_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("hand_players", schema=None) as batch_op:
        batch_op.drop_index("ix_hand_players_player_hand_id")

    op.drop_table("hand_players")
    with op.batch_alter_table("transfers", schema=None) as batch_op:
        batch_op.drop_index("uq_transfers_transfer_id")

    op.drop_table("transfers")
    with op.batch_alter_table("sessions", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_sessions_expires_at"))

    op.drop_table("sessions")
    op.drop_table("seats")
    with op.batch_alter_table("protections", schema=None) as batch_op:
        batch_op.drop_index("ix_protections_user_at")

    op.drop_table("protections")
    with op.batch_alter_table("hands", schema=None) as batch_op:
        batch_op.drop_index("ix_hands_status_table_id")

    op.drop_table("hands")
    op.drop_table("users")
    op.drop_table("tables")
    op.drop_table("operations")
    with op.batch_alter_table("accounts", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_accounts_owner"))

    op.drop_table("accounts")
