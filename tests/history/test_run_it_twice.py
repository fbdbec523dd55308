"""A board run twice (R-HOME-4) in the hand's exports: the record, PokerStars text (``FIRST``
and ``SECOND`` streets, showdowns and boards, as PokerStars writes them) and its import, read
back and replayed exactly."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

import pytest

from feltroom.cards import CARDS, Card, parse_cards
from feltroom.history import ohh, ohh_import, phh, pokerstars, pokerstars_import
from feltroom.history.replay import record_from_hand, replay
from feltroom.money import Currency
from feltroom.rules import Call, Fold, Hand, NoLimit, RaiseTo, RakeRule, blinds

USD = Currency("USD", 2)


def _deck(holes: Sequence[str], board: str, second: str, shared: int) -> list[Card]:
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


def _hand(stacks: Sequence[int], deck: list[Card], rake: RakeRule | None = None) -> Hand:
    players = [(i + 1, stack) for i, stack in enumerate(stacks)]
    forced = blinds(players, len(stacks), 5, 10)
    return Hand(NoLimit(10), players, len(stacks), forced, deck, rake, run_twice=True)


def side_pots_preflop() -> Hand:
    """Three all in before the flop: a main and a side pot, each halved; 5% rake."""
    deck = _deck(["AhAd", "KsKc", "QdQc"], "2c7d9hJs3c", "Qh8c4s5d2d", 0)
    hand = _hand((2001, 5000, 9000), deck, RakeRule(Fraction(5, 100), cap=300))
    hand.act(RaiseTo(9000), 3)
    hand.act(Call(), 1)
    hand.act(Call(), 2)
    hand.run_out(2)
    return hand


def from_the_flop_with_a_single_pot() -> Hand:
    """Run twice from the turn; a side pot with one eligible player awarded once."""
    deck = _deck(["AhAd", "KsKc", "QdQc"], "2c7d9hJs3c", "Qh4d", 3)
    hand = _hand((2000, 2000, 100), deck)
    hand.act(RaiseTo(100), 3)
    hand.act(RaiseTo(500), 1)
    hand.act(Call(), 2)
    hand.act(RaiseTo(200), 1)
    hand.act(Fold(), 2)
    hand.run_out(2)
    return hand


def tie_in_one_run() -> Hand:
    """A tie in the second run, split by R-POT-1 (the odd cent to the first seat left of the
    button), and an odd cent between the runs."""
    deck = _deck(["AhAd", "KsKc"], "2c7d9hJs3c", "5c6d7s8h9c", 0)
    players = [(1, 5101), (2, 5101)]
    hand = Hand(NoLimit(10), players, 2, blinds(players, 2, 5, 10), deck, run_twice=True)
    hand.act(RaiseTo(5101), 2)
    hand.act(Call(), 1)
    hand.run_out(2)
    return hand


HANDS = [side_pots_preflop, from_the_flop_with_a_single_pot, tie_in_one_run]


def _text(hand: Hand) -> str:
    names = {seat: f"player {seat}" for seat in hand.seats}
    return pokerstars.dumps(
        hand,
        hand_id=46,
        table_name="Home",
        hero=None,
        names=names,
        currency=USD,
        show_all=True,
        seat_count=6,
    )


# Rules: R-HOME-4
@pytest.mark.parametrize("make", HANDS)
def test_R_HOME_4_the_record_replays_both_runs_exactly(make: object) -> None:
    hand = make()  # type: ignore[operator]
    record = record_from_hand(hand)
    assert record.second_board == hand.second_board
    assert len(record.board) == 5
    again = replay(record)
    assert again.boards == hand.boards
    assert again.results == hand.results
    assert again.final_stacks == hand.final_stacks


# Rules: R-HOME-4
def test_R_HOME_4_pokerstars_writes_first_and_second_streets_showdowns_and_boards() -> None:
    hand = side_pots_preflop()
    lines = _text(hand).splitlines()
    streets = [line for line in lines if line.startswith("*** ")]
    assert streets == [
        "*** HOLE CARDS ***",
        "*** FIRST FLOP *** [2c 7d 9h]",
        "*** FIRST TURN *** [2c 7d 9h] [Js]",
        "*** FIRST RIVER *** [2c 7d 9h Js] [3c]",
        "*** SECOND FLOP *** [Qh 8c 4s]",
        "*** SECOND TURN *** [Qh 8c 4s] [5d]",
        "*** SECOND RIVER *** [Qh 8c 4s 5d] [2d]",
        "*** FIRST SHOW DOWN ***",
        "*** SECOND SHOW DOWN ***",
        "*** SUMMARY ***",
    ]
    summary = lines[lines.index("*** SUMMARY ***") + 1 :]
    assert summary[1:4] == [
        "Hand was run twice",
        "FIRST Board [2c 7d 9h Js 3c]",
        "SECOND Board [Qh 8c 4s 5d 2d]",
    ]
    assert "Seat 3: player 3 (button) showed [Qd Qc] and lost with a pair of Queens, and won" in (
        "\n".join(summary)
    )
    hand = from_the_flop_with_a_single_pot()
    streets = [line for line in _text(hand).splitlines() if "TURN" in line or "FLOP" in line]
    assert streets == [
        "*** FLOP *** [2c 7d 9h]",
        "*** FIRST TURN *** [2c 7d 9h] [Js]",
        "*** SECOND TURN *** [2c 7d 9h] [Qh]",
    ]


# Rules: R-HOME-4
@pytest.mark.parametrize("make", HANDS)
def test_R_HOME_4_pokerstars_text_is_imported_and_replayed_exactly(make: object) -> None:
    hand = make()  # type: ignore[operator]
    result = pokerstars_import.loads(_text(hand))
    assert result.problems == ()
    (record,) = result.records
    assert record.second_board == hand.second_board
    again = replay(record)
    assert again.boards == hand.boards
    assert [(p.amount, p.winners, p.shares, p.runs) for p in again.results] == [
        (p.amount, p.winners, p.shares, p.runs) for p in hand.results
    ]
    assert record.rake is None or sum(record.rake.pots or ()) == hand.rake
    # written again, the text is the same
    assert _text(again) == _text(hand)


# Rules: R-HOME-4
@pytest.mark.parametrize("make", HANDS)
def test_R_HOME_4_ohh_flags_the_hand_and_reads_back_both_runs(make: object) -> None:
    hand = make()  # type: ignore[operator]
    names = {seat: f"player {seat}" for seat in hand.seats}
    document = ohh.to_dict(
        hand, hand_id=46, table_name="Home", hero=None, names=names, currency=USD, show_all=True
    )
    assert document["flags"] == ["Run_It_Twice"]
    assert ohh.validate({"ohh": document}) == []
    streets = [round_["street"] for round_ in document["rounds"]]
    assert streets[-1] == "Showdown"
    assert streets.count("River") == 2
    result = ohh_import.loads(
        ohh.dumps(
            hand, hand_id=46, table_name="Home", hero=None, names=names, currency=USD, show_all=True
        )
    )
    assert result.problems == ()
    (record,) = result.records
    assert record.second_board == hand.second_board
    again = replay(record)
    assert again.boards == hand.boards
    assert [(p.winners, p.shares, p.runs) for p in again.results] == [
        (p.winners, p.shares, p.runs) for p in hand.results
    ]


# Rules: R-HOME-4
@pytest.mark.parametrize("make", HANDS)
def test_R_HOME_4_phh_keeps_the_second_run_and_replays_exactly(make: object) -> None:
    hand = make()  # type: ignore[operator]
    text = phh.dumps(record_from_hand(hand, names=["a", "b", "c"][: len(hand.seats)]))
    assert f"_second_board = '{''.join(str(c) for c in hand.second_board)}'" in text
    record = phh.loads(text)
    assert record.second_board == hand.second_board
    again = replay(record)
    assert again.boards == hand.boards
    assert again.results == hand.results
    assert phh.dumps(record_from_hand(again, names=["a", "b", "c"][: len(hand.seats)])) == text
