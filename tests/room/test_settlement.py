"""Settlement: buy-ins, leaving, settling and voiding hands (R-BUYIN-2, R-SIT-2, R-TAX-1)."""

from __future__ import annotations

import sqlite3
from decimal import Decimal
from typing import Any

import pytest

from feltroom.room import (
    AlreadySettled,
    Cashier,
    HandOutcome,
    InsufficientFunds,
    PlayerOutcome,
    RoomError,
    Settlement,
    StackMismatch,
    TaxRule,
    audit,
)
from feltroom.store import SqlStorage


def _balance(cashier: Cashier, account: str, code: str = "PLAY") -> str:
    return str(cashier.balance(account)["balances"].get(code, "0"))


@pytest.fixture
def table(settlement: Settlement, players: tuple[str, ...]) -> str:
    settlement.open_table("t1", "PLAY")
    settlement.buy_in("t1", "alice", 1, 500)
    settlement.buy_in("t1", "bob", 2, 400)
    return "t1"


def _heads_up(hand_id: int, **extra: Any) -> HandOutcome:
    """alice (500) bets 100, bob (400) calls and loses; pot 200 less rake ``rake``."""
    rake = extra.pop("rake", 0)
    return HandOutcome(
        hand_id,
        "t1",
        (
            PlayerOutcome("alice", 1, 500, 100, 200 - rake, "As Ks", showdown=True, shown=True),
            PlayerOutcome("bob", 2, 400, 100, 0, "2c 2d", showdown=True),
        ),
        rake=rake,
        **extra,
    )


def test_buy_in_moves_chips_from_wallet_to_escrow(
    settlement: Settlement, cashier: Cashier, table: str, storage: SqlStorage
) -> None:
    assert _balance(cashier, "alice") == "500"
    seats = settlement.seats(table)
    assert {name: row.stack for name, row in seats.items()} == {"alice": 500, "bob": 400}
    report = audit(storage, shuffles=0)
    assert report["pass"], report["problems"]
    assert report["currencies"]["PLAY"]["balances"]["escrow"] == "900"


# Rules: R-BUYIN-2
def test_R_BUYIN_2_default_buy_in_is_the_whole_balance_capped_by_the_table_maximum(
    settlement: Settlement, cashier: Cashier, players: tuple[str, ...]
) -> None:
    settlement.open_table("t1", "PLAY")
    assert settlement.default_buy_in("t1", "alice", maximum=None) == 1000
    assert settlement.default_buy_in("t1", "alice", maximum=2000) == 1000
    assert settlement.default_buy_in("t1", "alice", maximum=400) == 400
    settlement.buy_in("t1", "alice", 3, 300)
    # adding chips: capped by the maximum less what is already on the table
    assert settlement.default_buy_in("t1", "alice", maximum=400) == 100
    assert settlement.default_buy_in("t1", "alice", maximum=200) == 0
    cashier.withdraw("alice", "PLAY", "700", "out")
    assert settlement.default_buy_in("t1", "alice", maximum=400) == 0


# Rules: R-BUYIN-2
def test_R_BUYIN_2_default_buy_in_counts_only_the_tables_currency(
    settlement: Settlement, cashier: Cashier, players: tuple[str, ...]
) -> None:
    settlement.open_table("usd", "USD")
    assert settlement.default_buy_in("usd", "alice", maximum=10_000) == 0
    cashier.deposit("alice", "USD", "25.50", "d1")
    assert settlement.default_buy_in("usd", "alice", maximum=10_000) == 2550
    assert settlement.default_buy_in("usd", "alice", maximum=2000) == 2000


def test_buy_in_beyond_the_wallet_is_refused_and_changes_nothing(
    settlement: Settlement, cashier: Cashier, players: tuple[str, ...]
) -> None:
    settlement.open_table("t1", "PLAY")
    with pytest.raises(InsufficientFunds, match="at most 1000"):
        settlement.buy_in("t1", "alice", 1, 1001)
    assert _balance(cashier, "alice") == "1000"
    assert settlement.seats("t1") == {}


def test_adding_chips_keeps_the_seat_and_refuses_another(
    settlement: Settlement, table: str
) -> None:
    assert settlement.buy_in(table, "alice", 1, 100).stack == 600
    with pytest.raises(RoomError, match="already sits in seat 1"):
        settlement.buy_in(table, "alice", 5, 100)


def test_leaving_returns_the_stack(
    settlement: Settlement, cashier: Cashier, table: str, storage: SqlStorage
) -> None:
    with pytest.raises(StackMismatch):
        settlement.leave(table, "alice", expected_stack=499)
    assert settlement.leave(table, "alice", expected_stack=500) == 500
    assert _balance(cashier, "alice") == "1000"
    assert "alice" not in settlement.seats(table)
    assert audit(storage, shuffles=0)["pass"]


