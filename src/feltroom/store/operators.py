"""Operators in SQL (docs/operator.md): operator and suspended accounts, sessions ended at once,
and the operator log — the ``Transaction`` methods of the operator API and ``feltroom admin``."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, delete, insert, select, update

from feltroom.room.ledger import OPERATOR_MARK
from feltroom.room.storage import OperatorEntryRow
from feltroom.store.models import operator_log, sessions, transfers, users

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
