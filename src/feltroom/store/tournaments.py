"""Tournaments in SQL (docs/tournaments.md): the instances and the journal of their directors'
inputs, as the ``Transaction`` methods the room uses.

The journal's key is (tournament, seq): two writers appending the same next input (the room and
the operator's cancellation) cannot both commit; the second gets ``DuplicateKey`` and nothing of
its transaction holds.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection, func, insert, select, update
from sqlalchemy.exc import IntegrityError

from feltroom.room.errors import DuplicateKey
from feltroom.room.storage import JournalRow, TournamentRow
from feltroom.store.models import accounts, tournament_journal, tournaments, transfers

__all__ = ["TournamentQueries"]

_COLUMNS = tuple(c.name for c in tournaments.columns)


class TournamentQueries:
    """Mixed into ``SqlTransaction``: ``c`` is its connection."""

    c: Connection
    is_sqlite: bool

    def add_tournament(self, row: TournamentRow) -> None:
        values = {name: getattr(row, name) for name in _COLUMNS}
        try:
            self.c.execute(insert(tournaments).values(**values))
        except IntegrityError as error:
            raise DuplicateKey(f"the tournament id {row.tournament_id!r} is taken") from error

    def get_tournament(self, tournament_id: str, *, lock: bool = False) -> TournamentRow | None:
        statement = select(tournaments).where(tournaments.c.tournament_id == tournament_id)
        if lock and not self.is_sqlite:
            statement = statement.with_for_update()
        row = self.c.execute(statement).first()
        return None if row is None else TournamentRow(*row)

    def tournaments(self, statuses: Sequence[str] | None = None) -> list[TournamentRow]:
        statement: Any = select(tournaments)
        if statuses is not None:
            statement = statement.where(tournaments.c.status.in_(list(statuses)))
        statement = statement.order_by(tournaments.c.created_at, tournaments.c.tournament_id)
        return [TournamentRow(*row) for row in self.c.execute(statement)]

    def set_tournament(
        self, tournament_id: str, *, status: str | None = None, seen_at: float | None = None
    ) -> None:
        values: dict[str, Any] = {}
        if status is not None:
            values["status"] = status
        if seen_at is not None:
            values["seen_at"] = seen_at
        if values:
            self.c.execute(
                update(tournaments)
                .where(tournaments.c.tournament_id == tournament_id)
                .values(**values)
            )

    def append_journal(self, row: JournalRow) -> None:
        try:
            self.c.execute(
                insert(tournament_journal).values(
                    tournament_id=row.tournament_id,
                    seq=row.seq,
                    at=row.at,
                    kind=row.kind,
                    payload=row.payload,
                )
            )
        except IntegrityError as error:
            raise DuplicateKey(
                f"input {row.seq} of tournament {row.tournament_id} is already written"
            ) from error

    def journal(self, tournament_id: str) -> list[JournalRow]:
        statement = (
            select(tournament_journal)
            .where(tournament_journal.c.tournament_id == tournament_id)
            .order_by(tournament_journal.c.seq)
        )
        return [JournalRow(*row) for row in self.c.execute(statement)]

    def last_journal_seq(self, tournament_id: str) -> int:
        statement = select(func.max(tournament_journal.c.seq)).where(
            tournament_journal.c.tournament_id == tournament_id
        )
        return int(self.c.execute(statement).scalar() or 0)

    def prizepool_flows(self) -> list[tuple[str, str, str, int]]:
        """(prize pool account, transfer kind, ``in`` or ``out``, total) for every prize pool."""
        pools = select(accounts.c.key).where(accounts.c.kind == "prizepool")
        rows: list[tuple[str, str, str, int]] = []
        for side, column in (("in", transfers.c.credit), ("out", transfers.c.debit)):
            statement = (
                select(column, transfers.c.kind, func.sum(transfers.c.amount))
                .where(column.in_(pools))
                .group_by(column, transfers.c.kind)
            )
            rows += [
                (key, kind, side, int(total)) for key, kind, total in self.c.execute(statement)
            ]
        return rows