# Rules: R-SIT-2
def test_R_SIT_2_a_released_seat_returns_its_chips_to_the_account(
    settlement: Settlement, cashier: Cashier, table: str, storage: SqlStorage
) -> None:
    hand = settlement.begin_hand(table)
    settlement.settle_hand(_heads_up(hand))
    # bob sat out too long: the runtime releases the seat; his chips go back to his account
    assert settlement.leave(table, "bob") == 300
    assert _balance(cashier, "bob") == "900"
    assert list(settlement.seats(table)) == ["alice"]
    assert audit(storage, shuffles=0)["pass"]


def test_settling_moves_rake_to_the_house_and_updates_stacks(
    settlement: Settlement, cashier: Cashier, table: str, storage: SqlStorage
) -> None:
    hand = settlement.begin_hand(table)
    result = settlement.settle_hand(_heads_up(hand, rake=10, settings={"rake_percent": 5}))
    assert dict(result.stacks) == {"alice": 590, "bob": 300}
    assert {n: r.stack for n, r in settlement.seats(table).items()} == {"alice": 590, "bob": 300}
    assert cashier.balance("house")["balances"] == {"PLAY": "10"}
    report = audit(storage, shuffles=0)
    assert report["pass"], report["problems"]
    assert report["hands_checked"] == 1


@pytest.mark.parametrize(
    ("threshold", "percent", "net_win", "withheld"),
    [
        (50, "25", 95, 11),  # 25% of 45 = 11.25 -> 11
        (50, "25", 50, 0),  # at the threshold: nothing above it
        (50, "25", 51, 0),  # 25% of 1 rounds down to 0
        (0, "30", 100, 30),
        (0, "12.5", 99, 12),  # 12.375 -> 12
        (100, "100", 150, 50),
        (0, "0", 500, 0),
        (10, "25", -20, 0),  # a loss is never taxed
    ],
)
# Rules: R-TAX-1
def test_R_TAX_1_withholding_is_a_percentage_of_the_net_win_above_the_threshold_rounded_down(
    threshold: int, percent: str, net_win: int, withheld: int
) -> None:
    assert TaxRule(threshold, Decimal(percent)).withheld(net_win) == withheld


# Rules: R-TAX-1
def test_R_TAX_1_tax_is_withheld_at_settlement_and_booked_to_the_tax_account(
    settlement: Settlement, cashier: Cashier, table: str, storage: SqlStorage
) -> None:
    hand = settlement.begin_hand(table)
    result = settlement.settle_hand(_heads_up(hand, tax=TaxRule(50, Decimal("25"))))
    # alice's net win is 100: 25% of the 50 above the threshold is 12 (12.5 rounded down)
    assert dict(result.tax) == {"alice": 12, "bob": 0}
    assert dict(result.stacks) == {"alice": 588, "bob": 300}
    assert cashier.balance("tax")["balances"] == {"PLAY": "12"}
    report = audit(storage, shuffles=0)
    assert report["pass"], report["problems"]
    assert report["currencies"]["PLAY"]["balances"]["tax"] == "12"


# Rules: R-TAX-1
def test_R_TAX_1_tax_is_off_by_default(
    settlement: Settlement, cashier: Cashier, table: str
) -> None:
    hand = settlement.begin_hand(table)
    assert dict(settlement.settle_hand(_heads_up(hand)).tax) == {"alice": 0, "bob": 0}
    assert cashier.balance("tax")["balances"] == {}


def test_a_hand_whose_money_does_not_add_up_is_refused(settlement: Settlement, table: str) -> None:
    hand = settlement.begin_hand(table)
    bad = HandOutcome(
        hand,
        "t1",
        (
            PlayerOutcome("alice", 1, 500, 100, 201, "As Ks"),
            PlayerOutcome("bob", 2, 400, 100, 0, "2c 2d"),
        ),
    )
    with pytest.raises(RoomError, match="contributions 200 must equal payouts plus rake"):
        settlement.settle_hand(bad)


def test_a_start_stack_that_disagrees_with_the_books_is_refused(
    settlement: Settlement, table: str
) -> None:
    hand = settlement.begin_hand(table)
    bad = HandOutcome(
        hand,
        "t1",
        (
            PlayerOutcome("alice", 1, 450, 100, 200, "As Ks"),
            PlayerOutcome("bob", 2, 400, 100, 0, "2c 2d"),
        ),
    )
    with pytest.raises(StackMismatch, match="the books say seat 1, stack 500"):
        settlement.settle_hand(bad)


def test_nothing_is_settled_twice(settlement: Settlement, cashier: Cashier, table: str) -> None:
    hand = settlement.begin_hand(table)
    settlement.settle_hand(_heads_up(hand, rake=4))
    with pytest.raises(AlreadySettled):
        settlement.settle_hand(_heads_up(hand, rake=4))
    with pytest.raises(AlreadySettled):
        settlement.void_hand(hand)
    assert cashier.balance("house")["balances"] == {"PLAY": "4"}


def test_a_voided_hand_leaves_every_stack_at_its_start_of_hand_value(
    settlement: Settlement, table: str, storage: SqlStorage
) -> None:
    hand = settlement.begin_hand(table)
    settlement.void_hand(hand, "table error")
    assert {n: r.stack for n, r in settlement.seats(table).items()} == {"alice": 500, "bob": 400}
    with pytest.raises(AlreadySettled):
        settlement.settle_hand(_heads_up(hand))
    assert audit(storage, shuffles=0)["pass"]


