"""The straddle at the table (R-HOME-3): the setting, the standing toggle, who may straddle,
and the minimum raise over it in No-Limit and Pot-Limit."""

from __future__ import annotations

import pytest

from feltroom.errors import IllegalAction, InvalidConfiguration
from feltroom.rules import Fold, Forced, ForcedBet, Hand, RaiseTo
from feltroom.shuffle import SeededDeckSource
from feltroom.table import HandStarted, Table, TableConfig, TableEvent, preset

# Play money, blinds 1/2, no time bank.
PLAY = {
    "money": "play",
    "exponent": 0,
    "min_buy_in": 40,
    "max_buy_in": 1000,
    "time_bank_seconds": 0,
    "big_blind": 2,
    "small_blind": 1,
}


def table(name: str = "dead_nl_1_2", **changes: object) -> Table:
    return Table(preset(name, **{**PLAY, **changes}), deck_source=SeededDeckSource(7))


def _straddle_table(n: int = 5, name: str = "dead_nl_1_2", **changes: object) -> Table:
    """``n`` players in seats 1..n, the button on seat 1 (first seated): small blind 2, big
    blind 3, the first player after the big blind in seat 4."""
    t = table(name, first_button="first_seated", straddle=True, **changes)
    for seat in range(1, n + 1):
        t.sit(f"p{seat}", seat, 100, 0.0)
    return t


def _hand(t: Table) -> Hand:
    assert t.hand is not None
    return t.hand


def _straddles(hand: Hand) -> list[ForcedBet]:
    return [f for f in hand.setup.forced if f.kind is Forced.STRADDLE]


def _fold_out(t: Table) -> None:
    hand = _hand(t)
    while not hand.is_over:
        seat = hand.to_act
        assert seat is not None
        t.act(seat, Fold(), 0.0)


def _chips(t: Table) -> int:
    return sum(seat.stack for seat in t.seats.values()) + t.rake


# Rules: R-HOME-3
def test_R_HOME_3_setting_default_off_never_fixed_limit_heads_up_or_tournament() -> None:
    assert TableConfig(big_blind=2).straddle is False
    assert TableConfig(big_blind=2, straddle=True).straddle is True
    assert preset("pl_25_50", straddle=True).straddle is True
    with pytest.raises(InvalidConfiguration, match=r"straddle: True .* fixed-limit .* False"):
        TableConfig(structure="fixed_limit", lower=4, straddle=True)
    with pytest.raises(InvalidConfiguration, match=r"straddle: True .* heads-up .* False"):
        TableConfig(big_blind=2, max_seats=2, straddle=True)
    with pytest.raises(InvalidConfiguration, match=r"straddle: True .* tournament .* False"):
        TableConfig(big_blind=2, mode="tournament", straddle=True)
    with pytest.raises(InvalidConfiguration, match=r"straddle: 'yes' .* True, False"):
        TableConfig(big_blind=2, straddle="yes")  # type: ignore[arg-type]


# Rules: R-HOME-3
def test_R_HOME_3_toggle_refused_where_the_table_does_not_allow_it() -> None:
    t = table(first_button="first_seated")
    for seat in (1, 2, 3, 4):
        t.sit(f"p{seat}", seat, 100, 0.0)
    with pytest.raises(IllegalAction, match="does not allow straddles"):
        t.set_straddle(4, True)
    assert t.seats[4].straddle is False
    t.set_straddle(4, False)  # turning it off is always accepted
    t.start_hand(0.0)
    assert _straddles(_hand(t)) == []


# Rules: R-HOME-3, R-NL-1
def test_R_HOME_3_first_seat_after_the_big_blind_straddles_no_limit() -> None:
    t = _straddle_table()
    t.set_straddle(4, True)
    t.set_straddle(5, True)  # not first after the big blind: never straddles
    before = _chips(t)
    events: list[TableEvent] = t.start_hand(0.0)
    hand = _hand(t)
    assert _straddles(hand) == [ForcedBet(4, Forced.STRADDLE, 4)]  # one straddle only
    started = next(e for e in events if isinstance(e, HandStarted))
    assert ForcedBet(4, Forced.STRADDLE, 4) in started.forced
    options = hand.legal_actions()
    assert options is not None
    assert (options.seat, options.call, options.raise_min) == (5, 4, 8)
    with pytest.raises(IllegalAction):
        t.act(5, RaiseTo(6), 0.0)
    for seat in (5, 1, 2, 3):
        t.act(seat, Fold(), 0.0)
    assert hand.is_over  # the straddler wins the blinds
    assert t.seats[4].stack == 103
    assert _chips(t) == before  # no chip created or lost


