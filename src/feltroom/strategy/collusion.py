"""Colluding brains: the cheats the integrity report must catch, planted by its benchmark.

These brains are never a house bot's style (``STYLES`` does not name them, ``make_brain`` cannot
make them): ``feltroom bench integrity`` and the tests seat them to measure the report. Each
plays tight-aggressive (``TagBrain``) unless its partner is still in the hand; then:

- ``CardSharingBrain`` (two players who tell each other their hole cards and never raise each
  other): it never bets or raises; it checks when it can and calls what the tight-aggressive
  brain would not fold, so the two check hands down together. When a third player has bet and
  the partner still has to answer it, only the one with the stronger holding calls (before the
  flop the better starting hand, after it the better hand so far); the other folds.
- ``DumperBrain`` and ``ReceiverBrain`` (one passes chips to the other; they tell each other
  their cards too): the receiver bets or raises at every turn, about the pot, and moves all-in
  on the river when its hand beats the dumper's; the dumper calls before the flop and on the
  flop, folds to the receiver's bet on the turn and the river (after putting chips in), and
  calls the receiver's all-in when it is behind (a hopeless call).

``choose(view, legal, partner)`` takes what the partner tells (``Partner``: their seat and hole
cards); without a partner in the hand each plays like ``TagBrain``.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from dataclasses import dataclass

from feltroom.cards import Card
from feltroom.evaluate import evaluate
from feltroom.rules import Action, Call, Check, Fold, HandView, LegalActions, RaiseTo
from feltroom.strategy.tag import PREFLOP_SCORE, TagBrain, hand_key

__all__ = ["CardSharingBrain", "DumperBrain", "Partner", "ReceiverBrain"]


@dataclass(frozen=True, slots=True)
class Partner:
    """What a colluder's partner tells it: their seat and hole cards."""

    seat: int
    cards: tuple[Card, Card]


def _live(view: HandView | None, partner: Partner | None) -> bool:
    """Whether the partner is dealt into this hand and has not folded."""
    if view is None or partner is None:
        return False
    return any(p.seat == partner.seat and not p.folded for p in view.players)


def _mine(view: HandView, seat: int) -> tuple[Card, Card] | None:
    for player in view.players:
        if player.seat == seat and player.cards is not None:
            first, second = player.cards
            if first is not None and second is not None:
                return (first, second)
    return None


def _passive(legal: LegalActions, *, call: bool) -> Action:
    if legal.check:
        return Check()
    if call and legal.call is not None:
        return Call()
    return Fold() if legal.fold else Call()


class _Colluder(ABC):
    """The tight-aggressive brain, used when the partner is not in the hand."""

    __slots__ = ("_random", "_tag")

    reads_view = True

    def __init__(self, seed: int | str | None = None) -> None:
        self._random = random.Random(seed)
        self._tag = TagBrain(self._random.getrandbits(32), samples=100)

    def choose(
        self, view: HandView | None, legal: LegalActions, partner: Partner | None = None
    ) -> Action:
        if _live(view, partner):
            assert view is not None
            assert partner is not None
            return self._with_partner(view, legal, partner)
        return self._tag.choose(view, legal)

    @abstractmethod
    def _with_partner(self, view: HandView, legal: LegalActions, partner: Partner) -> Action:
        """The action while the partner is still in the hand."""


class CardSharingBrain(_Colluder):
    """Shares hole cards with its partner and never raises it (see the module docstring)."""

    __slots__ = ()

    def _with_partner(self, view: HandView, legal: LegalActions, partner: Partner) -> Action:
        wanted = self._tag.choose(view, legal)
        if isinstance(wanted, Fold) or legal.check:
            return _passive(legal, call=False)
        mine = _mine(view, legal.seat)
        if mine is None:
            return _passive(legal, call=False)
        board = [card for card in view.board if card is not None]
        if board:
            stronger = evaluate((*mine, *board)) >= evaluate((*partner.cards, *board))
        else:
            stronger = PREFLOP_SCORE[hand_key(*mine)] >= PREFLOP_SCORE[hand_key(*partner.cards)]
        top = max(p.bet for p in view.players)
        them = next(p for p in view.players if p.seat == partner.seat)
        if not stronger and them.bet < top:
            return Fold()  # a third player bet: the partner's stronger hand carries on
        return _passive(legal, call=True)


def _ahead(view: HandView, mine: tuple[Card, Card] | None, theirs: tuple[Card, Card]) -> bool:
    """Whether ``mine`` beats ``theirs`` now (after the flop: the hands so far; before it: the
    starting hands' scores)."""
    if mine is None:
        return False
    board = [card for card in view.board if card is not None]
    if board:
        return evaluate((*mine, *board)) > evaluate((*theirs, *board))
    return PREFLOP_SCORE[hand_key(*mine)] > PREFLOP_SCORE[hand_key(*theirs)]


class DumperBrain(_Colluder):
    """Passes chips to its partner (see the module docstring)."""

    __slots__ = ()

    def _with_partner(self, view: HandView, legal: LegalActions, partner: Partner) -> Action:
        them = next(p for p in view.players if p.seat == partner.seat)
        top = max(p.bet for p in view.players)
        if them.all_in:  # the partner moved in with the better hand: pay it off
            return _passive(legal, call=not _ahead(view, _mine(view, legal.seat), partner.cards))
        if view.street >= 2 and them.bet == top and top > 0:
            return _passive(legal, call=False)
        return _passive(legal, call=True)


class ReceiverBrain(_Colluder):
    """Takes chips from its partner (see the module docstring)."""

    __slots__ = ()

    def _with_partner(self, view: HandView, legal: LegalActions, partner: Partner) -> Action:
        if legal.raise_min is None or legal.raise_max is None:
            return _passive(legal, call=True)
        top = max(p.bet for p in view.players)
        if view.street == 3 and _ahead(view, _mine(view, legal.seat), partner.cards):
            return RaiseTo(legal.raise_max)
        target = 3 * top if view.street == 0 else top + view.pot
        return RaiseTo(min(max(target, legal.raise_min), legal.raise_max))