def test_unsettled_hands_are_voided_after_a_restart_and_ids_are_never_reused(
    settlement: Settlement, table: str, storage: SqlStorage, db_url: str
) -> None:
    first = settlement.begin_hand(table)
    settlement.settle_hand(_heads_up(first))
    second = settlement.begin_hand(table)  # the process dies during this hand
    assert second > first
    # a new process opens the same database
    from feltroom.store import open_storage

    again = Settlement(open_storage(db_url))
    assert again.void_unsettled() == [second]
    assert again.void_unsettled() == []
    assert {n: r.stack for n, r in again.seats(table).items()} == {"alice": 600, "bob": 300}
    # even if the newest hand row were deleted, its id would not come back
    path = db_url.removeprefix("sqlite:///")
    with sqlite3.connect(path) as raw:
        raw.execute("DELETE FROM hands WHERE hand_id = ?", (second,))
    third = again.begin_hand(table)
    assert third > second


def test_crash_safety_an_exception_mid_settlement_leaves_nothing_half_written(
    settlement: Settlement,
    cashier: Cashier,
    table: str,
    storage: SqlStorage,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from feltroom.store.sql import SqlTransaction

    hand = settlement.begin_hand(table)

    def explode(self: SqlTransaction, rows: object) -> None:
        raise RuntimeError("power cut")

    monkeypatch.setattr(SqlTransaction, "add_hand_players", explode)
    with pytest.raises(RuntimeError, match="power cut"):
        settlement.settle_hand(_heads_up(hand, rake=10, tax=TaxRule(0, Decimal(10))))
    monkeypatch.undo()
    # the rake and tax transfers, the status change and the stacks were all rolled back
    assert cashier.balance("house")["balances"] == {}  # not even the account was created
    assert cashier.balance("tax")["balances"] == {}
    assert {n: r.stack for n, r in settlement.seats(table).items()} == {"alice": 500, "bob": 400}
    with storage.transaction(write=False) as tx:
        row = tx.get_hand(hand)
        assert row is not None
        assert row.status == "started"
        assert tx.hand_players(hand) == []
    report = audit(storage, shuffles=0)
    assert report["pass"], report["problems"]
    # and the hand can still be settled, once
    settlement.settle_hand(_heads_up(hand, rake=10))
    assert cashier.balance("house")["balances"] == {"PLAY": "10"}


def test_session_fee_goes_to_the_house_off_the_stack(
    settlement: Settlement, cashier: Cashier, table: str, storage: SqlStorage
) -> None:
    assert settlement.charge_session_fee(table, "alice", 7) == 493
    assert cashier.balance("house")["balances"] == {"PLAY": "7"}
    with pytest.raises(InsufficientFunds):
        settlement.charge_session_fee(table, "bob", 401)
    assert audit(storage, shuffles=0)["pass"]


def test_settling_can_begin_the_next_hand_in_the_same_transaction(
    settlement: Settlement, table: str
) -> None:
    first = settlement.begin_hand(table)
    result = settlement.settle_hand(_heads_up(first), begin_next=True)
    assert result.next_hand_id is not None
    assert result.next_hand_id > first
    second = HandOutcome(
        result.next_hand_id,
        "t1",
        (
            PlayerOutcome("alice", 1, 600, 50, 0, "2h 3h"),
            PlayerOutcome("bob", 2, 300, 50, 100, "Ah Ad", showdown=True),
        ),
    )
    assert dict(settlement.settle_hand(second).stacks) == {"alice": 550, "bob": 350}


def test_a_group_commit_settles_all_hands_or_none(
    settlement: Settlement, cashier: Cashier, table: str, storage: SqlStorage
) -> None:
    settlement.open_table("t2", "PLAY")
    settlement.buy_in("t2", "carol", 1, 300)
    settlement.buy_in("t2", "alice", 2, 200)
    one, two = settlement.begin_hand(table), settlement.begin_hand("t2")
    good = _heads_up(one, rake=2)
    stale = HandOutcome(  # carol's start stack is wrong: the whole batch is refused
        two,
        "t2",
        (
            PlayerOutcome("carol", 1, 299, 10, 20, "As Ad"),
            PlayerOutcome("alice", 2, 200, 10, 0, "Ks Kd"),
        ),
    )
    with pytest.raises(StackMismatch):
        settlement.settle_hands([good, stale])
    assert cashier.balance("house")["balances"] == {}
    fixed = HandOutcome(
        two, "t2", (PlayerOutcome("carol", 1, 300, 10, 20, "As Ad"), stale.players[1])
    )
    results = settlement.settle_hands([good, fixed])
    assert [r.hand_id for r in results] == [one, two]
    assert cashier.balance("house")["balances"] == {"PLAY": "2"}
    report = audit(storage, shuffles=0)
    assert report["pass"], report["problems"]
    assert report["hands_checked"] == 2
