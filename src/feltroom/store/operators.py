"""Operators in SQL (docs/operator.md): operator and suspended accounts, sessions ended at once,
accounts renamed and removed, and the operator log — the ``Transaction`` methods of the
operator API and ``feltroom admin``."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, Table, delete, insert, select, update

from feltroom.room.ledger import OPERATOR_MARK
from feltroom.room.storage import OperatorEntryRow
from feltroom.store.models import (
    account_ids,
    operator_log,
    player_settings,
    protections,
    seats,
    sessions,
    sign_ins,
    transfers,
    users,
)

_BY_NAME: tuple[tuple[Table, str], ...] = (
    (sessions, "user"),
    (protections, "user"),
    (seats, "player"),
    (sign_ins, "account"),
    (player_settings, "player"),
)
"""The rows that name an account by its name (a foreign key on ``users.name``)."""

__all__ = ["OperatorQueries"]


class OperatorQueries:
    """Mixed into ``SqlTransaction``."""

    c: Connection
    is_sqlite: bool

    def set_operator(self, name: str, operator: bool, addresses: str) -> None:
        self.c.execute(
            update(users)
            .where(users.c.name == name)
            .values(operator=operator, operator_addresses=addresses)
        )

    def set_suspended(self, name: str, suspended: bool) -> None:
        self.c.execute(update(users).where(users.c.name == name).values(suspended=suspended))

    def delete_sessions_of(self, user: str) -> int:
        return int(self.c.execute(delete(sessions).where(sessions.c.user == user)).rowcount)

    def seats_of(self, player: str) -> list[str]:
        rows = self.c.execute(
            select(seats.c.table_id).where(seats.c.player == player).order_by(seats.c.table_id)
        )
        return [str(row[0]) for row in rows]

    def rename_user(self, name: str, new_name: str) -> None:
        # The rows that name the account are taken out, the account renamed, and they go back
        # under the new name: the foreign keys hold at every step, on both databases.
        kept: list[tuple[Table, list[dict[str, Any]]]] = []
        for table, column in _BY_NAME:
            rows = [
                {**row._asdict(), column: new_name}
                for row in self.c.execute(select(table).where(table.c[column] == name))
            ]
            if rows:
                self.c.execute(delete(table).where(table.c[column] == name))
                kept.append((table, rows))
        self.c.execute(update(users).where(users.c.name == name).values(name=new_name))
        account = select(users.c.account_id).where(users.c.name == new_name).scalar_subquery()
        self.c.execute(
            update(account_ids).where(account_ids.c.account_id == account).values(name=new_name)
        )
        for table, rows in kept:
            self.c.execute(insert(table), rows)

    def remove_user(self, name: str, at: float) -> None:
        account = select(users.c.account_id).where(users.c.name == name).scalar_subquery()
        self.c.execute(
            update(account_ids).where(account_ids.c.account_id == account).values(removed_at=at)
        )
        for table, column in _BY_NAME:
            self.c.execute(delete(table).where(table.c[column] == name))
        self.c.execute(delete(users).where(users.c.name == name))

    def add_operator_entry(self, row: OperatorEntryRow) -> int:
        values: dict[str, Any] = {
            "at": row.at,
            "operator": row.operator,
            "action": row.action,
            "target": row.target,
            "reason": row.reason,
            "details": row.details,
        }
        result = self.c.execute(insert(operator_log).values(**values))
        key = result.inserted_primary_key
        assert key is not None
        return int(key[0])

    def operator_entries(self, since: float, limit: int) -> list[OperatorEntryRow]:
        rows = self.c.execute(
            select(operator_log)
            .where(operator_log.c.at >= since)
            .order_by(operator_log.c.entry_id.desc())
            .limit(limit)
        )
        return [OperatorEntryRow(*row) for row in reversed(list(rows))]

    def operator_entry_ids(self) -> set[int]:
        return {int(row[0]) for row in self.c.execute(select(operator_log.c.entry_id))}

    def operator_transfers(self) -> list[tuple[str, str]]:
        rows = self.c.execute(
            select(transfers.c.transfer_id, transfers.c.reference)
            .where(transfers.c.reference.contains(OPERATOR_MARK, autoescape=True))
            .order_by(transfers.c.seq)
        )
        return [(row.transfer_id, row.reference) for row in rows]
