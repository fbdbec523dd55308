"""A neutral hand record: what happened in one hand of Texas Hold'em, independent of any format.

The record is what the PHH reader produces and the PHH writer consumes, and what the replayer feeds
to the rules engine. It speaks in table terms (seat numbers, a button seat, forced bets by kind)
rather than in a file format's terms (PHH positions, reversed heads-up blinds), so that other
formats (PokerStars text, OHH) can map to it too.

Money is integer units (R-GAME-5). A file written in decimals ("0.25") is converted exactly:
``exponent`` says how many decimal places one unit has (2 means a unit is 0.01 of the file's
currency). Expected results may be finer than a unit (a file that splits an odd chip in halves
writes ``10387.5``), so they are kept as ``Decimal`` counts of units.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from enum import Enum
from fractions import Fraction
from types import MappingProxyType

from feltroom.cards import Card

__all__ = [
    "Action",
    "ActionKind",
    "ForcedBet",
    "ForcedKind",
    "HandRecord",
    "PlayerRecord",
    "Protection",
    "RakeRecord",
    "Stakes",
    "Structure",
]


class Structure(Enum):
    """The betting structure (R-GAME-1); the value is the PHH variant code."""

    NO_LIMIT = "NT"
    POT_LIMIT = "PT"
    FIXED_LIMIT = "FT"


class ForcedKind(Enum):
    """Kinds of forced bets. Blinds, straddles and posts are live bets; antes and dead blinds are
    dead money that goes straight into the pot (R-BLIND-1, R-ENTRY-1, R-MISS-1/2)."""

    ANTE = "ante"
    SMALL_BLIND = "small_blind"
    BIG_BLIND = "big_blind"
    STRADDLE = "straddle"
    POST = "post"
    DEAD_BLIND = "dead_blind"

    @property
    def live(self) -> bool:
        """Whether the amount is a bet in the first betting round (not dead money)."""
        return self not in (ForcedKind.ANTE, ForcedKind.DEAD_BLIND)


class ActionKind(Enum):
    """What an actor did. ``DEAL_BOARD`` is the dealer's; all others are a player's."""

    FOLD = "f"
    CHECK_CALL = "cc"
    BET_RAISE = "cbr"
    SHOW = "show"
    MUCK = "muck"
    DEAL_BOARD = "db"


@dataclass(frozen=True, slots=True)
class Stakes:
    """The limits. Fixed-limit: the small and big bet (R-GAME-4). Pot- and no-limit: the minimum
    bet (normally the big blind), given as both ``small_bet`` and ``big_bet``."""

    small_bet: int
    big_bet: int

    @classmethod
    def min_bet(cls, amount: int) -> Stakes:
        """Pot- or no-limit stakes with one minimum bet."""
        return cls(amount, amount)


@dataclass(frozen=True, slots=True)
class ForcedBet:
    """One forced bet: who posts it, what kind, how much (in units)."""

    seat: int
    kind: ForcedKind
    amount: int


@dataclass(frozen=True, slots=True)
class PlayerRecord:
    """One player dealt into the hand: seat number, name, starting stack (``None`` when the
    record does not know it) and hole cards (``None`` for each card the record does not know)."""

    seat: int
    name: str
    stack: int | None
    hole: tuple[Card | None, ...] = (None, None)


@dataclass(frozen=True, slots=True)
class Action:
    """One action in the order it happened.

    ``seat`` is the actor (``None`` for the dealer). ``amount`` is the raise-to total for the
    street (``BET_RAISE``). ``cards`` are the cards shown (``SHOW``: ``None`` for a card shown
    face down) or dealt (``DEAL_BOARD``).
    """

    seat: int | None
    kind: ActionKind
    amount: int | None = None
    cards: tuple[Card | None, ...] = ()


@dataclass(frozen=True, slots=True)
class Protection:
    """The table froze a player's contribution (R-ALLIN-5): just before ``actions[before]`` (or
    after the last action when ``before == len(actions)``), the player in ``seat`` was protected:
    treated as all-in, acting no more, contesting the pots up to their contribution."""

    before: int
    seat: int


@dataclass(frozen=True, slots=True)
class RakeRecord:
    """The rake rule the hand was played under (R-RAKE-1/3): ``fraction`` of each pot (1/20 is
    5%), at most ``cap`` units per hand (``None``: no cap); ``taken``: the rake the hand paid,
    when the record states it; ``pots``: the rake each pot paid (main pot first), when the
    record keeps it per pot (imported hands: replayed with exactly that rake, R-RAKE-3)."""

    fraction: Fraction
    cap: int | None
    no_flop_no_drop: bool = False
    taken: int | None = None
    pots: tuple[int, ...] | None = None


def _empty_metadata() -> Mapping[str, object]:
    return MappingProxyType({})


@dataclass(frozen=True, slots=True)
class HandRecord:
    """One hand, as recorded.

    ``players`` are in clockwise order starting with the first player to the button's left (the
    dealing order, R-DEAL-1); the button seat is ``button``, which may be an empty seat under the
    dead-button rule. ``actions`` hold the players' actions and the board deals in order; the
    board is also available as ``board``. ``finishing_stacks`` and ``winnings`` are results the
    record states (in units, possibly fractional), in the order of ``players``.
    ``max_bets_per_round`` is ``None`` when no raise cap applies: a recorded hand replays as
    recorded; ``uncapped_heads_up`` lifts that cap while two players remain (R-LIMIT-3).
    ``ante_trimming`` is PHH's ``ante_trimming_status``: false for antes that are dead money in
    the main pot (the engine's reading of every ante and dead blind), true for antes counted as
    contributions. ``protections`` are the table's protections (R-ALLIN-5) and where they fall
    among ``actions``.
    ``straddle_full_raise`` says how a straddle sets the pre-flop raise size: true (feltroom's
    rule, R-HOME-3) when the straddle's size is the last full raise (a straddle of 4 at big blind
    2: the minimum raise is to 8); false for PHH files of real hands, which follow PokerKit (the
    straddle's increment over the big blind: a raise to 6).
    ``second_board`` is the second run of a board run twice (R-HOME-4).
    ``metadata`` keeps the fields a format carries that the record does not interpret
    (event, venue, time...), so that writing a read record loses nothing.
    """

    structure: Structure
    stakes: Stakes
    players: tuple[PlayerRecord, ...]
    button: int
    forced_bets: tuple[ForcedBet, ...] = ()
    actions: tuple[Action, ...] = ()
    exponent: int = 0
    finishing_stacks: tuple[Decimal, ...] | None = None
    winnings: tuple[Decimal, ...] | None = None
    rake: RakeRecord | None = None
    max_bets_per_round: int | None = None
    uncapped_heads_up: bool = True
    seat_count: int | None = None
    ante_trimming: bool = False
    hand_id: str | int | None = None
    protections: tuple[Protection, ...] = ()
    straddle_full_raise: bool = True
    metadata: Mapping[str, object] = field(default_factory=_empty_metadata)
    second_board: tuple[Card | None, ...] = ()
    """A board run twice (R-HOME-4): the second run's whole board (the cards both runs share,
    then the second run's own); ``board`` is the first run's. Empty for a board dealt once."""

    @property
    def board(self) -> tuple[Card | None, ...]:
        """The board cards dealt, in order."""
        return tuple(
            card
            for action in self.actions
            if action.kind is ActionKind.DEAL_BOARD
            for card in action.cards
        )

    @property
    def seats(self) -> tuple[int, ...]:
        """The players' seat numbers in the order of ``players``."""
        return tuple(player.seat for player in self.players)

    @property
    def unit(self) -> Decimal:
        """One unit in the file's currency (``Decimal('0.01')`` for exponent 2)."""
        return Decimal(1).scaleb(-self.exponent)

    def index_of(self, seat: int) -> int:
        """The index in ``players`` of the player in ``seat``."""
        for index, player in enumerate(self.players):
            if player.seat == seat:
                return index
        raise KeyError(f"no player in seat {seat}; seats are {self.seats}")
