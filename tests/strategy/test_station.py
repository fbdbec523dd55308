"""The calling station: only legal actions, never a fold (above all not when checking is free),
rarely a raise."""

from __future__ import annotations

import itertools

import pytest

from feltroom.rules import Call, Check, Fold, LegalActions, RaiseTo
from feltroom.strategy import StationBrain

from .brains_support import play_hands


def test_station_plays_only_legal_actions_and_never_folds_in_random_hands() -> None:
    seeds = itertools.count()
    decisions, hands = play_hands(lambda _seat: StationBrain(next(seeds)), 150, seed=11)
    assert len(hands) == 150
    assert all(hand.is_over for hand in hands)
    assert len(decisions) > 300
    for _view, legal, action in decisions:
        assert legal.allows(action)  # type: ignore[arg-type]
        assert not isinstance(action, Fold)
        if legal.check and not isinstance(action, RaiseTo):
            assert action == Check()
    raises = sum(isinstance(a, RaiseTo) for _v, _l, a in decisions)
    assert 0 < raises < len(decisions) * 0.1


def test_station_checks_when_free_and_calls_a_bet_whatever_its_size() -> None:
    free = LegalActions(seat=3, fold=False, check=True, call=None, raise_min=4, raise_max=200)
    facing = LegalActions(seat=3, fold=True, check=False, call=198, raise_min=None, raise_max=None)
    brain = StationBrain(1, raise_rate=0.0)
    for _ in range(100):
        assert brain.choose(None, free) == Check()
        assert brain.choose(None, facing) == Call()
    always = StationBrain(1, raise_rate=1.0)
    assert always.choose(None, free) == RaiseTo(4)
    assert always.choose(None, facing) == Call()  # no raise is legal


def test_station_refuses_a_raise_rate_that_is_not_a_probability() -> None:
    with pytest.raises(ValueError, match="probability"):
        StationBrain(raise_rate=1.5)
