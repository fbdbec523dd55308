"""The room at runtime: every table driven on the clock, house bots, tournaments, and one writer
for the books (see ``room.py``; docs/architecture.md draws the package)."""

from feltroom.room.runtime.room import (
    SETTLEMENT_BUCKETS,
    GroupStorage,
    Listener,
    Randomness,
    RoomRuntime,
    RuntimeSettings,
    TableRunner,
    TournamentListener,
    WatchedTable,
    Writer,
    closed_tables,
    define_table,
    hand_record,
    player_outcomes,
)

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
