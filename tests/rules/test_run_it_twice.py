"""Run it twice in the engine (R-HOME-4): the run-out decision, both runs from one deck, the
halves of each pot, the rake taken once, replay."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

import pytest

from feltroom.cards import CARDS, Card, parse_cards
from feltroom.errors import IllegalAction
from feltroom.rules import (
    BoardDealt,
    Call,
    Fold,
    Hand,
    NoLimit,
    PotAwarded,
    RaiseTo,
    RakeRule,
    RunOut,
    RunsChosen,
    blinds,
)

NL = NoLimit(2)


def twice_deck(holes: Sequence[str], board: str, second: str, shared: int = 0) -> list[Card]:
    """A deck dealing ``holes`` (position order), ``board`` as the first run's five cards and
    ``second`` as the second run's cards after the ``shared`` board cards (R-HOME-4: from
    ``2n+8``, each street after its burn)."""
    n = len(holes)
    deck: list[Card | None] = [None] * 52
    for i, hole in enumerate(holes):
        deck[i], deck[n + i] = parse_cards(hole)
    for pos, card in zip((1, 2, 3, 5, 7), parse_cards(board), strict=False):
        deck[2 * n + pos] = card
    positions = {0: (9, 10, 11, 13, 15), 3: (9, 11), 4: (9,)}[shared]
    for pos, card in zip(positions, parse_cards(second), strict=True):
        deck[2 * n + pos] = card
    used = {card for card in deck if card is not None}
    rest = [card for card in CARDS if card not in used]
    return [card if card is not None else rest.pop(0) for card in deck]


def table_hand(
    stacks: Sequence[int], deck: list[Card], rake: RakeRule | None = None, *, twice: bool = True
) -> Hand:
    """Seats 1..n, button on seat n (position i is seat i + 1), blinds 1/2."""
    players = [(i + 1, stack) for i, stack in enumerate(stacks)]
    return Hand(
        NL, players, len(stacks), blinds(players, len(stacks), 1, 2), deck, rake, run_twice=twice
    )


def awards(hand: Hand) -> list[PotAwarded]:
    return [e for e in hand.events if isinstance(e, PotAwarded)]


def all_in_heads_up(deck: list[Card], stacks: tuple[int, int] = (100, 100), **kw: object) -> Hand:
    """Heads-up (seat 1 big blind, seat 2 button and small blind): seat 2 shoves, seat 1
    calls: betting cannot continue before the flop."""
    hand = table_hand(stacks, deck, **kw)  # type: ignore[arg-type]
    hand.act(RaiseTo(stacks[1]), 2)
    hand.act(Call(), 1)
    return hand


def test_R_HOME_4_the_hand_waits_for_the_run_out_decision() -> None:
    deck = twice_deck(["AhAd", "KsKc"], "2c7d9hJs3c", "KdQh4s8c2d")
    hand = all_in_heads_up(deck)
    assert hand.runs_pending
    assert not hand.is_over
    assert hand.to_act is None
    assert hand.legal_actions() is None
    assert hand.board == []
    with pytest.raises(IllegalAction, match="run-out decision"):
        hand.act(Call(), 1)
    with pytest.raises(IllegalAction, match="1 or 2"):
        hand.run_out(3)
    assert hand.runs_pending
    assert hand.board == []
    assert len(hand.log) == 2
    before = hand.chips_in_play()
    events = hand.run_out(2)
    assert isinstance(events[0], RunsChosen)
    assert events[0].runs == 2
    runs = [(e.run, e.street) for e in events if isinstance(e, BoardDealt)]
    assert runs == [(1, 1), (1, 2), (1, 3), (2, 1), (2, 2), (2, 3)]
    assert hand.is_over
    assert hand.runs == 2
    assert [str(c) for c in hand.board] == ["2c", "7d", "9h", "Js", "3c"]
    assert [str(c) for c in hand.second_board] == ["Kd", "Qh", "4s", "8c", "2d"]
    # each run burns before each of its streets: the second run from 2n + 8
    assert hand.second_burned == (deck[12], deck[16], deck[18])
    (pot,) = awards(hand)
    # aces win the first run, the kings' set the second: 200 in halves of 100
    assert pot.runs == (((1,), (100,)), ((2,), (100,)))
    assert pot.winners == (1, 2)
    assert pot.shares == (100, 100)
    assert hand.final_stacks == (100, 100)
    assert hand.chips_in_play() == before
    with pytest.raises(IllegalAction, match="no run-out decision"):
        hand.run_out(2)


def test_R_HOME_4_no_pause_without_the_setting_nor_on_the_river() -> None:
    deck = twice_deck(["AhAd", "KsKc"], "2c7d9hJs3c", "KdQh4s8c2d")
    hand = all_in_heads_up(deck, twice=False)
    assert hand.is_over
    assert not hand.runs_pending
    assert hand.runs == 0
    assert hand.second_board == ()
    assert awards(hand)[0].runs == ()
    with pytest.raises(IllegalAction, match="no run-out decision"):
        hand.act(RunOut(2))
    # all-in on the river: nothing left to run
    hand = table_hand((100, 100), deck)
    while hand.street < 3:
        hand.check_or_call()
    hand.act(RaiseTo(98), 1)
    hand.act(Call(), 2)
    assert hand.is_over
    assert not hand.runs_pending


def test_R_HOME_4_odd_chip_to_the_first_run() -> None:
    # three players all in pre-flop for 33 each: a pot of 99
    deck = twice_deck(["AhAd", "KsKc", "6h5h"], "2c7d9hJs3c", "KdQh4s8c2d")
    hand = table_hand((33, 33, 33), deck)
    hand.act(RaiseTo(33), 3)
    hand.act(Call(), 1)
    hand.act(Call(), 2)
    assert hand.runs_pending
    hand.run_out(2)
    (pot,) = awards(hand)
    assert pot.amount == 99
    assert pot.rake == 0
    # 99 halves: 50 to the first run (aces), 49 to the second (kings)
    assert pot.runs == (((1,), (50,)), ((2,), (49,)))
    assert hand.final_stacks == (50, 49, 0)


def test_R_HOME_4_a_tie_in_one_run_is_split_by_R_POT_1() -> None:
    # second run: a straight on the board, both play it: the half is split, odd chip to the
    # first winner left of the button (seat 1)
    deck = twice_deck(["AhAd", "KsKc"], "2c7d9hJs3c", "5c6d7s8h9c")
    hand = table_hand((51, 51), deck)
    hand.act(RaiseTo(51), 2)
    hand.act(Call(), 1)
    hand.run_out(2)
    (pot,) = awards(hand)
    assert pot.amount == 102
    assert pot.runs == (((1,), (51,)), ((1, 2), (26, 25)))
    assert pot.winners == (1, 2)
    assert pot.shares == (77, 25)
    assert hand.final_stacks == (77, 25)
    assert sum(hand.final_stacks) == 102


def test_R_HOME_4_several_side_pots_each_halved() -> None:
    # seat 1 (20) < seat 2 (50) < seat 3 (100): a main pot for three and one side pot for two;
    # seat 3's excess is returned
    holes = ["AhAd", "KsKc", "QdQc"]
    # run 1: aces hold (all pots to seat 1 where eligible, side pot to kings)
    # run 2: queens make a set: seat 3 wins the main and the side pot
    deck = twice_deck(holes, "2c7d9hJs3c", "Qh8c4s5d2d")
    hand = table_hand((20, 50, 100), deck)
    hand.act(RaiseTo(100), 3)
    hand.act(Call(), 1)
    hand.act(Call(), 2)
    assert hand.runs_pending
    hand.run_out(2)
    main, side = awards(hand)
    assert (main.amount, side.amount) == (60, 60)
    assert main.runs == (((1,), (30,)), ((3,), (30,)))
    assert side.runs == (((2,), (30,)), ((3,), (30,)))
    assert hand.final_stacks == (30, 30, 110)
    assert hand.chips_in_play() == 170


def test_R_HOME_4_a_pot_with_one_eligible_player_is_not_run_twice() -> None:
    # seat 3 (button, 10 chips) all in; seats 1 and 2 go on; on the flop seat 2 folds to a
    # bet: the side pot has seat 1 alone, the main pot is run twice from the turn
    holes = ["AhAd", "KsKc", "QdQc"]
    deck = twice_deck(holes, "2c7d9hJs3c", "Qh4d", shared=3)
    hand = table_hand((200, 200, 10), deck)
    hand.act(RaiseTo(10), 3)
    hand.act(RaiseTo(50), 1)
    hand.act(Call(), 2)
    assert hand.street == 1
    assert not hand.runs_pending
    hand.act(RaiseTo(20), 1)
    hand.act(Fold(), 2)
    assert hand.runs_pending
    hand.run_out(2)
    assert [str(c) for c in hand.second_board] == ["2c", "7d", "9h", "Qh", "4d"]
    main, side = awards(hand)
    assert main.amount == 30
    assert main.runs == (((1,), (15,)), ((3,), (15,)))
    assert side.amount == 80
    assert side.runs == ()
    assert side.winners == (1,)
    assert hand.final_stacks == (245, 150, 15)


def test_R_HOME_4_rake_taken_once_before_the_halves() -> None:
    rake = RakeRule(Fraction(5, 100), cap=6)
    deck = twice_deck(["AhAd", "KsKc"], "2c7d9hJs3c", "KdQh4s8c2d")
    once = all_in_heads_up(deck, rake=rake, twice=False)
    twice = all_in_heads_up(deck, rake=rake)
    twice.run_out(2)
    (pot,) = awards(twice)
    assert twice.rake == once.rake == 6
    assert pot.rake == 6
    # 200 - 6 = 194 in halves of 97
    assert pot.runs == (((1,), (97,)), ((2,), (97,)))
    assert sum(twice.final_stacks) + twice.rake == 200


def test_R_HOME_4_refusal_runs_once() -> None:
    deck = twice_deck(["AhAd", "KsKc"], "2c7d9hJs3c", "KdQh4s8c2d")
    hand = all_in_heads_up(deck)
    events = hand.run_out(1)
    assert isinstance(events[0], RunsChosen)
    assert events[0].runs == 1
    assert [e.run for e in events if isinstance(e, BoardDealt)] == [0, 0, 0]
    assert hand.is_over
    assert hand.runs == 1
    assert hand.second_board == ()
    (pot,) = awards(hand)
    assert pot.runs == ()
    assert pot.winners == (1,)
    assert hand.final_stacks == (200, 0)


def test_R_HOME_4_replay_reproduces_both_runs() -> None:
    deck = twice_deck(["AhAd", "KsKc", "QdQc"], "2c7d9hJs3c", "Qh8c4s5d2d")
    hand = table_hand((20, 50, 100), deck)
    hand.act(RaiseTo(100), 3)
    hand.act(Call(), 1)
    hand.act(Call(), 2)
    hand.run_out(2)
    assert hand.log[-1] == (0, RunOut(2))
    assert str(RunOut(2)) == "run twice"
    again = Hand.replay(hand.setup, hand.log)
    assert again.setup.run_twice
    assert again.boards == hand.boards
    assert again.results == hand.results
    assert again.final_stacks == hand.final_stacks


def test_R_HOME_4_a_short_deck_cannot_run_twice() -> None:
    deck = twice_deck(["AhAd", "KsKc"], "2c7d9hJs3c", "KdQh4s8c2d")[:12]
    hand = all_in_heads_up(deck)
    with pytest.raises(IllegalAction, match="needs 20"):
        hand.run_out(2)
    assert hand.runs_pending
    hand.run_out(1)
    assert hand.is_over
