"""What the table says happened: every change to the table comes out as one of these events.

The hand engine's own events (``feltroom.rules.events``) are passed through unchanged between a
``HandStarted`` and a ``HandFinished``; none of them, and none of these, carries a card a player
may not see (hole cards reach their owner only through ``Table.view(seat)``). ``FirstButtonDrawn``
shows the cards dealt face up for the button draw (R-BUTTON-1).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from feltroom.cards import Card
from feltroom.rules import Event as HandEvent
from feltroom.rules import ForcedBet

if TYPE_CHECKING:
    from feltroom.deal_proof import CommittedDeck
    from feltroom.rules import Hand

__all__ = [
    "BlindDeclined",
    "BlindPrompt",
    "BlindsMissed",
    "CameBack",
    "ChipsAdded",
    "CountdownStarted",
    "Disconnected",
    "FeeCharged",
    "FirstButtonDrawn",
    "HandFinished",
    "HandResult",
    "HandStarted",
    "PlayerSeated",
    "PreActionCancelled",
    "PreActionUsed",
    "ProtectionUsed",
    "Resumed",
    "RunTwiceAnswered",
    "RunTwiceOffered",
    "RunTwiceTimedOut",
    "SatIn",
    "SatOut",
    "SeatChanged",
    "SeatOfferExpired",
    "SeatOffered",
    "SeatReleased",
    "StackReset",
    "TableEvent",
    "TaxWithheld",
    "TimeBankStarted",
    "TimedOut",
    "TurnStarted",
    "WaitingListJoined",
    "WaitingListLeft",
    "WentAway",
]


@dataclass(frozen=True, slots=True)
class PlayerSeated:
    seat: int
    account: str
    buy_in: int
    entry: str


@dataclass(frozen=True, slots=True)
class ChipsAdded:
    seat: int
    amount: int
    stack: int


@dataclass(frozen=True, slots=True)
class StackReset:
    """At a ``reset_stacks`` table, the stack was set back to the buy-in between hands: from
    ``before`` to ``stack`` (the room books the difference to or from the wallet)."""

    seat: int
    account: str
    before: int
    stack: int


@dataclass(frozen=True, slots=True)
class SatOut:
    """``reason``: ``chosen``, ``timeout`` (R-SIT-2), ``busted``, ``declined_blind`` (R-BLIND-6),
    ``disconnected`` (the room's grace after a disconnection ran out, R-SIT-1), ``restored`` (the
    seat was restored from the books, ``Table.restore_seat``)."""

    seat: int
    reason: str


@dataclass(frozen=True, slots=True)
class SatIn:
    seat: int
    entry: str


@dataclass(frozen=True, slots=True)
class SeatReleased:
    """The seat is free; ``chips`` go back to the account (the room books them, R-SIT-2).
    ``reason``: ``left`` or ``sit_out_expired``."""

    seat: int
    account: str
    chips: int
    reason: str


@dataclass(frozen=True, slots=True)
class SeatChanged:
    """A change of seats: the player enters anew (R-ENTRY-4)."""

    old: int
    new: int
    account: str


@dataclass(frozen=True, slots=True)
class WaitingListJoined:
    account: str
    position: int


@dataclass(frozen=True, slots=True)
class WaitingListLeft:
    account: str


@dataclass(frozen=True, slots=True)
class SeatOffered:
    """The first waiting player may take ``seat`` until ``expires``."""

    account: str
    seat: int
    expires: float


@dataclass(frozen=True, slots=True)
class SeatOfferExpired:
    account: str
    seat: int


@dataclass(frozen=True, slots=True)
class FirstButtonDrawn:
    """R-BUTTON-1 ``high_card``: one card face up to each player; ``button`` won the draw."""

    cards: tuple[tuple[int, Card], ...]
    button: int


@dataclass(frozen=True, slots=True)
class BlindsMissed:
    """The blinds passed a sitting-out player: ``marker`` is ``MS`` or ``ML`` (R-MISS-1/2)."""

    seat: int
    marker: str


@dataclass(frozen=True, slots=True)
class BlindPrompt:
    """R-BLIND-6: the player is asked to post ``amount`` (a blind, an entry post or a missed
    blind) before ``expires``; they post, or decline and sit out."""

    seat: int
    amount: int
    expires: float


@dataclass(frozen=True, slots=True)
class BlindDeclined:
    seat: int


@dataclass(frozen=True, slots=True)
class HandStarted:
    """A hand is dealt. ``commitment`` is the Merkle root of its deck and salts (verifiable
    deals, ``feltroom.deal_proof``), published before the first card."""

    number: int
    button: int
    small: int | None
    big: int
    dealt: tuple[int, ...]
    forced: tuple[ForcedBet, ...]
    arrangement: str
    commitment: str = ""


@dataclass(frozen=True, slots=True)
class TurnStarted:
    """It is ``seat``'s turn; the countdown shows from ``countdown_at``; the seat's time bank
    runs from ``bank_at`` (the base time ends there); time runs out at ``deadline`` (R-TIME-1).
    ``turn_id`` names the turn within the hand: the number of actions in the hand's log when it
    began, so it increases with every turn of the hand."""

    seat: int
    countdown_at: float
    deadline: float
    turn_id: int = 0
    bank_at: float | None = None


@dataclass(frozen=True, slots=True)
class CountdownStarted:
    seat: int
    ends: float


@dataclass(frozen=True, slots=True)
class TimeBankStarted:
    seat: int
    ends: float


@dataclass(frozen=True, slots=True)
class TimedOut:
    """The player did not act in time (R-TIME-2): ``action`` is what the table did for them:
    ``fold``, ``check`` or ``protect`` (R-TIME-3)."""

    seat: int
    action: str


@dataclass(frozen=True, slots=True)
class ProtectionUsed:
    """An account's protection was used (R-TIME-3): the room counts it."""

    seat: int
    account: str


