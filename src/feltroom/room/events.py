"""What the room says about a table besides the table's own events (``feltroom.table.events``).

The runtime publishes these to its listeners (``RoomRuntime.add_listener``) in the same stream as
the table's events:

- ``HandVoided``: the table failed; the hand in play (if any) is void and refunded;
- ``TablePaused`` / ``TableResumed``: the table stops after a failure, and plays again;
- ``TableReloaded``: the table was rebuilt from the books (at start, after a failure, on resuming):
  whatever a subscriber knew of it is stale, it must send full snapshots again.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "HandVoided",
    "PlayerMoved",
    "RoomEvent",
    "TablePaused",
    "TableReloaded",
    "TableResumed",
    "TournamentEvent",
    "TournamentNews",
]


@dataclass(frozen=True, slots=True)
class HandVoided:
    """The table failed and its hand is void: every stack goes back to its start-of-hand value.
    ``hand_id`` is the hand that was being played (``None``: none was)."""

    hand_id: int | None
    reason: str


@dataclass(frozen=True, slots=True)
class TablePaused:
    """The table stopped after a failure; it plays again after the room's ``error_pause``."""

    reason: str


@dataclass(frozen=True, slots=True)
class TableResumed:
    """The paused table plays again (it was rebuilt from the books first: ``TableReloaded``)."""


@dataclass(frozen=True, slots=True)
class TableReloaded:
    """The table was rebuilt from the books: send full snapshots again."""


@dataclass(frozen=True, slots=True)
class PlayerMoved:
    """A tournament's director moved ``account`` from table ``from_table`` to ``seat`` at
    ``to_table`` (table ids; ``reason``: ``balance``, ``break`` or ``final``, R-TOURN-7/8), or
    seated them at the start or on a late entry (``from_table`` ``None``, ``reason``
    ``seated``): whoever shows the player their table follows them there."""

    tournament: str
    account: str
    from_table: str | None
    to_table: str
    seat: int
    reason: str


@dataclass(frozen=True, slots=True)
class TournamentNews:
    """Where tournament ``tournament`` stands changed for ``accounts`` (a level, a break, a
    hand of theirs ended, a move); ``results``: the accounts whose place became final."""

    tournament: str
    accounts: tuple[str, ...]
    results: tuple[str, ...] = ()


TournamentEvent = PlayerMoved | TournamentNews
"""What a tournament tells the room's tournament listeners."""

RoomEvent = HandVoided | TablePaused | TableResumed | TableReloaded
"""Every event the room adds to a table's stream."""
