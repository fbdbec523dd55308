"""The audit catches each kind of corruption, naming it; a clean database passes."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from books import wallet_of
from feltroom.room import HandOutcome, PlayerOutcome, Settlement, audit
from feltroom.store import SqlStorage


@pytest.fixture
def books(settlement: Settlement, players: tuple[str, ...], cashier: Any) -> int:
    """A table with one settled hand, some dollars deposited."""
    cashier.deposit("alice", "USD", "50", "d1")
    settlement.open_table("t1", "PLAY")
    settlement.buy_in("t1", "alice", 1, 300)
    settlement.buy_in("t1", "bob", 2, 300)
    hand = settlement.begin_hand("t1")
    settlement.settle_hand(
        HandOutcome(
            hand,
            "t1",
            (
                PlayerOutcome("alice", 1, 300, 60, 117, "As Ah", showdown=True),
                PlayerOutcome("bob", 2, 300, 60, 0, "Kc Kd", showdown=True),
            ),
            rake=3,
        )
    )
    return hand


@contextmanager
def raw(db_url: str) -> Iterator[sqlite3.Connection]:
    """A plain sqlite3 connection: no foreign keys, as a careless tool would open it."""
    connection = sqlite3.connect(db_url.removeprefix("sqlite:///"))
    try:
        yield connection
        connection.commit()
    finally:
        connection.close()


def _insert_transfer(
    connection: sqlite3.Connection,
    transfer_id: str,
    debit: str,
    credit: str,
    amount: int,
    code: str = "PLAY",
) -> None:
    connection.execute(
        "INSERT INTO transfers (transfer_id, currency, debit, credit, amount, kind, reference, "
        "created_at) VALUES (?, ?, ?, ?, ?, 'deposit', 'forged', 0)",
        (transfer_id, code, debit, credit, amount),
    )


def _problems(storage: SqlStorage) -> list[str]:
    report = audit(storage, shuffles=0)
    assert report["pass"] is (not report["problems"])
    problems: list[str] = report["problems"]
    return problems


def test_clean_books_pass(storage: SqlStorage, books: int) -> None:
    report = audit(storage, shuffles=0)
    assert report["problems"] == []
    assert report["pass"]
    assert report["hands_checked"] == 1
    assert report["currencies"]["PLAY"]["sum"] == "0"
    assert report["currencies"]["USD"] == {
        "accounts": 2,
        "sum": "0.00",
        "balances": {"external": "-50.00", "wallet": "50.00"},
    }
    assert set(report) == {
        "currencies",
        "hands_checked",
        "operator_transfers_checked",
        "tournaments",
        "problems",
        "selftest",
        "pass",
    }


def test_a_transfer_across_currencies_breaks_the_zero_sums(
    storage: SqlStorage, books: int, db_url: str
) -> None:
    alice, bob = wallet_of(storage, "alice", "USD"), wallet_of(storage, "bob", "PLAY")
    with raw(db_url) as connection:
        _insert_transfer(connection, "forged1", alice, bob, 5)
        connection.execute(f"UPDATE accounts SET balance = balance - 5 WHERE key = '{alice}'")
        connection.execute(f"UPDATE accounts SET balance = balance + 5 WHERE key = '{bob}'")
    problems = _problems(storage)
    assert any("currency PLAY: balances sum to 5 units, not zero" in p for p in problems)
    assert any("currency USD: balances sum to -5 units, not zero" in p for p in problems)
    assert any("transfer forged1 in PLAY mixes currencies" in p for p in problems)


def test_a_running_balance_edited_by_hand_is_caught(
    storage: SqlStorage, books: int, db_url: str
) -> None:
    bob = wallet_of(storage, "bob", "PLAY")
    with raw(db_url) as connection:
        connection.execute(f"UPDATE accounts SET balance = balance + 100 WHERE key = '{bob}'")
    problems = _problems(storage)
    assert any(f"account {bob}: running balance" in p for p in problems)
    assert any("currency PLAY: running balances sum to 100 units" in p for p in problems)


def test_a_hand_whose_contributions_differ_from_its_payouts_is_caught(
    storage: SqlStorage, books: int, db_url: str
) -> None:
    with raw(db_url) as connection:
        connection.execute(
            "UPDATE hand_players SET payout = payout + 1 WHERE hand_id = ? AND player = 'alice'",
            (books,),
        )
    assert _problems(storage) == [
        f"hand {books}: contributions 120 differ from payouts + rake + fees + tax 121"
    ]


def test_an_escrow_that_differs_from_the_stacks_is_caught(
    storage: SqlStorage, books: int, db_url: str
) -> None:
    with raw(db_url) as connection:
        connection.execute("UPDATE seats SET stack = stack + 7 WHERE player = 'bob'")
    assert _problems(storage) == ["table t1: escrow 597 differs from the stacks there, 604"]


def test_a_duplicated_transfer_id_is_caught(storage: SqlStorage, books: int, db_url: str) -> None:
    with raw(db_url) as connection:
        [(transfer_id,)] = connection.execute(
            "SELECT transfer_id FROM transfers WHERE kind = 'rake'"
        ).fetchall()
        with pytest.raises(sqlite3.IntegrityError):  # the database refuses it...
            _insert_transfer(connection, transfer_id, "house:PLAY", "external:PLAY", 1)
        connection.execute("DROP INDEX uq_transfers_transfer_id")  # ...unless broken first
        _insert_transfer(connection, transfer_id, "house:PLAY", "external:PLAY", 1)
        connection.execute("UPDATE accounts SET balance = balance - 1 WHERE key = 'house:PLAY'")
        connection.execute("UPDATE accounts SET balance = balance + 1 WHERE key = 'external:PLAY'")
    assert _problems(storage) == [f"transfer id {transfer_id} occurs 2 times"]


def test_a_negative_balance_and_a_non_positive_amount_are_caught(
    storage: SqlStorage, books: int, db_url: str
) -> None:
    carol = wallet_of(storage, "carol", "PLAY")
    with raw(db_url) as connection:
        connection.execute("PRAGMA ignore_check_constraints = ON")
        _insert_transfer(connection, "forged2", "house:PLAY", carol, 10)
        _insert_transfer(connection, "forged3", "external:PLAY", carol, 0)
        connection.execute("UPDATE accounts SET balance = balance - 10 WHERE key = 'house:PLAY'")
        connection.execute(f"UPDATE accounts SET balance = balance + 10 WHERE key = '{carol}'")
    problems = _problems(storage)
    assert "account house:PLAY: negative balance -7" in problems
    assert "transfer forged3: amount 0 is not positive" in problems


def test_a_transfer_to_a_missing_account_is_caught(
    storage: SqlStorage, books: int, db_url: str
) -> None:
    with raw(db_url) as connection:  # plain sqlite3 does not enforce foreign keys
        _insert_transfer(connection, "forged4", "external:PLAY", "wallet:ghost:PLAY", 9)
    problems = _problems(storage)
    assert "transfers name account wallet:ghost:PLAY, which does not exist" in problems
    assert any("forged4" in p and "none" in p for p in problems)


def test_a_failing_shuffle_self_test_fails_the_audit(storage: SqlStorage, books: int) -> None:
    def broken(n: int) -> dict[str, Any]:
        return {"shuffles": n, "tests": {}, "pass": False}

    report = audit(storage, shuffles=10, selftest=broken)
    assert not report["pass"]
    assert report["problems"] == ["shuffle self-test failed on 10 shuffles (R-RNG-2)"]


def test_R_RNG_2_the_audit_runs_the_shuffle_self_test(storage: SqlStorage, books: int) -> None:
    report = audit(storage, shuffles=2000)
    assert report["selftest"]["shuffles"] == 2000
    assert set(report["selftest"]["tests"]) == {
        "card_position",
        "first_two_cards",
        "adjacency",
        "fixed_points",
    }
    assert report["pass"] is report["selftest"]["pass"]