@dataclass(frozen=True, slots=True)
class PreActionUsed:
    seat: int
    pre_action: str


@dataclass(frozen=True, slots=True)
class PreActionCancelled:
    seat: int
    pre_action: str


@dataclass(frozen=True, slots=True)
class Disconnected:
    seat: int


@dataclass(frozen=True, slots=True)
class Resumed:
    seat: int


@dataclass(frozen=True, slots=True)
class FeeCharged:
    """A house fee (R-RAKE-4): ``kind`` is ``session_fee`` or ``collection_fee``."""

    seat: int
    account: str
    kind: str
    amount: int


@dataclass(frozen=True, slots=True)
class TaxWithheld:
    """Tax withheld from a hand's net win above the threshold (R-TAX-1)."""

    seat: int
    account: str
    amount: int


@dataclass(frozen=True, slots=True)
class RunTwiceOffered:
    """Betting cannot continue before the river at a table that runs it twice (R-HOME-4):
    ``seats`` (those whose standing choice is ``ask``) are asked until ``deadline``; everyone
    else still in the hand chose ``always``."""

    seats: tuple[int, ...]
    deadline: float


@dataclass(frozen=True, slots=True)
class RunTwiceAnswered:
    """A player answered the run-it-twice question (R-HOME-4); a refusal means one run."""

    seat: int
    agree: bool


@dataclass(frozen=True, slots=True)
class RunTwiceTimedOut:
    """Nobody answered in time for these seats: the board is run once (R-HOME-4)."""

    seats: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class HandResult:
    """One hand's result for the room to book: per seat the account, the stack before and after,
    the house fees and the tax; the rake the engine took. ``hand`` is the engine's hand (for the
    hand history); ``deal`` the committed deck it was dealt from, salts included (secret: for
    the books only, never for the wire)."""

    number: int
    button: int
    small: int | None
    big: int
    forced: tuple[ForcedBet, ...]
    accounts: Mapping[int, str]
    before: Mapping[int, int]
    after: Mapping[int, int]
    rake: int
    fees: Mapping[int, int]
    tax: Mapping[int, int]
    hand: Hand = field(repr=False, compare=False)
    deal: CommittedDeck | None = field(default=None, repr=False, compare=False)


@dataclass(frozen=True, slots=True)
class HandFinished:
    result: HandResult


@dataclass(frozen=True, slots=True)
class WentAway:
    """A tournament player is away (R-TOURN-6): dealt in, blinds and antes posted for them,
    folded at once at their turn (checked when checking is free), with no clock. ``reason``:
    ``timeout`` or ``chosen``."""

    seat: int
    reason: str


@dataclass(frozen=True, slots=True)
class CameBack:
    """An away tournament player said they are back (R-TOURN-6)."""

    seat: int


TableEvent = (
    PlayerSeated
    | ChipsAdded
    | StackReset
    | SatOut
    | SatIn
    | SeatReleased
    | SeatChanged
    | WaitingListJoined
    | WaitingListLeft
    | SeatOffered
    | SeatOfferExpired
    | FirstButtonDrawn
    | BlindsMissed
    | BlindPrompt
    | BlindDeclined
    | HandStarted
    | TurnStarted
    | CountdownStarted
    | TimeBankStarted
    | TimedOut
    | ProtectionUsed
    | PreActionUsed
    | PreActionCancelled
    | Disconnected
    | Resumed
    | FeeCharged
    | TaxWithheld
    | HandFinished
    | WentAway
    | CameBack
    | RunTwiceOffered
    | RunTwiceAnswered
    | RunTwiceTimedOut
    | HandEvent
)
"""Everything the table emits: its own events and the hand engine's."""
