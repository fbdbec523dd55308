"""The turn clock (R-TIME-1): base time, then a visible countdown, then the player's time bank.

Sans-I/O: the clock never reads the time; ``now`` is passed in. Base time and countdown reset every
turn; the time bank is what is left of ``time_bank_seconds`` and carries over between turns (the
seat keeps it; the clock reports how much of it a turn used).
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["TurnClock"]

BASE, COUNTDOWN, BANK, EXPIRED = 0, 1, 2, 3


@dataclass(slots=True)
class TurnClock:
    """One turn's clock for ``seat``, started at ``started``."""

    seat: int
    started: float
    act_seconds: float
    countdown_seconds: float
    bank: float
    stage: int = BASE
    countdown_at: float = field(init=False)
    """When the visible countdown starts."""
    bank_at: float = field(init=False)
    """When the time bank starts running."""
    deadline: float = field(init=False)
    """When the turn times out (R-TIME-2)."""

    def __post_init__(self) -> None:
        self.countdown_at = self.started + self.act_seconds
        self.bank_at = self.countdown_at + self.countdown_seconds
        self.deadline = self.bank_at + self.bank

    def advance(self, now: float) -> tuple[int, ...]:
        """The stages entered since the last call: ``COUNTDOWN``, ``BANK``, ``EXPIRED``."""
        if now < self.countdown_at:
            return ()
        entered: list[int] = []
        if self.stage < COUNTDOWN:
            self.stage = COUNTDOWN
            entered.append(COUNTDOWN)
        if self.stage < BANK and now >= self.bank_at and self.bank > 0:
            self.stage = BANK
            entered.append(BANK)
        if self.stage < EXPIRED and now >= self.deadline:
            self.stage = EXPIRED
            entered.append(EXPIRED)
        return tuple(entered)

    def next_due(self) -> float:
        """When ``advance`` next has a stage to enter (infinity once the turn expired)."""
        if self.stage < COUNTDOWN:
            return self.countdown_at
        if self.stage < BANK and self.bank > 0:
            return self.bank_at
        if self.stage < EXPIRED:
            return self.deadline
        return float("inf")

    def bank_used(self, now: float) -> float:
        """Time-bank seconds this turn used up to ``now``."""
        return min(self.bank, max(0.0, now - self.bank_at))
