"""What players (and the table) can do in a hand, and what the engine says they may do.

Actions are small frozen values. Amounts are "raise to" totals for the current betting round
(DESIGN.md principle 6). ``LegalActions`` is the exact answer of ``Hand.legal_actions()``: clients
and bots choose from it and nothing else decides legality (principle 4, R-BET-6).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

__all__ = [
    "Action",
    "Call",
    "Check",
    "Fold",
    "Forced",
    "ForcedBet",
    "LegalActions",
    "Protect",
    "RaiseTo",
    "RunOut",
    "Show",
]


@dataclass(frozen=True, slots=True)
class Fold:
    """Give up the hand and every right to every pot (R-BET-3)."""

    def __str__(self) -> str:
        return "fold"


@dataclass(frozen=True, slots=True)
class Check:
    """Pass when no chips are owed."""

    def __str__(self) -> str:
        return "check"


@dataclass(frozen=True, slots=True)
class Call:
    """Match the current bet, or go all-in for less when short (R-ALLIN-1)."""

    def __str__(self) -> str:
        return "call"


@dataclass(frozen=True, slots=True)
class RaiseTo:
    """Bet or raise so that the player's total for this round becomes ``amount``."""

    amount: int

    def __str__(self) -> str:
        return f"raise to {self.amount}"


@dataclass(frozen=True, slots=True)
class Protect:
    """The table freezes this player's contribution: treated as all-in from now on (R-ALLIN-5)."""

    seat: int

    def __str__(self) -> str:
        return f"protect seat {self.seat}"


@dataclass(frozen=True, slots=True)
class Show:
    """After the hand, the player shows cards nobody required (R-SHOW-4: after an uncontested
    win, or a hand mucked at showdown)."""

    seat: int

    def __str__(self) -> str:
        return f"show seat {self.seat}"


@dataclass(frozen=True, slots=True)
class RunOut:
    """The table's decision, when betting cannot continue before the river at a table that
    runs it twice (R-HOME-4): deal the rest of the board ``times`` times (1 or 2). Logged with
    seat 0 (no player's action)."""

    times: int

    def __str__(self) -> str:
        return "run twice" if self.times == 2 else "run once"


Action = Fold | Check | Call | RaiseTo | Protect | Show | RunOut
"""Everything that can enter a hand's log."""


class Forced(Enum):
    """Kinds of forced bets (R-BLIND-1..4, R-ENTRY-1/3, R-MISS-1/2)."""

    ANTE = "ante"
    """Dead money (also a big-blind ante), posted before the blinds: straight into the main pot,
    not part of the player's bet or contribution; every player still in contests it."""
    SMALL_BLIND = "small_blind"
    """Live blind; does not make the round's bet level."""
    BIG_BLIND = "big_blind"
    """Live blind; the first bet pre-flop (R-LIMIT-2); action starts left of it (R-BET-1)."""
    STRADDLE = "straddle"
    """Live blind raise after the big blind; action starts left of the last straddle."""
    POST = "post"
    """An entering player's live post (R-ENTRY-1): like a big blind, with the option."""
    DEAD = "dead"
    """A dead blind (R-MISS-1/2): dead money like an ante, posted after the antes: straight into
    the main pot, not part of the player's bet or contribution."""


@dataclass(frozen=True, slots=True)
class ForcedBet:
    """One forced bet: who posts, what kind, the nominal amount (posted up to the stack)."""

    seat: int
    kind: Forced
    amount: int


@dataclass(slots=True)
class LegalActions:
    """The exact options of the player to act (R-BET-6).

    ``fold`` is offered only when facing a bet; ``check`` only when nothing is owed. ``call`` is
    the amount owed (capped by the stack: all-in for less), ``None`` when checking.
    ``raise_min``/``raise_max`` are raise-to totals for the round (equal in fixed-limit), ``None``
    when no bet or raise is allowed. ``bet`` tells whether a wager would be a bet (nothing to
    call yet) rather than a raise.

    Not frozen, for speed (one is built per decision); treat it as a read-only value.
    """

    seat: int
    fold: bool
    check: bool
    call: int | None
    raise_min: int | None
    raise_max: int | None
    bet: bool = False

    def allows(self, action: Fold | Check | Call | RaiseTo) -> bool:
        """Whether ``action`` is among these options."""
        if isinstance(action, RaiseTo):
            return (
                self.raise_min is not None
                and self.raise_max is not None
                and self.raise_min <= action.amount <= self.raise_max
            )
        if isinstance(action, Call):
            return self.call is not None
        if isinstance(action, Check):
            return self.check
        return self.fold

    def __str__(self) -> str:
        parts = []
        if self.fold:
            parts.append("fold")
        if self.check:
            parts.append("check")
        if self.call is not None:
            parts.append(f"call {self.call}")
        if self.raise_min is not None:
            word = "bet" if self.bet else "raise to"
            if self.raise_min == self.raise_max:
                parts.append(f"{word} {self.raise_min}")
            else:
                parts.append(f"{word} {self.raise_min}..{self.raise_max}")
        return ", ".join(parts)
