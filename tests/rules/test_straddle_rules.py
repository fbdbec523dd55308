"""The straddle in the engine (R-HOME-3): the straddle counts as the current bet and its size as
the last full raise (R-NL-1, R-PL-1); replays of real hands that follow PokerKit's reading (the
straddle's increment) say so with ``straddle_full_raise=False``."""

from __future__ import annotations

import pytest

from feltroom.cards import CARDS
from feltroom.errors import IllegalAction
from feltroom.rules import Forced, ForcedBet, Hand, NoLimit, PotLimit, RaiseTo


def _straddled(structure: NoLimit | PotLimit, *, full: bool = True) -> Hand:
    """Five players, blinds 1/2, seat 3 straddles 4; seat 4 is first to act."""
    forced = [
        ForcedBet(1, Forced.SMALL_BLIND, 1),
        ForcedBet(2, Forced.BIG_BLIND, 2),
        ForcedBet(3, Forced.STRADDLE, 4),
    ]
    players = [(seat, 200) for seat in range(1, 6)]
    return Hand(structure, players, 5, forced, list(CARDS), straddle_full_raise=full)


# Rules: R-HOME-3, R-NL-1
def test_R_HOME_3_no_limit_minimum_raise_is_twice_the_straddle() -> None:
    hand = _straddled(NoLimit(2))
    options = hand.legal_actions()
    assert options is not None
    assert (options.seat, options.call, options.raise_min, options.raise_max) == (4, 4, 8, 200)
    with pytest.raises(IllegalAction, match="8"):
        hand.act(RaiseTo(7))
    assert hand.to_act == 4  # refused: nothing changed
    hand.act(RaiseTo(8))
    options = hand.legal_actions()
    assert options is not None
    assert options.raise_min == 12  # the raise of 4 over the straddle is the next full raise


# Rules: R-HOME-3, R-PL-1
def test_R_HOME_3_pot_limit_minimum_raise_is_twice_the_straddle() -> None:
    hand = _straddled(PotLimit(2))
    options = hand.legal_actions()
    assert options is not None
    # pot after calling: 1 + 2 + 4 + 4 = 11; the maximum raise is to 4 + 11 = 15
    assert (options.call, options.raise_min, options.raise_max) == (4, 8, 15)


# Rules: R-HOME-3
def test_R_HOME_3_straddler_acts_last_before_the_flop_and_may_raise() -> None:
    hand = _straddled(NoLimit(2))
    for seat in (4, 5, 1, 2):
        assert hand.to_act == seat
        hand.check_or_call()
    assert hand.to_act == 3
    assert hand.street == 0
    options = hand.legal_actions()
    assert options is not None
    assert options.check
    assert options.raise_min == 8
    hand.act(RaiseTo(8), 3)
    assert hand.to_act == 4


# Rules: R-HOME-3
def test_R_HOME_3_pokerkit_reading_for_recorded_hands() -> None:
    """The PHH corpus and PokerKit take the straddle's increment over the big blind as the
    raise size (a raise to 6); the setup keeps the choice, so a replay reproduces it."""
    hand = _straddled(NoLimit(2), full=False)
    options = hand.legal_actions()
    assert options is not None
    assert options.raise_min == 6
    hand.act(RaiseTo(6))
    assert not hand.setup.straddle_full_raise
    again = Hand.replay(hand.setup, hand.log)
    assert again.legal_actions() == hand.legal_actions()
    assert _straddled(NoLimit(2)).setup.straddle_full_raise
