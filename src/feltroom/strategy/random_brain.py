"""The random brain: a legal action chosen at random, reproducibly from a seed.

Folding is chosen only when facing a bet; raise amounts are drawn from the legal range, mostly
near its minimum and sometimes all the way to the maximum (all-in in no-limit), so that random
play reaches side pots, caps and all-ins often.
"""

from __future__ import annotations

import random
from typing import Protocol

from feltroom.rules import Action, Call, Check, Fold, HandView, LegalActions, RaiseTo

__all__ = ["Brain", "RandomBrain"]


class Brain(Protocol):
    """Anything that picks an action for a seat from its view and the legal options."""

    def choose(self, view: HandView | None, legal: LegalActions) -> Action:
        """One of the actions ``legal`` allows."""
        ...


class RandomBrain:
    """Random legal actions. ``fold``, ``passive`` and ``aggressive`` weigh the three kinds of
    action (folding only when facing a bet)."""

    __slots__ = ("_random", "aggressive", "fold", "passive")

    def __init__(
        self,
        seed: int | str | None = None,
        *,
        fold: float = 0.25,
        passive: float = 0.5,
        aggressive: float = 0.25,
    ) -> None:
        self._random = random.Random(seed)
        self.fold = fold
        self.passive = passive
        self.aggressive = aggressive

    def choose(self, view: HandView | None, legal: LegalActions) -> Action:
        r = self._random.random() * (self.fold + self.passive + self.aggressive)
        can_raise = legal.raise_min is not None and legal.raise_max is not None
        if r < self.fold and legal.fold:
            return Fold()
        if r >= self.fold + self.passive and can_raise:
            return RaiseTo(self._amount(legal))
        if legal.check:
            return Check()
        if legal.call is not None:
            return Call()
        return Fold()  # pragma: no cover - a legal set always offers check or call

    def _amount(self, legal: LegalActions) -> int:
        low, high = legal.raise_min, legal.raise_max
        assert low is not None
        assert high is not None
        if low == high:
            return low
        roll = self._random.random()
        if roll < 0.15:
            return high
        if roll < 0.6:
            return low
        return self._random.randint(low, high)
