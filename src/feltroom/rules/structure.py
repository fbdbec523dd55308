"""The three betting structures as small strategies (R-GAME-1, DESIGN.md principle 7).

A structure answers two questions for the hand: what may the player to act bet or raise to
(``raise_bounds``), and how does a bet or raise change the round (``after_raise``). The hand keeps
the round's state in plain integers that the structures read and update:

- ``_level``: the amount to match this round (the largest live bet, at least the nominal big
  blind pre-flop);
- ``_raise_size`` (pot/no-limit): the largest *full* bet or raise increment this round; pre-flop
  it starts at the minimum bet (the big blind is a full bet), after the flop at zero. A full raise
  is measured against it but never against less than the big blind; an all-in for less than that
  sets no new size (R-NL-1, R-PL-1) and does not reopen the betting for players who already
  acted (R-LIMIT-4);
- ``_fl_level`` and ``_count`` (fixed-limit): the last full bet level and the number of bets
  (the big blind counts as the first, R-LIMIT-2); ``_capped`` once the cap is reached.

The player may raise at all only when they hold more than the call and some other player in the
hand could still answer; the hand checks that before asking the structure.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from feltroom.errors import InvalidConfiguration

if TYPE_CHECKING:
    from feltroom.rules.hand import Hand

__all__ = ["FixedLimit", "NoLimit", "PotLimit", "Structure"]


def _positive(name: str, value: int) -> None:
    if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
        raise InvalidConfiguration(f"{name} must be a positive integer, not {value!r}")


def _after_raise(hand: Hand, to: int, big_blind: int) -> None:
    """Pot- and no-limit: a bet or raise of at least a full raise (the round's largest full
    increment, never less than the big blind) sets the size the next raise is measured against;
    an all-in for less sets none (R-NL-1, R-PL-1)."""
    increment = to - hand._level
    size = hand._raise_size
    if increment >= (size if size > big_blind else big_blind) and increment > size:
        hand._raise_size = increment
    hand._count += 1


@dataclass(frozen=True, slots=True)
class NoLimit:
    """No-limit (R-NL-1/2): bet at least the big blind, raise at least the largest previous full
    bet or raise of the round (never less than the big blind), at most the whole stack; no cap
    (R-PL-3)."""

    big_blind: int
    code: ClassVar[str] = "NT"
    name: ClassVar[str] = "No-Limit"

    def __post_init__(self) -> None:
        _positive("big_blind", self.big_blind)

    def min_bet(self, street: int) -> int:
        """The minimum bet of a street: the big blind."""
        return self.big_blind

    def raise_bounds(self, hand: Hand, p: int) -> tuple[int, int] | None:
        bet = hand._bets[p]
        size = hand._raise_size
        full = size if size > self.big_blind else self.big_blind
        if hand._acted[p] and hand._level - bet < full:
            return None  # no full raise since this player acted (R-LIMIT-4, R-NL-1)
        top = hand._stacks[p] + bet
        low = hand._level + full
        return (low if low < top else top), top

    def after_raise(self, hand: Hand, p: int, to: int) -> None:
        _after_raise(hand, to, self.big_blind)


@dataclass(frozen=True, slots=True)
class PotLimit:
    """Pot-limit (R-PL-1/2): minimum as no-limit; the maximum raise is the pot after calling:
    raise-to at most ``2 * level - own bet + everything in the middle``; no cap (R-PL-3)."""

    big_blind: int
    code: ClassVar[str] = "PT"
    name: ClassVar[str] = "Pot-Limit"

    def __post_init__(self) -> None:
        _positive("big_blind", self.big_blind)

    def min_bet(self, street: int) -> int:
        """The minimum bet of a street: the big blind."""
        return self.big_blind

    def raise_bounds(self, hand: Hand, p: int) -> tuple[int, int] | None:
        bet = hand._bets[p]
        level = hand._level
        size = hand._raise_size
        full = size if size > self.big_blind else self.big_blind
        if hand._acted[p] and level - bet < full:
            return None  # no full raise since this player acted (R-LIMIT-4, R-PL-1)
        top = hand._stacks[p] + bet
        low = level + full
        high = 2 * level - bet + hand._in_pot
        if high < low:
            high = low
        return (low if low < top else top), (high if high < top else top)

    def after_raise(self, hand: Hand, p: int, to: int) -> None:
        _after_raise(hand, to, self.big_blind)


@dataclass(frozen=True, slots=True)
class FixedLimit:
    """Fixed-limit (R-LIMIT-1..4): bets and raises of ``small_bet`` pre-flop and on the flop,
    ``big_bet`` on the turn and river; at most ``max_bets_per_round`` bets (``None``: no cap, for
    replays), the big blind counting as the first; with ``uncapped_heads_up`` no cap while only
    two players remain in the hand (R-LIMIT-3). An all-in raise of at least half a bet counts as
    a full raise; less does not reopen the betting (R-LIMIT-4)."""

    small_bet: int
    big_bet: int
    max_bets_per_round: int | None = 4
    uncapped_heads_up: bool = True
    code: ClassVar[str] = "FT"
    name: ClassVar[str] = "Fixed-Limit"

    def __post_init__(self) -> None:
        _positive("small_bet", self.small_bet)
        _positive("big_bet", self.big_bet)
        if self.max_bets_per_round is not None:
            _positive("max_bets_per_round", self.max_bets_per_round)

    @property
    def big_blind(self) -> int:
        """The big blind is the lower limit (R-BLIND-2)."""
        return self.small_bet

    def min_bet(self, street: int) -> int:
        """The fixed bet of a street: the small bet pre-flop and on the flop, else the big bet."""
        return self.small_bet if street < 2 else self.big_bet

    def _cap_reached(self, hand: Hand) -> bool:
        cap = self.max_bets_per_round
        if cap is None or hand._count < cap:
            return False
        return not (self.uncapped_heads_up and hand._live == 2)

    def raise_bounds(self, hand: Hand, p: int) -> tuple[int, int] | None:
        if hand._capped:
            return None
        cap = self.max_bets_per_round  # the cap, as ``_cap_reached`` (inlined: the hot path)
        if (
            cap is not None
            and hand._count >= cap
            and not (self.uncapped_heads_up and hand._live == 2)
        ):
            return None
        bet = hand._bets[p]
        if hand._acted[p] and hand._fl_level <= bet:
            return None  # no full raise since this player acted (R-LIMIT-4)
        to = hand._fl_level + (self.small_bet if hand._street < 2 else self.big_bet)
        top = hand._stacks[p] + bet
        if top < to:
            to = top
        return to, to

    def after_raise(self, hand: Hand, p: int, to: int) -> None:
        unit = self.small_bet if hand._street < 2 else self.big_bet
        if 2 * (to - hand._fl_level) >= unit:
            hand._fl_level += unit
            count = hand._count = hand._count + 1
            cap = self.max_bets_per_round  # ``_cap_reached``, inlined (the hot path)
            if (
                cap is not None
                and count >= cap
                and not (self.uncapped_heads_up and hand._live == 2)
            ):
                hand._capped = True


Structure = FixedLimit | PotLimit | NoLimit
"""Any of the three betting structures."""
