"""The tight-aggressive brain: legal actions only, a starting-hand table before the flop, equity
against random hands after it, amounts from the legal range."""

from __future__ import annotations

import itertools
import time

import numpy as np
import pytest

from feltroom.cards import Card, parse_cards
from feltroom.rules import Call, Check, Fold, HandView, LegalActions, RaiseTo, SeatView
from feltroom.strategy import TagBrain, equity, make_brain
from feltroom.strategy.tag import PREFLOP_SCORE, hand_key

from .brains_support import play_hands


def _view(
    me: str, board: str, bets: dict[int, int], *, pot: int, seat: int = 4, stack: int = 200
) -> HandView:
    cards = parse_cards(me)
    players = tuple(
        SeatView(
            s,
            stack if s == seat else 200 - bet,
            bet,
            False,
            False,
            (cards[0], cards[1]) if s == seat else None,
        )
        for s, bet in sorted(bets.items())
    )
    shown = parse_cards(board) if board else ()
    street = {0: 0, 3: 1, 4: 2, 5: 3}[len(shown)]
    return HandView(seat, street, shown, pot, players, seat, None, False, ())


FACING_RAISE = LegalActions(seat=4, fold=True, check=False, call=6, raise_min=10, raise_max=200)
RAISED = {1: 1, 2: 2, 3: 6, 4: 0}
UNOPENED = LegalActions(seat=4, fold=True, check=False, call=2, raise_min=4, raise_max=200)
BLINDS = {1: 1, 2: 2, 4: 0}


def test_tag_folds_72o_facing_a_raise_and_reraises_aces() -> None:
    brain = TagBrain(1)
    assert brain.choose(_view("7c2d", "", RAISED, pot=9), FACING_RAISE) == Fold()
    action = brain.choose(_view("AsAh", "", RAISED, pot=9), FACING_RAISE)
    assert isinstance(action, RaiseTo)
    assert FACING_RAISE.allows(action)
    assert action.amount >= 3 * 6  # a real re-raise, not the minimum


def test_tag_opens_strong_hands_with_a_raise_and_folds_trash_unopened() -> None:
    brain = TagBrain(2)
    opened = brain.choose(_view("AsKs", "", BLINDS, pot=3), UNOPENED)
    assert opened == RaiseTo(6)  # three big blinds
    assert brain.choose(_view("9c4d", "", BLINDS, pot=3), UNOPENED) == Fold()
    big_blind = LegalActions(seat=4, fold=False, check=True, call=None, raise_min=4, raise_max=200)
    limped = {1: 2, 2: 2, 4: 2}
    assert brain.choose(_view("9c4d", "", limped, pot=6), big_blind) == Check()


def test_tag_postflop_bets_the_nuts_and_folds_air_facing_a_big_bet() -> None:
    brain = TagBrain(3)
    free = LegalActions(seat=4, fold=False, check=True, call=None, raise_min=2, raise_max=180)
    set_of_aces = brain.choose(_view("AsAh", "Ad7c2h", {3: 0, 4: 0}, pot=20), free)
    assert isinstance(set_of_aces, RaiseTo)
    assert 2 <= set_of_aces.amount <= 20  # about two thirds of the pot
    facing = LegalActions(seat=4, fold=True, check=False, call=40, raise_min=80, raise_max=180)
    air = brain.choose(_view("3c4d", "AdKcQh", {3: 40, 4: 0}, pot=60), facing)
    assert air == Fold()
    assert brain.choose(_view("3c4d", "AdKcQh", {3: 0, 4: 0}, pot=60), free) == Check()


def test_tag_without_a_view_checks_or_folds() -> None:
    brain = TagBrain(4)
    free = LegalActions(seat=4, fold=False, check=True, call=None, raise_min=2, raise_max=180)
    assert brain.choose(None, free) == Check()
    assert brain.choose(None, FACING_RAISE) == Fold()


def test_tag_plays_only_legal_actions_in_random_hands_and_never_folds_a_free_check() -> None:
    seeds = itertools.count()
    decisions, hands = play_hands(lambda _seat: TagBrain(next(seeds)), 120, seed=5)
    assert all(hand.is_over for hand in hands)
    kinds = set()
    for _view, legal, action in decisions:
        assert legal.allows(action)  # type: ignore[arg-type]
        if legal.check:
            assert not isinstance(action, Fold)
        kinds.add(type(action))
    assert kinds == {Fold, Check, Call, RaiseTo}


def test_mixed_styles_play_legal_hands_together() -> None:
    styles = ("random", "station", "tag")
    decisions, _hands = play_hands(lambda seat: make_brain(styles[seat % 3], seat), 60, seed=8)
    assert decisions
    assert all(legal.allows(action) for _v, legal, action in decisions)  # type: ignore[arg-type]


def test_tag_decides_in_a_few_milliseconds_after_the_flop() -> None:
    brain = TagBrain(6)
    free = LegalActions(seat=4, fold=False, check=True, call=None, raise_min=2, raise_max=180)
    view = _view("Jh Th", "9h8c2d", {1: 0, 2: 0, 3: 0, 4: 0}, pot=40)
    start = time.perf_counter()
    for _ in range(50):
        action = brain.choose(view, free)
        assert free.allows(action)  # type: ignore[arg-type]
    assert (time.perf_counter() - start) / 50 < 0.05  # generous: a few ms on a quiet machine


def test_equity_against_random_hands_matches_known_values() -> None:
    rng = np.random.default_rng(7)
    aces = equity(parse_cards("AsAh"), (), 1, 20_000, rng)
    assert abs(aces - 0.852) < 0.015  # AA against one random hand: 85.2%
    trash = equity(parse_cards("7c2d"), (), 1, 20_000, rng)
    assert abs(trash - 0.346) < 0.015  # 72o: 34.6%
    nuts = equity(parse_cards("AsAh"), parse_cards("AdAc Kh"), 2, 500, rng)
    assert nuts > 0.99
    assert equity(parse_cards("7c2d"), (), 0, 10, rng) == 1.0
    with pytest.raises(ValueError, match="two hole cards"):
        equity(parse_cards("7c"), (), 1, 10, rng)


def test_preflop_table_holds_the_169_starting_hands_in_chen_order() -> None:
    assert len(PREFLOP_SCORE) == 169
    assert PREFLOP_SCORE["AA"] == 20
    assert PREFLOP_SCORE["72o"] == -1
    assert PREFLOP_SCORE["AKs"] > PREFLOP_SCORE["AKo"] > PREFLOP_SCORE["72o"]
    assert max(PREFLOP_SCORE, key=PREFLOP_SCORE.__getitem__) == "AA"
    assert hand_key(Card.parse("2d"), Card.parse("7c")) == "72o"
    assert hand_key(Card.parse("Ks"), Card.parse("As")) == "AKs"
