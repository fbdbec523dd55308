"""The calling station: checks when it can, calls when it must, never folds.

It folds only where nothing else is legal (never: a legal set always offers a check or a call),
and raises rarely (``raise_rate``, the minimum raise), so a table of stations goes to many
showdowns. It reads only the legal options.
"""

from __future__ import annotations

import random

from feltroom.rules import Action, Call, Check, Fold, HandView, LegalActions, RaiseTo

__all__ = ["StationBrain"]


class StationBrain:
    """Check or call; with probability ``raise_rate`` a minimum raise instead."""

    __slots__ = ("_random", "raise_rate")

    reads_view = False

    def __init__(self, seed: int | str | None = None, *, raise_rate: float = 0.03) -> None:
        if not 0.0 <= raise_rate <= 1.0:
            raise ValueError(f"raise_rate is a probability 0..1, not {raise_rate}")
        self._random = random.Random(seed)
        self.raise_rate = raise_rate

    def choose(self, view: HandView | None, legal: LegalActions) -> Action:
        """Check, else call; rarely a minimum raise."""
        if (
            legal.raise_min is not None
            and self.raise_rate > 0
            and self._random.random() < self.raise_rate
        ):
            return RaiseTo(legal.raise_min)
        if legal.check:
            return Check()
        if legal.call is not None:
            return Call()
        return Fold()  # pragma: no cover - a legal set always offers check or call
