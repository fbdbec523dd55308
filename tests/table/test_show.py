"""Showing by choice and auto-muck (R-SHOW-4, R-BET-5), seats restored from the books, and seats
that empty between a blind prompt and the deal (R-BLIND-6)."""

from __future__ import annotations

import pytest

from feltroom.errors import IllegalAction
from feltroom.rules import Call, CardsMucked, CardsShown, Check, Fold
from feltroom.shuffle import SeededDeckSource
from feltroom.table import (
    BlindPrompt,
    HandStarted,
    PlayerSeated,
    SatOut,
    Table,
    TableEvent,
    preset,
)

# Play money, and no time bank (the presets have one, R-TIME-1): a turn's clock is 7 + 15 s.
PLAY = {
    "money": "play",
    "exponent": 0,
    "min_buy_in": 40,
    "max_buy_in": 1000,
    "time_bank_seconds": 0,
}


def table(**changes: object) -> Table:
    settings = {**PLAY, "big_blind": 2, "small_blind": 1, "first_button": "first_seated"}
    settings.update(changes)
    return Table(preset("dead_nl_1_2", **settings), deck_source=SeededDeckSource(7))


def seated(n: int = 3, **changes: object) -> Table:
    t = table(**changes)
    for seat in range(1, n + 1):
        t.sit(f"p{seat}", seat, 100, 0.0)
    return t


def check_down(t: Table) -> list[TableEvent]:
    """Deal and check (or call) to the showdown. With seed 7 and three players the showdown
    order is 2, 3, 1; seat 2 shows first, seat 3 has the losing hand, seat 1 wins."""
    events = t.start_hand(0.0)
    while t.in_hand:
        hand = t.hand
        assert hand is not None
        assert hand.to_act is not None
        legal = hand.legal_actions()
        assert legal is not None
        events += t.act(hand.to_act, Check() if legal.check else Call(), 0.0)
    return events


def uncontested(t: Table) -> None:
    """Seats 1 and 2 fold: the big blind, seat 3, wins without a showdown."""
    t.start_hand(0.0)
    t.act(1, Fold(), 0.0)
    t.act(2, Fold(), 0.0)
    assert not t.in_hand


def faces(events: list[TableEvent]) -> list[tuple[str, int]]:
    return [(type(e).__name__, e.seat) for e in events if isinstance(e, CardsShown | CardsMucked)]


# Rules: R-SHOW-4
def test_R_SHOW_4_auto_muck_on_mucks_a_losing_hand_and_the_player_may_show_it_after() -> None:
    t = seated()
    assert all(seat.auto_muck for seat in t.seats.values())  # the default
    events = check_down(t)
    assert faces(events) == [("CardsShown", 2), ("CardsMucked", 3), ("CardsShown", 1)]
    hand = t.hand
    assert hand is not None
    assert hand.setup.show_losing == frozenset()
    # mucked at the showdown: may show after the hand, before the next deal
    shown = t.show(3, 1.0)
    assert shown == [CardsShown(3, hand.hole_cards(3))]  # type: ignore[arg-type]
    assert 3 in hand.shown
    with pytest.raises(IllegalAction, match="already shown"):
        t.show(3, 1.0)
    with pytest.raises(IllegalAction, match="already shown"):
        t.show(1, 1.0)  # the winner showed at the showdown


# Rules: R-SHOW-4
def test_R_SHOW_4_auto_muck_off_shows_the_losing_hand_at_the_showdown() -> None:
    t = seated()
    t.set_auto_muck(3, False)
    assert not t.seats[3].auto_muck
    events = check_down(t)
    assert faces(events) == [("CardsShown", 2), ("CardsShown", 3), ("CardsShown", 1)]
    hand = t.hand
    assert hand is not None
    assert hand.setup.show_losing == frozenset({3})
    # back on: it applies from the next deal
    t.set_auto_muck(3, True)
    assert t.seats[3].auto_muck
    with pytest.raises(IllegalAction, match="seat 9 is empty"):
        t.set_auto_muck(9, False)


# Rules: R-SHOW-4, R-BET-5
def test_R_SHOW_4_the_uncontested_winner_may_show() -> None:
    t = seated()
    uncontested(t)
    hand = t.hand
    assert hand is not None
    assert hand.shown == frozenset()
    events = t.show(3, 1.0)
    assert events == [CardsShown(3, hand.hole_cards(3))]  # type: ignore[arg-type]
    assert hand.shown == frozenset({3})


# Rules: R-SHOW-4
def test_R_SHOW_4_show_refused_for_a_folded_player() -> None:
    t = seated()
    uncontested(t)
    for seat in (1, 2):
        with pytest.raises(IllegalAction, match="only an uncontested winner or a player who"):
            t.show(seat, 1.0)
    hand = t.hand
    assert hand is not None
    assert hand.shown == frozenset()


# Rules: R-SHOW-4
def test_R_SHOW_4_show_refused_before_any_hand_and_while_a_hand_is_played() -> None:
    t = seated()
    with pytest.raises(IllegalAction, match="no hand has been played"):
        t.show(1, 0.0)
    t.start_hand(0.0)
    with pytest.raises(IllegalAction, match="a hand is in progress"):
        t.show(1, 0.0)
    with pytest.raises(IllegalAction, match="seat 7 is empty"):
        t.show(7, 0.0)


