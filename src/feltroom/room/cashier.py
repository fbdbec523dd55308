"""The operator's cashier: deposits, withdrawals, play-money grants and balances.

There is no payment provider: the operator books money arriving and leaving. Each operation is
idempotent by key: the first call with a key does the work and stores its receipt in the same
transaction; a repeat with the same details returns that receipt and changes nothing; a repeat
with different details is refused (``IdempotencyConflict``). Amounts are given in major units
("12.34") and converted exactly (``feltroom.money``): an amount finer than the currency's unit is
refused, never rounded.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from feltroom.money import format_units, to_units
from feltroom.room.errors import (
    DuplicateKey,
    IdempotencyConflict,
    InsufficientFunds,
    RoomError,
    UnknownAccount,
)
from feltroom.room.ledger import (
    AccountKind,
    TransferKind,
    currency,
    ensure_system_account,
    ensure_wallet,
    new_transfer,
    player_owner,
)
from feltroom.room.protection import check_deposit
from feltroom.room.storage import OperationRow, Storage, Transaction

__all__ = ["SYSTEM_ACCOUNTS", "Cashier", "parse_amount"]

SYSTEM_ACCOUNTS = ("house", "tax", "external")
"""Names ``balance`` accepts besides players': the room's own accounts, per currency."""

_KINDS = {
    "deposit": TransferKind.DEPOSIT,
    "withdraw": TransferKind.WITHDRAWAL,
    "grant": TransferKind.GRANT,
}


def parse_amount(amount: str | Decimal | int, code: str) -> int:
    """A positive amount in major units as integer units, or ``RoomError`` saying what is valid."""
    unit_currency = currency(code)
    try:
        units = to_units(amount, unit_currency)
    except ValueError as error:
        raise RoomError(f"{error}; {code} amounts are multiples of {unit_currency.unit}") from None
    if units <= 0:
        raise RoomError(f"the amount must be positive, at least {unit_currency.unit} {code}")
    return units


class Cashier:
    """Moves money between the outside world (the external account) and players' wallets."""

    def __init__(self, storage: Storage, clock: Callable[[], float] = time.time) -> None:
        self.storage = storage
        self.clock = clock

    def deposit(
        self, account: str, code: str, amount: str | Decimal | int, key: str
    ) -> dict[str, Any]:
        """Book money arriving for a player (external -> wallet). Refused (``ProtectionRefused``)
        during the player's cool-off or self-exclusion and over their deposit limits."""
        return self._operate("deposit", account, code, amount, key)

    def withdraw(
        self, account: str, code: str, amount: str | Decimal | int, key: str
    ) -> dict[str, Any]:
        """Book money paid out to a player (wallet -> external); never beyond the balance."""
        return self._operate("withdraw", account, code, amount, key)

    def grant(self, account: str, amount: str | Decimal | int, key: str) -> dict[str, Any]:
        """Give a player play chips (external PLAY -> wallet)."""
        return self._operate("grant", account, "PLAY", amount, key)

    def balance(self, account: str) -> dict[str, Any]:
        """A player's wallets, or a system account's balances (house, tax, external), per
        currency in major units."""
        with self.storage.transaction(write=False) as tx:
            if account in SYSTEM_ACCOUNTS:
                rows = tx.accounts_of(account)
            else:
                _require_player(tx, account)
                owner = player_owner(tx, account)
                rows = [row for row in tx.accounts_of(owner) if row.kind == "wallet"]
        balances = {
            row.currency: format_units(row.balance, currency(row.currency))
            for row in sorted(rows, key=lambda row: row.currency)
        }
        return {"account": account, "balances": balances}

    def _operate(
        self, operation: str, account: str, code: str, amount: str | Decimal | int, key: str
    ) -> dict[str, Any]:
        currency(code)
        if operation == "grant" and code != "PLAY":
            raise RoomError(f"grants are play money only (PLAY), not {code}")
        units = parse_amount(amount, code)
        if not key or len(key) > 200:
            raise RoomError("an idempotency key of 1 to 200 characters is required")
        details = {"account": account, "currency": code, "amount": units}
        for _attempt in range(3):
            try:
                with self.storage.transaction() as tx:
                    done = tx.get_operation(operation, key)
                    if done is not None:
                        return _repeat(operation, key, done, details)
                    receipt = self._book(tx, operation, account, code, units, key)
                    tx.add_operation(
                        OperationRow(operation, key, json.dumps(details), json.dumps(receipt))
                    )
                    return {**receipt, "repeated": False}
            except DuplicateKey:
                continue  # another process booked this key meanwhile: read its receipt
        raise RoomError(f"the {operation} with key {key!r} could not be completed; try again")

    def _book(
        self, tx: Transaction, operation: str, account: str, code: str, units: int, key: str
    ) -> dict[str, Any]:
        unit_currency = currency(code)
        _require_player(tx, account)
        wallet = ensure_wallet(tx, account, code)
        external = ensure_system_account(tx, AccountKind.EXTERNAL, code)
        kind = _KINDS[operation]
        if kind is TransferKind.WITHDRAWAL:
            if wallet.balance < units:
                raise InsufficientFunds(
                    wallet.key,
                    wallet.balance,
                    units,
                    f"{account} holds {format_units(wallet.balance, unit_currency)} {code}; "
                    f"cannot withdraw {format_units(units, unit_currency)} {code} "
                    f"(at most {format_units(wallet.balance, unit_currency)})",
                )
            debit, credit = wallet.key, external.key
        else:
            if kind is TransferKind.DEPOSIT:
                check_deposit(tx, account, code, units, self.clock())
            debit, credit = external.key, wallet.key
        transfer = new_transfer(
            kind, code, debit, credit, units, f"{operation}:{key}", self.clock()
        )
        tx.post_transfer(transfer)
        after = tx.get_account(wallet.key)
        assert after is not None
        return {
            "operation": operation,
            "key": key,
            "account": account,
            "currency": code,
            "amount": format_units(units, unit_currency),
            "transfer_id": transfer.transfer_id,
            "balance": format_units(after.balance, unit_currency),
        }


def _repeat(
    operation: str, key: str, done: OperationRow, details: dict[str, Any]
) -> dict[str, Any]:
    original = json.loads(done.details)
    if original != details:
        amount = format_units(original["amount"], currency(original["currency"]))
        raise IdempotencyConflict(
            f"the key {key!r} was already used for a {operation} with different details "
            f"(account {original['account']}, {amount} {original['currency']}); "
            "repeat those exactly or use a new key"
        )
    receipt: dict[str, Any] = json.loads(done.result)
    return {**receipt, "repeated": True}


def _require_player(tx: Transaction, account: str) -> None:
    if tx.get_user(account) is None:
        raise UnknownAccount(
            f"no player account named {account!r} (names are case-sensitive; "
            f"the room's own accounts are {', '.join(SYSTEM_ACCOUNTS)})"
        )
