"""Pots, odd chips and rake as explicit, separately tested functions (DESIGN.md principle 6).

Amounts are integer chips. Players are referred to by *position*: 0 is the first player to the
button's left, so "clockwise from the button" is simply increasing position.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from feltroom.errors import InvalidConfiguration

__all__ = ["PotResult", "RakeRule", "build_pots", "rake_pots", "split_pot"]


@dataclass(frozen=True, slots=True)
class RakeRule:
    """The house's rake (R-RAKE-1/3): ``fraction`` of the hand's pots together, rounded down, at
    most ``cap`` per hand (``None``: no cap), taken from the main pot outward; with
    ``no_flop_no_drop`` no rake when the hand ends before the flop.

    ``pots`` is a recorded rake (imported hands, R-RAKE-3): pot ``k`` pays ``pots[k]`` (at most
    its size; pots beyond the record pay nothing) and ``fraction`` and ``cap`` only describe it.
    """

    fraction: Fraction
    cap: int | None = None
    no_flop_no_drop: bool = False
    pots: tuple[int, ...] | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.fraction, Fraction) or not 0 <= self.fraction < 1:
            raise InvalidConfiguration(
                f"rake fraction must be a Fraction in [0, 1), not {self.fraction!r}"
            )
        if self.cap is not None and self.cap < 0:
            raise InvalidConfiguration(f"rake cap must be >= 0 or None, not {self.cap}")
        if self.pots is not None and any(type(rake) is not int or rake < 0 for rake in self.pots):
            raise InvalidConfiguration(
                f"recorded rakes must be integers >= 0, one per pot, not {self.pots!r}"
            )


@dataclass(frozen=True, slots=True)
class PotResult:
    """How one pot ended: its size, the rake taken from it, who could win it, who won and what."""

    index: int
    amount: int
    rake: int
    eligible: tuple[int, ...]
    winners: tuple[int, ...]
    shares: tuple[int, ...]
    runs: tuple[tuple[tuple[int, ...], tuple[int, ...]], ...] = ()
    """A pot run twice (R-HOME-4): ``(winners, shares)`` of each run's half, first run first;
    ``winners``/``shares`` are then their sums per player. Empty for a pot awarded once."""


def build_pots(
    contributions: Sequence[int], live: Sequence[bool], dead: int = 0
) -> list[tuple[int, tuple[int, ...]]]:
    """Main pot then side pots as ``(amount, eligible positions)`` (R-ALLIN-2).

    ``contributions`` are live chips only (bets, blinds, posts); ``dead`` is the dead money
    (antes and dead blinds, R-BLIND-1, R-MISS-1/2). Each distinct contribution of a player still
    in the hand (all-in or protected players end lower) closes a pot: every player, folded or
    not, pays into it up to that level; only players still in who reached the level are
    eligible.

    Dead money is the bottom of the main pot and every player still in the hand contests it; it
    does not raise its poster's eligibility level (it is not a bet: nobody matched it). When a
    player still in put in no live chip at all (all-in on dead money alone), the dead money is a
    main pot of its own that they contest with everyone else still in, and the live chips make the
    side pots; otherwise it is added to the first live pot (same eligible players). Pots therefore
    always have distinct eligible sets, and odd chips are dealt per pot (R-POT-1).
    """
    n = len(contributions)
    everyone = tuple([i for i in range(n) if live[i]])
    levels = sorted({c for i in everyone if (c := contributions[i]) > 0})
    if not levels:
        return [(sum(contributions) + dead, everyone)]
    if len(levels) == 1:
        # One level (the usual showdown): a single pot, unless someone still in put in no live
        # chip (then the dead money is their main pot).
        level = levels[0]
        amount = 0
        for c in contributions:
            amount += c if c < level else level
        extra = sum(contributions) - amount
        eligible = tuple([i for i in everyone if contributions[i] >= level])
        if dead and len(eligible) < len(everyone):
            return [(dead, everyone), (amount + extra, eligible)]
        return [(amount + extra + dead, eligible)]
    pots: list[tuple[int, tuple[int, ...]]] = []
    if dead and any(contributions[i] == 0 for i in everyone):
        pots.append((dead, everyone))
        dead = 0
    previous = 0
    for level in levels:
        amount = 0
        for c in contributions:
            if c > previous:
                amount += (c if c < level else level) - previous
        eligible = tuple([i for i in everyone if contributions[i] >= level])
        pots.append((amount, eligible))
        previous = level
    extra = sum(c - previous for c in contributions if c > previous)
    if extra:
        amount, eligible = pots[-1]
        pots[-1] = (amount + extra, eligible)
    if dead:
        amount, eligible = pots[0]
        pots[0] = (amount + dead, eligible)
    return pots


def split_pot(amount: int, winners: Sequence[int]) -> tuple[int, ...]:
    """Shares of ``amount`` for ``winners`` given in clockwise order from the button's left.

    Equal shares; the odd chips go one each to the first winners clockwise from the button
    (R-POT-1): the first winner left of the button gets the first odd chip.
    """
    count = len(winners)
    if count == 0:
        raise ValueError("a pot needs at least one winner")
    share, odd = divmod(amount, count)
    return tuple(share + 1 if k < odd else share for k in range(count))


def rake_pots(amounts: Sequence[int], rule: RakeRule | None, flop_dealt: bool) -> list[int]:
    """Rake per pot (R-RAKE-3): computed once for the hand, ``fraction`` of the sum of the pots
    rounded down to the unit and capped; then taken from the main pot outward, each pot giving
    its own share (``fraction`` of it, rounded down) until the hand's rake is reached, and what
    the rounding left over (less than one unit per pot) from the main pot outward. Two 19-chip
    pots at 5% pay 1 (from the main pot), not 0. None without a rule, and none under
    ``no_flop_no_drop`` when no flop was dealt. A recorded rule (``pots``) takes each pot's
    recorded rake."""
    if rule is None or (rule.no_flop_no_drop and not flop_dealt):
        return [0] * len(amounts)
    recorded = rule.pots
    if recorded is not None:
        count = len(recorded)
        return [
            (recorded[k] if recorded[k] < amount else amount) if k < count else 0
            for k, amount in enumerate(amounts)
        ]
    fraction = rule.fraction
    remaining = sum(amounts) * fraction.numerator // fraction.denominator
    if rule.cap is not None and remaining > rule.cap:
        remaining = rule.cap
    num, den = fraction.numerator, fraction.denominator
    rakes = []
    for amount in amounts:
        rake = amount * num // den
        if rake > remaining:
            rake = remaining
        remaining -= rake
        rakes.append(rake)
    for k, amount in enumerate(amounts):
        if not remaining:
            break
        extra = amount - rakes[k]
        if extra > remaining:
            extra = remaining
        rakes[k] += extra
        remaining -= extra
    return rakes