# Rules: R-HOME-3, R-PL-1
def test_R_HOME_3_minimum_raise_over_the_straddle_pot_limit() -> None:
    t = _straddle_table(name="pl_25_50")
    t.set_straddle(4, True)
    t.start_hand(0.0)
    hand = _hand(t)
    assert _straddles(hand) == [ForcedBet(4, Forced.STRADDLE, 4)]
    options = hand.legal_actions()
    assert options is not None
    assert (options.call, options.raise_min, options.raise_max) == (4, 8, 15)
    t.act(5, RaiseTo(8), 0.0)


# Rules: R-HOME-3
def test_R_HOME_3_no_straddle_with_a_post_owed() -> None:
    t = table(first_button="first_seated", straddle=True)
    for seat in (1, 2, 3, 4, 6):
        t.sit(f"p{seat}", seat, 100, 0.0)
    t.start_hand(0.0)
    _fold_out(t)
    t.sit("p5", 5, 100, 1.0)  # a new player: posts to come in (R-ENTRY-1)
    t.set_straddle(5, True)
    t.set_straddle(6, True)
    t.start_hand(1.0)
    hand = _hand(t)
    assert t.plan is not None
    assert t.plan.big == 4
    assert ForcedBet(5, Forced.POST, 2) in hand.setup.forced
    assert _straddles(hand) == []  # seat 5 owes its post; seat 6 is not first after the big blind


# Rules: R-HOME-3
def test_R_HOME_3_more_than_two_big_blinds_needed() -> None:
    t = table(first_button="first_seated", straddle=True, min_buy_in=1)
    for seat, chips in ((1, 100), (2, 100), (3, 100), (4, 4), (5, 100)):
        t.sit(f"p{seat}", seat, chips, 0.0)
    t.set_straddle(4, True)
    t.start_hand(0.0)
    assert _straddles(_hand(t)) == []  # 4 chips: exactly two big blinds
    _fold_out(t)
    t2 = table(first_button="first_seated", straddle=True, min_buy_in=1)
    for seat, chips in ((1, 100), (2, 100), (3, 100), (4, 5), (5, 100)):
        t2.sit(f"p{seat}", seat, chips, 0.0)
    t2.set_straddle(4, True)
    t2.start_hand(0.0)
    assert _straddles(_hand(t2)) == [ForcedBet(4, Forced.STRADDLE, 4)]


# Rules: R-HOME-3
def test_R_HOME_3_never_heads_up_nor_from_the_button() -> None:
    t = _straddle_table(n=2, max_seats=3)
    t.set_straddle(1, True)
    t.set_straddle(2, True)
    t.start_hand(0.0)
    assert _straddles(_hand(t)) == []  # heads-up
    three = _straddle_table(n=3)
    three.set_straddle(1, True)  # three-handed the first player after the big blind is the button
    three.start_hand(0.0)
    assert _straddles(_hand(three)) == []


# Rules: R-HOME-3, R-BUTTON-3
def test_R_HOME_3_dead_button_first_seat_after_the_big_blind() -> None:
    t = _straddle_table(n=4)
    t.start_hand(0.0)
    _fold_out(t)
    t.leave(2, 1.0)  # last hand's small blind leaves: the button is dead on seat 2 next hand
    t.set_straddle(1, True)
    t.start_hand(1.0)
    plan = t.plan
    assert plan is not None
    assert (plan.button, plan.big) == (2, 4)
    assert 2 not in t.seats
    hand = _hand(t)
    assert _straddles(hand) == [ForcedBet(1, Forced.STRADDLE, 4)]
    assert hand.to_act == 3  # the small blind acts first, the straddler last
