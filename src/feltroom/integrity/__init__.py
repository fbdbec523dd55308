"""Game integrity (layer ``integrity``): collusion and chip-dumping signals over the hands the room
stored and its sign-in log, as pure analysis on records (no database: the room reads the rows,
the command line wires the database). See docs/integrity.md.
"""

from feltroom.integrity.hands import (
    Move,
    PlayedHand,
    PlayedSeat,
    SignIn,
    StoredHand,
    StoredSeat,
    played,
)
from feltroom.integrity.player_stats import StatsTally
from feltroom.integrity.report import (
    CORROBORATION_CAP,
    DEFAULT_THRESHOLD,
    SIGNALS,
    integrity_report,
)

__all__ = [
    "CORROBORATION_CAP",
    "DEFAULT_THRESHOLD",
    "SIGNALS",
    "Move",
    "PlayedHand",
    "PlayedSeat",
    "SignIn",
    "StatsTally",
    "StoredHand",
    "StoredSeat",
    "integrity_report",
    "played",
]
