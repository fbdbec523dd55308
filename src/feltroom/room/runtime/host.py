"""What the room's listeners see of a table (``WatchedTable``) and the listeners' types."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from feltroom.room.events import TournamentEvent
from feltroom.table import Table

__all__ = ["Listener", "TournamentListener", "WatchedTable"]


class WatchedTable(Protocol):
    """What a listener sees of a table: a cash table's ``TableRunner``, or a tournament's table
    (``feltroom.room.tournament_runtime``)."""

    @property
    def table_id(self) -> str: ...

    @property
    def table(self) -> Table: ...

    @property
    def playing(self) -> int | None: ...

    @property
    def last_hand_id(self) -> int | None: ...

    def check_turn(self, turn_id: int | None) -> None: ...


Listener = Callable[[WatchedTable, Sequence[object]], None]
"""``listener(runner, events)``: a batch of events of ``runner``'s table (``TableEvent`` and
``RoomEvent`` values), in the order they happened."""

TournamentListener = Callable[[Sequence[TournamentEvent]], None]
"""``listener(events)``: tournament news (``PlayerMoved``, ``TournamentNews``)."""
