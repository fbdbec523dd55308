"""The room at runtime: every table driven on the clock, house bots, tournaments, and one writer
for the books (see ``room.py``; docs/architecture.md draws the package)."""

from feltroom.room.runtime.cash_table import TableRunner
from feltroom.room.runtime.host import Listener, TournamentListener, WatchedTable
from feltroom.room.runtime.outcomes import hand_record, player_outcomes
from feltroom.room.runtime.room import RoomRuntime, closed_tables, define_table
from feltroom.room.runtime.settings import SETTLEMENT_BUCKETS, Randomness, RuntimeSettings
from feltroom.room.runtime.writer import GroupStorage, Writer

__all__ = [
    "SETTLEMENT_BUCKETS",
    "GroupStorage",
    "Listener",
    "Randomness",
    "RoomRuntime",
    "RuntimeSettings",
    "TableRunner",
    "TournamentListener",
    "WatchedTable",
    "Writer",
    "closed_tables",
    "define_table",
    "hand_record",
    "player_outcomes",
]
