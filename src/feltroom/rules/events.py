"""Events: what happened, returned by every step of a hand (sans-I/O, DESIGN.md principle 1).

Events are slotted dataclasses without ``frozen``: one is made for every action, and a frozen
dataclass costs several times more to construct (the engine's speed target). Treat them as
read-only values; the engine never changes an event after returning it.

Events never carry hidden information: hole cards appear only in ``CardsShown``; a deal of hole
cards says only who got how many. Each player's own cards reach them through ``view_for(seat)``.
"""

from __future__ import annotations

from dataclasses import dataclass

from feltroom.cards import Card
from feltroom.rules.actions import Forced

__all__ = [
    "BoardDealt",
    "Called",
    "CardsMucked",
    "CardsShown",
    "Checked",
    "Event",
    "Folded",
    "HandEnded",
    "HoleCardsDealt",
    "Posted",
    "PotAwarded",
    "Protected",
    "Raised",
    "RunsChosen",
    "UncalledBetReturned",
]


@dataclass(slots=True)
class Posted:
    """A forced bet went in: ``amount`` may be less than nominal when it puts the player all-in."""

    seat: int
    kind: Forced
    amount: int
    all_in: bool


@dataclass(slots=True)
class HoleCardsDealt:
    """Every player got their two hole cards (the cards themselves only via ``view_for``)."""

    seats: tuple[int, ...]


@dataclass(slots=True)
class Folded:
    seat: int


@dataclass(slots=True)
class Checked:
    seat: int


@dataclass(slots=True)
class Called:
    """``amount`` chips went in; ``all_in`` when that was the whole stack."""

    seat: int
    amount: int
    all_in: bool


@dataclass(slots=True)
class Raised:
    """A bet (``bet`` true: nothing was owed) or raise to ``to`` for the round."""

    seat: int
    to: int
    all_in: bool
    bet: bool


@dataclass(slots=True)
class Protected:
    """The table froze this player's contribution (R-ALLIN-5)."""

    seat: int


@dataclass(slots=True)
class UncalledBetReturned:
    """The part of a bet nobody matched went back to its bettor (R-ALLIN-4)."""

    seat: int
    amount: int


@dataclass(slots=True)
class BoardDealt:
    """A card was burned (never shown, R-DEAL-2) and board cards were dealt; street 1..3.
    ``run`` is 0 for a board dealt once, 1 or 2 for the first or second run of a board run
    twice (R-HOME-4; the second run's cards replace the first's from the same street)."""

    street: int
    cards: tuple[Card, ...]
    run: int = 0


@dataclass(slots=True)
class RunsChosen:
    """Betting cannot continue before the river at a table that runs it twice (R-HOME-4): the
    rest of the board is dealt ``runs`` times (1: everyone did not agree, 2: everyone did)."""

    runs: int


@dataclass(slots=True)
class CardsShown:
    seat: int
    cards: tuple[Card, ...]


@dataclass(slots=True)
class CardsMucked:
    seat: int


@dataclass(slots=True)
class PotAwarded:
    """Pot ``index`` (0 = main pot): ``amount`` before rake, ``rake`` to the house, ``shares``
    to ``winners`` (seat order clockwise from the button's left, R-POT-1)."""

    index: int
    amount: int
    rake: int
    winners: tuple[int, ...]
    shares: tuple[int, ...]
    runs: tuple[tuple[tuple[int, ...], tuple[int, ...]], ...] = ()
    """A pot run twice (R-HOME-4): ``(winners, shares)`` of each run's half, the first run's
    half first (it has the odd chip); ``winners``/``shares`` above are their sums per seat."""


@dataclass(slots=True)
class HandEnded:
    """Final stacks as (seat, stack) in position order."""

    stacks: tuple[tuple[int, int], ...]


Event = (
    Posted
    | HoleCardsDealt
    | Folded
    | Checked
    | Called
    | Raised
    | Protected
    | UncalledBetReturned
    | BoardDealt
    | CardsShown
    | CardsMucked
    | PotAwarded
    | HandEnded
    | RunsChosen
)
