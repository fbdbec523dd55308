"""A player's statistics (VPIP, PFR, AF, WTSD) against figures counted by hand on fixed hands."""

from __future__ import annotations

import pytest

from feltroom.integrity import StatsTally, played
from feltroom.rules import Call, Fold, RaiseTo

from .build import stored_hand
from .scenes import BOARD, MIDDLE, STRONG, WEAK
from .stats_scenes import EXPECTED, stats_hands


@pytest.mark.parametrize("player", sorted(EXPECTED))
def test_the_figures_match_the_hand_count(player: str) -> None:
    tally = StatsTally(player).add_all(played(hand) for hand in stats_hands())
    assert tally.figures() == EXPECTED[player]


def test_a_player_without_hands_has_no_percentages() -> None:
    figures = StatsTally("dave").add_all(played(hand) for hand in stats_hands()).figures()
    assert figures["hands"] == 0
    assert figures["vpip"] is None
    assert figures["pfr"] is None
    assert figures["af"] is None
    assert figures["wtsd"] is None


def test_an_all_in_before_the_flop_sees_the_flop_and_the_showdown() -> None:
    hand = stored_hand(
        7,
        [("alice", 50, STRONG), ("bob", 50, MIDDLE), ("carol", 50, WEAK)],
        BOARD,
        [("alice", RaiseTo(50)), ("bob", Fold()), ("carol", Call())],
    )
    alice = StatsTally("alice").add_all([played(hand)]).figures()
    carol = StatsTally("carol").add_all([played(hand)]).figures()
    assert alice["counts"] == {"vpip": 1, "pfr": 1, "bets": 0, "raises": 0, "calls": 0,
                               "saw_flop": 1, "showdowns": 1}  # fmt: skip
    assert carol["vpip"] == 100.0
    assert carol["pfr"] == 0.0
    assert carol["wtsd"] == 100.0
    bob = StatsTally("bob").add_all([played(hand)]).figures()
    assert bob["vpip"] == 0.0
    assert bob["wtsd"] is None