# Rules: R-SHOW-4
def test_R_SHOW_4_show_refused_after_the_next_deal() -> None:
    t = seated()
    uncontested(t)
    t.start_hand(1.0)
    with pytest.raises(IllegalAction, match="a hand is in progress"):
        t.show(3, 1.0)


# Rules: R-SHOW-4
def test_R_SHOW_4_a_seat_taken_since_shows_nothing_of_the_player_who_left() -> None:
    t = seated()
    uncontested(t)
    t.leave(3, 1.0)
    t.sit("newcomer", 3, 100, 1.0)
    with pytest.raises(IllegalAction, match="newcomer was not dealt into hand 1"):
        t.show(3, 1.0)
    # a player who changed seats since still shows their own cards
    t2 = seated()
    uncontested(t2)
    t2.change_seat(3, 5, 1.0)
    hand = t2.hand
    assert hand is not None
    assert t2.show(5, 1.0) == [CardsShown(3, hand.hole_cards(3))]  # type: ignore[arg-type]


def test_restore_seat_above_the_maximum_and_below_the_minimum() -> None:
    t = table()
    assert (t.config.buy_in_min, t.config.buy_in_max) == (40, 1000)
    high = t.restore_seat("rich", 1, 1500, 0.0, sitting_out=False)
    low = t.restore_seat("short", 2, 10, 0.0, sitting_out=False)
    assert high == [PlayerSeated(1, "rich", 1500, "post")]
    assert low == [PlayerSeated(2, "short", 10, "post")]
    assert (t.seats[1].stack, t.seats[2].stack) == (1500, 10)
    assert (t.seats[1].brought, t.seats[2].brought) == (1500, 10)
    assert t.brought == 1510
    assert t.chips_on_table() == t.brought
    assert t.seats[1].present
    assert t.seats[2].present
    # they play, and the table's books balance through the hand
    events = t.start_hand(0.0)
    assert any(isinstance(e, HandStarted) for e in events)
    assert t.chips_on_table() == t.brought
    while t.in_hand:
        hand = t.hand
        assert hand is not None
        assert hand.to_act is not None
        legal = hand.legal_actions()
        assert legal is not None
        t.act(hand.to_act, Check() if legal.check else Call(), 0.0)
    assert t.chips_on_table() + t.rake + t.fees + t.tax + t.taken == t.brought
    # the ordinary rules still hold afterwards: no more chips above the maximum
    with pytest.raises(IllegalAction, match="maximum buy-in"):
        t.add_chips(1, 1, 0.0)


def test_restore_seat_zero_or_sitting_out() -> None:
    t = table()
    events = t.restore_seat("broke", 3, 0, 5.0, sitting_out=False)
    assert events == [PlayerSeated(3, "broke", 0, "post"), SatOut(3, "busted")]
    assert t.seats[3].sitting_out
    assert t.seats[3].sat_out_at == 5.0
    events = t.restore_seat("away", 4, 200, 5.0, sitting_out=True)
    assert events == [PlayerSeated(4, "away", 200, "post"), SatOut(4, "restored")]
    assert t.seats[4].sitting_out
    assert t.chips_on_table() == t.brought == 200
    assert not t.can_start()


def test_restore_seat_refusals_change_nothing() -> None:
    t = table(max_seats=6)
    t.restore_seat("a", 1, 100, 0.0, sitting_out=False)
    for args, message in (
        (("b", 1, 100), "seat 1 is taken"),
        (("b", 7, 100), r"seats are 1\.\.6"),
        (("a", 2, 100), "a already has seat 1"),
        (("b", 2, -1), "zero or more"),
    ):
        account, seat, stack = args
        with pytest.raises(IllegalAction, match=message):
            t.restore_seat(str(account), int(seat), int(stack), 0.0, sitting_out=False)
    assert list(t.seats) == [1]
    assert t.brought == 100


# Rules: R-BLIND-6
def test_R_BLIND_6_a_player_leaving_or_sitting_out_while_a_blind_is_prompted_is_not_dealt_in() -> (
    None
):
    for choose in ("leave", "sit_out"):
        t = table()
        t.sit("a", 1, 100, 0.0)
        t.sit("b", 2, 100, 0.0, auto_post=False)
        t.sit("c", 3, 100, 0.0)
        t.sit("d", 4, 100, 0.0)
        assert [type(e).__name__ for e in t.start_hand(0.0)] == ["BlindPrompt"]
        events = getattr(t, choose)(4, 1.0)
        # the hand is planned again without seat 4: seat 2 is asked again
        assert any(isinstance(e, BlindPrompt) and e.seat == 2 for e in events)
        assert not t.in_hand
        t.post_blind(2, 2.0)
        hand = t.hand
        assert hand is not None
        assert t.in_hand
        assert 4 not in hand.seats
        assert t.chips_on_table() + t.taken == t.brought


# Rules: R-BLIND-6
def test_R_BLIND_6_turning_auto_post_on_answers_the_prompt() -> None:
    t = table()
    t.sit("a", 1, 100, 0.0)
    t.sit("b", 2, 100, 0.0, auto_post=False)
    t.sit("c", 3, 100, 0.0)
    t.start_hand(0.0)
    assert not t.in_hand
    assert t.set_auto_post(2, True) == []  # without ``now`` only the setting changes
    t.set_auto_post(2, False)
    events = t.set_auto_post(2, True, 1.0)
    assert any(isinstance(e, HandStarted) for e in events)
    assert t.in_hand
