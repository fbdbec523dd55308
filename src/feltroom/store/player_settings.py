"""Players' own settings in SQL (issue 21): the ``Transaction`` methods behind
``feltroom.room.player_stats``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection, select
from sqlalchemy.dialects import postgresql, sqlite

from feltroom.room.storage import PlayerSettingsRow
from feltroom.store.models import player_settings

__all__ = ["PlayerSettingsQueries"]


class PlayerSettingsQueries:
    """Mixed into ``SqlTransaction``: reads and writes of ``player_settings``."""

    c: Connection
    is_sqlite: bool

    def get_player_settings(self, players: Sequence[str]) -> dict[str, PlayerSettingsRow]:
        if not players:
            return {}
        query = select(player_settings).where(player_settings.c.player.in_(list(players)))
        return {
            row.player: PlayerSettingsRow(row.player, bool(row.share_stats), bool(row.findable))
            for row in self.c.execute(query)
        }

    def put_player_settings(self, row: PlayerSettingsRow) -> None:
        dialect: Any = sqlite if self.is_sqlite else postgresql
        statement = dialect.insert(player_settings).values(
            player=row.player, share_stats=row.share_stats, findable=row.findable
        )
        self.c.execute(
            statement.on_conflict_do_update(
                index_elements=["player"],
                set_={
                    "share_stats": statement.excluded.share_stats,
                    "findable": statement.excluded.findable,
                },
            )
        )
