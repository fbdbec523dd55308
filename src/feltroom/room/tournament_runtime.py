"""Tournaments running in the room: moved to ``feltroom.room.runtime.tournament`` (issue 37);
this module re-exports its names while the server and the tests move."""

from feltroom.room.runtime.tournament import (
    TournamentRunner,
    TournamentTableRef,
    tournament_number,
    tournament_table_id,
)

__all__ = [
    "TournamentRunner",
    "TournamentTableRef",
    "tournament_number",
    "tournament_table_id",
]
