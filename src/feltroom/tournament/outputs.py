"""What the director decides: commands for its tables and the tournament's own events.

The director never touches a table: it returns these values and whoever runs the tables (the
simulation, the room's worker) carries the commands out in order and reports back what the tables
did (``Director.hand_started``, ``Director.hand_finished``). Money moves only by the events
``Registered``, ``Refunded``, ``RegistrationClosed`` (the overlay), ``PlaceFinal`` (a prize),
``ForfeitPaid`` and ``CancellationPaid``; the chips of a tournament never leave it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from feltroom.table.tournament import Level

__all__ = [
    "BreakEnded",
    "BreakStarted",
    "CancellationPaid",
    "Cancelled",
    "CloseTable",
    "Disqualified",
    "Eliminated",
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
    "SeatPlayer",
    "SetLevel",
    "Started",
]

# ---------------------------------------------------------------------- commands to tables


@dataclass(frozen=True, slots=True)
class OpenTable:
    """Open table ``table`` at ``level`` (its seats come by ``SeatPlayer``)."""

    table: int
    level: Level


@dataclass(frozen=True, slots=True)
class SeatPlayer:
    """Seat ``entry`` (``account``) at ``table``/``seat`` with ``stack`` tournament chips."""

    table: int
    seat: int
    entry: int
    account: str
    stack: int


@dataclass(frozen=True, slots=True)
class MovePlayer:
    """Take ``entry`` off ``from_table``/``from_seat`` with their chips and seat them at
    ``to_table``/``to_seat``. ``reason``: ``balance`` (R-TOURN-7), ``break`` (R-TOURN-8) or
    ``final`` (the final table's draw)."""

    entry: int
    account: str
    from_table: int
    from_seat: int
    to_table: int
    to_seat: int
    reason: str


@dataclass(frozen=True, slots=True)
class RemovePlayer:
    """``entry`` has no chips left: take them off the table (R-TOURN-3)."""

    table: int
    seat: int
    entry: int
    account: str


@dataclass(frozen=True, slots=True)
class HoldTable:
    """Deal no new hand at ``table`` (a hand in progress finishes)."""

    table: int
    reason: str


@dataclass(frozen=True, slots=True)
class ReleaseTable:
    table: int


@dataclass(frozen=True, slots=True)
class SetLevel:
    """The level of the next hand dealt at ``table`` (R-TOURN-5)."""

    table: int
    level: Level


@dataclass(frozen=True, slots=True)
class RedrawTable:
    """The final table (R-TOURN-8): take every player in ``moves`` off their table first, then
    seat each at ``table``/``to_seat``, then make a new high-card draw for the button with no
    blind owed (``TournamentTable.new_button_draw``)."""

    table: int
    moves: tuple[MovePlayer, ...]


@dataclass(frozen=True, slots=True)
class CloseTable:
    """``table`` is empty and closed (broken, R-TOURN-8, or the tournament is over)."""

    table: int


# ---------------------------------------------------------------------- tournament events


@dataclass(frozen=True, slots=True)
class Registered:
    """An entry: ``buy_in`` into the prize pool, ``fee`` to the house (R-TOURN-2)."""

    entry: int
    account: str
    buy_in: int
    fee: int
    late: bool = False


@dataclass(frozen=True, slots=True)
class Refunded:
    """Buy-in and fee back (an unregistration, a cancellation before the start, R-TOURN-2)."""

    entry: int
    account: str
    buy_in: int
    fee: int


@dataclass(frozen=True, slots=True)
class Started:
    entries: int
    tables: int


@dataclass(frozen=True, slots=True)
class RegistrationClosed:
    """The entries are final: the prize pool (the house pays ``overlay`` into it, R-TOURN-2) and
    the prize of each place (R-TOURN-11)."""

    entries: int
    prize_pool: int
    overlay: int
    prizes: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class LevelStarted:
    number: int
    level: Level


@dataclass(frozen=True, slots=True)
class BreakStarted:
    until: float


@dataclass(frozen=True, slots=True)
class BreakEnded:
    pass


@dataclass(frozen=True, slots=True)
class HandForHandStarted:
    remaining: int


@dataclass(frozen=True, slots=True)
class HandForHandEnded:
    remaining: int


@dataclass(frozen=True, slots=True)
class Eliminated:
    """``entry`` is out (its place may wait for the close of late registration, R-TOURN-10)."""

    entry: int
    account: str
    table: int
    starting_stack: int


@dataclass(frozen=True, slots=True)
class Disqualified:
    """R-TOURN-15: ``entry`` (an account the operator suspended) is out; its ``chips`` left play
    (they go to no one) and it finishes in the current place without a prize (``PlaceFinal``
    with ``prize`` 0, when the place is final)."""

    entry: int
    account: str
    table: int
    chips: int


@dataclass(frozen=True, slots=True)
class PlaceFinal:
    """``entry`` finishes in ``place`` (shared with ``shared - 1`` others: places ``place`` to
    ``place + shared - 1``, R-TOURN-10); ``prize`` goes into the account's wallet."""

    entry: int
    account: str
    place: int
    shared: int
    prize: int


@dataclass(frozen=True, slots=True)
class ForfeitPaid:
    """R-TOURN-15: first place went to a disqualified entry (every entry left in play was
    disqualified in the same hand or round), so no better place can take the prize it forfeits:
    ``amount`` goes into the wallet of the best-placed entry not disqualified (the entry in first
    place when every entry was disqualified), and the prize pool is paid out in full."""

    entry: int
    account: str
    amount: int


@dataclass(frozen=True, slots=True)
class Finished:
    winner: int
    account: str


@dataclass(frozen=True, slots=True)
class CancellationPaid:
    """R-TOURN-13: a remaining entry's share of the prize pool left."""

    entry: int
    account: str
    amount: int


@dataclass(frozen=True, slots=True)
class Cancelled:
    """The tournament is cancelled (R-TOURN-1: too few players; R-TOURN-13: by the operator);
    ``paid``: entry -> the share of the prize pool left (``CancellationPaid``)."""

    reason: str
    paid: Mapping[int, int]


Output = (
    OpenTable
    | SeatPlayer
    | MovePlayer
    | RemovePlayer
    | HoldTable
    | ReleaseTable
    | SetLevel
    | RedrawTable
    | CloseTable
    | Registered
    | Refunded
    | Started
    | RegistrationClosed
    | LevelStarted
    | BreakStarted
    | BreakEnded
    | HandForHandStarted
    | HandForHandEnded
    | Eliminated
    | Disqualified
    | PlaceFinal
    | ForfeitPaid
    | Finished
    | CancellationPaid
    | Cancelled
)
"""Everything the director returns."""
