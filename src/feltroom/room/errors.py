"""Errors of the room: each says what was wrong and what would have been valid.

They are ``ValueError`` subclasses where the caller gave bad input, so a command line or a server
can answer "bad request" (exit code 2) and know that nothing was changed.
"""

from __future__ import annotations

from feltroom.errors import FeltroomError

__all__ = [
    "AccountSuspended",
    "AlreadySettled",
    "AuthenticationFailed",
    "CurrencyMismatch",
    "DuplicateKey",
    "IdempotencyConflict",
    "InsufficientFunds",
    "LeaseLapsed",
    "LeaseLost",
    "NotAnOperator",
    "NotAvailable",
    "NotSeated",
    "ProtectionRefused",
    "RoomError",
    "StackMismatch",
    "StaleHand",
    "StaleTurn",
    "UnknownAccount",
    "UnknownCurrency",
    "check_turn",
]


class RoomError(FeltroomError, ValueError):
    """Bad input to the room (accounts, cashier, settlement); nothing was changed."""


class UnknownCurrency(RoomError):
    """A currency code the room does not keep."""


class UnknownAccount(RoomError):
    """A player, table or ledger account that does not exist."""


class CurrencyMismatch(RoomError):
    """Money of one currency sent to an account or table of another (R-GAME-6)."""


class InsufficientFunds(RoomError):
    """A transfer would leave an account other than the external one below zero."""

    def __init__(self, account: str, balance: int, amount: int, message: str | None = None):
        super().__init__(
            message or f"account {account} holds {balance} units; cannot take {amount} units"
        )
        self.account = account
        self.balance = balance
        self.amount = amount


class IdempotencyConflict(RoomError):
    """An idempotency key reused with different details."""


class DuplicateKey(FeltroomError):
    """A storage uniqueness constraint refused a row (a key, a name or a token taken)."""


class AlreadySettled(RoomError):
    """A hand that was already settled or voided (nothing is settled twice)."""


class StackMismatch(RoomError):
    """The table's report of a stack disagrees with the books."""


class AuthenticationFailed(RoomError):
    """Wrong name or password, or an unknown or expired session token."""


class AccountSuspended(AuthenticationFailed):
    """The right password for an account the operator suspended: it cannot sign in."""


class NotAnOperator(RoomError):
    """An operator action by an account that is not an operator, or from an address the
    operator did not name."""


class NotAvailable(RoomError):
    """A hand history the requester may not see (R-HIST-1) or that does not exist."""


class NotSeated(RoomError):
    """A command for a seat the player does not have at that table."""


class StaleHand(RoomError):
    """A command that names a hand other than the one it applies to (the hand in progress, or
    for ``show`` the hand just finished): the message names both."""


class LeaseLost(RoomError):
    """A worker wrote about a table it no longer owns: its lease lapsed or was taken over, the
    fencing epoch is not the table's (docs/cluster.md). Nothing was written."""


class LeaseLapsed(LeaseLost):
    """The worker's lease on the table ran out (the database was away longer than the lease)
    but it may still be the worker's: nothing was written; the write may be tried again once
    the lease is renewed, and fails for good if another worker took the table meanwhile."""


class StaleTurn(RoomError):
    """An action that names a turn other than the one in progress (a retried or doubled
    ``act``): it is refused so that it cannot land at a later turn of the same hand."""


def check_turn(table_id: str, current: int | None, turn_id: int | None) -> None:
    """``StaleTurn`` when an action names a turn other than ``current``, the table's turn in
    progress (``None``: no turn); an action naming no turn is not checked."""
    if turn_id is not None and turn_id != current:
        now = "no turn is in progress" if current is None else f"the turn is {current}"
        raise StaleTurn(
            f"turn {turn_id} is over at table {table_id} ({now}); act on the latest turn message"
        )


class ProtectionRefused(RoomError):
    """Player protection refuses the act (issue 25): a limit it would pass, a cool-off or a
    self-exclusion running, an unverified account at real money. ``details`` says what would be
    valid (the limit, what is used, what is left)."""

    def __init__(self, message: str, details: dict[str, object] | None = None) -> None:
        super().__init__(message)
        self.details = details or {}
