"""The ``reset_stacks`` setting: every stack is set back to the table's one buy-in between hands
(play-money cash tables), for bots that assume the same stack every hand (docs/acpc.md)."""

from __future__ import annotations

import pytest

from feltroom.errors import InvalidConfiguration
from feltroom.rules import Call, Check, Fold, RaiseTo
from feltroom.shuffle import SeededDeckSource
from feltroom.table import HandFinished, SatOut, SeatReleased, StackReset, Table, TableConfig

RESET = {
    "structure": "no_limit",
    "big_blind": 100,
    "small_blind": 50,
    "money": "play",
    "exponent": 0,
    "min_buy_in": 20000,
    "max_buy_in": 20000,
    "max_seats": 2,
    "first_button": "first_seated",
    "rake_percent": 0,
    "reset_stacks": True,
}


def _table(may_reset: object = None, **changes: object) -> Table:
    config = TableConfig(**{**RESET, **changes})  # type: ignore[arg-type]
    return Table(config, deck_source=SeededDeckSource(3), may_reset=may_reset)  # type: ignore[arg-type]


def _all_in_hand(t: Table, now: float) -> list[object]:
    """Deal a hand and play it all-in pre-flop: one player ends with everything."""
    events: list[object] = list(t.start_hand(now))
    hand = t.hand
    assert hand is not None
    first = hand.to_act
    assert first is not None
    events += t.act(first, RaiseTo(hand.stack_of(first) + hand.bets[hand.seats.index(first)]), now)
    second = hand.to_act
    assert second is not None
    events += t.act(second, Call(), now)
    assert hand.is_over
    return events


def test_reset_stacks_is_play_money_cash_only_and_needs_one_buy_in() -> None:
    assert TableConfig(**RESET).reset_stacks is True  # type: ignore[arg-type]
    assert TableConfig(big_blind=2).reset_stacks is False
    with pytest.raises(InvalidConfiguration, match=r"reset_stacks: True is not valid for real"):
        TableConfig(**{**RESET, "money": "real", "exponent": 2})  # type: ignore[arg-type]
    with pytest.raises(InvalidConfiguration, match=r"one buy-in, not 2000 to 20000"):
        TableConfig(**{**RESET, "min_buy_in": 2000})  # type: ignore[arg-type]
    with pytest.raises(InvalidConfiguration, match=r"reset_stacks: 'yes' is not valid"):
        TableConfig(**{**RESET, "reset_stacks": "yes"})  # type: ignore[arg-type]


def test_after_an_all_in_both_stacks_go_back_to_the_buy_in_and_chips_are_conserved() -> None:
    t = _table()
    t.sit("ann", 1, 20000, 0.0)
    t.sit("bob", 2, 20000, 0.0)
    events = _all_in_hand(t, 1.0)
    finished = [e for e in events if isinstance(e, HandFinished)]
    resets = [e for e in events if isinstance(e, StackReset)]
    assert len(finished) == 1
    after = finished[0].result.after
    winner = max(after, key=lambda s: after[s])
    loser = min(after, key=lambda s: after[s])
    assert (after[winner], after[loser]) == (40000, 0)
    assert {(r.seat, r.before, r.stack) for r in resets} == {
        (winner, 40000, 20000),
        (loser, 0, 20000),
    }
    # the reset comes after the hand's result, and nobody is sat out as busted
    assert events.index(resets[0]) > events.index(finished[0])
    assert not [e for e in events if isinstance(e, SatOut)]
    assert {s.stack for s in t.seats.values()} == {20000}
    # every chip that came to the table is on it or went away (the room books the resets)
    assert t.chips_on_table() + t.taken + t.rake + t.fees + t.tax == t.brought
    assert t.brought == 60000
    assert t.taken == 20000
    t.start_hand(2.0)  # and the next hand deals at once, both players at the buy-in
    assert t.hand is not None
    assert not t.hand.is_over
    assert sorted(t.hand.stacks) == [19900, 19950]


def test_a_player_whose_wallet_cannot_refill_keeps_the_stack_and_is_sat_out_when_busted() -> None:
    asked: list[tuple[str, int]] = []

    def may_reset(account: str, amount: int) -> bool:
        asked.append((account, amount))
        return False

    t = _table(may_reset)
    t.sit("ann", 1, 20000, 0.0)
    t.sit("bob", 2, 20000, 0.0)
    events = _all_in_hand(t, 1.0)
    resets = [e for e in events if isinstance(e, StackReset)]
    assert [(r.before, r.stack) for r in resets] == [(40000, 20000)]  # the winner's excess goes
    assert [amount for _, amount in asked] == [20000]  # the loser's refill was refused
    busted = [e for e in events if isinstance(e, SatOut)]
    assert [e.reason for e in busted] == ["busted"]


def test_a_player_leaving_during_the_hand_takes_the_final_stack_not_the_reset_one() -> None:
    t = _table()
    t.sit("ann", 1, 20000, 0.0)
    t.sit("bob", 2, 20000, 0.0)
    t.start_hand(1.0)
    hand = t.hand
    assert hand is not None
    first = hand.to_act
    assert first is not None
    other = 2 if first == 1 else 1
    t.leave(other, 1.5)  # folded at their turn, released after the hand
    events = t.act(first, RaiseTo(300), 2.0)
    released = [e for e in events if isinstance(e, SeatReleased)]
    assert [(e.seat, e.reason) for e in released] == [(other, "left")]
    resets = [e for e in events if isinstance(e, StackReset)]
    assert [r.seat for r in resets] == [first]
    assert released[0].chips in (19900, 19950)


def test_limit_tables_reset_too_and_an_unchanged_stack_makes_no_event() -> None:
    t = _table(
        structure="fixed_limit",
        big_blind=None,
        small_blind=None,
        lower=10,
        min_buy_in=240,
        max_buy_in=240,
        uncapped_heads_up=False,
    )
    t.sit("ann", 1, 240, 0.0)
    t.sit("bob", 2, 240, 0.0)
    t.start_hand(1.0)
    hand = t.hand
    assert hand is not None
    seat = hand.to_act
    assert seat is not None
    legal = hand.legal_actions()
    assert legal is not None
    events = t.act(seat, Fold() if legal.fold else Check(), 2.0)
    resets = [e for e in events if isinstance(e, StackReset)]
    assert sorted((r.before, r.stack) for r in resets) == [(235, 240), (245, 240)]
    assert {s.stack for s in t.seats.values()} == {240}
