"""Run it twice at the table (R-HOME-4): the setting, each player's standing choice, the
question with the table's short timer, refusal and time-out falling back to one run."""

from __future__ import annotations

import random

import pytest

from feltroom.errors import IllegalAction, InvalidConfiguration
from feltroom.rules import BoardDealt, Call, Check, Fold, PotAwarded, RaiseTo, RunsChosen
from feltroom.shuffle import SeededDeckSource
from feltroom.table import (
    HandFinished,
    RunTwiceAnswered,
    RunTwiceOffered,
    RunTwiceTimedOut,
    Table,
    TableConfig,
)

CONFIG = {
    "structure": "no_limit",
    "big_blind": 2,
    "small_blind": 1,
    "money": "play",
    "exponent": 0,
    "min_buy_in": 40,
    "max_buy_in": 200,
    "first_button": "first_seated",
    "rake_percent": 5,
    "run_it_twice": True,
}


def _table(choices: dict[int, str], **changes: object) -> Table:
    table = Table(TableConfig(**{**CONFIG, **changes}), deck_source=SeededDeckSource(46))  # type: ignore[arg-type]
    for seat, choice in choices.items():
        table.sit(f"p{seat}", seat, 100, 0.0)
        table.set_run_twice(seat, choice)
    return table


def _all_in(table: Table, now: float = 1.0) -> list[object]:
    """Deal, then everyone goes all in pre-flop: the first to act shoves, the others call."""
    events: list[object] = list(table.start_hand(now))
    hand = table.hand
    assert hand is not None
    first = hand.to_act
    assert first is not None
    events += table.act(first, RaiseTo(100), now)
    while hand.to_act is not None:
        events += table.act(hand.to_act, Call(), now)
    return events


def _balanced(table: Table) -> None:
    """No chip created or lost: what came to the table is on it or went to the house."""
    assert table.brought - table.taken == table.chips_on_table() + table.rake + table.fees


def test_R_HOME_4_the_setting_is_off_by_default_and_never_at_tournament_tables() -> None:
    assert TableConfig(big_blind=2).run_it_twice is False
    with pytest.raises(InvalidConfiguration, match="run_it_twice: True is not valid at a tourn"):
        TableConfig(big_blind=2, mode="tournament", run_it_twice=True)
    with pytest.raises(InvalidConfiguration, match="run_it_twice: 'yes' is not valid"):
        TableConfig(big_blind=2, run_it_twice="yes")  # type: ignore[arg-type]
    table = _table({1: "ask", 2: "ask"}, run_it_twice=False)
    events = _all_in(table)
    assert not any(isinstance(e, RunTwiceOffered | RunsChosen) for e in events)
    assert any(isinstance(e, HandFinished) for e in events)


def test_R_HOME_4_the_standing_choice_is_checked() -> None:
    table = _table({1: "ask", 2: "ask"})
    assert table.seats[1].run_twice == "ask"
    with pytest.raises(IllegalAction, match="choices are always, ask, never"):
        table.set_run_twice(1, "sometimes")
    assert table.seats[1].run_twice == "ask"


def test_R_HOME_4_everyone_always_runs_twice_without_a_question() -> None:
    table = _table({1: "always", 2: "always", 3: "always"})
    events = _all_in(table)
    assert not any(isinstance(e, RunTwiceOffered) for e in events)
    chosen = [e for e in events if isinstance(e, RunsChosen)]
    assert [e.runs for e in chosen] == [2]
    assert sorted({e.run for e in events if isinstance(e, BoardDealt)}) == [1, 2]
    pots = [e for e in events if isinstance(e, PotAwarded)]
    assert all(len(pot.runs) == 2 for pot in pots)
    result = next(e for e in events if isinstance(e, HandFinished)).result
    assert result.rake == 12  # 5% of 300 capped at 6 big blinds: taken once, not per run
    _balanced(table)


def test_R_HOME_4_one_never_runs_once() -> None:
    table = _table({1: "always", 2: "never", 3: "ask"})
    events = _all_in(table)
    assert not any(isinstance(e, RunTwiceOffered) for e in events)
    assert [e.runs for e in events if isinstance(e, RunsChosen)] == [1]
    assert {e.run for e in events if isinstance(e, BoardDealt)} == {0}
    _balanced(table)


def test_R_HOME_4_asked_players_agree_within_the_short_timer() -> None:
    table = _table({1: "ask", 2: "always", 3: "ask"})
    events = _all_in(table, 10.0)
    (offer,) = [e for e in events if isinstance(e, RunTwiceOffered)]
    assert sorted(offer.seats) == [1, 3]
    assert offer.deadline == 10.0 + table.config.act_seconds
    assert table.next_due() == offer.deadline
    view = table.view(1)
    assert view.run_twice_deadline == offer.deadline
    assert sorted(view.run_twice_asked) == [1, 3]
    with pytest.raises(IllegalAction, match="seat 2 is not asked"):
        table.answer_run_twice(2, True, 11.0)
    assert table.answer_run_twice(1, True, 11.0) == [RunTwiceAnswered(1, True)]
    with pytest.raises(IllegalAction, match="already answered"):
        table.answer_run_twice(1, True, 11.0)
    assert table.view(1).run_twice_asked == (3,)
    events = table.answer_run_twice(3, True, 12.0)
    assert [e.runs for e in events if isinstance(e, RunsChosen)] == [2]
    assert any(isinstance(e, HandFinished) for e in events)
    assert table.hand is not None
    assert len(table.hand.second_board) == 5
    with pytest.raises(IllegalAction, match="no run-it-twice question is open"):
        table.answer_run_twice(3, True, 12.0)
    _balanced(table)


