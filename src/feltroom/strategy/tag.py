"""The tight-aggressive brain: plays few hands, and plays them hard.

Before the flop it looks its two cards up in a table of the 169 starting hands scored by the
Chen formula (``PREFLOP_SCORE``: AA 20, AKs 12, 72o -1): a strong hand raises (and re-raises a
raise), a fair one calls a raise it can afford, and the rest fold facing a raise (they check
when it is free). After the flop it estimates its equity against random hands for each opponent
still in (``strategy.equity``, a few hundred samples, a few milliseconds) and compares it with the
pot odds: strong hands bet or raise about two thirds of the pot, good ones bet or call, the rest
check or fold. Amounts always come from the legal range. It sees only its own view: its cards,
the board, the bets and the pot. Without a view (or without its cards) it checks, else folds.
"""

from __future__ import annotations

import math
import random

import numpy as np

from feltroom.cards import Card, Rank
from feltroom.rules import Action, Call, Check, Fold, HandView, LegalActions, RaiseTo
from feltroom.strategy.equity import equity

__all__ = ["PREFLOP_SCORE", "TagBrain", "chen_score", "hand_key"]

_HIGH = {Rank.ACE: 10.0, Rank.KING: 8.0, Rank.QUEEN: 7.0, Rank.JACK: 6.0}
_GAP_PENALTY = {0: 0.0, 1: 1.0, 2: 2.0, 3: 4.0}


def chen_score(high: Rank, low: Rank, suited: bool) -> int:
    """The Chen formula's score of a starting hand (higher card first), rounded up."""
    points = _HIGH.get(high, high / 2)
    if high == low:
        return math.ceil(max(5.0, 2 * points))
    gap = high - low - 1
    points -= _GAP_PENALTY.get(gap, 5.0)
    if suited:
        points += 2
    if gap <= 1 and high < Rank.QUEEN:
        points += 1
    return math.ceil(points)


def hand_key(first: Card, second: Card) -> str:
    """A starting hand's class: ``"AA"``, ``"AKs"`` (suited) or ``"AKo"`` (offsuit)."""
    high, low = sorted((first, second), key=lambda c: c.rank, reverse=True)
    if high.rank == low.rank:
        return high.rank.symbol * 2
    return high.rank.symbol + low.rank.symbol + ("s" if high.suit == low.suit else "o")


def _table() -> dict[str, int]:
    table: dict[str, int] = {}
    ranks = sorted(Rank, reverse=True)
    for i, high in enumerate(ranks):
        table[high.symbol * 2] = chen_score(high, high, False)
        for low in ranks[i + 1 :]:
            for suited, mark in ((True, "s"), (False, "o")):
                table[high.symbol + low.symbol + mark] = chen_score(high, low, suited)
    return table


PREFLOP_SCORE: dict[str, int] = _table()
"""The 169 starting hands and their Chen scores (``"AA"``: 20, ``"72o"``: -1)."""

PREMIUM = 12
"""Raise and re-raise (AA..JJ, AKs)."""
STRONG = 9
"""Open with a raise; call a raise up to a quarter of the stack."""
PLAYABLE = 7
"""Call the big blind when the pot is unopened; call a small raise."""


class TagBrain:
    """Tight-aggressive play from hand strength: a preflop table, then equity by sampling."""

    __slots__ = ("_numpy", "_random", "samples")

    reads_view = True

    def __init__(self, seed: int | str | None = None, *, samples: int = 300) -> None:
        if samples < 1:
            raise ValueError(f"samples must be at least 1, not {samples}")
        self._random = random.Random(seed)
        self._numpy = np.random.default_rng(self._random.getrandbits(64))
        self.samples = samples

    def choose(self, view: HandView | None, legal: LegalActions) -> Action:
        """An action of ``legal``, from the hand's strength in ``view``."""
        me = None
        if view is not None:
            me = next((p for p in view.players if p.seat == legal.seat), None)
        if view is None or me is None or me.cards is None or None in me.cards:
            return _passive(legal, call=False)
        hole = (me.cards[0], me.cards[1])
        assert hole[0] is not None
        assert hole[1] is not None
        top = max(p.bet for p in view.players)
        total = me.stack + me.bet
        if view.street == 0 and not any(view.board):
            return self._preflop(hand_key(hole[0], hole[1]), legal, top, total)
        board = tuple(c for c in view.board if c is not None)
        opponents = sum(1 for p in view.players if p.seat != legal.seat and not p.folded)
        share = equity((hole[0], hole[1]), board, opponents, self.samples, self._numpy)
        return self._postflop(share, legal, view.pot, top)

    def _preflop(self, key: str, legal: LegalActions, top: int, total: int) -> Action:
        score = PREFLOP_SCORE[key]
        big = _big_blind(legal, top)
        owed = legal.call or 0
        if top <= big:  # nobody raised: open strong hands, limp fair ones
            if score >= STRONG:
                return _raise(legal, 3 * big)
            if score >= PLAYABLE:
                return _passive(legal, call=True)
            return _passive(legal, call=False)
        if score >= PREMIUM:
            target = 3 * top
            return _raise(legal, legal.raise_max if target * 5 >= total * 2 else target)
        if score >= STRONG and owed * 4 <= total:
            return _passive(legal, call=True)
        if score >= PLAYABLE and owed * 10 <= total:
            return _passive(legal, call=True)
        return _passive(legal, call=False)

    def _postflop(self, share: float, legal: LegalActions, pot: int, top: int) -> Action:
        owed = legal.call or 0
        if owed == 0:
            if share >= 0.7:
                return _raise(legal, top + (2 * pot) // 3)
            if share >= 0.5 and self._random.random() < 0.5:
                return _raise(legal, top + pot // 2)
            return _passive(legal, call=False)
        odds = owed / (pot + owed)
        if share >= 0.8:
            return _raise(legal, top + (3 * (pot + owed)) // 4)
        if share >= max(0.35, odds + 0.1):
            return _passive(legal, call=True)
        return _passive(legal, call=False)


def _big_blind(legal: LegalActions, top: int) -> int:
    """The size of the last raise (the big blind before anyone raised): a raise must add at
    least that much. Without a legal raise, the bet to match stands in for it."""
    if legal.raise_min is not None and legal.raise_min > top:
        return max(1, min(legal.raise_min - top, top) if top else legal.raise_min)
    return max(1, top)


def _passive(legal: LegalActions, *, call: bool) -> Action:
    """Check when it is free; else call (``call``) or fold."""
    if legal.check:
        return Check()
    if call and legal.call is not None:
        return Call()
    if legal.fold:
        return Fold()
    return Call()  # pragma: no cover - not facing a bet means a check is legal


def _raise(legal: LegalActions, target: int | None) -> Action:
    """A bet or raise to ``target`` brought into the legal range; a call or check when no wager
    is possible."""
    if legal.raise_min is None or legal.raise_max is None or target is None:
        return _passive(legal, call=True)
    return RaiseTo(min(max(target, legal.raise_min), legal.raise_max))
