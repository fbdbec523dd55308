"""A seated player's state across hands: chips, sitting out, what they owe to enter, the clock.

``Owes`` is what stands between a seated player and the next deal (R-ENTRY-1, R-MISS-1/2):
nothing; a new player's entry (a post equal to the big blind, or waiting for the big blind); a
missed small blind (``MS``: posted dead); a missed big blind (``ML``: big blind live plus small
blind dead). Coming in on the big blind clears every debt.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

__all__ = ["Entry", "Owes", "PreAction", "PreActionKind", "Seat"]


class Owes(Enum):
    NOTHING = "-"
    NEW = "new"
    MISSED_SMALL = "MS"
    MISSED_BIG = "ML"


class Entry(Enum):
    """How an entering (or returning) player wants to come in."""

    POST = "post"
    """Post what is owed and play the next hand the rules allow (R-ENTRY-1a, R-MISS-1/2)."""
    WAIT = "wait"
    """Wait for the big blind and come in there without an extra post (R-ENTRY-1b)."""


class PreActionKind(Enum):
    """Pre-action choices (R-AUTO-1)."""

    CHECK_FOLD = "check/fold"
    CHECK = "check"
    CALL_ANY = "call any"
    FOLD = "fold"
    CALL = "call"  # "call X": cancelled when the amount to call is no longer X


@dataclass(frozen=True, slots=True)
class PreAction:
    kind: PreActionKind
    amount: int | None = None

    def __str__(self) -> str:
        return f"call {self.amount}" if self.kind is PreActionKind.CALL else self.kind.value


@dataclass(slots=True)
class Seat:
    """One occupied seat. Mutable: the table is its only writer."""

    number: int
    account: str
    stack: int
    joined: int
    """Order of arrival at the table (ties of the high-card draw go to the earliest, R-BUTTON-1)."""
    owes: Owes = Owes.NEW
    entry: Entry = Entry.POST
    sitting_out: bool = False
    sat_out_at: float | None = None
    auto_post: bool = True
    auto_muck: bool = True
    """Muck losing hands at the showdown; off: show them (R-SHOW-4)."""
    run_twice: str = "ask"
    """The standing choice for running it twice (R-HOME-4): ``always``, ``ask`` or ``never``."""
    auto_rebuy: bool = False
    """The room buys in again from the wallet when the stack is empty (room/rebuys.py); the
    table only keeps it with the seat."""
    straddle: bool = False
    """Straddle when this seat is the first dealt in after the big blind (R-HOME-3): a standing
    choice, used only where the table allows straddles."""
    disconnected: bool = False
    leave_after_hand: bool = False
    sit_out_after_hand: bool = False
    sit_out_reason: str = "chosen"
    """The ``SatOut`` reason once the hand is over (with ``sit_out_after_hand``)."""
    timed_out: bool = False
    time_bank: float = 0.0
    hands_dealt: int = 0  # since the player sat down: the time bank refills by it (R-TIME-1)
    pre_action: PreAction | None = None
    brought: int = 0
    """Every chip this seat brought to the table (buy-in and additions)."""
    fee_due_at: float | None = None
    away: bool = False
    """Tournament tables: away (R-TOURN-6), folded at once at their turn, with no clock."""

    @property
    def owing(self) -> bool:
        return self.owes is not Owes.NOTHING

    @property
    def present(self) -> bool:
        """Taking part in the game: not sitting out, with chips."""
        return not self.sitting_out and self.stack > 0

    @property
    def marker(self) -> str:
        """The seat's marker as the seeds show it: ``ML``, ``MS``, or empty."""
        return self.owes.value if self.owes in (Owes.MISSED_SMALL, Owes.MISSED_BIG) else ""