def test_R_HOME_4_a_refusal_runs_once_at_once() -> None:
    table = _table({1: "ask", 2: "ask"})
    _all_in(table)
    table.answer_run_twice(1, True, 2.0)
    events = table.answer_run_twice(2, False, 2.0)
    assert events[0] == RunTwiceAnswered(2, False)
    assert [e.runs for e in events if isinstance(e, RunsChosen)] == [1]
    assert table.hand is not None
    assert table.hand.second_board == ()
    assert all(e.runs == () for e in events if isinstance(e, PotAwarded))
    _balanced(table)


def test_R_HOME_4_no_answer_in_time_runs_once() -> None:
    table = _table({1: "ask", 2: "ask"})
    events = _all_in(table, 5.0)
    (offer,) = [e for e in events if isinstance(e, RunTwiceOffered)]
    table.answer_run_twice(2, True, 6.0)
    assert table.tick(offer.deadline - 0.5) == []
    events = table.tick(offer.deadline)
    assert events[0] == RunTwiceTimedOut((1,))
    assert [e.runs for e in events if isinstance(e, RunsChosen)] == [1]
    assert any(isinstance(e, HandFinished) for e in events)
    assert table.next_due() == float("inf") or table.next_due() > offer.deadline
    _balanced(table)


# Rules: R-HOME-4
def test_R_HOME_4_random_hands_keep_the_books_and_halve_every_contested_pot() -> None:
    """Random play at a run-it-twice table (players shoving often, random standing choices,
    answers and time-outs): after every hand the books balance and each pot run twice is two
    halves of what its rake left, the odd chip in the first."""
    rng = random.Random(46)
    table = Table(
        TableConfig(**{**CONFIG, "max_seats": 6}),  # type: ignore[arg-type]
        deck_source=SeededDeckSource(460),
    )
    for seat in range(1, 7):
        table.sit(f"p{seat}", seat, rng.randint(40, 200), 0.0)
    now, twice = 1.0, 0
    for _ in range(150):
        for seat, player in list(table.seats.items()):
            table.set_run_twice(seat, rng.choice(("always", "ask", "never", "always")))
            if player.sitting_out and player.stack > 0:
                table.sit_in(seat, now)
            elif player.stack == 0:
                table.leave(seat, now)
                table.sit(f"p{seat}", seat, rng.randint(40, 200), now)
        if not table.can_start():
            break
        table.start_hand(now)
        hand = table.hand
        assert hand is not None
        while not hand.is_over:
            now += 1.0
            if hand.runs_pending:
                asked = table.view().run_twice_asked
                if asked and rng.random() < 0.8:
                    table.answer_run_twice(rng.choice(asked), rng.random() < 0.8, now)
                else:
                    now += table.config.act_seconds
                    table.tick(now)
                continue
            seat = hand.to_act
            legal = hand.legal_actions()
            assert seat is not None
            assert legal is not None
            roll = rng.random()
            if legal.raise_max is not None and roll < 0.4:
                action: object = RaiseTo(legal.raise_max)
            elif legal.call is not None and roll < 0.9:
                action = Call()
            elif legal.check:
                action = Check()
            else:
                action = Fold()
            table.act(seat, action, now)  # type: ignore[arg-type]
        _balanced(table)
        for pot in hand.results:
            assert sum(pot.shares) == pot.amount - pot.rake
            if pot.runs:
                twice += 1
                net = pot.amount - pot.rake
                assert [sum(shares) for _, shares in pot.runs] == [net - net // 2, net // 2]
                assert len(pot.eligible) > 1
        now += 5.0
    assert twice > 10


# Rules: R-HOME-3, R-HOME-4
def test_R_HOME_3_R_HOME_4_a_straddled_pot_run_twice() -> None:
    """Both settings at one table: the straddle is posted, everyone goes all in over it, the
    board is run twice (every player chose ``always``) and the books balance."""
    table = Table(
        TableConfig(**{**CONFIG, "straddle": True}),  # type: ignore[arg-type]
        deck_source=SeededDeckSource(46),
    )
    for seat in (1, 2, 3, 4):
        table.sit(f"p{seat}", seat, 100, 0.0)
        table.set_run_twice(seat, "always")
        table.set_straddle(seat, True)
    events = _all_in(table)
    hand = table.hand
    assert hand is not None
    straddles = [f for f in hand.setup.forced if f.kind.value == "straddle"]
    assert [f.amount for f in straddles] == [4]
    assert [e.runs for e in events if isinstance(e, RunsChosen)] == [2]
    assert hand.second_board
    assert sum(1 for e in events if isinstance(e, BoardDealt) and e.run == 2) >= 1
    assert any(isinstance(e, HandFinished) for e in events)
    _balanced(table)
