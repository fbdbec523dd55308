"""The cashier: deposits, withdrawals, grants and balances, idempotent by key."""

from __future__ import annotations

import pytest

from feltroom.room import (
    Accounts,
    Cashier,
    IdempotencyConflict,
    InsufficientFunds,
    RoomError,
    UnknownAccount,
    UnknownCurrency,
    audit,
)
from feltroom.store import SqlStorage


@pytest.fixture
def alice(accounts: Accounts) -> str:
    return accounts.sign_up("alice", "correct horse")


def test_deposit_withdraw_and_balance(cashier: Cashier, alice: str, storage: SqlStorage) -> None:
    receipt = cashier.deposit(alice, "USD", "12.34", "d1")
    assert receipt["amount"] == "12.34"
    assert receipt["balance"] == "12.34"
    assert not receipt["repeated"]
    assert cashier.withdraw(alice, "USD", "2.30", "w1")["balance"] == "10.04"
    cashier.deposit(alice, "EUR", "5", "d2")
    assert cashier.balance(alice) == {
        "account": "alice",
        "balances": {"EUR": "5.00", "USD": "10.04"},
    }
    assert cashier.balance("external")["balances"] == {"EUR": "-5.00", "USD": "-10.04"}
    assert audit(storage, shuffles=0)["pass"]


def test_idempotency_a_repeated_key_does_the_work_once(cashier: Cashier, alice: str) -> None:
    first = cashier.deposit(alice, "USD", "10", "pay-1")
    again = cashier.deposit(alice, "USD", "10.00", "pay-1")
    assert again["repeated"]
    assert again["transfer_id"] == first["transfer_id"]
    assert cashier.balance(alice)["balances"] == {"USD": "10.00"}


def test_idempotency_a_reused_key_with_other_details_is_refused(
    cashier: Cashier, alice: str
) -> None:
    cashier.deposit(alice, "USD", "10", "pay-1")
    with pytest.raises(IdempotencyConflict, match=r"alice, 10\.00 USD"):
        cashier.deposit(alice, "USD", "11", "pay-1")
    with pytest.raises(IdempotencyConflict):
        cashier.deposit(alice, "EUR", "10", "pay-1")
    assert cashier.balance(alice)["balances"] == {"USD": "10.00"}


def test_idempotency_keys_are_unique_per_operation(cashier: Cashier, alice: str) -> None:
    cashier.deposit(alice, "USD", "10", "k")
    cashier.withdraw(alice, "USD", "4", "k")  # same key, another operation
    assert cashier.balance(alice)["balances"] == {"USD": "6.00"}
    assert cashier.withdraw(alice, "USD", "4", "k")["repeated"]
    assert cashier.balance(alice)["balances"] == {"USD": "6.00"}


def test_bad_input_is_refused_naming_what_is_valid_and_changes_nothing(
    cashier: Cashier, alice: str
) -> None:
    cashier.deposit(alice, "USD", "10", "d")
    with pytest.raises(UnknownCurrency, match="valid: PLAY, USD, EUR"):
        cashier.deposit(alice, "XYZ", "1", "x1")
    with pytest.raises(RoomError, match=r"finer than the smallest unit 0\.01"):
        cashier.deposit(alice, "USD", "0.005", "x2")
    with pytest.raises(RoomError, match="finer than the smallest unit 1"):
        cashier.deposit(alice, "PLAY", "2.5", "x3")
    with pytest.raises(RoomError, match="must be positive"):
        cashier.deposit(alice, "USD", "-3", "x4")
    with pytest.raises(RoomError, match="write it like"):
        cashier.deposit(alice, "USD", "ten", "x5")
    with pytest.raises(UnknownAccount, match="no player account named 'bob'"):
        cashier.deposit("bob", "USD", "1", "x6")
    with pytest.raises(InsufficientFunds, match=r"at most 10\.00"):
        cashier.withdraw(alice, "USD", "10.01", "x7")
    with pytest.raises(RoomError, match="play money only"):
        cashier._operate("grant", alice, "USD", "1", "x8")
    assert cashier.balance(alice)["balances"] == {"USD": "10.00"}
    # none of the refused keys was used up
    assert cashier.deposit(alice, "USD", "1", "x7")["balance"] == "11.00"


def test_play_money_grants(cashier: Cashier, alice: str, storage: SqlStorage) -> None:
    cashier.grant(alice, 1000, "welcome")
    cashier.grant(alice, "500", "reload-1")
    assert cashier.balance(alice)["balances"] == {"PLAY": "1500"}
    report = audit(storage, shuffles=0)
    assert report["currencies"]["PLAY"]["balances"] == {"external": "-1500", "wallet": "1500"}
