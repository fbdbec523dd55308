"""stable account ids: the books' wallets and the hand records name an account by its id

Every account gets an id (``account_ids``, in the order the accounts were created; an id is
never issued twice). The wallet and pending accounts of the books are keyed by the id
(``wallet:#<id>:<currency>``, ``pending:<table>:#<id>``), their transfers with them; every hand
record's row gains the id of its player beside the name the player had then. Names that the
books or the hand records hold without an account (an account of an older room that is gone)
get an id of their own, marked removed.

The downgrade keys the books by name again; it stops, naming them, when two ids hold the same
name (an account removed and its name signed up again), which names cannot tell apart.

Revision ID: 0013_account_ids
Revises: 0012_player_protection
Create Date: 2026-12-02 15:30:00.000000
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0013_account_ids"
down_revision: str | None = "0012_player_protection"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_users = sa.table(
    "users", sa.column("name", sa.String), sa.column("created_at"), sa.column("account_id")
)
_ids = sa.table(
    "account_ids",
    sa.column("account_id"),
    sa.column("name", sa.String),
    sa.column("created_at"),
    sa.column("removed_at"),
)
_accounts = sa.table(
    "accounts",
    sa.column("key", sa.String),
    sa.column("kind", sa.String),
    sa.column("currency", sa.String),
    sa.column("owner", sa.String),
    sa.column("balance"),
)
_transfers = sa.table("transfers", sa.column("debit", sa.String), sa.column("credit", sa.String))
_hand_players = sa.table("hand_players", sa.column("player", sa.String), sa.column("account_id"))
_PLAYER_KINDS = ("wallet", "pending")


class NamesAmbiguous(RuntimeError):
    """Two account ids hold one name: the books cannot be keyed by name again."""


def _rekey(connection: sa.Connection, old: str, new: str, owner: str) -> None:
    """Move the ledger account ``old`` to the key ``new`` (and ``owner``), its transfers with
    it: the new row first, so that the foreign keys hold at every step."""
    row = connection.execute(sa.select(_accounts).where(_accounts.c.key == old)).one()
    connection.execute(
        sa.insert(_accounts).values(
            key=new, kind=row.kind, currency=row.currency, owner=owner, balance=row.balance
        )
    )
    connection.execute(sa.update(_transfers).where(_transfers.c.debit == old).values(debit=new))
    connection.execute(sa.update(_transfers).where(_transfers.c.credit == old).values(credit=new))
    connection.execute(sa.delete(_accounts).where(_accounts.c.key == old))


def _key(kind: str, key: str, owner: str, new_owner: str, currency: str) -> str:
    if kind == "wallet":
        return f"wallet:{new_owner}:{currency}"
    table = key[len("pending:") : -(len(owner) + 1)]
    return f"pending:{table}:{new_owner}"


def upgrade() -> None:
    op.create_table(
        "account_ids",
        sa.Column(
            "account_id",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            autoincrement=True,
            nullable=False,
        ),
        sa.Column("name", sa.String(length=32), nullable=False),
        sa.Column("created_at", sa.Float(), nullable=False),
        sa.Column("removed_at", sa.Float(), nullable=True),
        sa.PrimaryKeyConstraint("account_id", name=op.f("pk_account_ids")),
        sqlite_autoincrement=True,
    )
    # Plain ADD COLUMN (no table copy): the users table keeps its expression index.
    op.add_column(
        "users", sa.Column("account_id", sa.BigInteger(), nullable=False, server_default="0")
    )
    op.add_column(
        "hand_players",
        sa.Column("account_id", sa.BigInteger(), nullable=False, server_default="0"),
    )
    connection = op.get_bind()
    now = time.time()
    ids: dict[str, int] = {}
    rows: list[dict[str, object]] = []
    users = connection.execute(
        sa.select(_users.c.name, _users.c.created_at).order_by(_users.c.created_at, _users.c.name)
    ).all()
    for name, created_at in users:
        ids[name] = len(rows) + 1
        rows.append(
            {"account_id": ids[name], "name": name, "created_at": created_at, "removed_at": None}
        )
    # Names the books or the hand records hold without an account: ids of their own, removed.
    held = connection.execute(
        sa.select(_accounts.c.owner).where(_accounts.c.kind.in_(_PLAYER_KINDS))
    ).scalars()
    played = connection.execute(sa.select(_hand_players.c.player).distinct()).scalars()
    for name in sorted(set(held) | set(played)):
        if name not in ids:
            ids[name] = len(rows) + 1
            rows.append(
                {"account_id": ids[name], "name": name, "created_at": now, "removed_at": now}
            )
    if rows:
        connection.execute(sa.insert(_ids), rows)
    if connection.dialect.name == "postgresql":
        connection.execute(
            sa.text(
                "SELECT setval(pg_get_serial_sequence('account_ids', 'account_id'), "
                "GREATEST(:n, 1), :n > 0)"
            ),
            {"n": len(rows)},
        )
    by_name = [{"n": name, "i": number} for name, number in ids.items()]
    if by_name:
        connection.execute(
            sa.update(_users)
            .where(_users.c.name == sa.bindparam("n"))
            .values(account_id=sa.bindparam("i")),
            by_name,
        )
        connection.execute(
            sa.update(_hand_players)
            .where(_hand_players.c.player == sa.bindparam("n"))
            .values(account_id=sa.bindparam("i")),
            by_name,
        )
    books = connection.execute(
        sa.select(_accounts.c.key, _accounts.c.kind, _accounts.c.currency, _accounts.c.owner)
        .where(_accounts.c.kind.in_(_PLAYER_KINDS))
        .order_by(_accounts.c.key)
    ).all()
    for key, kind, currency, owner in books:
        new_owner = f"#{ids[owner]}"
        _rekey(connection, key, _key(kind, key, owner, new_owner, currency), new_owner)
    op.create_index("uq_users_account_id", "users", ["account_id"], unique=True)
    op.create_index("ix_hand_players_account_id_hand_id", "hand_players", ["account_id", "hand_id"])


def downgrade() -> None:
    connection = op.get_bind()
    names = dict(connection.execute(sa.select(_ids.c.account_id, _ids.c.name)).all())
    current = connection.execute(sa.select(_users.c.account_id, _users.c.name)).all()
    names.update(dict(current))
    owners = {f"#{number}": name for number, name in names.items()}
    books = connection.execute(
        sa.select(_accounts.c.key, _accounts.c.kind, _accounts.c.currency, _accounts.c.owner)
        .where(_accounts.c.kind.in_(_PLAYER_KINDS))
        .order_by(_accounts.c.key)
    ).all()
    held: dict[str, set[str]] = {}
    for *_, owner in books:
        held.setdefault(owners[owner].lower(), set()).add(owner)
    ambiguous = sorted(name for name, found in held.items() if len(found) > 1)
    if ambiguous:
        raise NamesAmbiguous(
            f"the books hold more than one account under the name(s) {', '.join(ambiguous)} "
            "(an account removed and its name signed up again); keyed by name they would be "
            "one. Nothing was changed."
        )
    for key, kind, currency, owner in books:
        name = owners[owner]
        _rekey(connection, key, _key(kind, key, owner, name, currency), name)
    op.drop_index("ix_hand_players_account_id_hand_id", table_name="hand_players")
    op.drop_index("uq_users_account_id", table_name="users")
    op.drop_column("hand_players", "account_id")
    op.drop_column("users", "account_id")
    op.drop_table("account_ids")
