"""The player's current hand in words (``hand_strength``): built by the server's evaluator, so
the browser client shows it without evaluating anything itself."""

from __future__ import annotations

from feltroom.cards import parse_cards
from feltroom.evaluate import evaluate
from feltroom.server.wire import describe_hand


def test_before_the_flop_two_cards_name_a_pair_or_the_high_card() -> None:
    assert describe_hand(parse_cards("KhKs"), []) == "One Pair, Kings"
    assert describe_hand(parse_cards("7c Ad"), []) == "High Card, Ace"


def test_from_the_flop_the_words_are_the_evaluators_best_five() -> None:
    hole, board = parse_cards("KhKs"), parse_cards("7c 7d 2s")
    assert describe_hand(hole, board) == "Two Pair, Kings and Sevens"
    board7 = parse_cards("7c 7d 2s Kd 9h")
    assert describe_hand(hole, board7) == evaluate([*hole, *board7]).description


def test_unknown_hole_cards_have_no_words() -> None:
    assert describe_hand([None, None], parse_cards("7c 7d 2s")) is None
