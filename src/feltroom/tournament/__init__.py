"""Tournaments (layer ``tournament``): the director across tables, sans-I/O.

Between ``table`` and ``strategy`` in the layers of DESIGN.md; standard library only. The
director (``Director``) takes registrations, reports from its tables and the time, and returns
commands for its tables and the tournament's events (``feltroom.tournament.outputs``); the
settings, schedules and payout tables are in ``settings`` and ``payouts``. docs/tournaments.md
describes it.
"""

from feltroom.tournament.director import STATES, Director, EntryState, TableState
from feltroom.tournament.outputs import (
    BreakEnded,
    BreakStarted,
    CancellationPaid,
    Cancelled,
    CloseTable,
    Disqualified,
    Eliminated,
    Finished,
    ForfeitPaid,
    HandForHandEnded,
    HandForHandStarted,
    HoldTable,
    LevelStarted,
    MovePlayer,
    OpenTable,
    Output,
    PlaceFinal,
    RedrawTable,
    Refunded,
    Registered,
    RegistrationClosed,
    ReleaseTable,
    RemovePlayer,
    SeatPlayer,
    SetLevel,
    Started,
)
from feltroom.tournament.payouts import (
    cancellation_shares,
    default_percentages,
    payout_table,
    prize_pool,
    split_equally,
)
from feltroom.tournament.settings import (
    BreakPolicy,
    Schedule,
    TournamentSettings,
    schedule,
)

__all__ = [
    "STATES",
    "BreakEnded",
    "BreakPolicy",
    "BreakStarted",
    "CancellationPaid",
    "Cancelled",
    "CloseTable",
    "Director",
    "Disqualified",
    "Eliminated",
    "EntryState",
    "Finished",
    "ForfeitPaid",
    "HandForHandEnded",
    "HandForHandStarted",
    "HoldTable",
    "LevelStarted",
    "MovePlayer",
    "OpenTable",
    "Output",
    "PlaceFinal",
    "RedrawTable",
    "Refunded",
    "Registered",
    "RegistrationClosed",
    "ReleaseTable",
    "RemovePlayer",
    "Schedule",
    "SeatPlayer",
    "SetLevel",
    "Started",
    "TableState",
    "TournamentSettings",
    "cancellation_shares",
    "default_percentages",
    "payout_table",
    "prize_pool",
    "schedule",
    "split_equally",
]
