"""The double-entry ledger: transfers, accounts and currencies (R-GAME-5, R-GAME-6)."""

from __future__ import annotations

import pytest

from books import wallet_of
from feltroom.room import (
    Cashier,
    CurrencyMismatch,
    InsufficientFunds,
    Settlement,
    TransferKind,
    UnknownCurrency,
    audit,
)
from feltroom.room.ledger import (
    CURRENCIES,
    currency,
    escrow_key,
    external_key,
    new_transfer,
)
from feltroom.store import SqlStorage


def test_currencies_play_has_unit_one_and_iso_codes_two_decimals() -> None:
    assert currency("PLAY").exponent == 0
    assert currency("USD").exponent == 2
    assert currency("EUR").exponent == 2
    with pytest.raises(UnknownCurrency, match="valid: PLAY, USD"):
        currency("usd")
    assert set(CURRENCIES) >= {"PLAY", "USD", "EUR"}


def test_transfers_move_a_positive_amount_between_two_accounts() -> None:
    with pytest.raises(ValueError, match="positive"):
        new_transfer(TransferKind.DEPOSIT, "USD", "external:USD", "wallet:a:USD", 0)
    with pytest.raises(ValueError, match="two different accounts"):
        new_transfer(TransferKind.DEPOSIT, "USD", "wallet:a:USD", "wallet:a:USD", 5)
    a = new_transfer(TransferKind.DEPOSIT, "USD", "external:USD", "wallet:a:USD", 5)
    b = new_transfer(TransferKind.DEPOSIT, "USD", "external:USD", "wallet:a:USD", 5)
    assert a.transfer_id != b.transfer_id


# Rules: R-GAME-6
def test_R_GAME_6_a_table_plays_one_currency_and_never_mixes(
    settlement: Settlement, cashier: Cashier, players: tuple[str, ...], storage: SqlStorage
) -> None:
    settlement.open_table("usd-table", "USD")
    with pytest.raises(CurrencyMismatch, match="R-GAME-6"):
        settlement.open_table("usd-table", "PLAY")
    # alice holds 1000 play chips and no dollars: the play chips cannot buy into a USD table
    with pytest.raises(InsufficientFunds):
        settlement.buy_in("usd-table", "alice", 1, 100)
    cashier.deposit("alice", "USD", "2.00", "d")
    settlement.buy_in("usd-table", "alice", 1, 200)
    assert cashier.balance("alice")["balances"] == {"PLAY": "1000", "USD": "0.00"}
    report = audit(storage, shuffles=0)
    assert report["pass"], report["problems"]
    assert report["currencies"]["USD"]["balances"]["escrow"] == "2.00"
    assert report["currencies"]["PLAY"]["balances"]["wallet"] == "3000"


# Rules: R-GAME-6
def test_R_GAME_6_the_store_refuses_a_transfer_across_currencies(
    cashier: Cashier, players: tuple[str, ...], storage: SqlStorage
) -> None:
    cashier.deposit("alice", "USD", "5", "d")
    crossing = new_transfer(
        TransferKind.DEPOSIT, "PLAY", external_key("PLAY"), wallet_of(storage, "alice", "USD"), 5
    )
    with pytest.raises(CurrencyMismatch), storage.transaction() as tx:
        tx.post_transfer(crossing)
    assert cashier.balance("alice")["balances"] == {"PLAY": "1000", "USD": "5.00"}


def test_no_account_but_external_goes_negative(
    settlement: Settlement, players: tuple[str, ...], storage: SqlStorage
) -> None:
    settlement.open_table("t", "PLAY")
    overdraw = new_transfer(
        TransferKind.CASH_OUT, "PLAY", escrow_key("t"), wallet_of(storage, "alice", "PLAY"), 1
    )
    with pytest.raises(InsufficientFunds), storage.transaction() as tx:
        tx.post_transfer(overdraw)
    assert audit(storage, shuffles=0)["pass"]
