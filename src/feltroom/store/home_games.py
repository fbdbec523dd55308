"""The home games in SQL (issue 45, docs/home-games.md): the ``Transaction`` methods behind
``feltroom.room.runtime.home_games``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection, func, select
from sqlalchemy.dialects import postgresql, sqlite

from feltroom.room.storage import HomeGameRow
from feltroom.store.models import hand_players, hands, home_games, transfers

__all__ = ["HomeGameQueries"]

_G = home_games.c


class HomeGameQueries:
    """Mixed into ``SqlTransaction``: reads and writes of ``home_games``, and the chips a game
    issued (its transfers from the external account of its currency)."""

    c: Connection
    is_sqlite: bool

    def put_home_game(self, row: HomeGameRow) -> None:
        dialect: Any = sqlite if self.is_sqlite else postgresql
        values = {
            "game_id": row.game_id,
            "host": row.host,
            "secret": row.secret,
            "status": row.status,
            "created_at": row.created_at,
            "ended_at": row.ended_at,
            "state": row.state,
        }
        statement = dialect.insert(home_games).values(**values)
        changed = {k: getattr(statement.excluded, k) for k in values if k != "game_id"}
        self.c.execute(statement.on_conflict_do_update(index_elements=["game_id"], set_=changed))

    def home_games(
        self, *, game_id: str | None = None, secret: str | None = None, host: str | None = None
    ) -> list[HomeGameRow]:
        query = select(home_games).order_by(_G.created_at, _G.game_id)
        if game_id is not None:
            query = query.where(_G.game_id == game_id)
        if secret is not None:
            query = query.where(_G.secret == secret)
        if host is not None:
            query = query.where(_G.host == host)
        return [
            HomeGameRow(
                r.game_id, r.host, r.secret, r.status, float(r.created_at), r.ended_at, r.state
            )
            for r in self.c.execute(query)
        ]

    def home_game_count(self) -> int:
        return int(self.c.execute(select(func.count()).select_from(home_games)).scalar_one())

    def issued_chips(self, code: str, external: str) -> list[tuple[str, str, str, int]]:
        """(debit, credit, reference, amount) of every transfer in ``code`` out of or into
        ``external`` (a home game's chips issued, and taken back)."""
        t = transfers.c
        query = (
            select(t.debit, t.credit, t.reference, t.amount)
            .where(t.currency == code, (t.debit == external) | (t.credit == external))
            .order_by(t.seq)
        )
        return [(str(r[0]), str(r[1]), str(r[2]), int(r[3])) for r in self.c.execute(query)]

    def account_flows(self, code: str, keys: Sequence[str]) -> list[tuple[str, str, str, int, str]]:
        """(debit, credit, reference, amount, kind) of every transfer in ``code`` out of or
        into any of the accounts ``keys`` (a home game's table: its escrow, its pending chips)."""
        t = transfers.c
        query = (
            select(t.debit, t.credit, t.reference, t.amount, t.kind)
            .where(t.currency == code, t.debit.in_(keys) | t.credit.in_(keys))
            .order_by(t.seq)
        )
        return [
            (str(r[0]), str(r[1]), str(r[2]), int(r[3]), str(r[4])) for r in self.c.execute(query)
        ]

    def raked_contributions(self, table_id: str) -> list[tuple[int, int, int, int, int]]:
        """(hand id, its rake, account id, seat, contribution) of every player of each settled
        hand with a rake at the table, by hand then seat."""
        h, p = hands.c, hand_players.c
        query = (
            select(h.hand_id, h.rake, p.account_id, p.seat, p.contribution)
            .join(hand_players, p.hand_id == h.hand_id)
            .where(h.table_id == table_id, h.status == "settled", h.rake > 0)
            .order_by(h.hand_id, p.seat)
        )
        return [tuple(int(v) for v in r) for r in self.c.execute(query)]  # type: ignore[misc]
